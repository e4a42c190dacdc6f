package server

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestSeamCustomFixturesOnly: with NoFixtures only the added tools, prompts
// and resources are listed and served.
func TestSeamCustomFixturesOnly(t *testing.T) {
	s := newTestServer(t, Options{NoFixtures: true,
		Tools: []Tool{{Def: mcp.Tool{Name: "add_numbers", Description: "adds", InputSchema: json.RawMessage(`{"type":"object"}`)},
			Run: func(c *Call) (any, error) {
				var a, b float64
				_ = json.Unmarshal(c.Arguments()["a"], &a)
				_ = json.Unmarshal(c.Arguments()["b"], &b)
				return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text(strings.TrimSpace(string(mustMarshal(a + b))))}}, nil
			}}},
		Prompts:   []Prompt{{Def: mcp.Prompt{Name: "p1", Description: "one"}}},
		Resources: []Resource{{Def: mcp.Resource{URI: "file:///x.txt", Name: "x"}}},
	})
	c := startStdio(t, s)
	c.initialize(spec.V20251125, nil)
	res, _ := c.call("tools/list", nil)
	var tl mcp.ListToolsResult
	mustJSON(t, res, &tl)
	if len(tl.Tools) != 1 || tl.Tools[0].Name != "add_numbers" {
		t.Fatalf("tools/list = %s, want only add_numbers", res)
	}
	res, _ = c.call("tools/call", map[string]any{"name": "add_numbers", "arguments": map[string]any{"a": 2, "b": 3}})
	if !bytes.Contains(res, []byte(`"text":"5"`)) {
		t.Errorf("add_numbers(2,3) = %s, want the text 5", res)
	}
	res, _ = c.call("prompts/list", nil)
	if !bytes.Contains(res, []byte(`"p1"`)) || bytes.Contains(res, []byte("test_simple_prompt")) {
		t.Errorf("prompts/list = %s, want only p1", res)
	}
	res, _ = c.call("resources/read", map[string]any{"uri": "file:///x.txt"})
	if !bytes.Contains(res, []byte(`"text":"x"`)) {
		t.Errorf("resources/read = %s, want the default content naming the resource", res)
	}
}

// TestSeamDirectorAndRewrite: a Director serves a request itself and asks
// the client a question first; a Rewrite changes what initialize answers.
func TestSeamDirectorAndRewrite(t *testing.T) {
	var asked json.RawMessage
	s := newTestServer(t, Options{
		Director: func(c *Call) (any, error, bool) {
			if c.Method() != "tools/list" {
				return nil, nil, false
			}
			res, err := c.Request("roots/list", nil)
			if err != nil {
				return nil, err, true
			}
			asked = res
			return nil, &Error{Code: -32099, Message: "directed"}, true
		},
		Rewrite: func(o Outgoing) [][]byte {
			if o.Method == "initialize" {
				return [][]byte{bytes.Replace(o.Msg, []byte(`"protocolVersion":"2025-11-25"`), []byte(`"protocolVersion":"1999-01-01"`), 1)}
			}
			return [][]byte{o.Msg}
		},
	})
	c := startStdio(t, s)
	id := c.request("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"roots": map[string]any{}}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	m, _ := c.response(id)
	if !bytes.Contains(m.Result, []byte(`"protocolVersion":"1999-01-01"`)) {
		t.Fatalf("the rewritten initialize result is %s", m.Result)
	}
	c.version = spec.V20251125
	c.notify("notifications/initialized", nil)
	lid := c.request("tools/list", nil)
	req := c.next()
	if req.Method != "roots/list" {
		t.Fatalf("the Director's request to the client is %s", req.raw)
	}
	c.sendRaw(append([]byte(`{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"roots":[{"uri":"file:///r"}]}}`), '\n'))
	resp, _ := c.response(lid)
	if resp.Error == nil || resp.Error.Code != -32099 {
		t.Fatalf("the directed answer is %s", resp.raw)
	}
	if !bytes.Contains(asked, []byte("file:///r")) {
		t.Errorf("the Director got %s from the client", asked)
	}
}

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
