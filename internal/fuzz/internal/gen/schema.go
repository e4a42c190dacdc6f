package gen

import (
	"encoding/base64"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"pgregory.net/rapid"
)

// SchemaGen draws JSON values that satisfy a JSON Schema (draft 2020-12
// subset). It knows the keywords MCP schemas and tool inputSchemas use:
// $ref to local $defs (and to "#"), type (one or a list), properties,
// required, additionalProperties, propertyNames with a pattern, items,
// prefixItems, minItems/maxItems, enum, const, anyOf/oneOf, allOf (merged),
// not {required: [...]} on objects, minimum/maximum and their exclusive
// forms, multipleOf on integers, minLength/maxLength, pattern and the formats
// uri, uri-template, byte, date, date-time and email. Conditional keywords
// (if/then/else) and other "not" forms are ignored while generating; the
// property tests show which schemas that matters for.
//
// Values are map[string]any, []any, string, int64, float64, bool and nil, so
// encoding/json marshals them deterministically (sorted keys).
//
// A SchemaGen is safe for concurrent use once built.
type SchemaGen struct {
	root     map[string]any
	defs     map[string]any
	maxDepth int

	mu       sync.Mutex
	patterns map[string]*rapid.Generator[string]

	// Drawing interprets the schema maps; what does not depend on the
	// draw is worked out once per map and kept. stable holds the maps of
	// the document (they live as long as the generator, so their
	// addresses name them); resolved maps a stable schema holding $ref or
	// allOf to its resolution (resolutions names those, which the cache
	// keeps alive), and layouts a stable or resolved object schema to its
	// members.
	stable      map[unsafe.Pointer]bool
	resolved    sync.Map // unsafe.Pointer -> map[string]any
	resolutions sync.Map // unsafe.Pointer of a resolution (kept alive by resolved) -> true
	layouts     sync.Map // unsafe.Pointer -> *objectLayout
}

// objectLayout is what object needs of an object schema.
type objectLayout struct {
	names     []string // declared and required members, sorted
	required  map[string]bool
	forbidden map[string]bool
	props     map[string]any
	extra     any // the schema of undeclared members (nil: none)
}

// mapPtr is the address of a map, which names it while it is alive.
func mapPtr(m map[string]any) unsafe.Pointer { return reflect.ValueOf(m).UnsafePointer() }

// collectMaps records the address of every map in the document.
func collectMaps(v any, into map[unsafe.Pointer]bool) {
	switch x := v.(type) {
	case map[string]any:
		if into[mapPtr(x)] {
			return
		}
		into[mapPtr(x)] = true
		for _, e := range x {
			collectMaps(e, into)
		}
	case []any:
		for _, e := range x {
			collectMaps(e, into)
		}
	}
}

// NewSchemaGen returns a generator over root, whose $defs (and legacy
// "definitions") resolve local references. maxDepth bounds nesting: past it,
// optional members and array items are left out; 0 means 6.
func NewSchemaGen(root map[string]any, maxDepth int) *SchemaGen {
	if maxDepth <= 0 {
		maxDepth = 6
	}
	defs := map[string]any{}
	for _, key := range []string{"definitions", "$defs"} {
		if d, ok := root[key].(map[string]any); ok {
			for k, v := range d {
				defs[k] = v
			}
		}
	}
	g := &SchemaGen{root: root, defs: defs, maxDepth: maxDepth, patterns: map[string]*rapid.Generator[string]{}, stable: map[unsafe.Pointer]bool{}}
	collectMaps(root, g.stable)
	return g
}

// Root is a generator of values of the whole schema.
func (g *SchemaGen) Root() *rapid.Generator[any] { return g.Generator(g.root) }

// Def is a generator of values of one definition under $defs.
func (g *SchemaGen) Def(name string) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		d, ok := g.defs[name]
		if !ok {
			t.Fatalf("fuzz: the schema has no definition %q", name)
		}
		touch(t)
		return g.draw(t, d, 0)
	})
}

// Generator is a generator of values of the subschema s.
func (g *SchemaGen) Generator(s any) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any { touch(t); return g.draw(t, s, 0) })
}

