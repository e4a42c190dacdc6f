package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

func TestTaskLimitAndTaskProgress(t *testing.T) {
	c := startStdio(t, newTestServer(t, Options{MaxTasks: 1}))
	c.initialize(spec.V20251125, map[string]any{"tasks": map[string]any{}})
	res, _ := c.call("tools/call", map[string]any{"name": "ref_slow", "arguments": map[string]any{"ms": 600000}, "task": map[string]any{}})
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		} `json:"task"`
	}
	mustJSON(t, res, &created)
	if created.Task.Status != "working" {
		t.Fatalf("task: %s", res)
	}
	defer c.call("tasks/cancel", map[string]any{"taskId": created.Task.TaskID})
	if code, msg, _ := c.callErr("tools/call", map[string]any{"name": "ref_slow", "arguments": map[string]any{"ms": 1}, "task": map[string]any{}}); code != jsonrpc.InternalError || !strings.Contains(msg, "too many tasks") {
		t.Errorf("second task over the limit: %d %s", code, msg)
	}
	// Progress of a task-augmented call continues after the
	// CreateTaskResult, tagged with the task.
	c2 := startStdio(t, newTestServer(t, Options{}))
	c2.initialize(spec.V20251125, map[string]any{"tasks": map[string]any{}})
	res, before := c2.call("tools/call", map[string]any{"name": "ref_progress", "arguments": map[string]any{"steps": 3}, "task": map[string]any{}, "_meta": map[string]any{"progressToken": "p"}})
	mustJSON(t, res, &created)
	progress := 0
	for _, m := range before {
		if m.Method == "notifications/progress" {
			t.Errorf("progress before the CreateTaskResult: %s", m.raw)
		}
	}
	for {
		m := c2.next()
		if m.Method == "notifications/progress" {
			progress++
			if !strings.Contains(string(m.Params), created.Task.TaskID) {
				t.Errorf("task progress without the related-task _meta: %s", m.raw)
			}
		}
		if m.Method == "notifications/tasks/status" && strings.Contains(string(m.Params), `"completed"`) {
			break
		}
	}
	if progress != 3 {
		t.Errorf("%d progress notifications during the task, want 3", progress)
	}
}

func TestSubscriptionLimit(t *testing.T) {
	s := newTestServer(t, Options{MaxSubscriptions: 1})
	c := startHTTP(t, s, HTTPOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	open := func(id int) *http.Response {
		body := rpc(id, "subscriptions/listen", withMeta(map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, nil))
		req, _ := http.NewRequestWithContext(ctx, "POST", c.srv.URL+"/mcp", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "subscriptions/listen")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	first := open(1)
	defer first.Body.Close()
	readSSE(t, first.Body, 1) // the acknowledgement: the subscription is open
	second := open(2)
	defer second.Body.Close()
	rep := c.readReply(second, -1)
	if len(rep.msgs) != 1 || rep.msgs[0].Error == nil || !strings.Contains(rep.msgs[0].Error.Message, "too many open subscriptions") {
		t.Errorf("second subscription over the limit: %d %s", rep.status, rep.raw)
	}
}

// TestPanicRecovered: a handler that panics yields an internal error and
// the server keeps serving.
func TestPanicRecovered(t *testing.T) {
	s := newTestServer(t, Options{})
	s.fx.tools["panics"] = &toolFixture{def: noArgsTool("panics"), run: func(*call) (any, error) { panic("boom") }}
	c := startStdio(t, s)
	c.initialize(spec.V20251125, nil)
	if code, _, _ := c.callErr("tools/call", map[string]any{"name": "panics"}); code != jsonrpc.InternalError {
		t.Errorf("panicking tool: code %d", code)
	}
	c.call("ping", nil)
	h := startHTTP(t, s, HTTPOptions{})
	rep := h.statelessPost(1, "tools/call", withMeta(map[string]any{"name": "panics"}, nil), nil)
	if len(rep.msgs) != 1 || rep.msgs[0].Error == nil || rep.msgs[0].Error.Code != jsonrpc.InternalError {
		t.Errorf("panicking tool, stateless: %s", rep.raw)
	}
}
