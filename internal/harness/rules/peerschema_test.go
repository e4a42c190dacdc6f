package rules

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPeerSchemasAreJudgedInTheirDialectWithoutFetching holds the rules
// both suites judge a peer's schema by: its declared dialect decides
// (2020-12 when none is declared), a dialect the validator lacks is told
// apart, a schema invalid in its dialect does not compile, and an external
// reference is refused instead of fetched.
func TestPeerSchemasAreJudgedInTheirDialectWithoutFetching(t *testing.T) {
	for _, c := range []struct {
		schema  string
		dialect string
		known   bool
	}{
		{`{"type":"object"}`, "", true},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, "http://json-schema.org/draft-07/schema", true},
		{`{"$schema":"https://example.com/my-dialect","type":"object"}`, "https://example.com/my-dialect", false},
		{`[1,2]`, "", true},
	} {
		d, known := PeerDialect(json.RawMessage(c.schema))
		if d != c.dialect || known != c.known {
			t.Errorf("PeerDialect(%s) = %q, %v; want %q, %v", c.schema, d, known, c.dialect, c.known)
		}
	}
	if got := DialectName(""); !strings.Contains(got, "2020-12") {
		t.Errorf("DialectName(\"\") = %q; want it to name the default dialect 2020-12", got)
	}

	s, err := CompilePeerSchema(json.RawMessage(`{"type":"object","required":["a"],"properties":{"a":{"type":"integer"}}}`), "tool-input:t")
	if err != nil {
		t.Fatalf("CompilePeerSchema of a valid schema: %v", err)
	}
	if why := ValidatePeerValue(s, json.RawMessage(`{"a":1}`)); why != "" {
		t.Errorf("a conforming value was refused: %s", why)
	}
	if why := ValidatePeerValue(s, json.RawMessage(`{"a":"x"}`)); why == "" || strings.Contains(why, "\n") {
		t.Errorf("a value of the wrong type: reason %q; want a one-line reason", why)
	}
	if why := ValidatePeerValue(s, json.RawMessage(`{`)); !strings.HasPrefix(why, "not JSON") {
		t.Errorf("a value that is not JSON: reason %q; want it to say so", why)
	}
	if _, err := CompilePeerSchema(json.RawMessage(`{"type":"no-such-type"}`), "tool-input:bad"); err == nil {
		t.Error("a schema invalid in 2020-12 (type no-such-type) compiled; want an error")
	}
	_, err = CompilePeerSchema(json.RawMessage(`{"$ref":"http://127.0.0.1:1/elsewhere.json"}`), "tool-input:far")
	if err == nil || !strings.Contains(err.Error(), "not fetched") {
		t.Errorf("a schema with an external $ref: error %v; want the reference refused as not fetched", err)
	}
	if got := OneLine(strings.Repeat("word\n", 200)); strings.Contains(got, "\n") || len(got) > 400+len("…") {
		t.Errorf("OneLine left %d bytes with newlines %v; want one line of at most 400 characters", len(got), strings.Contains(got, "\n"))
	}
}
