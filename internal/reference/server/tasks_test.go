package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

func TestTasks(t *testing.T) {
	c := startStdio(t, newTestServer(t, Options{PageSize: 1}))
	c.initialize(spec.V20251125, map[string]any{"tasks": map[string]any{}})

	// taskSupport: forbidden tools refuse tasks, required ones plain calls.
	if code, _, _ := c.callErr("tools/call", map[string]any{"name": "test_simple_text", "task": map[string]any{}}); code != jsonrpc.MethodNotFound {
		t.Errorf("task on a forbidden tool: code %d", code)
	}
	if code, _, _ := c.callErr("tools/call", map[string]any{"name": "ref_task_required"}); code != jsonrpc.MethodNotFound {
		t.Errorf("plain call of a task-required tool: code %d", code)
	}

	create := func(args map[string]any) string {
		res, _ := c.call("tools/call", map[string]any{"name": "ref_task_required", "arguments": args, "task": map[string]any{"ttl": 60000}})
		var r struct {
			Task struct {
				TaskID        string `json:"taskId"`
				Status        string `json:"status"`
				CreatedAt     string `json:"createdAt"`
				LastUpdatedAt string `json:"lastUpdatedAt"`
				TTL           *int64 `json:"ttl"`
			} `json:"task"`
		}
		mustJSON(t, res, &r)
		if r.Task.Status != "working" || len(r.Task.TaskID) < 32 || r.Task.CreatedAt == "" || r.Task.LastUpdatedAt == "" || r.Task.TTL == nil || *r.Task.TTL != 60000 {
			t.Fatalf("CreateTaskResult: %s", res)
		}
		return r.Task.TaskID
	}
	// tasks/result blocks until completion and returns the tool result
	// with the related-task _meta.
	id := create(map[string]any{"ms": 20})
	res, _ := c.call("tasks/result", map[string]any{"taskId": id})
	if !strings.Contains(string(res), "task finished") || !strings.Contains(string(res), `"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}`) {
		t.Errorf("tasks/result: %s", res)
	}
	res, _ = c.call("tasks/get", map[string]any{"taskId": id})
	if !strings.Contains(string(res), `"status":"completed"`) {
		t.Errorf("tasks/get after completion: %s", res)
	}
	if code, _, _ := c.callErr("tasks/cancel", map[string]any{"taskId": id}); code != jsonrpc.InvalidParams {
		t.Errorf("cancel of a terminal task: code %d", code)
	}
	// A failing call: tasks/result returns the same JSON-RPC error.
	fid := create(map[string]any{"protocolError": true})
	if code, _, _ := c.callErr("tasks/result", map[string]any{"taskId": fid}); code != jsonrpc.InternalError {
		t.Errorf("tasks/result of a failed task: code %d", code)
	}
	// Cancel a running task.
	lid := create(map[string]any{"ms": 600000})
	res, _ = c.call("tasks/cancel", map[string]any{"taskId": lid})
	if !strings.Contains(string(res), `"status":"cancelled"`) {
		t.Errorf("tasks/cancel: %s", res)
	}
	// tasks/list is paginated (page size 1 here).
	res, _ = c.call("tasks/list", nil)
	var lr struct {
		Tasks      []json.RawMessage `json:"tasks"`
		NextCursor string            `json:"nextCursor"`
	}
	mustJSON(t, res, &lr)
	if len(lr.Tasks) != 1 || lr.NextCursor == "" {
		t.Errorf("tasks/list page: %s", res)
	}
	if code, _, _ := c.callErr("tasks/get", map[string]any{"taskId": "nope"}); code != jsonrpc.InvalidParams {
		t.Errorf("unknown task: code %d", code)
	}
	// Tasks do not exist before 2025-11-25.
	c2 := startStdio(t, newTestServer(t, Options{}))
	c2.initialize(spec.V20250618, nil)
	if code, _, _ := c2.callErr("tasks/list", nil); code != jsonrpc.MethodNotFound {
		t.Errorf("tasks/list in 2025-06-18: code %d", code)
	}
}

// httpTaskGet creates a task over streamable HTTP (SSE response mode) and
// returns the reply to tasks/get for it and then the reply to tasks/result.
func httpTaskGet(t *testing.T, s *Server) (get, result httpReply) {
	t.Helper()
	c := startHTTP(t, s, HTTPOptions{})
	c.initialize(spec.V20251125)
	rep := c.do("POST", rpc(2, "tools/call", map[string]any{"name": "ref_task_required", "arguments": map[string]any{"ms": 20}, "task": map[string]any{"ttl": 60000}}), nil)
	var r struct {
		Task struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	mustJSON(t, c.response(rep, "tools/call").Result, &r)
	if r.Task.TaskID == "" {
		t.Fatalf("tools/call with a task: no task id (status %d)", rep.status)
	}
	get = c.do("POST", rpc(3, "tasks/get", map[string]any{"taskId": r.Task.TaskID}), nil)
	result = c.do("POST", rpc(4, "tasks/result", map[string]any{"taskId": r.Task.TaskID}), nil)
	return get, result
}

// On streamable HTTP tasks/get is answered with plain JSON even when the
// server answers other requests on SSE streams; tasks/result keeps its
// stream, which may carry the task's requests to the client.
func TestTasksHTTPGetPlainJSON(t *testing.T) {
	get, result := httpTaskGet(t, newTestServer(t, Options{}))
	if ct := get.header.Get("Content-Type"); get.status != 200 || !strings.HasPrefix(ct, "application/json") {
		t.Errorf("tasks/get: status %d, Content-Type %q; want 200 application/json", get.status, ct)
	}
	if len(get.msgs) != 1 {
		t.Fatalf("tasks/get: %d messages in the body, want 1: %q", len(get.msgs), get.raw)
	}
	if m := get.msgs[0]; string(m.ID) != "3" || m.Error != nil || !strings.Contains(string(m.Result), `"taskId"`) {
		t.Errorf("tasks/get: %s", m.raw)
	}
	validateServerMessage(t, spec.V20251125, "tasks/get", get.msgs[0].raw)
	if ct := result.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("tasks/result: Content-Type %q; want its SSE stream", ct)
	}
	if m := (&httpClient{t: t}).response(result, "tasks/result"); m.Error != nil || !strings.Contains(string(m.Result), "task finished") {
		t.Errorf("tasks/result: %s", m.raw)
	}
	// An unknown task is answered with plain JSON too.
	c := startHTTP(t, newTestServer(t, Options{}), HTTPOptions{})
	c.initialize(spec.V20251125)
	rep := c.do("POST", rpc(2, "tasks/get", map[string]any{"taskId": "nope"}), nil)
	if ct := rep.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") || len(rep.msgs) != 1 || rep.msgs[0].Error == nil || rep.msgs[0].Error.Code != jsonrpc.InvalidParams {
		t.Errorf("tasks/get of an unknown task: Content-Type %q, body %q", ct, rep.raw)
	}
}
