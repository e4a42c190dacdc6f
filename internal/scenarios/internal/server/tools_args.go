package server

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/toolpolicy"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// Tool arguments generated from an inputSchema: valid and minimal
// (required properties only; const, enum, default and examples first;
// bounds, multipleOf, lengths, patterns and formats respected; arrays of
// minItems; nested objects; local $ref; allOf merged; the first viable
// branch of anyOf/oneOf; time and work knobs set small). Every candidate
// is validated against the compiled schema before use: the generator takes
// numbered decisions (which branch, which type, which enum value, which
// string) and, when a candidate does not validate, tries the next
// combination, the last decision first, a bounded number of times.
//
// Generated arguments never consent (toolpolicy): a property whose name
// asks for consent or confirmation gets false, 0 or a value that does not
// read as yes; no value that reads as consent ("Y", "confirm", "I
// understand") is picked anywhere, and an enum value naming a destructive
// action ("delete", "force") only when the enum has nothing else; a
// boolean that makes the call do less (dry_run, preview) is set. A schema
// that can only be satisfied by consenting gets no arguments: the check
// says so, and --tool-args is the way to give them.

// maxArgAttempts bounds the candidates tried for one inputSchema.
const maxArgAttempts = 64

// maxArgDepth bounds the nesting the generator follows (and $ref chains).
const maxArgDepth = 10

// featuresSchema is the part of a JSON Schema the argument generator reads.
type featuresSchema struct {
	Ref                  string                     `json:"$ref"`
	Type                 json.RawMessage            `json:"type"`
	Properties           map[string]json.RawMessage `json:"properties"`
	Required             []string                   `json:"required"`
	AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	MinProperties        *int                       `json:"minProperties"`
	Enum                 []json.RawMessage          `json:"enum"`
	Const                json.RawMessage            `json:"const"`
	Default              json.RawMessage            `json:"default"`
	Examples             []json.RawMessage          `json:"examples"`
	Minimum              *float64                   `json:"minimum"`
	Maximum              *float64                   `json:"maximum"`
	ExclusiveMinimum     json.RawMessage            `json:"exclusiveMinimum"`
	ExclusiveMaximum     json.RawMessage            `json:"exclusiveMaximum"`
	MultipleOf           *float64                   `json:"multipleOf"`
	MinLength            *int                       `json:"minLength"`
	MaxLength            *int                       `json:"maxLength"`
	Pattern              string                     `json:"pattern"`
	Format               string                     `json:"format"`
	MinItems             *int                       `json:"minItems"`
	UniqueItems          bool                       `json:"uniqueItems"`
	Items                json.RawMessage            `json:"items"`
	PrefixItems          []json.RawMessage          `json:"prefixItems"`
	AnyOf                []json.RawMessage          `json:"anyOf"`
	OneOf                []json.RawMessage          `json:"oneOf"`
	AllOf                []json.RawMessage          `json:"allOf"`
}

