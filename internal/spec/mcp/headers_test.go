package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHeaderParams(t *testing.T) {
	schema := `{
	  "type": "object",
	  "properties": {
	    "bed":   {"type": "string", "x-mcp-header": "Bed"},
	    "zone":  {"type": "object", "properties": {"id": {"type": "integer", "x-mcp-header": "Zone-Id"}}},
	    "dry":   {"type": "boolean", "x-mcp-header": "Dry_Run", "default": {"x-mcp-header": "not a schema"}},
	    "x-mcp-header": {"type": "string"},
	    "note":  {"type": "string"}
	  }
	}`
	got, err := HeaderParams(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	want := []HeaderParam{
		{Path: []string{"bed"}, Name: "Bed", Type: "string"},
		{Path: []string{"dry"}, Name: "Dry_Run", Type: "boolean"},
		{Path: []string{"zone", "id"}, Name: "Zone-Id", Type: "integer"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("HeaderParams (-want +got):\n%s", d)
	}
	h, err := HeaderValues(got, json.RawMessage(`{"bed":"north 1","zone":{"id":42},"dry":null,"note":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{"Mcp-Param-Bed": "north 1", "Mcp-Param-Zone-Id": "42"}, h); d != "" {
		t.Errorf("HeaderValues (-want +got):\n%s", d)
	}

	bad := map[string]string{
		"number type":     `{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}`,
		"no type":         `{"type":"object","properties":{"n":{"x-mcp-header":"N"}}}`,
		"empty name":      `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":""}}}`,
		"space in name":   `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":"A B"}}}`,
		"newline in name": `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":"A\nB"}}}`,
		"non-string":      `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":5}}}`,
		"duplicate":       `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Id"},"b":{"type":"string","x-mcp-header":"ID"}}}`,
		"under items":     `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}`,
		"under anyOf":     `{"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`,
		"under $defs":     `{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"D"}}}`,
		"at root":         `{"type":"object","x-mcp-header":"Root"}`,
	}
	for name, s := range bad {
		if _, err := HeaderParams(json.RawMessage(s)); err == nil {
			t.Errorf("%s: HeaderParams(%s) succeeded, want an error", name, s)
		}
	}
}

func TestHeaderValueEncoding(t *testing.T) {
	for _, c := range []struct{ in, plain string }{
		{"eu-north", "eu-north"},
		{"tab\tinside", "tab\tinside"},
		{"grüße", ""},
		{" lead", ""},
		{"trail\t", ""},
		{"two\nlines", ""},
		{"=?base64?abc?=", ""},
		{"", ""},
	} {
		enc := EncodeHeaderValue(c.in)
		if c.plain != "" && enc != c.plain {
			t.Errorf("EncodeHeaderValue(%q) = %q, want it unchanged", c.in, enc)
		}
		if c.plain == "" && c.in != "" && !strings.HasPrefix(enc, "=?base64?") {
			t.Errorf("EncodeHeaderValue(%q) = %q, want the base64 sentinel", c.in, enc)
		}
		dec, err := DecodeHeaderValue(enc)
		if err != nil || dec != c.in {
			t.Errorf("DecodeHeaderValue(%q) = %q, %v; want %q", enc, dec, err, c.in)
		}
	}
	for _, bad := range []string{"=?base64?!!!?=", "raw\x01ctl", "naïve"} {
		if _, err := DecodeHeaderValue(bad); err == nil {
			t.Errorf("DecodeHeaderValue(%q) succeeded, want an error", bad)
		}
	}
	for in, want := range map[string]string{`"s"`: "s", `7`: "7", `-7`: "-7", `7.0`: "7", `true`: "true", `false`: "false"} {
		if got, ok, err := HeaderArgValue(json.RawMessage(in)); err != nil || !ok || got != want {
			t.Errorf("HeaderArgValue(%s) = %q %v %v, want %q", in, got, ok, err, want)
		}
	}
	if _, ok, err := HeaderArgValue(json.RawMessage(`null`)); ok || err != nil {
		t.Error("null must give no header and no error")
	}
	for _, bad := range []string{`7.5`, `{}`, `[1]`, `9007199254740992`} {
		if _, _, err := HeaderArgValue(json.RawMessage(bad)); err == nil {
			t.Errorf("HeaderArgValue(%s) succeeded, want an error", bad)
		}
	}
}

// TestHeaderParamsFastPath: a schema that cannot hold an annotation is
// only checked for being JSON, and one whose key is spelled with escapes
// is still read.
func TestHeaderParamsFastPath(t *testing.T) {
	if hp, err := HeaderParams(json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)); err != nil || hp != nil {
		t.Errorf("a plain schema: %v, %v; want none and no error", hp, err)
	}
	if _, err := HeaderParams(json.RawMessage(`{"type":`)); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("a schema that is not JSON: %v; want an error saying so", err)
	}
	hp, err := HeaderParams(json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","x\u002dmcp-header":"Zone"}}}`))
	if err != nil || len(hp) != 1 || hp[0].Name != "Zone" {
		t.Errorf("an annotation whose key is spelled with an escape: %+v, %v; want header Zone", hp, err)
	}
}
