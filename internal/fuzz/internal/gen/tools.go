package gen

import (
	"encoding/json"
	"fmt"

	"pgregory.net/rapid"
)

// ToolArguments returns a generator of tools/call arguments that satisfy a
// tool's inputSchema (the JSON Schema subset SchemaGen documents). The
// arguments are always a JSON object, as tools/call requires.
func ToolArguments(inputSchema json.RawMessage) (*rapid.Generator[map[string]any], error) {
	var root map[string]any
	if err := json.Unmarshal(inputSchema, &root); err != nil {
		return nil, errSchema("the tool's inputSchema", err)
	}
	if ty, ok := root["type"]; ok && ty != "object" {
		return nil, fmt.Errorf("fuzz: the tool's inputSchema has type %v; tools/call arguments are an object, so the schema must say type \"object\"", ty)
	}
	g := NewSchemaGen(root, 5)
	return rapid.Custom(func(t *rapid.T) map[string]any {
		touch(t)
		v := g.draw(t, root, 0)
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("fuzz: the inputSchema produced a %T, not an object", v)
		}
		return m
	}), nil
}

// InputSchemas generates tool inputSchemas in the subset ToolArguments
// understands: objects with typed properties, required lists, enums, consts,
// arrays with bounds, numeric and length bounds, anyOf/oneOf and $ref to
// $defs. It feeds the property test of ToolArguments and the tool-argument
// mutators.
func InputSchemas() *rapid.Generator[map[string]any] {
	return rapid.Custom(func(t *rapid.T) map[string]any {
		defs := map[string]any{}
		nDefs := rapid.IntRange(0, 2).Draw(t, "defs")
		for i := 0; i < nDefs; i++ {
			defs[fmt.Sprintf("D%d", i)] = drawSubschema(t, 1, nil)
		}
		var names []string
		for k := range defs {
			names = append(names, k)
		}
		root := objectSchema(t, 0, names)
		if len(defs) > 0 {
			root["$defs"] = defs
		}
		return root
	})
}

func objectSchema(t *rapid.T, depth int, defs []string) map[string]any {
	props := map[string]any{}
	n := rapid.IntRange(0, 4).Draw(t, "properties")
	var required []any
	for i := 0; i < n; i++ {
		name := rapid.StringMatching(`[a-z][a-zA-Z0-9_]{0,6}`).Draw(t, "property")
		if _, dup := props[name]; dup {
			continue
		}
		props[name] = drawSubschema(t, depth+1, defs)
		if rapid.Bool().Draw(t, "required") {
			required = append(required, name)
		}
	}
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	if rapid.Bool().Draw(t, "closed") {
		out["additionalProperties"] = false
	}
	return out
}

func drawSubschema(t *rapid.T, depth int, defs []string) map[string]any {
	kinds := []string{"string", "integer", "number", "boolean", "null", "enum", "const", "array", "object", "anyOf", "oneOf", "ref"}
	if depth >= 3 {
		kinds = kinds[:7]
	}
	switch rapid.SampledFrom(kinds).Draw(t, "schema kind") {
	case "string":
		s := map[string]any{"type": "string"}
		if rapid.Bool().Draw(t, "bounded") {
			lo := rapid.IntRange(0, 3).Draw(t, "minLength")
			s["minLength"] = lo
			s["maxLength"] = lo + rapid.IntRange(0, 5).Draw(t, "span")
		}
		if rapid.Bool().Draw(t, "patterned") {
			s["pattern"] = rapid.SampledFrom([]string{"^[a-z]+$", "^[0-9]{3}-[0-9]{2}$", "^(foo|bar)[0-9]?$"}).Draw(t, "pattern")
			delete(s, "minLength")
			delete(s, "maxLength")
		}
		return s
	case "integer":
		lo := rapid.IntRange(-100, 100).Draw(t, "minimum")
		s := map[string]any{"type": "integer"}
		if rapid.Bool().Draw(t, "min") {
			s["minimum"] = lo
		}
		if rapid.Bool().Draw(t, "max") {
			s["maximum"] = lo + rapid.IntRange(0, 50).Draw(t, "span")
		}
		return s
	case "number":
		s := map[string]any{"type": "number"}
		if rapid.Bool().Draw(t, "exclusive") {
			s["exclusiveMinimum"] = 0
			s["exclusiveMaximum"] = 1
		}
		return s
	case "boolean", "null":
		return map[string]any{"type": rapid.SampledFrom([]string{"boolean", "null"}).Draw(t, "type")}
	case "enum":
		return map[string]any{"enum": []any{"a", "b", 3, true, nil}[:rapid.IntRange(1, 5).Draw(t, "enum size")]}
	case "const":
		return map[string]any{"const": rapid.SampledFrom([]any{"fixed", 42, false}).Draw(t, "const")}
	case "array":
		s := map[string]any{"type": "array", "items": drawSubschema(t, depth+1, defs)}
		if rapid.Bool().Draw(t, "bounded") {
			lo := rapid.IntRange(0, 2).Draw(t, "minItems")
			s["minItems"] = lo
			s["maxItems"] = lo + rapid.IntRange(0, 2).Draw(t, "span")
		}
		return s
	case "object":
		return objectSchema(t, depth+1, defs)
	case "anyOf":
		return map[string]any{"anyOf": []any{drawSubschema(t, depth+1, defs), drawSubschema(t, depth+1, defs)}}
	case "oneOf":
		// Disjoint alternatives, so that any draw matches exactly one.
		return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}, objectSchema(t, depth+1, defs)}}
	}
	if len(defs) == 0 {
		return map[string]any{"type": "string"}
	}
	return map[string]any{"$ref": "#/$defs/" + rapid.SampledFrom(defs).Draw(t, "ref")}
}