func (s featuresSchema) types() []string {
	var one string
	if json.Unmarshal(s.Type, &one) == nil && one != "" {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(s.Type, &many)
	return many
}

// featuresKnobName matches property names of time and work knobs.
var featuresKnobName = regexp.MustCompile(`(?i)^(duration|delay|timeout|sleep|wait|interval|seconds|secs|ms|millis|milliseconds|durationms|delayms|durationseconds|steps|iterations)$`)

// featuresKnob returns a small valid value for a numeric property named
// like a time or work knob: 1 (3 for a step count, so progress still has
// steps to report; 0.1 for a time that may be fractional), moved into the
// schema's bounds.
func featuresKnob(name string, raw json.RawMessage) (any, bool) {
	if !featuresKnobName.MatchString(name) {
		return nil, false
	}
	var s featuresSchema
	if json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	ts := s.types()
	if len(ts) == 0 || (ts[0] != "number" && ts[0] != "integer") || len(s.Enum) > 0 || len(s.Const) > 0 {
		return nil, false
	}
	v := 1.0
	switch {
	case strings.Contains(strings.ToLower(name), "step") || strings.Contains(strings.ToLower(name), "iteration"):
		v = 3
	case ts[0] == "number":
		// A fractional time: a tenth, whatever the unit (a tenth of a
		// second, or of a millisecond).
		v = 0.1
	}
	return argNumber(s, v, ts[0] == "integer"), true
}

// argGen is one pass of the generator over a schema: picks are the
// decisions to take (by position, 0 when not given), taken and sizes what
// the pass took and how many options each decision had.
type argGen struct {
	root  json.RawMessage
	picks []int
	taken []int
	sizes []int
	// consent is set while the generator is inside a property whose name
	// asks for consent; refused says why the pass had to consent.
	consent bool
	refused string
	// skipped is a value the pass passed over because it consents (the
	// one a pattern asks for, say): when no candidate fits, it is why.
	skipped string
}

// refuse notes that the pass could only consent (what and why).
func (g *argGen) refuse(why string) {
	if g.refused == "" {
		g.refused = why
	}
}

// pickAmong chooses one of vals, never one that consents, and one that
// names a destructive action only when nothing else is left; what names
// the keyword for the refusal.
func (g *argGen) pickAmong(vals []json.RawMessage, what string) json.RawMessage {
	var calm, risky []json.RawMessage
	for _, v := range vals {
		switch {
		case toolpolicy.Consents(v, g.consent):
			continue
		case toolpolicy.Risky(v):
			risky = append(risky, v)
		default:
			calm = append(calm, v)
		}
	}
	opts := append(calm, risky...)
	if len(opts) == 0 {
		g.refuse(fmt.Sprintf("every value its %s allows (%s) reads as consent", what, Clip(vals[0])))
		return vals[0]
	}
	return opts[g.choose(len(opts))]
}

// choose takes the next decision among n options.
func (g *argGen) choose(n int) int {
	pos := len(g.taken)
	c := 0
	if pos < len(g.picks) && g.picks[pos] < n {
		c = g.picks[pos]
	}
	g.taken = append(g.taken, c)
	g.sizes = append(g.sizes, n)
	return c
}

// next sets the decisions of the following pass: the last decision that
// has an option left moves on, the ones after it start over. It reports
// false when every combination was tried.
func (g *argGen) next() bool {
	for i := len(g.taken) - 1; i >= 0; i-- {
		if g.taken[i]+1 < g.sizes[i] {
			g.picks = append(append([]int(nil), g.taken[:i]...), g.taken[i]+1)
			g.taken, g.sizes = nil, nil
			return true
		}
	}
	return false
}

// featuresArgsWhy is featuresArgs saying why no arguments could be
// generated ("" when they were).
func featuresArgsWhy(tl mcp.Tool) (json.RawMessage, string) {
	raw := tl.InputSchema
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	if _, known := rules.PeerDialect(raw); !known {
		// Not validated: the validator does not implement the dialect.
		g := &argGen{root: raw}
		v := g.value(raw, 0)
		if at := argConsent(v); g.refused != "" || at != "" {
			return nil, "mcpcheck never generates consent, and its inputSchema asks for it: " + consentWhy(g.refused, at)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, "the generated arguments do not encode: " + err.Error()
		}
		return b, ""
	}
	s, err := rules.CompilePeerSchema(raw, "tool-input:"+tl.Name)
	if err != nil {
		return nil, "its inputSchema does not compile (tools/input-schema-valid judges it): " + rules.OneLine(err.Error())
	}
	g := &argGen{root: raw}
	last, consented := "", ""
	for i := 0; i < maxArgAttempts; i++ {
		g.refused, g.skipped = "", ""
		v := g.value(raw, 0)
		if g.skipped != "" && consented == "" {
			consented = g.skipped
		}
		if g.refused == "" {
			if at := argConsent(v); at != "" {
				g.refuse(fmt.Sprintf("the value of %s reads as consent", at))
			}
		}
		if g.refused != "" {
			consented, last = g.refused, g.refused
		} else if _, isObj := v.(map[string]any); !isObj {
			last = "the schema does not describe an object"
		} else if b, err := json.Marshal(v); err != nil {
			last = "the generated arguments do not encode: " + err.Error()
		} else if why := rules.ValidatePeerValue(s, b); why == "" {
			return b, ""
		} else {
			last = fmt.Sprintf("%s: %s", Clip(b), why)
		}
		if !g.next() {
			if consented != "" {
				return nil, "mcpcheck never generates consent, and its inputSchema asks for it: " + consented
			}
			return nil, fmt.Sprintf("no instance of its inputSchema could be generated (%d candidates tried; the last, %s)", i+1, last)
		}
	}
	if consented != "" {
		return nil, "mcpcheck never generates consent, and its inputSchema asks for it: " + consented
	}
	return nil, fmt.Sprintf("no instance of its inputSchema could be generated in %d candidates (the last, %s)", maxArgAttempts, last)
}

// consentWhy is the refusal of a pass, or else where its value consented.
func consentWhy(refused, at string) string {
	if refused != "" {
		return refused
	}
	return "the value of " + at + " reads as consent"
}

// argConsent returns where generated arguments consent ("" nowhere).
func argConsent(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	var d any
	if json.Unmarshal(b, &d) != nil {
		return ""
	}
	return toolpolicy.FindConsent(d)
}

// value generates a candidate for the schema raw.
func (g *argGen) value(raw json.RawMessage, depth int) any {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	switch string(raw) {
	case "", "true", "{}":
		return "mcpcheck"
	case "false":
		return nil // no instance; validation says so
	}
	var s featuresSchema
	if depth > maxArgDepth || json.Unmarshal(raw, &s) != nil {
		return map[string]any{}
	}
	if s.Ref != "" {
		if target, ok := g.resolve(s.Ref); ok {
			return g.value(argMerge(target, argWithout(raw, "$ref")), depth+1)
		}
	}
	if len(s.AllOf) > 0 {
		m := argWithout(raw, "allOf")
		for _, sub := range s.AllOf {
			m = argMerge(m, sub)
		}
		return g.value(m, depth+1)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		branches := s.AnyOf
		if key == "oneOf" {
			branches = s.OneOf
		}
		if len(branches) > 0 {
			b := branches[g.choose(len(branches))]
			return g.value(argMerge(argWithout(raw, key), b), depth+1)
		}
	}
	if len(s.Const) > 0 {
		if toolpolicy.Consents(s.Const, g.consent) {
			g.refuse(fmt.Sprintf("its const %s reads as consent", Clip(s.Const)))
		}
		return s.Const
	}
	if len(s.Enum) > 0 {
		return g.pickAmong(s.Enum, "enum")
	}
	var presets []json.RawMessage
	if len(s.Default) > 0 && !toolpolicy.Consents(s.Default, g.consent) {
		presets = append(presets, s.Default)
	}
	if len(s.Examples) > 0 && !toolpolicy.Consents(s.Examples[0], g.consent) {
		presets = append(presets, s.Examples[0])
	}
	if len(presets) > 0 {
		if i := g.choose(len(presets) + 1); i < len(presets) {
			return presets[i]
		}
	}
	ts := s.types()
	var t string
	switch {
	case len(ts) == 1:
		t = ts[0]
	case len(ts) > 1:
		// null last: a value says more than null.
		sort.SliceStable(ts, func(i, j int) bool { return ts[i] != "null" && ts[j] == "null" })
		t = ts[g.choose(len(ts))]
	case s.Properties != nil || len(s.Required) > 0 || s.MinProperties != nil:
		t = "object"
	case len(s.Items) > 0 || len(s.PrefixItems) > 0 || s.MinItems != nil:
		t = "array"
	case s.Minimum != nil || s.Maximum != nil || s.MultipleOf != nil || len(s.ExclusiveMinimum) > 0 || len(s.ExclusiveMaximum) > 0:
		t = "number"
	default:
		t = "string"
	}
	switch t {
	case "object":
		return g.object(s, depth)
	case "string":
		return g.str(s)
	case "integer":
		if g.consent {
			return argNumber(s, 0, true) // 0: not a yes
		}
		return argNumber(s, 1, true)
	case "number":
		if g.consent {
			return argNumber(s, 0, false)
		}
		return argNumber(s, 1, false)
	case "boolean":
		return false
	case "array":
		return g.array(s, depth)
	case "null":
		return nil
	}
	return "mcpcheck"
}

func (g *argGen) object(s featuresSchema, depth int) map[string]any {
	out := map[string]any{}
	prop := func(name string) json.RawMessage {
		if p, ok := s.Properties[name]; ok {
			return p
		}
		if len(s.AdditionalProperties) > 0 && string(s.AdditionalProperties) != "true" && string(s.AdditionalProperties) != "false" {
			return s.AdditionalProperties
		}
		return nil
	}
	for _, name := range s.Required {
		if _, set := out[name]; set {
			continue
		}
		if v, ok := featuresKnob(name, prop(name)); ok {
			out[name] = v // a required knob of time or work: small too
			continue
		}
		out[name] = g.propValue(name, prop(name), depth+1)
	}
	// Optional numeric knobs of time and work (a duration, a delay, a
	// step count) are set small, so a tool whose defaults run for many
	// seconds answers within the step timeout.
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, set := out[name]; set {
			continue
		}
		if v, ok := featuresKnob(name, s.Properties[name]); ok {
			out[name] = v
			continue
		}
		if argSafetySwitch(name, s.Properties[name]) {
			out[name] = true // a dry run or a preview, where the tool has one
		}
	}
	if s.MinProperties != nil {
		for _, name := range names {
			if len(out) >= *s.MinProperties {
				break
			}
			if _, set := out[name]; !set {
				out[name] = g.propValue(name, s.Properties[name], depth+1)
			}
		}
		for i := 0; len(out) < *s.MinProperties && i < 16; i++ {
			out[fmt.Sprintf("mcpcheck%d", i)] = g.value(prop(""), depth+1)
		}
	}
	return out
}

