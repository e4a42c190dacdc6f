package gen

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"
)

func compileInputSchema(t interface{ Fatalf(string, ...any) }, s map[string]any) *jsonschema.Schema {
	raw, _ := json.Marshal(s)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("schema does not parse: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem://tool.json", doc); err != nil {
		t.Fatalf("add schema: %v", err)
	}
	sch, err := c.Compile("mem://tool.json")
	if err != nil {
		t.Fatalf("compile %s: %v", raw, err)
	}
	return sch
}

// TestToolArgumentsValidate draws an inputSchema, then arguments for it, and
// validates the arguments with jsonschema/v6: they must always pass.
func TestToolArgumentsValidate(t *testing.T) {
	checked := 0
	rapid.Check(t, func(rt *rapid.T) {
		s := InputSchemas().Draw(rt, "inputSchema")
		sch := compileInputSchema(rt, s)
		raw, _ := json.Marshal(s)
		gen, err := ToolArguments(raw)
		if err != nil {
			rt.Fatalf("ToolArguments(%s): %v", raw, err)
		}
		for i := 0; i < 20; i++ {
			args := gen.Draw(rt, "arguments")
			b, _ := json.Marshal(args)
			inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			if err := sch.Validate(inst); err != nil {
				rt.Fatalf("arguments %s break inputSchema %s: %v", b, raw, err)
			}
			checked++
		}
	})
	if checked < 1000 {
		t.Errorf("only %d argument sets checked", checked)
	}
}

func TestToolArgumentsRefusesNonObject(t *testing.T) {
	if _, err := ToolArguments([]byte(`{"type":"string"}`)); err == nil {
		t.Error("an inputSchema of type string was accepted")
	}
	if _, err := ToolArguments([]byte(`not json`)); err == nil {
		t.Error("bytes that are not JSON were accepted")
	}
}

// TestToolArgumentsRealSchema covers a hand-written schema in the style of
// real servers (the everything server's tools).
func TestToolArgumentsRealSchema(t *testing.T) {
	raw := []byte(`{"type":"object","properties":{
		"message":{"type":"string","minLength":1},
		"a":{"type":"number"},"b":{"type":"integer","minimum":0,"maximum":10},
		"mode":{"enum":["fast","slow"]},
		"tags":{"type":"array","items":{"type":"string"},"maxItems":3},
		"nested":{"$ref":"#/$defs/N"}},
		"required":["message","mode"],
		"$defs":{"N":{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["x"]}},
		"additionalProperties":false}`)
	var s map[string]any
	_ = json.Unmarshal(raw, &s)
	sch := compileInputSchema(t, s)
	gen, err := ToolArguments(raw)
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		args := gen.Draw(rt, "arguments")
		b, _ := json.Marshal(args)
		inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err := sch.Validate(inst); err != nil {
			rt.Fatalf("%s: %v", b, err)
		}
	})
}
