package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

// generator produces random instances of our 2020-12 schemas. It knows the
// keywords our files use: $ref, type, properties, required,
// additionalProperties, items, enum, const, anyOf/oneOf, minimum/maximum,
// minItems/maxItems and format. Conditional keywords (allOf with if/then,
// not) are not generated for; callers check the result against the schema
// and draw again.
type generator struct {
	r    *rand.Rand
	defs map[string]any
	// Paths recorded while generating, for targeted mutations.
	required [][]string // members that were required by the schema
	enums    [][]string // values drawn from an enum
	consts   [][]string // values fixed by a const
}

func newGenerator(defs map[string]any, seed uint64) *generator {
	return &generator{r: rand.New(rand.NewPCG(seed, 0x6d6370636865636b)), defs: defs}
}

func (g *generator) reset() { g.required, g.enums, g.consts = nil, nil, nil }

func clonePath(p []string, more ...string) []string {
	out := make([]string, 0, len(p)+len(more))
	return append(append(out, p...), more...)
}

// value draws one instance of schema s found at instance path p.
func (g *generator) value(s any, p []string, depth int) any {
	m, ok := s.(map[string]any)
	if !ok || len(withoutAnnotations(m)) == 0 {
		return g.anyValue(depth)
	}
	m = g.flatten(m)
	if c, ok := m["const"]; ok {
		g.consts = append(g.consts, clonePath(p))
		return c
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		g.enums = append(g.enums, clonePath(p))
		return e[g.r.IntN(len(e))]
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[key].([]any); ok && len(alts) > 0 && !requiredOnly(alts) {
			return g.value(alts[g.r.IntN(len(alts))], p, depth)
		}
	}
	typ := m["type"]
	if ts, ok := typ.([]any); ok {
		typ = ts[g.r.IntN(len(ts))]
	}
	switch typ {
	case "object":
		return g.object(m, p, depth)
	case "array":
		lo, hi := 0, 3
		if depth > 5 {
			hi = 1
		}
		if v, ok := intOf(m["minItems"]); ok {
			lo = v
		}
		if v, ok := intOf(m["maxItems"]); ok && v < hi {
			hi = v
		}
		if hi < lo {
			hi = lo
		}
		n := lo + g.r.IntN(hi-lo+1)
		out := make([]any, n)
		for i := range out {
			out[i] = g.value(m["items"], clonePath(p, fmt.Sprint(i)), depth+1)
		}
		return out
	case "string":
		return g.str(m)
	case "integer":
		if len(p) > 0 && p[len(p)-1] == "code" {
			codes := []int{-32700, -32600, -32601, -32602, -32603, -32002, -32042, -32020, -32021, -32022, -1, 1, 42}
			return codes[g.r.IntN(len(codes))]
		}
		lo, hi := -3, 120
		if v, ok := intOf(m["minimum"]); ok {
			lo = v
		}
		if v, ok := intOf(m["maximum"]); ok {
			hi = v
		}
		if lo >= 0 && g.r.IntN(4) == 0 {
			return lo
		}
		return lo + g.r.IntN(hi-lo+1)
	case "number":
		lo, hi := -10.0, 10.0
		if v, ok := floatOf(m["minimum"]); ok {
			lo = v
		}
		if v, ok := floatOf(m["maximum"]); ok {
			hi = v
		}
		return lo + float64(g.r.IntN(9))*(hi-lo)/8
	case "boolean":
		return g.r.IntN(2) == 0
	case "null":
		return nil
	}
	return g.anyValue(depth)
}

// flatten resolves a $ref and merges it with its sibling keywords (2020-12
// applies both), and folds allOf entries that are plain schemas into one
// schema, so that drawing from the result satisfies all of them.
func (g *generator) flatten(m map[string]any) map[string]any {
	out := map[string]any{}
	if r, ok := m["$ref"].(string); ok {
		base, _ := g.defs[strings.TrimPrefix(r, "#/$defs/")].(map[string]any)
		out = g.flatten(base)
	}
	rest := map[string]any{}
	for k, v := range m {
		if k != "$ref" && k != "allOf" {
			rest[k] = v
		}
	}
	out = mergeSchemas(out, rest)
	if all, ok := m["allOf"].([]any); ok {
		for _, a := range all {
			sub, ok := a.(map[string]any)
			if !ok || sub["if"] != nil || sub["not"] != nil {
				continue // conditions are checked afterwards, not generated for
			}
			out = mergeSchemas(out, g.flatten(sub))
		}
	}
	return out
}