// propValue generates the value of the property name: inside a property
// that asks for consent nothing that reads as consent is picked; a
// boolean that makes the call do less (dry_run) is true.
func (g *argGen) propValue(name string, raw json.RawMessage, depth int) any {
	if argSafetySwitch(name, raw) {
		return true
	}
	outer := g.consent
	g.consent = outer || toolpolicy.ConsentName(name)
	defer func() { g.consent = outer }()
	return g.value(raw, depth)
}

// argSafetySwitch reports whether the property name, of schema raw, is a
// boolean whose true makes the call do less (toolpolicy.SafetyName).
func argSafetySwitch(name string, raw json.RawMessage) bool {
	if !toolpolicy.SafetyName(name) {
		return false
	}
	var s featuresSchema
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	ts := s.types()
	return len(ts) == 1 && ts[0] == "boolean" && len(s.Const) == 0 && len(s.Enum) == 0
}

func (g *argGen) array(s featuresSchema, depth int) []any {
	n := 0
	if s.MinItems != nil {
		n = min(*s.MinItems, 16)
	}
	var tuple []json.RawMessage
	item := s.Items
	if len(s.PrefixItems) > 0 {
		tuple = s.PrefixItems
	} else if strings.HasPrefix(strings.TrimSpace(string(s.Items)), "[") {
		_ = json.Unmarshal(s.Items, &tuple) // the array form of draft-07 and before
		item = nil
	}
	out := make([]any, 0, n)
	for i := 0; i < n; i++ {
		sch := item
		if i < len(tuple) {
			sch = tuple[i]
		}
		v := g.value(sch, depth+1)
		if s.UniqueItems && i > 0 {
			v = argDistinct(sch, v, i)
		}
		out = append(out, v)
	}
	return out
}