// touch draws one bit, because rapid refuses custom generators that draw
// nothing (a schema with a single possible value, such as a const).
func touch(t *rapid.T) { rapid.Bool().Draw(t, "touch") }

// resolve follows $ref chains and merges allOf members into one schema map.
// Sibling keywords of a $ref win over the referenced ones.
func (g *SchemaGen) resolve(s any) map[string]any {
	m, ok := s.(map[string]any)
	if !ok {
		return nil
	}
	_, hasRef := m["$ref"]
	_, hasAll := m["allOf"]
	if !hasRef && !hasAll {
		return m
	}
	if !g.stable[mapPtr(m)] {
		return g.resolveOnce(m)
	}
	if r, ok := g.resolved.Load(mapPtr(m)); ok {
		return r.(map[string]any)
	}
	r := g.resolveOnce(m)
	// The resolution is shared from now on: nothing may modify it (the
	// callers build new maps to merge into).
	if prev, loaded := g.resolved.LoadOrStore(mapPtr(m), r); loaded {
		return prev.(map[string]any)
	}
	g.resolutions.Store(mapPtr(r), true)
	return r
}

func (g *SchemaGen) resolveOnce(m map[string]any) map[string]any {
	for i := 0; i < 32; i++ {
		ref, ok := m["$ref"].(string)
		if !ok {
			break
		}
		target := g.lookup(ref)
		merged := map[string]any{}
		for k, v := range target {
			merged[k] = v
		}
		for k, v := range m {
			if k != "$ref" {
				merged[k] = v
			}
		}
		m = merged
	}
	if all, ok := m["allOf"].([]any); ok {
		merged := map[string]any{}
		for k, v := range m {
			if k != "allOf" {
				merged[k] = v
			}
		}
		for _, sub := range all {
			g.mergeSchema(merged, g.resolve(sub))
		}
		m = merged
	}
	return m
}

func (g *SchemaGen) lookup(ref string) map[string]any {
	switch {
	case ref == "#":
		return g.root
	case strings.HasPrefix(ref, "#/$defs/"):
		m, _ := g.defs[unescapeToken(strings.TrimPrefix(ref, "#/$defs/"))].(map[string]any)
		return m
	case strings.HasPrefix(ref, "#/definitions/"):
		m, _ := g.defs[unescapeToken(strings.TrimPrefix(ref, "#/definitions/"))].(map[string]any)
		return m
	}
	return nil
}

func unescapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// mergeSchema folds the object-shaping keywords of src into dst (allOf).
// Conditional members (if/then/else) are dropped.
func (g *SchemaGen) mergeSchema(dst, src map[string]any) {
	for k, v := range src {
		switch k {
		case "properties":
			props, _ := dst["properties"].(map[string]any)
			out := map[string]any{}
			for pk, pv := range props {
				out[pk] = pv
			}
			for pk, pv := range v.(map[string]any) {
				if prev, ok := out[pk].(map[string]any); ok {
					if _, ok := pv.(map[string]any); ok {
						both := map[string]any{}
						for a, b := range g.resolve(prev) {
							both[a] = b
						}
						g.mergeSchema(both, g.resolve(pv))
						out[pk] = both
						continue
					}
				}
				out[pk] = pv
			}
			dst["properties"] = out
		case "required":
			req, _ := dst["required"].([]any)
			dst["required"] = append(append([]any(nil), req...), v.([]any)...)
		case "if", "then", "else":
		default:
			if _, ok := dst[k]; !ok {
				dst[k] = v
			}
		}
	}
}

