package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

func TestTasksExtension(t *testing.T) {
	s := newTestServer(t, Options{})
	c := startHTTP(t, s, HTTPOptions{})
	ext := map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}, "elicitation": map[string]any{}}
	post := func(id int, method string, params map[string]any, caps map[string]any, name string) wireMsg {
		t.Helper()
		hdr := map[string]string{}
		if name != "" {
			hdr["Mcp-Name"] = name
		}
		rep := c.statelessPost(id, method, withMeta(params, caps), hdr)
		if len(rep.msgs) == 0 {
			t.Fatalf("%s: no reply (%d %s)", method, rep.status, rep.raw)
		}
		return rep.msgs[len(rep.msgs)-1]
	}
	type task struct {
		ResultType    string                     `json:"resultType"`
		TaskID        string                     `json:"taskId"`
		Status        string                     `json:"status"`
		TTLMs         *int64                     `json:"ttlMs"`
		Result        json.RawMessage            `json:"result"`
		Error         json.RawMessage            `json:"error"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
	}
	get := func(id string) task {
		var tk task
		mustJSON(t, post(90, "tasks/get", map[string]any{"taskId": id}, ext, id).Result, &tk)
		return tk
	}
	m := post(1, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 60}}, ext, "")
	var created task
	mustJSON(t, m.Result, &created)
	if created.ResultType != "task" || created.Status != "working" || len(created.TaskID) < 32 || created.TTLMs == nil || hasKey(m.Result, "task") {
		t.Fatalf("CreateTaskResult: %s", m.Result)
	}
	if tk := get(created.TaskID); tk.Status != "working" || tk.ResultType != "complete" {
		t.Errorf("tasks/get: %+v", tk)
	}
	if m := post(2, "tasks/cancel", map[string]any{"taskId": created.TaskID}, ext, created.TaskID); string(m.Result) != `{"resultType":"complete"}` {
		t.Errorf("tasks/cancel: %s", m.raw)
	}
	if tk := get(created.TaskID); tk.Status != "cancelled" {
		t.Errorf("after cancel: %s", tk.Status)
	}
	// Input through tasks/update.
	mustJSON(t, post(3, "tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"filename": "a.txt"}}, ext, "").Result, &created)
	for i := 0; get(created.TaskID).Status != "input_required"; i++ {
		if i > 1000 {
			t.Fatal("the task never asked for input")
		}
	}
	post(4, "tasks/update", map[string]any{"taskId": created.TaskID, "inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}, "unknown": map[string]any{}}}, ext, created.TaskID)
	for i := 0; ; i++ {
		tk := get(created.TaskID)
		if tk.Status == "completed" {
			if !strings.Contains(string(tk.Result), "confirm=true") {
				t.Errorf("result %s", tk.Result)
			}
			break
		}
		if i > 100000 {
			t.Fatal("the task never completed")
		}
	}
	// Gating and removed methods.
	if m := post(5, "tools/call", map[string]any{"name": "failing_job"}, nil, ""); m.Error == nil || m.Error.Code != jsonrpc.MissingRequiredClientCapability {
		t.Errorf("required task tool without the extension: %s", m.raw)
	}
	if m := post(6, "tasks/get", map[string]any{"taskId": created.TaskID}, nil, created.TaskID); m.Error == nil || m.Error.Code != jsonrpc.MissingRequiredClientCapability {
		t.Errorf("tasks/get without the extension: %s", m.raw)
	}
	if m := post(7, "tasks/result", map[string]any{"taskId": created.TaskID}, ext, ""); m.Error == nil || m.Error.Code != jsonrpc.MethodNotFound {
		t.Errorf("tasks/result: %s", m.raw)
	}
	if m := post(8, "tasks/get", map[string]any{"taskId": "nope"}, ext, "nope"); m.Error == nil || m.Error.Code != jsonrpc.InvalidParams {
		t.Errorf("unknown task: %s", m.raw)
	}
	if m := post(9, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0.01}}, nil, ""); !strings.Contains(string(m.Result), "computed") {
		t.Errorf("without the extension a task tool runs synchronously: %s", m.raw)
	}
}
