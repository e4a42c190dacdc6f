package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

var statefulVersions = []spec.Version{spec.V20241105, spec.V20250326, spec.V20250618, spec.V20251125}

type toolResult struct {
	Content []struct {
		Type        string          `json:"type"`
		Text        string          `json:"text"`
		MimeType    string          `json:"mimeType"`
		Data        string          `json:"data"`
		Resource    json.RawMessage `json:"resource"`
		Annotations json.RawMessage `json:"annotations"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func TestToolsPerVersion(t *testing.T) {
	for _, v := range statefulVersions {
		t.Run(string(v), func(t *testing.T) {
			c := startStdio(t, newTestServer(t, Options{}))
			c.initialize(v, nil)
			res, _ := c.call("tools/list", nil)
			var list struct {
				Tools []map[string]json.RawMessage `json:"tools"`
			}
			mustJSON(t, res, &list)
			names := map[string]map[string]json.RawMessage{}
			for _, tl := range list.Tools {
				var n string
				json.Unmarshal(tl["name"], &n)
				names[n] = tl
				for _, k := range []string{"title", "outputSchema", "icons", "execution", "annotations"} {
					_, has := tl[k]
					allowed := map[string]bool{
						"title": since(v, spec.V20250618), "outputSchema": since(v, spec.V20250618),
						"icons": since(v, spec.V20251125), "execution": v == spec.V20251125, "annotations": since(v, spec.V20250326),
					}[k]
					if has && !allowed {
						t.Errorf("tool %s has %q in %s", n, k, v)
					}
				}
			}
			for _, want := range []string{"test_simple_text", "test_image_content", "test_embedded_resource", "test_multiple_content_types", "test_error_handling", "json_schema_2020_12_tool", "ref_all_content", "ref_structured"} {
				if names[want] == nil {
					t.Errorf("tools/list lacks %s", want)
				}
			}
			if _, ok := names["test_audio_content"]; ok != since(v, spec.V20250326) {
				t.Errorf("test_audio_content listed=%v in %s", ok, v)
			}
			if _, ok := names["test_missing_capability"]; ok {
				t.Errorf("a stateless-only tool is listed in %s", v)
			}

			// Every content type, shaped for the version.
			res, _ = c.call("tools/call", map[string]any{"name": "ref_all_content"})
			var tr toolResult
			mustJSON(t, res, &tr)
			types := map[string]bool{}
			for _, b := range tr.Content {
				types[b.Type] = true
			}
			if types["audio"] != since(v, spec.V20250326) || types["resource_link"] != since(v, spec.V20250618) {
				t.Errorf("content types %v in %s", types, v)
			}

			// Structured output from 2025-06-18.
			res, _ = c.call("tools/call", map[string]any{"name": "ref_structured", "arguments": map[string]any{"a": 2, "b": 3}})
			mustJSON(t, res, &tr)
			if since(v, spec.V20250618) != (string(tr.StructuredContent) == `{"sum":5}`) {
				t.Errorf("structuredContent %s in %s", tr.StructuredContent, v)
			}

			// Execution errors are results; unknown tools are protocol errors.
			res, _ = c.call("tools/call", map[string]any{"name": "test_error_handling"})
			mustJSON(t, res, &tr)
			if !tr.IsError {
				t.Errorf("test_error_handling: isError false")
			}
			if code, _, _ := c.callErr("tools/call", map[string]any{"name": "no_such_tool"}); code != jsonrpc.InvalidParams {
				t.Errorf("unknown tool: code %d", code)
			}
			// Missing required argument: isError from 2025-11-25, -32602 before.
			m, _ := c.response(c.request("tools/call", map[string]any{"name": "ref_structured", "arguments": map[string]any{"a": 1}}))
			if v == spec.V20251125 {
				if m.Error != nil || !strings.Contains(string(m.Result), `"isError":true`) {
					t.Errorf("missing argument in %s: want an isError result, got %s", v, m.raw)
				}
			} else if m.Error == nil || m.Error.Code != jsonrpc.InvalidParams {
				t.Errorf("missing argument in %s: want -32602, got %s", v, m.raw)
			}
		})
	}
}

func TestResources(t *testing.T) {
	for _, v := range statefulVersions {
		t.Run(string(v), func(t *testing.T) {
			c := startStdio(t, newTestServer(t, Options{}))
			c.initialize(v, nil)
			res, _ := c.call("resources/list", nil)
			if !strings.Contains(string(res), "test://static-text") || strings.Contains(string(res), "stateless-static-text") {
				t.Errorf("resources/list: %s", res)
			}
			res, _ = c.call("resources/read", map[string]any{"uri": "test://static-binary"})
			if !strings.Contains(string(res), `"blob":"`+pngBase64+`"`) {
				t.Errorf("binary read: %s", res)
			}
			res, _ = c.call("resources/read", map[string]any{"uri": "test://template/123/data"})
			if !strings.Contains(string(res), `Data for ID: 123`) {
				t.Errorf("template read: %s", res)
			}
			c.call("resources/templates/list", nil)
			code, _, data := c.callErr("resources/read", map[string]any{"uri": "test://nope"})
			if code != jsonrpc.ResourceNotFound || !strings.Contains(string(data), "test://nope") {
				t.Errorf("not found: code %d data %s", code, data)
			}
			// Subscribe, then a change is announced.
			c.call("resources/subscribe", map[string]any{"uri": "test://watched-resource"})
			_, before := c.call("tools/call", map[string]any{"name": "ref_touch_resource", "arguments": map[string]any{"uri": "test://watched-resource"}})
			found := false
			for _, m := range before {
				found = found || m.Method == "notifications/resources/updated"
			}
			if !found {
				// The update is on the general stream, which is stdout too;
				// it may come right after the response.
				if m := c.next(); m.Method == "notifications/resources/updated" {
					found = true
				}
			}
			if !found {
				t.Errorf("no notifications/resources/updated after a change")
			}
			c.call("resources/unsubscribe", map[string]any{"uri": "test://watched-resource"})
		})
	}
}

func TestPromptsAndCompletion(t *testing.T) {
	c := startStdio(t, newTestServer(t, Options{}))
	c.initialize(spec.V20251125, nil)
	res, _ := c.call("prompts/list", nil)
	if !strings.Contains(string(res), "test_prompt_with_arguments") {
		t.Errorf("prompts/list: %s", res)
	}
	res, _ = c.call("prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]string{"arg1": "x1", "arg2": "y2"}})
	if !strings.Contains(string(res), "x1") || !strings.Contains(string(res), "y2") {
		t.Errorf("prompt with args: %s", res)
	}
	if code, _, _ := c.callErr("prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]string{"arg1": "x"}}); code != jsonrpc.InvalidParams {
		t.Errorf("missing argument: code %d", code)
	}
	res, _ = c.call("prompts/get", map[string]any{"name": "test_prompt_with_embedded_resource", "arguments": map[string]string{"resourceUri": "test://x"}})
	if !strings.Contains(string(res), `"type":"resource"`) {
		t.Errorf("embedded resource prompt: %s", res)
	}
	res, _ = c.call("prompts/get", map[string]any{"name": "test_prompt_with_image"})
	if !strings.Contains(string(res), `"type":"image"`) {
		t.Errorf("image prompt: %s", res)
	}
	res, _ = c.call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": map[string]any{"name": "arg1", "value": "i"}})
	var cr struct {
		Completion struct {
			Values  []string `json:"values"`
			Total   int      `json:"total"`
			HasMore bool     `json:"hasMore"`
		} `json:"completion"`
	}
	mustJSON(t, res, &cr)
	if len(cr.Completion.Values) != 100 || cr.Completion.Total != 150 || !cr.Completion.HasMore {
		t.Errorf("completion: %d values, total %d, hasMore %v", len(cr.Completion.Values), cr.Completion.Total, cr.Completion.HasMore)
	}
}

func TestPagination(t *testing.T) {
	s := newTestServer(t, Options{PageSize: 3})
	c := startStdio(t, s)
	c.initialize(spec.V20251125, nil)
	for _, tc := range []struct{ method, key string }{{"tools/list", "tools"}, {"resources/list", "resources"}, {"prompts/list", "prompts"}} {
		seen := map[string]bool{}
		cursor := ""
		pages := 0
		for {
			var params any
			if cursor != "" {
				params = map[string]any{"cursor": cursor}
			}
			res, _ := c.call(tc.method, params)
			var page map[string]json.RawMessage
			mustJSON(t, res, &page)
			var items []map[string]any
			json.Unmarshal(page[tc.key], &items)
			if len(items) > 3 {
				t.Fatalf("%s: page of %d items with page size 3", tc.method, len(items))
			}
			for _, it := range items {
				k := fmt.Sprint(it["name"], it["uri"])
				if seen[k] {
					t.Errorf("%s: %s on two pages", tc.method, k)
				}
				seen[k] = true
			}
			pages++
			cursor = ""
			json.Unmarshal(page["nextCursor"], &cursor)
			if cursor == "" {
				break
			}
			// The same cursor gives the same page (stable cursors).
			again, _ := c.call(tc.method, map[string]any{"cursor": cursor})
			again2, _ := c.call(tc.method, map[string]any{"cursor": cursor})
			if string(again) != string(again2) {
				t.Errorf("%s: same cursor, different pages", tc.method)
			}
		}
		if pages < 2 {
			t.Errorf("%s: %d pages with page size 3", tc.method, pages)
		}
		if code, _, _ := c.callErr(tc.method, map[string]any{"cursor": "bogus"}); code != jsonrpc.InvalidParams {
			t.Errorf("%s invalid cursor: code %d", tc.method, code)
		}
	}
}

func TestLogging(t *testing.T) {
	c := startStdio(t, newTestServer(t, Options{}))
	c.initialize(spec.V20251125, nil)
	if code, _, _ := c.callErr("logging/setLevel", map[string]any{"level": "loud"}); code != jsonrpc.InvalidParams {
		t.Errorf("bad level: code %d", code)
	}
	count := func() int {
		_, before := c.call("tools/call", map[string]any{"name": "test_tool_with_logging"})
		n := 0
		for _, m := range before {
			if m.Method == "notifications/message" {
				n++
			}
		}
		return n
	}
	c.call("logging/setLevel", map[string]any{"level": "debug"})
	if n := count(); n != 3 {
		t.Errorf("at debug: %d log messages, want 3", n)
	}
	c.call("logging/setLevel", map[string]any{"level": "error"})
	if n := count(); n != 0 {
		t.Errorf("at error: %d info log messages, want 0", n)
	}
}

func TestProgress(t *testing.T) {
	for _, v := range []spec.Version{spec.V20241105, spec.V20251125} {
		c := startStdio(t, newTestServer(t, Options{}))
		c.initialize(v, nil)
		id := c.request("tools/call", map[string]any{"name": "ref_progress", "arguments": map[string]any{"steps": 5}, "_meta": map[string]any{"progressToken": "tok"}})
		_, before := c.response(id)
		last := -1.0
		n := 0
		for _, m := range before {
			if m.Method != "notifications/progress" {
				continue
			}
			var p struct {
				ProgressToken string  `json:"progressToken"`
				Progress      float64 `json:"progress"`
				Message       *string `json:"message"`
			}
			mustJSON(t, m.Params, &p)
			if p.ProgressToken != "tok" || p.Progress <= last {
				t.Errorf("bad progress %s", m.Params)
			}
			if (p.Message != nil) != since(v, spec.V20250326) {
				t.Errorf("progress message present=%v in %s", p.Message != nil, v)
			}
			last = p.Progress
			n++
		}
		if n != 5 {
			t.Errorf("%s: %d progress notifications, want 5", v, n)
		}
		// No token: no progress.
		_, before = c.call("tools/call", map[string]any{"name": "ref_progress", "arguments": map[string]any{"steps": 3}})
		for _, m := range before {
			if m.Method == "notifications/progress" {
				t.Errorf("progress without a token: %s", m.raw)
			}
		}
	}
}

func TestCancellation(t *testing.T) {
	c := startStdio(t, newTestServer(t, Options{}))
	c.initialize(spec.V20251125, nil)
	id := c.request("tools/call", map[string]any{"name": "ref_slow", "arguments": map[string]any{"ms": 600000}})
	c.notify("notifications/cancelled", map[string]any{"requestId": 2, "reason": "test"})
	_ = id
	// The next response must be the ping's: the cancelled call stays silent.
	pid := c.request("ping", nil)
	m := c.next()
	if string(m.ID) != pid.String() {
		t.Fatalf("after cancellation got %s, want the ping response", m.raw)
	}
}

// clientLoop answers server requests with answer until the response to id.
func (c *stdioClient) clientLoop(id jsonrpc.ID, answer func(m wireMsg) any) (wireMsg, []wireMsg) {
	c.t.Helper()
	var seen []wireMsg
	for {
		m := c.next()
		if m.Method != "" && len(m.ID) > 0 {
			seen = append(seen, m)
			var rid jsonrpc.ID
			json.Unmarshal(m.ID, &rid)
			b, err := jsonrpc.NewResponse(rid, answer(m))
			if err != nil {
				c.t.Fatal(err)
			}
			c.sendRaw(b)
			continue
		}
		if m.Method == "" && string(m.ID) == id.String() {
			return m, seen
		}
		seen = append(seen, m)
	}
}

func TestServerToClientRequests(t *testing.T) {
	c := startStdio(t, newTestServer(t, Options{}))
	c.initialize(spec.V20251125, map[string]any{"sampling": map[string]any{"tools": map[string]any{}}, "elicitation": map[string]any{"form": map[string]any{}}, "roots": map[string]any{}})
	answer := func(m wireMsg) any {
		switch m.Method {
		case "sampling/createMessage":
			return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "Paris"}, "model": "m", "stopReason": "endTurn"}
		case "elicitation/create":
			return map[string]any{"action": "accept", "content": map[string]any{"response": "hi"}}
		case "roots/list":
			return map[string]any{"roots": []any{map[string]any{"uri": "file:///a"}, map[string]any{"uri": "file:///b"}}}
		}
		return map[string]any{}
	}
	for _, tc := range []struct {
		tool   string
		args   map[string]any
		method string
		want   string
	}{
		{"test_sampling", map[string]any{"prompt": "q"}, "sampling/createMessage", "LLM response: Paris"},
		{"test_elicitation", map[string]any{"message": "q"}, "elicitation/create", `User response: action=accept, content={"response":"hi"}`},
		{"ref_list_roots", nil, "roots/list", "Found 2 root(s)"},
	} {
		m, seen := c.clientLoop(c.request("tools/call", map[string]any{"name": tc.tool, "arguments": tc.args}), answer)
		if len(seen) == 0 || seen[0].Method != tc.method {
			t.Errorf("%s: server sent %v, want %s", tc.tool, seen, tc.method)
		}
		var tr toolResult
		mustJSON(t, m.Result, &tr)
		if len(tr.Content) == 0 || !strings.Contains(tr.Content[0].Text, tc.want) {
			t.Errorf("%s: result %s, want %q", tc.tool, m.Result, tc.want)
		}
	}
	// URL mode was not declared: the URL tools refuse without asking.
	m, seen := c.clientLoop(c.request("tools/call", map[string]any{"name": "ref_elicit_url"}), answer)
	if len(seen) != 0 || !strings.Contains(string(m.Result), `"isError":true`) {
		t.Errorf("URL elicitation without the url mode: %s %v", m.raw, seen)
	}
}

func TestSamplingToolLoop(t *testing.T) {
	c := startStdio(t, newTestServer(t, Options{}))
	c.initialize(spec.V20251125, map[string]any{"sampling": map[string]any{"tools": map[string]any{}}})
	round := 0
	m, seen := c.clientLoop(c.request("tools/call", map[string]any{"name": "ref_sampling_tools"}), func(m wireMsg) any {
		round++
		var p struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		mustJSON(t, m.Params, &p)
		if round == 2 {
			// The follow-up ends with a user turn of tool results only,
			// one per tool use of the assistant turn before it.
			last := p.Messages[len(p.Messages)-1]
			var blocks []struct {
				Type      string `json:"type"`
				ToolUseID string `json:"toolUseId"`
			}
			json.Unmarshal(last.Content, &blocks)
			if last.Role != "user" || len(blocks) != 1 || blocks[0].Type != "tool_result" || blocks[0].ToolUseID != "u1" {
				t.Errorf("follow-up user turn: %s", last.Content)
			}
			return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "sunny"}, "model": "m", "stopReason": "endTurn"}
		}
		return map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "u1", "name": "get_weather", "input": map[string]any{"city": "Paris"}}}, "model": "m", "stopReason": "toolUse"}
	})
	if len(seen) != 2 || !strings.Contains(string(m.Result), "sunny") {
		t.Errorf("tool loop: %d requests, result %s", len(seen), m.Result)
	}
}

func TestElicitationShapeByVersion(t *testing.T) {
	for _, v := range []spec.Version{spec.V20250618, spec.V20251125} {
		c := startStdio(t, newTestServer(t, Options{}))
		c.initialize(v, map[string]any{"elicitation": map[string]any{}})
		_, seen := c.clientLoop(c.request("tools/call", map[string]any{"name": "test_elicitation", "arguments": map[string]any{"message": "q"}}), func(wireMsg) any {
			return map[string]any{"action": "decline"}
		})
		if len(seen) != 1 || seen[0].Method != "elicitation/create" {
			t.Fatalf("%s: %v", v, seen)
		}
		if hasMode := strings.Contains(string(seen[0].Params), `"mode"`); hasMode != (v == spec.V20251125) {
			t.Errorf("%s: mode present=%v: %s", v, hasMode, seen[0].Params)
		}
	}
}

func TestArgumentValidation(t *testing.T) {
	for _, v := range []spec.Version{spec.V20250618, spec.V20251125} {
		c := startStdio(t, newTestServer(t, Options{}))
		c.initialize(v, nil)
		m, _ := c.response(c.request("tools/call", map[string]any{"name": "ref_structured", "arguments": map[string]any{"a": "one", "b": 2}}))
		if v == spec.V20251125 {
			if m.Error != nil || !strings.Contains(string(m.Result), `"isError":true`) {
				t.Errorf("%s: wrong type: want an isError result, got %s", v, m.raw)
			}
		} else if m.Error == nil || m.Error.Code != jsonrpc.InvalidParams {
			t.Errorf("%s: wrong type: want -32602, got %s", v, m.raw)
		}
		// The 2020-12 conditional schema is enforced too.
		m, _ = c.response(c.request("tools/call", map[string]any{"name": "json_schema_2020_12_tool", "arguments": map[string]any{"contactMethod": "phone", "email": "a@b"}}))
		if m.Error == nil && !strings.Contains(string(m.Result), `"isError":true`) {
			t.Errorf("%s: if/then violation accepted: %s", v, m.raw)
		}
		res, _ := c.call("tools/call", map[string]any{"name": "json_schema_2020_12_tool", "arguments": map[string]any{"contactMethod": "phone", "phone": "1"}})
		if strings.Contains(string(res), `"isError":true`) {
			t.Errorf("%s: valid arguments rejected: %s", v, res)
		}
	}
}
