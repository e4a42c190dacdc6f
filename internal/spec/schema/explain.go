package schema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// explain turns a validation error tree into violations: one per leaf
// failure, with anyOf/oneOf failures narrowed to the alternative the
// instance was evidently aiming at.
func (s *versionSchema) explain(ve *jsonschema.ValidationError, prefix string) []Violation {
	var out []Violation
	for _, f := range resolve(ve) {
		out = append(out, s.violation(f, prefix)...)
	}
	return out
}

// failure is one leaf failure, or a collapsed "none of the alternatives"
// failure (wants != nil).
type failure struct {
	e *jsonschema.ValidationError
	// For a collapsed anyOf/oneOf: where the alternatives disagree with the
	// instance and what they would have accepted there.
	at    []string
	wants []any
	got   any
	none  bool
	// oneOfRequired lists members of which at least one must be present.
	oneOfRequired []string
}

func resolve(e *jsonschema.ValidationError) []failure {
	switch k := e.ErrorKind.(type) {
	case *kind.AnyOf:
		return pickBranch(e)
	case *kind.OneOf:
		if len(k.Subschemas) == 0 && len(e.Causes) > 0 {
			return pickBranch(e)
		}
		return []failure{{e: e}}
	}
	if len(e.Causes) == 0 {
		return []failure{{e: e}}
	}
	var out []failure
	for _, c := range e.Causes {
		out = append(out, resolve(c)...)
	}
	return out
}

// pickBranch chooses among the failed alternatives of an anyOf/oneOf. An
// alternative is ruled out when it fails on a discriminator: a const or
// type mismatch at the alternative's own value or at one of its direct
// members (type, method, mode, resultType, ...). Of the others, the one with
// the best score is reported (see score). When every alternative is ruled out, one
// failure says what the discriminators would have accepted.
func pickBranch(e *jsonschema.ValidationError) []failure {
	depth := len(e.InstanceLocation)
	var best []failure
	bestScore := 0
	var discAt []string
	sameDisc := true
	var wants []any
	var got any
	var missing []string
	onlyRequired := true
	for _, c := range e.Causes {
		fs := resolve(c)
		ruled := false
		for _, f := range fs {
			if f.e == nil {
				continue
			}
			loc := f.e.InstanceLocation
			if r, ok := f.e.ErrorKind.(*kind.Required); ok && len(loc) == depth {
				missing = append(missing, r.Missing...)
			} else {
				onlyRequired = false
			}
			if len(loc) > depth+1 {
				continue
			}
			switch k := f.e.ErrorKind.(type) {
			case *kind.Const:
				ruled = true
				wants = append(wants, k.Want)
				got = k.Got
			case *kind.Enum:
				ruled = true
				wants = append(wants, k.Want...)
				got = k.Got
			case *kind.Type:
				if len(loc) != depth {
					continue
				}
				ruled = true
				for _, w := range k.Want {
					wants = append(wants, "a JSON "+w)
				}
			case *kind.FalseSchema:
				ruled = true
			default:
				continue
			}
			if discAt == nil {
				discAt = loc
			} else if pointer(discAt) != pointer(loc) {
				sameDisc = false
			}
		}
		if ruled {
			continue
		}
		if sc := score(fs, depth); best == nil || sc < bestScore {
			best, bestScore = fs, sc
		}
	}
	if onlyRequired && len(e.Causes) > 1 && len(missing) == len(e.Causes) {
		return []failure{{e: e, at: e.InstanceLocation, none: true, oneOfRequired: missing}}
	}
	if best != nil {
		return best
	}
	at := e.InstanceLocation
	if sameDisc && discAt != nil {
		at = discAt
	} else {
		got = nil
	}
	return []failure{{e: e, at: at, wants: uniq(wants), got: got, none: true}}
}

// score ranks a failed alternative: a required member missing at the
// alternative's own level weighs ten ordinary failures, since it says the
// instance was not meant to be that shape at all. Lower is closer.
func score(fs []failure, depth int) int {
	n := 0
	for _, f := range fs {
		if f.e != nil {
			if r, ok := f.e.ErrorKind.(*kind.Required); ok && len(f.e.InstanceLocation) == depth {
				n += 10 * len(r.Missing)
				continue
			}
		}
		n++
	}
	return n
}

