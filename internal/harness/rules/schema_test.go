package rules

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

// TestElicitErratumExcusesNumbersOnly: the official ElicitResult schema
// forgets number form values, so a number is excused; an object, null or
// an array of numbers is not (issue 30: an accept whose content values
// were objects passed as "all valid"), in a response and in 2026-07-28
// inputResponses alike.
func TestElicitErratumExcusesNumbersOnly(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, tc := range []struct {
		v     spec.Version
		raw   string
		valid bool
	}{
		{spec.V20251125, `{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"score":95.5}}}`, true},
		{spec.V20250618, `{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"score":95.5,"name":"x"}}}`, true},
		{spec.V20251125, `{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"x":{"a":true}}}}`, false},
		{spec.V20251125, `{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"x":null}}}`, false},
		{spec.V20251125, `{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"x":[1.5]}}}`, false},
		{spec.V20250618, `{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"a~/b":{"x":1}}}}`, false},
		{spec.V20260728, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"t","inputResponses":{"k":{"action":"accept","content":{"x":95.5}}}}}`, true},
		{spec.V20260728, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"t","inputResponses":{"k":{"action":"accept","content":{"x":{"a":true}}}}}}`, false},
	} {
		m := msg(tc.raw)
		vs := Schema(tc.v, spec.ClientToServer, "elicitation/create", m)
		if tc.valid && len(vs) > 0 {
			t.Errorf("%s %s: %v, want valid (a number form value is the schema's erratum)", tc.v, tc.raw, vs)
		}
		if !tc.valid && len(vs) == 0 {
			t.Errorf("%s %s: valid, want a schema violation", tc.v, tc.raw)
		}
	}
}