// draw produces one value of schema s at nesting depth.
func (g *SchemaGen) draw(t *rapid.T, s any, depth int) any {
	if b, ok := s.(bool); ok {
		if !b {
			t.Fatalf("fuzz: the schema is false, so no value satisfies it")
		}
		return g.anyValue(t, depth)
	}
	m := g.resolve(s)
	if m == nil {
		return g.anyValue(t, depth)
	}
	if c, ok := m["const"]; ok {
		return c
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[rapid.IntRange(0, len(e)-1).Draw(t, "enum")]
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := m[key].([]any); ok && len(alts) > 0 {
			if merged := g.onlyConstraints(m, alts); merged != nil {
				return g.draw(t, merged, depth)
			}
			i := rapid.IntRange(0, len(alts)-1).Draw(t, key)
			alt := g.resolve(alts[i])
			rest := map[string]any{}
			for k, v := range m {
				if k != key {
					rest[k] = v
				}
			}
			g.mergeSchema(rest, alt)
			for k, v := range alt {
				if k != "properties" && k != "required" {
					rest[k] = v
				}
			}
			return g.draw(t, rest, depth)
		}
	}
	typ := g.pickType(t, m)
	switch typ {
	case "object":
		return g.object(t, m, depth)
	case "array":
		return g.array(t, m, depth)
	case "string":
		return g.str(t, m)
	case "integer":
		return g.integer(t, m)
	case "number":
		return g.number(t, m)
	case "boolean":
		return rapid.Bool().Draw(t, "bool")
	case "null":
		return nil
	}
	return g.anyValue(t, depth)
}

// onlyConstraints handles anyOf lists whose members only add "required"
// (a common way to say "one of these members must be present"): it returns
// the parent with that member's requirements merged, or nil otherwise.
func (g *SchemaGen) onlyConstraints(m map[string]any, alts []any) map[string]any {
	for _, a := range alts {
		am, ok := a.(map[string]any)
		if !ok {
			return nil
		}
		for k := range am {
			if k != "required" {
				return nil
			}
		}
	}
	out := map[string]any{}
	for k, v := range m {
		if k != "anyOf" && k != "oneOf" {
			out[k] = v
		}
	}
	// Requiring the members of every alternative satisfies anyOf; for oneOf
	// the first alternative alone is taken.
	for _, a := range alts[:1] {
		g.mergeSchema(out, a.(map[string]any))
	}
	return out
}

func (g *SchemaGen) pickType(t *rapid.T, m map[string]any) string {
	switch ty := m["type"].(type) {
	case string:
		return ty
	case []any:
		if len(ty) > 0 {
			s, _ := ty[rapid.IntRange(0, len(ty)-1).Draw(t, "type")].(string)
			return s
		}
	}
	switch {
	case m["properties"] != nil || m["required"] != nil || m["additionalProperties"] != nil:
		return "object"
	case m["items"] != nil || m["prefixItems"] != nil:
		return "array"
	case m["pattern"] != nil || m["format"] != nil || m["minLength"] != nil:
		return "string"
	case m["minimum"] != nil || m["maximum"] != nil:
		return "number"
	}
	return ""
}

func stringList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// forbiddenMembers collects the member names a "not": {"required": [...]}
// rules out.
func forbiddenMembers(m map[string]any) map[string]bool {
	out := map[string]bool{}
	if n, ok := m["not"].(map[string]any); ok && len(n) == 1 {
		for _, r := range stringList(n["required"]) {
			out[r] = true
		}
	}
	return out
}

// layout returns the members of object schema m, worked out once for the
// maps that live as long as the generator.
func (g *SchemaGen) layout(m map[string]any) *objectLayout {
	p := mapPtr(m)
	keep := g.stable[p]
	if !keep {
		_, keep = g.resolutions.Load(p)
	}
	if keep {
		if l, ok := g.layouts.Load(p); ok {
			return l.(*objectLayout)
		}
	}
	l := &objectLayout{required: map[string]bool{}, forbidden: forbiddenMembers(m), extra: g.additional(m)}
	l.props, _ = m["properties"].(map[string]any)
	for _, r := range stringList(m["required"]) {
		l.required[r] = true
	}
	for k := range l.props {
		l.names = append(l.names, k)
	}
	for k := range l.required {
		if _, ok := l.props[k]; !ok {
			l.names = append(l.names, k)
		}
	}
	sort.Strings(l.names)
	if keep {
		g.layouts.Store(p, l)
	}
	return l
}

var (
	boolGen       = rapid.Bool()
	memberNameGen = rapid.StringMatching(`[a-z][a-zA-Z0-9_]{0,8}`)
	anyKeyGen     = rapid.StringMatching(`[a-z]{1,6}`)
)