// argDistinct makes the i-th item of a uniqueItems array differ from the
// first ones: another enum value, a suffixed string, a larger number.
func argDistinct(raw json.RawMessage, v any, i int) any {
	var s featuresSchema
	_ = json.Unmarshal(raw, &s)
	if len(s.Enum) > 0 {
		return s.Enum[i%len(s.Enum)]
	}
	switch x := v.(type) {
	case string:
		return x + strconv.Itoa(i)
	case float64:
		return x + float64(i)
	case int64:
		return x + int64(i)
	}
	return v
}

// str picks a string: from the pattern, for the format, or "mcpcheck",
// fitted to minLength and maxLength.
func (g *argGen) str(s featuresSchema) string {
	var cands []string
	if s.Pattern != "" {
		if p, ok := argFromPattern(s.Pattern); ok {
			cands = append(cands, p)
		}
	}
	switch s.Format {
	case "uri", "uri-reference", "iri", "iri-reference", "url":
		cands = append(cands, "test://mcpcheck")
	case "date-time":
		cands = append(cands, "2025-01-01T00:00:00Z")
	case "date":
		cands = append(cands, "2025-01-01")
	case "time":
		cands = append(cands, "00:00:00Z")
	case "duration":
		cands = append(cands, "PT1S")
	case "email", "idn-email":
		cands = append(cands, "mcpcheck@example.com")
	case "hostname", "idn-hostname":
		cands = append(cands, "example.com")
	case "ipv4":
		cands = append(cands, "127.0.0.1")
	case "ipv6":
		cands = append(cands, "::1")
	case "uuid":
		cands = append(cands, "00000000-0000-4000-8000-000000000000")
	}
	cands = append(cands, "mcpcheck", "a", "0")
	calm := cands[:0:0]
	for _, c := range cands {
		if !toolpolicy.Consents(c, g.consent) {
			calm = append(calm, c)
		} else if g.skipped == "" {
			g.skipped = fmt.Sprintf("the string %q it asks for reads as consent", c)
		}
	}
	v := calm[g.choose(len(calm))]
	if s.MinLength != nil && len([]rune(v)) < *s.MinLength {
		v += strings.Repeat("x", *s.MinLength-len([]rune(v)))
	}
	if s.MaxLength != nil && len([]rune(v)) > *s.MaxLength {
		v = string([]rune(v)[:max(*s.MaxLength, 0)])
	}
	return v
}

