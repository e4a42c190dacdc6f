package rules

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/schema"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Answerable returns method when it names a request the peer opposite to
// from may send in version v (so that a response from `from` can be
// judged as its answer), and "" otherwise: a request sent on purpose with
// a method the version lacks, or that flows the other way, is answered
// with an error whose envelope alone is judged.
func Answerable(v spec.Version, from spec.Direction, method string) string {
	if method == "" {
		return ""
	}
	info, ok := schema.LookupMethod(v, method)
	if !ok || info.Kind() != spec.RequestMethod || info.Carrier || !info.Direction.Allows(from.Opposite()) {
		return ""
	}
	return method
}

// Schema validates a message sent by `from` against version v's schema.
// answers is the method of the request a response answers ("" when not
// known); it is dropped when the request could not have been answerable
// (see Answerable). A response's unknown-method finding is left out: the
// method is the requester's, not the responder's.
func Schema(v spec.Version, from spec.Direction, answers string, m jsonrpc.Message) []schema.Violation {
	method := m.Method
	if m.Shape.IsResponse() {
		method = Answerable(v, from, answers)
	}
	vs := schema.Validate(v, from, method, m.Raw)
	out := vs[:0]
	for _, vi := range vs {
		if m.Shape.IsResponse() && vi.Kind == schema.KindUnknownMethod || Erratum(vi, m.Raw) != "" {
			continue
		}
		out = append(out, vi)
	}
	return out
}

// Erratum returns why a schema violation of the message raw is a known
// defect of the official schema rather than of the message ("" when it is
// not one).
//
// ElicitResult content: the schemas of 2025-06-18 and later allow only
// strings, integers, booleans (and, later, string arrays) as form values,
// while the requested schemas they allow include number fields ("type":
// "number", with non-integer defaults such as the official suite's 95.5):
// a client that fills such a field as asked sends a number the result
// schema refuses. mcpcheck accepts a number there, and only a number as a
// form value (an object, null or an array of numbers breaks the schema and
// is judged);
// the elicitation checks judge the value against the requested schema.
// The same holds for an ElicitResult carried in 2026-07-28 inputResponses.
func Erratum(vi schema.Violation, raw []byte) string {
	parent, _, _ := cutLast(vi.Pointer)
	if strings.Contains(vi.Schema, "ElicitResult/properties/content/additionalProperties") && strings.HasSuffix(parent, "/content") && isNumberAt(raw, vi.Pointer) {
		return "a number in an elicitation answer: the requested schema may ask for one, the result schema forgets it"
	}
	return ""
}

// cutLast splits a JSON pointer before its last reference token.
func cutLast(ptr string) (parent, last string, ok bool) {
	i := strings.LastIndexByte(ptr, '/')
	if i < 0 {
		return "", "", false
	}
	return ptr[:i], ptr[i+1:], true
}

// isNumberAt reports whether the value at JSON pointer ptr of the JSON
// document raw is a number.
func isNumberAt(raw []byte, ptr string) bool {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || ptr == "" {
		return false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return false
			}
			v = x[i]
		default:
			return false
		}
	}
	_, ok := v.(json.Number)
	return ok
}

// SortViolations orders violations by kind, then schema location, so that
// the first one is the same whichever order the validator found them in.
func SortViolations(vs []schema.Violation) []schema.Violation {
	sort.SliceStable(vs, func(a, b int) bool {
		if vs[a].Kind != vs[b].Kind {
			return vs[a].Kind < vs[b].Kind
		}
		return vs[a].Schema < vs[b].Schema
	})
	return vs
}

var digits = regexp.MustCompile(`/[0-9]+`)

// SchemaBreach maps one schema violation of message m in version v to the
// requirement it breaks: an error code the version retired, the JSON-RPC
// envelope (not a message, the jsonrpc member, the id), or else
// conformance to the schema itself (Requirement ""). Rule is
// "schema/<schema location>", with array indexes blanked when the
// violation has no schema location, so one bug has one rule.
func SchemaBreach(v spec.Version, vi schema.Violation, m jsonrpc.Message) Breach {
	loc := vi.Schema
	if loc == "" {
		loc = string(vi.Kind) + ":" + digits.ReplaceAllString(vi.Pointer, "/*")
	}
	b := Breach{Rule: "schema/" + loc, Expected: "every message conforms to the " + string(v) + " schema", Actual: vi.String()}
	switch {
	case strings.HasPrefix(vi.Pointer, "/error/code") && m.Error != nil && (m.Error.Code == jsonrpc.ResourceNotFound || m.Error.Code == jsonrpc.URLElicitationRequired) && v.Era() == spec.Stateless:
		b.Requirement, b.Candidates = ReqRetiredCodes, []string{ReqRetiredCodes}
	case vi.Kind == schema.KindNotMessage || vi.Pointer == "/jsonrpc" || vi.Pointer == "/id":
		b.Requirement, b.Candidates = ReqJSONRPC2, []string{ReqJSONRPC2}
	}
	return b
}

// Invalid maps the first problem of m that makes it invalid JSON-RPC to
// the requirement it breaks: result and error together, an error code
// that is no integer, an error without code or message, a request id of
// a forbidden type, or else the JSON-RPC 2.0 envelope. excuse, when not
// nil, skips problems the caller has a reason to accept. ok is false when
// m is valid or every problem was excused.
func Invalid(v spec.Version, m jsonrpc.Message, excuse func(jsonrpc.Problem) bool) (Breach, bool) {
	for _, p := range m.Problems {
		if p.Severity() != jsonrpc.SeverityInvalid || (excuse != nil && excuse(p)) {
			continue
		}
		cands := []string{ReqJSONRPC2}
		switch p.Reason {
		case jsonrpc.ReasonResultAndError:
			cands = []string{ReqNotResultAndError, ReqJSONRPC2}
		case jsonrpc.ReasonErrorCodeFloat, jsonrpc.ReasonErrorCodeNotNumber, jsonrpc.ReasonErrorCodeOutOfRange:
			cands = []string{ReqErrorCodeInteger}
		case jsonrpc.ReasonErrorCodeMissing, jsonrpc.ReasonErrorMessageMissing, jsonrpc.ReasonErrorMessageNotString:
			cands = []string{ReqErrorCodeAndMessage, ReqJSONRPC2}
		case jsonrpc.ReasonIDNull, jsonrpc.ReasonIDFloat, jsonrpc.ReasonIDExponent, jsonrpc.ReasonIDBoolean, jsonrpc.ReasonIDObject, jsonrpc.ReasonIDArray:
			if !m.Shape.IsResponse() {
				cands = []string{ReqIDStringOrInteger}
			}
		}
		return breach(v, "jsonrpc/"+string(p.Reason), "every message is valid JSON-RPC 2.0", p.String(), cands...), true
	}
	return Breach{}, false
}
