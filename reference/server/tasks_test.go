package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
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