// argFromPattern returns a short string matching pattern (Go's regexp
// syntax, close to the ECMA-262 one schemas use), or false when the
// pattern does not parse.
func argFromPattern(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	argRegexWrite(&b, re.Simplify(), 0)
	out := b.String()
	if m, err := regexp.Compile(pattern); err != nil || !m.MatchString(out) {
		return "", false
	}
	return out, true
}

func argRegexWrite(b *strings.Builder, re *syntax.Regexp, depth int) {
	if depth > 50 || b.Len() > 256 {
		return
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(argClassRune(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture:
		argRegexWrite(b, re.Sub[0], depth+1)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			argRegexWrite(b, s, depth+1)
		}
	case syntax.OpAlternate:
		argRegexWrite(b, re.Sub[0], depth+1)
	case syntax.OpPlus:
		argRegexWrite(b, re.Sub[0], depth+1)
	case syntax.OpRepeat:
		for i := 0; i < re.Min && i < 64; i++ {
			argRegexWrite(b, re.Sub[0], depth+1)
		}
	}
	// OpStar, OpQuest, anchors and empty matches add nothing.
}

// argClassRune picks a rune of a character class (pairs of lo, hi),
// preferring a lower-case letter, then a digit, then an upper-case letter.
func argClassRune(ranges []rune) rune {
	for _, want := range []rune{'a', '0', 'A'} {
		for i := 0; i+1 < len(ranges); i += 2 {
			lo, hi := ranges[i], ranges[i+1]
			for r := max(lo, want); r <= hi && r < want+26; r++ {
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					return r
				}
			}
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] >= ' ' {
			return ranges[i]
		}
		if ranges[i+1] >= ' ' {
			return ' '
		}
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	return 'a'
}

// argNumber moves the preferred value v into the schema's bounds (minimum,
// maximum, exclusive bounds of either draft) and onto its multipleOf.
func argNumber(s featuresSchema, v float64, integer bool) any {
	lo, hi := math.Inf(-1), math.Inf(1)
	loEx, hiEx := false, false
	if s.Minimum != nil {
		lo = *s.Minimum
	}
	if s.Maximum != nil {
		hi = *s.Maximum
	}
	var f float64
	var b bool
	if json.Unmarshal(s.ExclusiveMinimum, &f) == nil && len(s.ExclusiveMinimum) > 0 {
		if f >= lo {
			lo, loEx = f, true
		}
	} else if json.Unmarshal(s.ExclusiveMinimum, &b) == nil && b {
		loEx = true // draft-04: minimum is exclusive
	}
	if json.Unmarshal(s.ExclusiveMaximum, &f) == nil && len(s.ExclusiveMaximum) > 0 {
		if f <= hi {
			hi, hiEx = f, true
		}
	} else if json.Unmarshal(s.ExclusiveMaximum, &b) == nil && b {
		hiEx = true
	}
	step := 1.0
	if s.MultipleOf != nil && *s.MultipleOf > 0 {
		step = *s.MultipleOf
	}
	if !integer && s.MultipleOf == nil {
		step = 0 // any number
	}
	above := func(x float64) bool { return x > lo || (!loEx && x == lo) }
	below := func(x float64) bool { return x < hi || (!hiEx && x == hi) }
	if !above(v) {
		v = lo
		if loEx {
			if step > 0 {
				v = lo + step
			} else if !math.IsInf(hi, 1) {
				v = (lo + hi) / 2
			} else {
				v = lo + 1
			}
		}
	}
	if !below(v) {
		v = hi
		if hiEx {
			if step > 0 {
				v = hi - step
			} else if !math.IsInf(lo, -1) {
				v = (lo + hi) / 2
			} else {
				v = hi - 1
			}
		}
	}
	if step > 0 {
		if s.MultipleOf != nil {
			q := math.Ceil(v / step)
			if c := q * step; below(c) {
				v = c
			} else {
				v = math.Floor(v/step) * step
			}
		} else if integer {
			if c := math.Ceil(v); below(c) {
				v = c
			} else {
				v = math.Floor(v)
			}
		}
	}
	if integer {
		return int64(v)
	}
	return v
}

// resolve returns the schema a local $ref ("#", "#/$defs/x", a JSON
// pointer into the root) names; remote references are not followed.
func (g *argGen) resolve(ref string) (json.RawMessage, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	cur := g.root
	ptr := strings.TrimPrefix(ref, "#")
	if ptr == "" {
		return cur, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false // an anchor: not resolved here
	}
	for _, part := range strings.Split(ptr[1:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		var m map[string]json.RawMessage
		if json.Unmarshal(cur, &m) != nil {
			var arr []json.RawMessage
			i, err := strconv.Atoi(part)
			if json.Unmarshal(cur, &arr) != nil || err != nil || i < 0 || i >= len(arr) {
				return nil, false
			}
			cur = arr[i]
			continue
		}
		next, ok := m[part]
		if !ok {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

// argMerge overlays the keywords of sub onto base (a shallow merge for
// generation: required and properties are united, the rest of sub wins).
func argMerge(base, sub json.RawMessage) json.RawMessage {
	var b, s map[string]json.RawMessage
	if json.Unmarshal(base, &b) != nil || b == nil {
		b = map[string]json.RawMessage{}
	}
	if json.Unmarshal(sub, &s) != nil {
		return base
	}
	for k, v := range s {
		switch k {
		case "required":
			var x, y []string
			_ = json.Unmarshal(b[k], &x)
			_ = json.Unmarshal(v, &y)
			b[k], _ = json.Marshal(append(x, y...))
		case "properties":
			var x, y map[string]json.RawMessage
			_ = json.Unmarshal(b[k], &x)
			_ = json.Unmarshal(v, &y)
			if x == nil {
				x = map[string]json.RawMessage{}
			}
			for name, p := range y {
				if old, ok := x[name]; ok {
					x[name] = argMerge(old, p)
				} else {
					x[name] = p
				}
			}
			b[k], _ = json.Marshal(x)
		case "$schema", "$id", "$defs", "definitions", "title", "description":
			if _, ok := b[k]; !ok {
				b[k] = v
			}
		default:
			b[k] = v
		}
	}
	out, err := json.Marshal(b)
	if err != nil {
		return base
	}
	return out
}

// argWithout returns schema raw without keyword key.
func argWithout(raw json.RawMessage, key string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	delete(m, key)
	out, _ := json.Marshal(m)
	return out
}
