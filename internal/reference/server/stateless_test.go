package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

func statelessMeta(caps map[string]any) map[string]any {
	if caps == nil {
		caps = map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{}, "roots": map[string]any{}}
	}
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "t", "version": "1"},
	}
}

func withMeta(params map[string]any, caps map[string]any) map[string]any {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = statelessMeta(caps)
	return params
}

// statelessPost sends a stateless request with correct headers (plus
// overrides) and returns the reply.
func (c *httpClient) statelessPost(id int, method string, params map[string]any, hdr map[string]string) httpReply {
	c.t.Helper()
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	switch method {
	case "tools/call", "prompts/get":
		h["Mcp-Name"], _ = params["name"].(string)
	case "resources/read":
		h["Mcp-Name"], _ = params["uri"].(string)
	}
	for k, v := range hdr {
		h[k] = v
	}
	return c.do("POST", rpc(id, method, params), h)
}

func TestStatelessHTTP(t *testing.T) {
	s := newTestServer(t, Options{})
	c := startHTTP(t, s, HTTPOptions{})
	c.version = spec.V20260728
	c.header = nil
	cv := c.version
	c.version = "" // headers are set per request

	rep := c.statelessPost(1, "server/discover", withMeta(nil, nil), nil)
	c.version = cv
	m := c.response(rep, "server/discover")
	c.version = ""
	if rep.status != 200 || !strings.Contains(string(m.Result), `"supportedVersions":["2026-07-28"`) || !strings.Contains(string(m.Result), `"resultType":"complete"`) || !strings.Contains(string(m.Result), "io.modelcontextprotocol/serverInfo") {
		t.Fatalf("discover: %d %s", rep.status, m.raw)
	}
	for _, tc := range []struct {
		name   string
		id     int
		method string
		params map[string]any
		hdr    map[string]string
		status int
		code   int64
	}{
		{"no version header", 2, "tools/list", withMeta(nil, nil), map[string]string{"MCP-Protocol-Version": ""}, 400, jsonrpc.HeaderMismatch},
		{"no _meta", 3, "tools/list", map[string]any{}, nil, 400, jsonrpc.InvalidParams},
		{"header/meta mismatch", 4, "tools/list", withMeta(nil, nil), map[string]string{"MCP-Protocol-Version": "2099-01-01"}, 400, jsonrpc.HeaderMismatch},
		{"wrong Mcp-Method", 5, "tools/list", withMeta(nil, nil), map[string]string{"Mcp-Method": "prompts/list"}, 400, jsonrpc.HeaderMismatch},
		{"missing Mcp-Name", 6, "tools/call", withMeta(map[string]any{"name": "test_simple_text"}, nil), map[string]string{"Mcp-Name": ""}, 400, jsonrpc.HeaderMismatch},
		{"wrong Mcp-Name", 7, "tools/call", withMeta(map[string]any{"name": "test_simple_text"}, nil), map[string]string{"Mcp-Name": "other"}, 400, jsonrpc.HeaderMismatch},
		{"removed ping", 8, "ping", withMeta(nil, nil), nil, 404, jsonrpc.MethodNotFound},
		{"removed initialize", 9, "initialize", withMeta(nil, nil), nil, 404, jsonrpc.MethodNotFound},
		{"unknown method", 10, "unknown/method", withMeta(nil, nil), nil, 404, jsonrpc.MethodNotFound},
		{"missing capability", 11, "tools/call", withMeta(map[string]any{"name": "test_missing_capability"}, map[string]any{}), nil, 400, jsonrpc.MissingRequiredClientCapability},
		{"not found", 12, "resources/read", withMeta(map[string]any{"uri": "test://nope"}, nil), nil, 200, jsonrpc.InvalidParams},
		{"param header missing", 13, "tools/call", withMeta(map[string]any{"name": "ref_header_params", "arguments": map[string]any{"region": "eu"}}, nil), nil, 400, jsonrpc.HeaderMismatch},
		{"param header mismatch", 14, "tools/call", withMeta(map[string]any{"name": "ref_header_params", "arguments": map[string]any{"region": "eu"}}, nil), map[string]string{"Mcp-Param-Region": "us"}, 400, jsonrpc.HeaderMismatch},
	} {
		rep := c.statelessPost(tc.id, tc.method, tc.params, tc.hdr)
		if rep.status != tc.status || len(rep.msgs) != 1 || rep.msgs[0].Error == nil || rep.msgs[0].Error.Code != tc.code {
			t.Errorf("%s: status %d body %s, want %d and code %d", tc.name, rep.status, rep.raw, tc.status, tc.code)
			continue
		}
		validateServerMessage(t, spec.V20260728, "", rep.msgs[0].raw)
		if string(rep.msgs[0].ID) != jsonrpc.IntID(int64(tc.id)).String() {
			t.Errorf("%s: error id %s, want %d", tc.name, rep.msgs[0].ID, tc.id)
		}
	}
	// Unsupported version in header and _meta: -32022 with the supported list.
	p := withMeta(nil, nil)
	p["_meta"].(map[string]any)["io.modelcontextprotocol/protocolVersion"] = "v999"
	rep = c.statelessPost(20, "tools/list", p, map[string]string{"MCP-Protocol-Version": "v999"})
	if rep.status != 400 || rep.msgs[0].Error == nil || rep.msgs[0].Error.Code != jsonrpc.UnsupportedProtocolVersion || !strings.Contains(string(rep.msgs[0].Error.Data), `"supported":["2026-07-28"]`) {
		t.Errorf("unsupported version: %d %s", rep.status, rep.raw)
	}
	// Base64-encoded param header that matches is accepted.
	rep = c.statelessPost(21, "tools/call", withMeta(map[string]any{"name": "ref_header_params", "arguments": map[string]any{"region": "Hello"}}, nil), map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8=?=", "mcp-method": "tools/call"})
	if rep.status != 200 || rep.msgs[0].Error != nil {
		t.Errorf("base64 param header: %d %s", rep.status, rep.raw)
	}
	// Caching hints and resultType on lists and reads.
	for _, method := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
		rep := c.statelessPost(30, method, withMeta(nil, nil), nil)
		m := rep.msgs[0]
		validateServerMessage(t, spec.V20260728, method, m.raw)
		if !strings.Contains(string(m.Result), `"ttlMs":`) || !strings.Contains(string(m.Result), `"cacheScope":`) || !strings.Contains(string(m.Result), `"resultType":"complete"`) {
			t.Errorf("%s: %s", method, m.Result)
		}
	}
	// Logging only with a per-request level.
	rep = c.statelessPost(40, "tools/call", withMeta(map[string]any{"name": "test_logging_tool"}, nil), nil)
	if len(rep.msgs) != 1 {
		t.Errorf("test_logging_tool without logLevel sent %d messages", len(rep.msgs))
	}
	lp := withMeta(map[string]any{"name": "test_logging_tool"}, nil)
	lp["_meta"].(map[string]any)["io.modelcontextprotocol/logLevel"] = "debug"
	rep = c.statelessPost(41, "tools/call", lp, nil)
	if len(rep.msgs) != 2 || rep.msgs[0].Method != "notifications/message" {
		t.Errorf("test_logging_tool with logLevel: %d messages", len(rep.msgs))
	}
	for _, m := range rep.msgs {
		validateServerMessage(t, spec.V20260728, "tools/call", m.raw)
	}
}