// mergeSchemas combines two object-level schemas: properties are merged
// member by member, required lists are joined, other keywords of b win.
func mergeSchemas(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		switch k {
		case "properties":
			pa, _ := a[k].(map[string]any)
			pb, _ := v.(map[string]any)
			props := make(map[string]any, len(pa)+len(pb))
			for n, s := range pa {
				props[n] = s
			}
			for n, s := range pb {
				if prev, ok := props[n].(map[string]any); ok {
					if cur, ok := s.(map[string]any); ok {
						props[n] = map[string]any{"allOf": []any{prev, cur}}
						continue
					}
				}
				props[n] = s
			}
			out[k] = props
		case "required":
			seen := map[string]bool{}
			var req []any
			for _, r := range append(asStrings(a[k]), asStrings(v)...) {
				if !seen[r] {
					seen[r] = true
					req = append(req, r)
				}
			}
			out[k] = req
		default:
			out[k] = v
		}
	}
	return out
}

func withoutAnnotations(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		switch k {
		case "description", "title", "$comment", "examples", "default":
		default:
			out[k] = v
		}
	}
	return out
}

// requiredOnly reports whether every alternative only lists required members
// (the "at least one of" idiom).
func requiredOnly(alts []any) bool {
	for _, a := range alts {
		m, ok := a.(map[string]any)
		if !ok || len(m) != 1 || m["required"] == nil {
			return false
		}
	}
	return true
}

