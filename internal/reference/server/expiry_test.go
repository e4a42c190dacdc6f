package server

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

func TestTaskTTLAndStatus(t *testing.T) {
	clk := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	c := startStdio(t, newTestServer(t, Options{Now: clk.Now}))
	c.initialize(spec.V20251125, map[string]any{"tasks": map[string]any{}})
	res, _ := c.call("tools/call", map[string]any{"name": "ref_task_required", "arguments": map[string]any{"ms": 0}, "task": map[string]any{"ttl": 1000}})
	var r struct {
		Task struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	mustJSON(t, res, &r)
	// The completion is announced with notifications/tasks/status, after
	// the CreateTaskResult.
	for {
		m := c.next()
		if m.Method == "notifications/tasks/status" && strings.Contains(string(m.Params), `"status":"completed"`) {
			break
		}
	}
	c.call("tasks/get", map[string]any{"taskId": r.Task.TaskID})
	clk.Add(2 * time.Second)
	if code, _, _ := c.callErr("tasks/get", map[string]any{"taskId": r.Task.TaskID}); code != jsonrpc.InvalidParams {
		t.Errorf("expired task: code %d", code)
	}
}

func TestHTTPSessionExpiryAndLimit(t *testing.T) {
	clk := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := newTestServer(t, Options{Now: clk.Now, MaxSessions: 2})
	c := startHTTP(t, s, HTTPOptions{SessionIdle: time.Minute})
	c.initialize(spec.V20251125)
	clk.Add(2 * time.Minute)
	if r := c.do("POST", rpc(2, "ping", nil), nil); r.status != 404 {
		t.Errorf("expired session: status %d, want 404", r.status)
	}
	a := &httpClient{t: t, srv: c.srv, header: map[string]string{}}
	a.initialize(spec.V20251125)
	b := &httpClient{t: t, srv: c.srv, header: map[string]string{}}
	b.initialize(spec.V20251125)
	r := (&httpClient{t: t, srv: c.srv}).do("POST", rpc(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}), nil)
	if r.status != 503 {
		t.Errorf("third session with MaxSessions 2: status %d, want 503", r.status)
	}
}