func uniq(vs []any) []any {
	seen := map[string]bool{}
	var out []any
	for _, v := range vs {
		k := fmt.Sprint(v)
		if !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	return out
}

// schemaLocation renders where in our schema file a failure comes from.
func (s *versionSchema) schemaLocation(e *jsonschema.ValidationError) string {
	url := e.SchemaURL
	var kw []string
	if ref, ok := e.ErrorKind.(*kind.Reference); ok {
		url = ref.URL
	} else {
		kw = e.ErrorKind.KeywordPath()
	}
	if _, ok := e.ErrorKind.(*kind.Not); ok {
		kw = []string{"not"}
	}
	loc := strings.TrimPrefix(url, "https://mcpcheck.dev/schema/")
	if len(kw) > 0 {
		loc += pointer(kw)
	}
	return loc
}

func (s *versionSchema) violation(f failure, prefix string) []Violation {
	e := f.e
	loc := s.schemaLocation(e)
	at := prefix + pointer(e.InstanceLocation)
	mk := func(ptr, msg string) Violation {
		return Violation{Kind: KindSchema, Pointer: ptr, Schema: loc, Message: msg}
	}
	if f.none {
		at = prefix + pointer(f.at)
		switch {
		case len(f.oneOfRequired) > 0:
			return []Violation{mk(at, fmt.Sprintf("needs at least one of the members %s, and has none", orList(quoteAll(f.oneOfRequired))))}
		case len(f.wants) == 0:
			return []Violation{mk(at, "matches none of the shapes allowed here")}
		case f.got != nil:
			return []Violation{mk(at, fmt.Sprintf("is %s, but must be %s", show(f.got), joinWants(f.wants)))}
		}
		return []Violation{mk(at, fmt.Sprintf("matches none of the shapes allowed here; expected %s", joinWants(f.wants)))}
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		out := make([]Violation, 0, len(k.Missing))
		for _, m := range k.Missing {
			out = append(out, mk(at+"/"+escapeToken(m), fmt.Sprintf("required member %q is missing", m)))
		}
		return out
	case *kind.Type:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = "a JSON " + w
		}
		return []Violation{mk(at, fmt.Sprintf("is a JSON %s, but must be %s", k.Got, orList(want)))}
	case *kind.Const:
		return []Violation{mk(at, fmt.Sprintf("is %s, but must be exactly %s", show(k.Got), show(k.Want)))}
	case *kind.Enum:
		return []Violation{mk(at, fmt.Sprintf("is %s, which is not one of the allowed values %s", show(k.Got), joinWants(k.Want)))}
	case *kind.Not:
		if strings.HasSuffix(at, "/error/code") {
			return []Violation{mk(at, "uses an error code that this protocol version has retired; it must not be sent")}
		}
		return []Violation{mk(at, "has a value this protocol version forbids here")}
	case *kind.FalseSchema:
		return []Violation{mk(at, "is not allowed here")}
	case *kind.AdditionalProperties:
		out := make([]Violation, 0, len(k.Properties))
		for _, p := range k.Properties {
			out = append(out, mk(at+"/"+escapeToken(p), fmt.Sprintf("member %q is not allowed here", p)))
		}
		return out
	case *kind.MinItems:
		return []Violation{mk(at, fmt.Sprintf("has %d items, fewer than the minimum %d", k.Got, k.Want))}
	case *kind.MaxItems:
		return []Violation{mk(at, fmt.Sprintf("has %d items, more than the maximum %d", k.Got, k.Want))}
	case *kind.MinLength:
		return []Violation{mk(at, fmt.Sprintf("is %d characters long, shorter than the minimum %d", k.Got, k.Want))}
	case *kind.MaxLength:
		return []Violation{mk(at, fmt.Sprintf("is %d characters long, longer than the maximum %d", k.Got, k.Want))}
	case *kind.Minimum:
		return []Violation{mk(at, fmt.Sprintf("is %s, below the minimum %s", k.Got.RatString(), k.Want.RatString()))}
	case *kind.Maximum:
		return []Violation{mk(at, fmt.Sprintf("is %s, above the maximum %s", k.Got.RatString(), k.Want.RatString()))}
	case *kind.Format:
		return []Violation{mk(at, fmt.Sprintf("is not a valid %s", k.Want))}
	case *kind.OneOf:
		return []Violation{mk(at, fmt.Sprintf("matches more than one alternative (%v) where exactly one is allowed", k.Subschemas))}
	case *kind.Pattern:
		return []Violation{mk(at, fmt.Sprintf("does not match the pattern %s", k.Want))}
	case *kind.UniqueItems:
		return []Violation{mk(at, fmt.Sprintf("items %d and %d are equal, but items must be unique", k.Duplicates[0], k.Duplicates[1]))}
	}
	return []Violation{mk(at, fmt.Sprintf("breaks the schema rule %s", pointer(e.ErrorKind.KeywordPath())))}
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func joinWants(vs []any) string {
	parts := make([]string, 0, len(vs))
	for _, v := range vs {
		if s, ok := v.(string); ok && strings.HasPrefix(s, "a JSON ") {
			parts = append(parts, s)
			continue
		}
		parts = append(parts, show(v))
	}
	sort.Strings(parts)
	return orList(parts)
}

func orList(parts []string) string {
	switch len(parts) {
	case 0:
		return "nothing"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number, float64, int, int64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