func (g *SchemaGen) object(t *rapid.T, m map[string]any, depth int) any {
	l := g.layout(m)
	props, required, forbidden := l.props, l.required, l.forbidden
	out := make(map[string]any, len(l.names))
	for _, k := range l.names {
		if forbidden[k] {
			continue
		}
		if !required[k] && (depth >= g.maxDepth || !boolGen.Draw(t, "optional member")) {
			continue
		}
		ps, ok := props[k]
		if !ok {
			ps = l.extra
		}
		if b, isBool := ps.(bool); isBool && !b {
			continue // a member the schema forbids ("id": false)
		}
		out[k] = g.draw(t, ps, depth+1)
	}
	if depth >= g.maxDepth {
		return out
	}
	extra := l.extra
	if extra == nil {
		return out
	}
	n := rapid.IntRange(0, 2).Draw(t, "extra members")
	for i := 0; i < n; i++ {
		k := g.memberName(t, m)
		if _, taken := out[k]; taken || forbidden[k] {
			continue
		}
		if _, declared := props[k]; declared {
			continue
		}
		out[k] = g.draw(t, extra, depth+1)
	}
	return out
}

// additional is the schema of members not named in properties, or nil when
// the generator should add none: additionalProperties false, or an object
// schema that names its members (extras would be noise).
func (g *SchemaGen) additional(m map[string]any) any {
	switch a := m["additionalProperties"].(type) {
	case bool:
		if !a {
			return nil
		}
		return map[string]any{}
	case map[string]any:
		return a
	}
	if _, ok := m["properties"]; ok {
		return nil
	}
	return map[string]any{}
}

func (g *SchemaGen) memberName(t *rapid.T, m map[string]any) string {
	if pn, ok := m["propertyNames"].(map[string]any); ok {
		if p, ok := pn["pattern"].(string); ok {
			return g.pattern(p).Draw(t, "member name")
		}
	}
	return memberNameGen.Draw(t, "member name")
}

func (g *SchemaGen) pattern(p string) *rapid.Generator[string] {
	g.mu.Lock()
	defer g.mu.Unlock()
	if gen, ok := g.patterns[p]; ok {
		return gen
	}
	gen := rapid.StringMatching(p)
	g.patterns[p] = gen
	return gen
}

func (g *SchemaGen) array(t *rapid.T, m map[string]any, depth int) any {
	lo, hi := 0, 3
	if v, ok := intOf(m["minItems"]); ok {
		lo = v
	}
	if v, ok := intOf(m["maxItems"]); ok && v < hi {
		hi = v
	}
	if depth >= g.maxDepth {
		hi = lo
	}
	if hi < lo {
		hi = lo
	}
	prefix, _ := m["prefixItems"].([]any)
	if len(prefix) > lo {
		lo = len(prefix)
		if hi < lo {
			hi = lo
		}
	}
	n := rapid.IntRange(lo, hi).Draw(t, "items")
	out := make([]any, 0, n)
	for i := 0; i < n; i++ {
		if i < len(prefix) {
			out = append(out, g.draw(t, prefix[i], depth+1))
			continue
		}
		out = append(out, g.draw(t, m["items"], depth+1))
	}
	return out
}

func (g *SchemaGen) str(t *rapid.T, m map[string]any) any {
	if p, ok := m["pattern"].(string); ok {
		return g.pattern(p).Draw(t, "pattern")
	}
	lo, hi := 0, 12
	if v, ok := intOf(m["minLength"]); ok {
		lo = v
		if hi < lo {
			hi = lo + 4
		}
	}
	if v, ok := intOf(m["maxLength"]); ok && v < hi {
		hi = v
	}
	if hi < lo {
		hi = lo
	}
	switch m["format"] {
	case "uri":
		return rapid.SampledFrom([]string{"file:///tmp/a.txt", "https://example.com/x", "test://static/resource/1", "mem://note/1"}).Draw(t, "uri")
	case "uri-template":
		return rapid.SampledFrom([]string{"file:///{path}", "test://static/resource/{id}", "https://example.com/{a}/{b}"}).Draw(t, "uri-template")
	case "byte":
		b := rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, "bytes")
		return base64.StdEncoding.EncodeToString(b)
	case "date":
		return "2026-07-28"
	case "date-time":
		return rapid.SampledFrom([]string{"2026-07-28T12:00:00Z", "2025-11-25T00:00:00.5+02:00"}).Draw(t, "date-time")
	case "email":
		return "someone@example.com"
	}
	// Strings count characters (code points) for minLength/maxLength.
	return rapid.StringN(lo, hi, -1).Draw(t, "string")
}

