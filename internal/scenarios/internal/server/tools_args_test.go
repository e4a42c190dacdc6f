package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// TestToolArgsGenerated: for each inputSchema the generator finds
// arguments that validate against it (featuresArgsWhy validates every
// candidate), minimal where the case says so; a schema with no instance is
// reported with the reason, never given arguments.
func TestToolArgsGenerated(t *testing.T) {
	cases := []struct {
		name, schema string
		want         string // the exact arguments, when it matters
	}{
		{"empty", `{"type":"object"}`, `{}`},
		{"null schema", `null`, `{}`},
		{"required only", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"]}`, `{"a":"mcpcheck"}`},
		{"enum first", `{"type":"object","properties":{"k":{"enum":["x","y"]}},"required":["k"]}`, `{"k":"x"}`},
		{"const", `{"type":"object","properties":{"k":{"const":42}},"required":["k"]}`, `{"k":42}`},
		{"integer bounds", `{"type":"object","properties":{"n":{"type":"integer","minimum":5,"maximum":9}},"required":["n"]}`, `{"n":5}`},
		{"exclusive bounds", `{"type":"object","properties":{"n":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":0.5}},"required":["n"]}`, `{"n":0.25}`},
		{"multipleOf", `{"type":"object","properties":{"n":{"type":"integer","minimum":4,"multipleOf":3}},"required":["n"]}`, `{"n":6}`},
		{"draft-04 exclusive", `{"$schema":"http://json-schema.org/draft-04/schema","type":"object","properties":{"n":{"type":"integer","minimum":0,"exclusiveMinimum":true}},"required":["n"]}`, `{"n":1}`},
		{"max length", `{"type":"object","properties":{"s":{"type":"string","maxLength":3}},"required":["s"]}`, `{"s":"mcp"}`},
		{"min length", `{"type":"object","properties":{"s":{"type":"string","minLength":10}},"required":["s"]}`, `{"s":"mcpcheckxx"}`},
		{"pattern", `{"type":"object","properties":{"s":{"type":"string","pattern":"^[A-Z]{3}-\\d{4}$"}},"required":["s"]}`, `{"s":"AAA-0000"}`},
		{"format", `{"type":"object","properties":{"u":{"type":"string","format":"uri"},"d":{"type":"string","format":"date-time"}},"required":["u","d"]}`, `{"d":"2025-01-01T00:00:00Z","u":"test://mcpcheck"}`},
		{"array minItems unique enum", `{"type":"object","properties":{"a":{"type":"array","minItems":2,"uniqueItems":true,"items":{"enum":["p","q","r"]}}},"required":["a"]}`, `{"a":["p","q"]}`},
		{"nested object", `{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"boolean"}},"required":["x"]}},"required":["o"]}`, `{"o":{"x":false}}`},
		{"local ref", `{"type":"object","$defs":{"pos":{"type":"integer","minimum":1}},"properties":{"n":{"$ref":"#/$defs/pos"}},"required":["n"]}`, `{"n":1}`},
		{"draft-07 definitions", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string","minLength":2}},"type":"object","properties":{"s":{"$ref":"#/definitions/s"}},"required":["s"]}`, ``},
		{"type list", `{"type":"object","properties":{"v":{"type":["null","integer"],"minimum":2}},"required":["v"]}`, `{"v":2}`},
		{"oneOf first viable", `{"type":"object","properties":{"v":{"oneOf":[{"type":"string","maxLength":0,"minLength":1},{"type":"integer","minimum":7}]}},"required":["v"]}`, `{"v":7}`},
		{"anyOf over required", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`, `{"a":"mcpcheck"}`},
		{"conformance 2020-12 tool", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"type":"object","properties":{"street":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"additionalProperties":false,"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]}}`, `{"email":"mcpcheck"}`},
		{"default first", `{"type":"object","properties":{"n":{"type":"integer","default":3}},"required":["n"]}`, `{"n":3}`},
		{"bad default skipped", `{"type":"object","properties":{"n":{"type":"integer","minimum":5,"default":"x"}},"required":["n"]}`, `{"n":5}`},
		{"knob set small", `{"type":"object","properties":{"durationMs":{"type":"integer"},"seconds":{"type":"number","minimum":0}}}`, `{"durationMs":1,"seconds":0.1}`},
		{"required knob set small", `{"type":"object","properties":{"seconds":{"type":"number","minimum":0},"steps":{"type":"integer","minimum":1}},"required":["seconds","steps"]}`, `{"seconds":0.1,"steps":3}`},
		{"required knob within bounds", `{"type":"object","properties":{"delay":{"type":"number","minimum":2}},"required":["delay"]}`, `{"delay":2}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, why := featuresArgsWhy(mcp.Tool{Name: "t", InputSchema: json.RawMessage(c.schema)})
			if why != "" {
				t.Fatalf("no arguments: %s", why)
			}
			if c.want != "" && string(b) != c.want {
				t.Errorf("arguments %s, want %s", b, c.want)
			}
		})
	}
}

// TestToolArgsNoInstance: schemas that admit no instance the generator can
// make get a reason, not arguments.
func TestToolArgsNoInstance(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"a":false},"required":["a"]}`,
		`{"type":"object","properties":{"n":{"type":"integer","minimum":3,"maximum":2}},"required":["n"]}`,
		`{"type":"string"}`,
	} {
		b, why := featuresArgsWhy(mcp.Tool{Name: "t", InputSchema: json.RawMessage(schema)})
		if why == "" {
			t.Errorf("%s: got arguments %s, want none", schema, b)
			continue
		}
		if !strings.Contains(why, "generated") && !strings.Contains(why, "compile") {
			t.Errorf("%s: reason %q does not say what was tried", schema, why)
		}
	}
}

// TestToolArgsNeverConsent: generated arguments never confirm anything: a
// property asking for consent gets false, 0 or a value that is no yes
// (the first enum value "Y" of git_clear_working_dir's confirm was
// picked before); an enum elsewhere skips yes-like and destructive values
// when it has others; a dry-run switch is set; and a schema that can only
// be met by consenting gets no arguments, with a reason that says so and
// names --tool-args. Every generated set is checked with FindConsent.
func TestToolArgsNeverConsent(t *testing.T) {
	cases := []struct {
		name, schema string
		want         string // the exact arguments
	}{
		{"confirm enum", `{"type":"object","properties":{"confirm":{"type":"string","enum":["Y","N"]}},"required":["confirm"]}`, `{"confirm":"N"}`},
		{"acknowledgement enum", `{"type":"object","properties":{"acknowledgement":{"type":"string","enum":["Y","yes","no"]}},"required":["acknowledgement"]}`, `{"acknowledgement":"no"}`},
		{"confirm boolean", `{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`, `{"confirm":false}`},
		{"force default true", `{"type":"object","properties":{"force":{"type":"boolean","default":true}},"required":["force"]}`, `{"force":false}`},
		{"confirm integer", `{"type":"object","properties":{"confirm":{"type":"integer","enum":[1,0]}},"required":["confirm"]}`, `{"confirm":0}`},
		{"yes-like enum elsewhere", `{"type":"object","properties":{"answer":{"enum":["yes","maybe"]}},"required":["answer"]}`, `{"answer":"maybe"}`},
		{"destructive action last", `{"type":"object","properties":{"action":{"enum":["delete","list"]}},"required":["action"]}`, `{"action":"list"}`},
		{"dry run set", `{"type":"object","properties":{"path":{"type":"string"},"dry_run":{"type":"boolean"}},"required":["path"]}`, `{"dry_run":true,"path":"mcpcheck"}`},
		{"nested consent", `{"type":"object","properties":{"opts":{"type":"object","properties":{"overwrite":{"type":"boolean","const":false}},"required":["overwrite"]}},"required":["opts"]}`, `{"opts":{"overwrite":false}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, why := featuresArgsWhy(mcp.Tool{Name: c.name, InputSchema: json.RawMessage(c.schema)})
			if why != "" {
				t.Fatalf("no arguments: %s", why)
			}
			if string(b) != c.want {
				t.Errorf("generated %s, want %s", b, c.want)
			}
			if at := argConsent(json.RawMessage(b)); at != "" {
				t.Errorf("generated %s, which consents at %s", b, at)
			}
		})
	}
	for name, schema := range map[string]string{
		"confirm const Y":    `{"type":"object","properties":{"confirm":{"const":"Y"}},"required":["confirm"]}`,
		"confirm only yes":   `{"type":"object","properties":{"confirm":{"type":"string","enum":["Y","yes"]}},"required":["confirm"]}`,
		"really true":        `{"type":"object","properties":{"really":{"type":"boolean","const":true}},"required":["really"]}`,
		"consent pattern":    `{"type":"object","properties":{"acknowledge":{"type":"string","pattern":"^I UNDERSTAND$"}},"required":["acknowledge"]}`,
		"confirm minimum 1":  `{"type":"object","properties":{"confirm":{"type":"integer","minimum":1,"maximum":1}},"required":["confirm"]}`,
		"unknown dialect ok": `{"$schema":"https://example.com/custom","type":"object","properties":{"confirm":{"const":true}},"required":["confirm"]}`,
	} {
		b, why := featuresArgsWhy(mcp.Tool{Name: name, InputSchema: json.RawMessage(schema)})
		if why == "" || b != nil {
			t.Errorf("%s: generated %s for a schema that can only be met by consenting", name, b)
			continue
		}
		if !strings.Contains(why, "never generates consent") {
			t.Errorf("%s: the reason %q does not say mcpcheck does not consent", name, why)
		}
	}
}
