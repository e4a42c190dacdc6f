package cli

import (
	"encoding/json"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

func TestTyped(t *testing.T) {
	cases := []struct {
		schema  string
		in, out string
		bad     bool
	}{
		{`{"type":"integer"}`, "42", "42", false},
		{`{"type":"integer"}`, "4.2", "", true},
		{`{"type":"number"}`, "4.5", "4.5", false},
		{`{"type":"boolean"}`, "true", "true", false},
		{`{"type":"boolean"}`, "yes", "", true},
		{`{"type":"string","enum":["a","b"]}`, "b", `"b"`, false},
		{`{"type":"string","enum":["a","b"]}`, "c", "", true},
		{`{"type":"string"}`, "hi \"x\"", `"hi \"x\""`, false},
		{`{"type":"array","items":{"type":"string","enum":["x","y"]}}`, "x, y", `["x","y"]`, false},
	}
	for _, tc := range cases {
		var p mcp.PrimitiveSchema
		json.Unmarshal([]byte(tc.schema), &p)
		got, err := typed(p, tc.in)
		if (err != nil) != tc.bad || (!tc.bad && string(got) != tc.out) {
			t.Errorf("typed(%s, %q) = %s, %v", tc.schema, tc.in, got, err)
		}
	}
}

// TestPlaceholdersSkipEmptyEnums: an enum without options (found by
// mcpcheck fuzz --client-stdio) gets no sample instead of a panic.
func TestPlaceholdersSkipEmptyEnums(t *testing.T) {
	var s mcp.RequestedSchema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{
		"e":{"type":"string","enum":[]},
		"t":{"type":"string","oneOf":[]},
		"m":{"type":"array","items":{"enum":[]}},
		"tm":{"type":"array","items":{"anyOf":[]}},
		"ok":{"type":"boolean"}}}`), &s); err != nil {
		t.Fatal(err)
	}
	got := placeholders(&s)
	if len(got) != 1 || string(got["ok"]) != "false" {
		t.Errorf("placeholders = %v; want only ok=false", got)
	}
}

// TestPlaceholdersHostileLengths: a negative maxLength and a huge
// minLength (found by mcpcheck fuzz --client) give a bounded sample.
func TestPlaceholdersHostileLengths(t *testing.T) {
	var s mcp.RequestedSchema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{
		"neg":{"type":"string","maxLength":-67,"minLength":35},
		"huge":{"type":"string","minLength":1099511627776}}}`), &s); err != nil {
		t.Fatal(err)
	}
	got := placeholders(&s)
	if string(got["neg"]) != `""` || len(got["huge"]) != maxPlaceholder+2 {
		t.Errorf("placeholders gave neg=%s and %d bytes for huge", got["neg"], len(got["huge"]))
	}
}

func TestPlaceholdersFillEveryFieldWithoutDefault(t *testing.T) {
	var s mcp.RequestedSchema
	json.Unmarshal([]byte(`{"type":"object","properties":{
		"name":{"type":"string","minLength":10},
		"mail":{"type":"string","format":"email"},
		"n":{"type":"integer","minimum":3},
		"ok":{"type":"boolean"},
		"pick":{"type":"string","enum":["p","q"]},
		"kept":{"type":"string","default":"d"}},"required":["name"]}`), &s)
	got := placeholders(&s)
	want := map[string]string{"name": `"examplexxx"`, "mail": `"user@example.com"`, "n": "3", "ok": "false", "pick": `"p"`}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if string(got[k]) != v {
			t.Errorf("%s = %s; want %s", k, got[k], v)
		}
	}
}