func (g *generator) object(m map[string]any, p []string, depth int) map[string]any {
	out := map[string]any{}
	req := map[string]bool{}
	for _, r := range asStrings(m["required"]) {
		req[r] = true
	}
	if alts, ok := m["anyOf"].([]any); ok && requiredOnly(alts) {
		pick := alts[g.r.IntN(len(alts))].(map[string]any)
		for _, r := range asStrings(pick["required"]) {
			req[r] = true
		}
	}
	props, _ := m["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	optional := 2 // in 4
	if depth > 3 {
		optional = 1
	}
	if depth > 6 {
		optional = 0
	}
	for _, n := range names {
		if req[n] {
			g.required = append(g.required, clonePath(p, n))
		} else if g.r.IntN(4) >= optional {
			continue
		}
		out[n] = g.value(props[n], clonePath(p, n), depth+1)
	}
	for r := range req { // required but not described: any value
		if _, ok := out[r]; !ok {
			g.required = append(g.required, clonePath(p, r))
			out[r] = g.anyValue(depth + 1)
		}
	}
	if _, ok := m["additionalProperties"]; !ok && len(props) == 0 && depth < 6 {
		// An open object with nothing declared: give it a few members.
		for i := range g.r.IntN(3) {
			out[fmt.Sprintf("extra%d", i)] = g.anyValue(depth + 1)
		}
	}
	if ap, ok := m["additionalProperties"]; ok && ap != false && depth < 5 {
		for i := range g.r.IntN(3) {
			k := fmt.Sprintf("key%d", i)
			if _, taken := out[k]; !taken {
				out[k] = g.value(ap, clonePath(p, k), depth+1)
			}
		}
	}
	return out
}

func (g *generator) str(m map[string]any) string {
	switch m["format"] {
	case "uri":
		return []string{"https://example.com/a/b", "file:///tmp/notes.txt", "urn:mcpcheck:x", "mcp://resource/1"}[g.r.IntN(4)]
	case "uri-template":
		return []string{"file:///{path}", "https://example.com/items/{id}"}[g.r.IntN(2)]
	case "byte":
		return []string{"", "aGVsbG8=", "AAECAw=="}[g.r.IntN(3)]
	}
	words := []string{"", "alpha", "Beta gamma", "2025-01-01T00:00:00Z", "ü∂ unicode", "x"}
	return words[g.r.IntN(len(words))]
}

// anyValue draws any JSON value, small and bounded in depth.
func (g *generator) anyValue(depth int) any {
	n := 7
	if depth > 4 {
		n = 5
	}
	switch g.r.IntN(n) {
	case 0:
		return nil
	case 1:
		return g.r.IntN(2) == 0
	case 2:
		return g.r.IntN(1000) - 10
	case 3:
		return float64(g.r.IntN(100)) / 8
	case 4:
		return "any"
	case 5:
		return []any{g.anyValue(depth + 1)}
	}
	return map[string]any{"k": g.anyValue(depth + 1)}
}

func asStrings(v any) []string {
	a, _ := v.([]any)
	out := make([]string, 0, len(a))
	for _, x := range a {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func intOf(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	case float64:
		return int(n), true
	case int:
		return n, true
	}
	return 0, false
}

func floatOf(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

// generated is one valid instance with the paths recorded while drawing it.
type generated struct {
	raw      []byte
	required [][]string
	enums    [][]string
	consts   [][]string
}

// generateValid draws an instance of def that our schema accepts, trying a
// bounded number of times.
func generateValid(v spec.Version, g *generator, def string) (generated, error) {
	s, err := load(v)
	if err != nil {
		return generated{}, err
	}
	var last []Violation
	for range 50 {
		g.reset()
		val := g.value(s.defs[def], nil, 0)
		raw, err := json.Marshal(val)
		if err != nil {
			return generated{}, err
		}
		if last = ValidateDef(v, def, raw); len(last) == 0 {
			return generated{raw: raw, required: g.required, enums: g.enums, consts: g.consts}, nil
		}
	}
	return generated{}, fmt.Errorf("version %s: could not generate a valid %s in 50 draws; last violations: %v", v, def, last)
}

// TestGeneratorProducesValidInstances checks the generator against every
// definition of every embedded schema.
func TestGeneratorProducesValidInstances(t *testing.T) {
	for _, v := range Available() {
		defs, err := Defs(v)
		if err != nil {
			t.Fatal(err)
		}
		g := newGenerator(mustDefs(t, v), 1)
		for _, d := range defs {
			for range 5 {
				if _, err := generateValid(v, g, d); err != nil {
					t.Error(err)
					break
				}
			}
		}
	}
}

func mustDefs(t testing.TB, v spec.Version) map[string]any {
	t.Helper()
	s, err := load(v)
	if err != nil {
		t.Fatal(err)
	}
	return s.defs
}

// decodeGeneric decodes JSON keeping numbers as json.Number.
func decodeGeneric(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// TestValidateAcceptsGenerated sends generated valid instances of every
// method through Validate as whole messages (results wrapped in a response
// from the right peer) and expects no violations: the classification,
// direction and lookup logic must agree with the definitions.
func TestValidateAcceptsGenerated(t *testing.T) {
	for _, v := range Available() {
		table, err := Methods(v)
		if err != nil {
			t.Fatal(err)
		}
		g := newGenerator(mustDefs(t, v), 99)
		for _, m := range table {
			if m.Carrier {
				continue
			}
			sender := m.Direction
			if sender == spec.Both {
				sender = spec.ClientToServer
			}
			for range 5 {
				def := m.Request
				if m.Notification != "" {
					def = m.Notification
				}
				gen, err := generateValid(v, g, def)
				if err != nil {
					t.Fatal(err)
				}
				if got := Validate(v, sender, "", gen.raw); len(got) != 0 {
					t.Errorf("version %s: Validate(%s) = %v, want none", v, gen.raw, got)
				}
				if m.Result == "" {
					continue
				}
				res, err := generateValid(v, g, m.Result)
				if err != nil {
					t.Fatal(err)
				}
				msg := []byte(`{"jsonrpc":"2.0","id":1,"result":` + string(res.raw) + `}`)
				if got := Validate(v, sender.Opposite(), m.Name, msg); len(got) != 0 {
					t.Errorf("version %s: Validate(%s answer %s) = %v, want none", v, m.Name, msg, got)
				}
			}
		}
	}
}
