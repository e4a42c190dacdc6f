package server

import (
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

func TestURLElicitation(t *testing.T) {
	c := startStdio(t, newTestServer(t, Options{}))
	c.initialize(spec.V20251125, map[string]any{"elicitation": map[string]any{"url": map[string]any{}}})
	// -32042 with the elicitation, then the completion notification.
	m, _ := c.response(c.request("tools/call", map[string]any{"name": "ref_url_required"}))
	if m.Error == nil || m.Error.Code != jsonrpc.URLElicitationRequired {
		t.Fatalf("want -32042, got %s", m.raw)
	}
	var data struct {
		Elicitations []struct {
			Mode          string `json:"mode"`
			URL           string `json:"url"`
			ElicitationID string `json:"elicitationId"`
		} `json:"elicitations"`
	}
	mustJSON(t, m.Error.Data, &data)
	if len(data.Elicitations) != 1 || data.Elicitations[0].Mode != "url" || data.Elicitations[0].ElicitationID == "" {
		t.Fatalf("error data: %s", m.Error.Data)
	}
	n := c.next()
	if n.Method != "notifications/elicitation/complete" || !strings.Contains(string(n.Params), data.Elicitations[0].ElicitationID) {
		t.Errorf("want elicitation/complete for %s, got %s", data.Elicitations[0].ElicitationID, n.raw)
	}
	// A URL-mode elicitation request; the form tool refuses because the
	// client declared only the url mode.
	_, seen := c.clientLoop(c.request("tools/call", map[string]any{"name": "ref_elicit_url"}), func(m wireMsg) any {
		return map[string]any{"action": "accept"}
	})
	if len(seen) == 0 || !strings.Contains(string(seen[0].Params), `"mode":"url"`) {
		t.Errorf("no URL elicitation request: %v", seen)
	}
	m2, seen2 := c.clientLoop(c.request("tools/call", map[string]any{"name": "test_elicitation", "arguments": map[string]any{"message": "q"}}), func(wireMsg) any { return map[string]any{"action": "cancel"} })
	for _, x := range seen2 {
		if x.Method == "elicitation/create" {
			t.Errorf("form elicitation sent to a client that declared only URL mode")
		}
	}
	if !strings.Contains(string(m2.Result), `"isError":true`) {
		t.Errorf("form elicitation without the form mode: %s", m2.raw)
	}
}