func (g *SchemaGen) integer(t *rapid.T, m map[string]any) any {
	lo, hi := int64(-1000), int64(1000)
	if v, ok := numOf(m["minimum"]); ok {
		lo = int64(math.Ceil(v))
		if hi < lo {
			hi = lo + 1000
		}
	}
	if v, ok := numOf(m["exclusiveMinimum"]); ok {
		lo = int64(math.Floor(v)) + 1
		if hi < lo {
			hi = lo + 1000
		}
	}
	if v, ok := numOf(m["maximum"]); ok {
		hi = int64(math.Floor(v))
		if lo > hi {
			lo = hi - 1000
		}
	}
	if v, ok := numOf(m["exclusiveMaximum"]); ok {
		hi = int64(math.Ceil(v)) - 1
		if lo > hi {
			lo = hi - 1000
		}
	}
	n := rapid.Int64Range(lo, hi).Draw(t, "integer")
	if mo, ok := numOf(m["multipleOf"]); ok && mo >= 1 && mo == math.Trunc(mo) {
		step := int64(mo)
		n -= ((n % step) + step) % step
		if n < lo {
			n += step
		}
	}
	return n
}

func (g *SchemaGen) number(t *rapid.T, m map[string]any) any {
	lo, hi := -1000.0, 1000.0
	if v, ok := numOf(m["minimum"]); ok {
		lo = v
		if hi < lo {
			hi = lo + 1000
		}
	}
	if v, ok := numOf(m["maximum"]); ok {
		hi = v
		if lo > hi {
			lo = hi - 1000
		}
	}
	exLo, okLo := numOf(m["exclusiveMinimum"])
	exHi, okHi := numOf(m["exclusiveMaximum"])
	if okLo && exLo >= lo {
		lo = math.Nextafter(exLo, math.Inf(1))
	}
	if okHi && exHi <= hi {
		hi = math.Nextafter(exHi, math.Inf(-1))
	}
	if rapid.Bool().Draw(t, "integral") {
		a, b := math.Ceil(lo), math.Floor(hi)
		if a <= b {
			return float64(rapid.Int64Range(int64(a), int64(b)).Draw(t, "number"))
		}
	}
	return rapid.Float64Range(lo, hi).Draw(t, "number")
}

// anyValue draws a small value of any JSON type.
func (g *SchemaGen) anyValue(t *rapid.T, depth int) any {
	kinds := []string{"null", "bool", "int", "float", "string", "array", "object"}
	if depth >= g.maxDepth {
		kinds = kinds[:5]
	}
	switch rapid.SampledFrom(kinds).Draw(t, "any kind") {
	case "null":
		return nil
	case "bool":
		return rapid.Bool().Draw(t, "bool")
	case "int":
		return rapid.Int64Range(-1<<20, 1<<20).Draw(t, "int")
	case "float":
		return rapid.Float64Range(-1e6, 1e6).Draw(t, "float")
	case "string":
		return rapid.StringN(0, 8, -1).Draw(t, "string")
	case "array":
		n := rapid.IntRange(0, 2).Draw(t, "len")
		out := make([]any, n)
		for i := range out {
			out[i] = g.anyValue(t, depth+1)
		}
		return out
	}
	n := rapid.IntRange(0, 2).Draw(t, "len")
	out := map[string]any{}
	for i := 0; i < n; i++ {
		out[anyKeyGen.Draw(t, "key")] = g.anyValue(t, depth+1)
	}
	return out
}

func intOf(v any) (int, bool) {
	f, ok := numOf(v)
	if !ok || f != math.Trunc(f) || f < 0 || f > 1<<20 {
		return 0, false
	}
	return int(f), true
}

func numOf(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case interface{ Float64() (float64, error) }:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// errSchema says a schema could not be used for generation.
func errSchema(what string, err error) error {
	return fmt.Errorf("fuzz: %s is not a usable JSON Schema: %v; pass a JSON object schema", what, err)
}