func TestMRTR(t *testing.T) {
	s := newTestServer(t, Options{})
	c := startHTTP(t, s, HTTPOptions{})
	call := func(id int, name string, extra map[string]any, caps map[string]any) wireMsg {
		t.Helper()
		p := withMeta(map[string]any{"name": name}, caps)
		for k, v := range extra {
			p[k] = v
		}
		rep := c.statelessPost(id, "tools/call", p, nil)
		if len(rep.msgs) == 0 {
			t.Fatalf("%s: no reply (%d %s)", name, rep.status, rep.raw)
		}
		m := rep.msgs[len(rep.msgs)-1]
		validateServerMessage(t, spec.V20260728, "tools/call", m.raw)
		return m
	}
	type ir struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	m := call(1, "test_input_required_result_elicitation", nil, nil)
	var r ir
	mustJSON(t, m.Result, &r)
	if r.ResultType != "input_required" || r.InputRequests["user_name"] == nil {
		t.Fatalf("round 1: %s", m.Result)
	}
	m = call(2, "test_input_required_result_elicitation", map[string]any{"inputResponses": map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}}, nil)
	if !strings.Contains(string(m.Result), "Hello, Ada!") {
		t.Errorf("round 2: %s", m.Result)
	}
	// Multi round with state that changes.
	m = call(3, "test_input_required_result_multi_round", nil, nil)
	mustJSON(t, m.Result, &r)
	s1 := r.RequestState
	m = call(4, "test_input_required_result_multi_round", map[string]any{"requestState": s1, "inputResponses": map[string]any{"step1": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}}, nil)
	mustJSON(t, m.Result, &r)
	if r.RequestState == "" || r.RequestState == s1 || r.InputRequests["step2"] == nil {
		t.Fatalf("round 2: %s", m.Result)
	}
	m = call(5, "test_input_required_result_multi_round", map[string]any{"requestState": r.RequestState, "inputResponses": map[string]any{"step2": map[string]any{"action": "accept", "content": map[string]any{"color": "blue"}}}}, nil)
	if !strings.Contains(string(m.Result), "Multi-round complete for Ada who likes blue") {
		t.Errorf("round 3: %s", m.Result)
	}
	// Tampered state is rejected; a state is single-use.
	m = call(6, "test_input_required_result_tampered_state", nil, nil)
	mustJSON(t, m.Result, &r)
	m = call(7, "test_input_required_result_tampered_state", map[string]any{"requestState": r.RequestState + "-TAMPERED", "inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}}, nil)
	if m.Error == nil || m.Error.Code != jsonrpc.InvalidParams {
		t.Errorf("tampered state: %s", m.raw)
	}
	ok := map[string]any{"requestState": r.RequestState, "inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}}
	if m = call(8, "test_input_required_result_tampered_state", ok, nil); !strings.Contains(string(m.Result), "integrity-ok") {
		t.Errorf("valid state: %s", m.raw)
	}
	if m = call(9, "test_input_required_result_tampered_state", ok, nil); m.Error == nil {
		t.Errorf("replayed state accepted: %s", m.raw)
	}
	// Only declared input kinds are requested.
	m = call(10, "test_input_required_result_capabilities", nil, map[string]any{"sampling": map[string]any{}})
	mustJSON(t, m.Result, &r)
	if r.InputRequests["elicit_input"] != nil || r.InputRequests["sample_input"] == nil {
		t.Errorf("capabilities: %s", m.Result)
	}
	// Lists never answer input_required.
	rep := c.statelessPost(11, "prompts/get", withMeta(map[string]any{"name": "test_input_required_result_prompt"}, nil), nil)
	if !strings.Contains(string(rep.msgs[0].Result), `"input_required"`) {
		t.Errorf("prompt MRTR: %s", rep.raw)
	}
}

func TestSubscriptionsListen(t *testing.T) {
	s := newTestServer(t, Options{})
	c := startHTTP(t, s, HTTPOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	open := func(id int, filter map[string]any) *http.Response {
		body := rpc(id, "subscriptions/listen", withMeta(map[string]any{"notifications": filter}, nil))
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
	tools := open(100, map[string]any{"toolsListChanged": true})
	defer tools.Body.Close()
	prompts := open(200, map[string]any{"promptsListChanged": true})
	defer prompts.Body.Close()
	ack := readSSE(t, tools.Body, 1)
	if len(ack) != 1 || !strings.Contains(string(ack[0].data), "notifications/subscriptions/acknowledged") || !strings.Contains(string(ack[0].data), `"io.modelcontextprotocol/subscriptionId":100`) {
		t.Fatalf("ack: %v", ack)
	}
	validateServerMessage(t, spec.V20260728, "", ack[0].data)
	readSSE(t, prompts.Body, 1)
	c.statelessPost(1, "tools/call", withMeta(map[string]any{"name": "test_trigger_tool_change"}, nil), nil)
	c.statelessPost(2, "tools/call", withMeta(map[string]any{"name": "test_trigger_prompt_change"}, nil), nil)
	ev := readSSE(t, tools.Body, 1)
	if len(ev) != 1 || !strings.Contains(string(ev[0].data), "notifications/tools/list_changed") || !strings.Contains(string(ev[0].data), `subscriptionId":100`) {
		t.Fatalf("tools stream: %v", ev)
	}
	validateServerMessage(t, spec.V20260728, "", ev[0].data)
	ev = readSSE(t, prompts.Body, 1)
	if len(ev) != 1 || !strings.Contains(string(ev[0].data), "notifications/prompts/list_changed") {
		t.Fatalf("prompts stream got %v (the tools change must not reach it)", ev)
	}
	// Resource subscriptions travel on a listen stream too.
	res := open(300, map[string]any{"resourceSubscriptions": []string{"test://watched-resource"}, "resourcesListChanged": true})
	defer res.Body.Close()
	if ack := readSSE(t, res.Body, 1); len(ack) != 1 || !strings.Contains(string(ack[0].data), `"resourceSubscriptions":["test://watched-resource"]`) {
		t.Fatalf("resource ack: %v", ack)
	}
	c.statelessPost(3, "tools/call", withMeta(map[string]any{"name": "ref_touch_resource", "arguments": map[string]any{"uri": "test://watched-resource"}}, nil), nil)
	c.statelessPost(4, "tools/call", withMeta(map[string]any{"name": "ref_change_lists", "arguments": map[string]any{"kind": "resources"}}, nil), nil)
	ev = readSSE(t, res.Body, 2)
	if len(ev) != 2 || !strings.Contains(string(ev[0].data), "notifications/resources/updated") || !strings.Contains(string(ev[1].data), "notifications/resources/list_changed") {
		t.Fatalf("resource stream: %v", ev)
	}
	for _, e := range ev {
		validateServerMessage(t, spec.V20260728, "", e.data)
	}
}

func TestStatelessStdio(t *testing.T) {
	c := startStdio(t, newTestServer(t, Options{}))
	c.version = spec.V20260728
	res, _ := c.call("server/discover", withMeta(nil, nil))
	if !strings.Contains(string(res), `"resultType":"complete"`) {
		t.Errorf("discover over stdio: %s", res)
	}
	res, _ = c.call("tools/call", withMeta(map[string]any{"name": "test_simple_text"}, nil))
	if !strings.Contains(string(res), "simple text") {
		t.Errorf("tools/call over stdio: %s", res)
	}
	if code, _, _ := c.callErr("resources/read", withMeta(map[string]any{"uri": "test://none"}, nil)); code != jsonrpc.InvalidParams {
		t.Errorf("not found over stdio: %d", code)
	}
}

func TestStatelessStdioCancel(t *testing.T) {
	c := startStdio(t, newTestServer(t, Options{}))
	c.version = spec.V20260728
	id := c.request("tools/call", withMeta(map[string]any{"name": "ref_slow", "arguments": map[string]any{"ms": 600000}}, nil))
	c.notify("notifications/cancelled", map[string]any{"requestId": 1, "_meta": statelessMeta(nil)})
	pid := c.request("server/discover", withMeta(nil, nil))
	if m := c.next(); string(m.ID) != pid.String() {
		t.Fatalf("after cancelling %s got %s", id, m.raw)
	}
}

func TestStatelessGetIs405(t *testing.T) {
	c := startHTTP(t, newTestServer(t, Options{}), HTTPOptions{})
	for _, m := range []string{"GET", "DELETE"} {
		if r := c.do(m, nil, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Accept": "text/event-stream"}); r.status != 405 {
			t.Errorf("%s with 2026-07-28: status %d, want 405", m, r.status)
		}
	}
}
