package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestZeroValuesEncodeWithoutNull checks that the zero value of every
// registered result type encodes without null, so results built in Go are
// valid even when a required array was left nil.
func TestZeroValuesEncodeWithoutNull(t *testing.T) {
	for _, m := range RegisteredMethods() {
		r := NewResult(m)
		if r == nil {
			continue
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Errorf("%s: encode zero %T: %v", m, r, err)
			continue
		}
		if strings.Contains(string(b), "null") {
			t.Errorf("%s: zero %T encodes as %s", m, r, b)
		}
	}
	for _, v := range []any{Tool{Name: "t"}, ElicitParams{Message: "m", RequestedSchema: &RequestedSchema{}}, CreateMessageParams{MaxTokens: 1},
		Block(&ToolResultContent{ToolUseID: "x"}), UnsupportedProtocolVersionData{}, URLElicitationRequiredData{}} {
		b, err := json.Marshal(v)
		if err != nil || strings.Contains(string(b), "null") {
			t.Errorf("%T encodes as %s (%v)", v, b, err)
		}
	}
	b, _ := json.Marshal(Tool{Name: "t"})
	if !strings.Contains(string(b), `"inputSchema":{"type":"object"}`) {
		t.Errorf("Tool without schema encodes as %s", b)
	}
}
