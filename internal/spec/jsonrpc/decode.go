package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Decode classifies one JSON-RPC message. It never panics and never fails:
// whatever is wrong with raw is described in the returned Message's Problems,
// and its Kind is KindInvalid if any of them has SeverityInvalid. Raw is kept
// as given (not copied). See the package documentation for the rules.
func Decode(raw []byte) Message {
	return decode(raw, false)
}

// DecodeBatch decodes raw as either one message or a JSON-RPC batch.
//
// When raw is a well-formed JSON array with at least one element, it returns
// one Message per element, in order, and true. Each element's Raw is the
// element's bytes without surrounding whitespace, and its problems' pointers
// and offsets are relative to the element. An element that is itself an array
// is ReasonNotObject (batches do not nest).
//
// An empty array returns a single invalid Message with ReasonEmptyBatch and
// true. Anything else (an object, a scalar, or input that is not exactly one
// JSON value, including a broken array) returns []Message{Decode(raw)} and
// false, so the problems are never lost.
//
// Whether a batch is acceptable depends on the protocol version (2025-03-26
// allowed them; 2025-06-18 removed them); DecodeBatch only reports.
func DecodeBatch(raw []byte) ([]Message, bool) {
	s := newScanner(raw)
	s.ws()
	if s.pos >= len(raw) || raw[s.pos] != '[' {
		return []Message{Decode(raw)}, false
	}
	start := s.pos
	if !s.value(0) {
		return []Message{Decode(raw)}, false
	}
	s.ws()
	if s.pos != len(raw) {
		return []Message{Decode(raw)}, false
	}
	e := newScanner(raw)
	e.pos = start + 1
	e.ws()
	if raw[e.pos] == ']' {
		return []Message{Decode(raw)}, true
	}
	var msgs []Message
	for {
		e.ws()
		vs := e.pos
		e.value(1)
		ve := e.pos
		msgs = append(msgs, decode(raw[vs:ve:ve], true))
		e.ws()
		if e.pos < len(raw) && raw[e.pos] == ',' {
			e.pos++
			continue
		}
		return msgs, true
	}
}

// Indexes of the members JSON-RPC defines, in the order they are checked.
const (
	memJSONRPC = iota
	memID
	memMethod
	memParams
	memResult
	memError
	numMembers
)

func knownMember(name []byte) int {
	switch string(name) {
	case "jsonrpc":
		return memJSONRPC
	case "id":
		return memID
	case "method":
		return memMethod
	case "params":
		return memParams
	case "result":
		return memResult
	case "error":
		return memError
	}
	return -1
}

func decode(raw []byte, inBatch bool) Message {
	m := Message{Raw: raw}
	s := newScanner(raw)
	s.ws()
	start := s.pos
	if start >= len(raw) {
		m.Problems = []Problem{{
			Reason: ReasonNotJSON,
			Offset: start,
			Detail: "the input is empty or only whitespace; a message must be one JSON object",
		}}
		return m
	}
	if raw[start] == '{' {
		decodeObject(&m, &s, start)
		return m
	}
	if !s.value(0) {
		m.Problems = []Problem{syntaxProblem(&s)}
		return m
	}
	var p Problem
	switch raw[start] {
	case '[':
		switch {
		case inBatch:
			p = Problem{Reason: ReasonNotObject, Offset: start,
				Detail: "the batch element is an array, not an object; batches cannot be nested"}
		case isEmptyArray(raw[start:s.pos]):
			p = Problem{Reason: ReasonEmptyBatch, Offset: start,
				Detail: "the message is an empty array; JSON-RPC treats an empty batch as an invalid request"}
		default:
			p = Problem{Reason: ReasonBatch, Offset: start,
				Detail: "the message is an array, that is a JSON-RPC batch; decode it with DecodeBatch"}
		}
	default:
		p = Problem{Reason: ReasonNotObject, Offset: start,
			Detail: fmt.Sprintf("the message is %s, not an object", describe(raw[start:s.pos]))}
	}
	m.Problems = append(m.Problems, p)
	m.Problems = documentProblems(&s, m.Problems, "", "")
	return m
}

func isEmptyArray(v []byte) bool {
	return len(bytes.TrimSpace(v[1:len(v)-1])) == 0
}

func syntaxProblem(s *scanner) Problem {
	if s.tooDeep {
		return Problem{Reason: ReasonTooDeep, Offset: s.errOff,
			Detail: fmt.Sprintf("%s (at byte offset %d); the message was not decoded further", s.errMsg, s.errOff)}
	}
	if s.errOff == 0 && bytes.HasPrefix(s.data, []byte("\xef\xbb\xbf")) {
		return Problem{Reason: ReasonNotJSON, Offset: 0,
			Detail: "not JSON: the input starts with a UTF-8 byte order mark, which JSON text exchanged between systems must not have"}
	}
	return Problem{Reason: ReasonNotJSON, Offset: s.errOff,
		Detail: fmt.Sprintf("not JSON: %s at byte offset %d", s.errMsg, s.errOff)}
}

// documentProblems appends the problems found while scanning that do not stop
// the scan: trailing data, invalid UTF-8 and lone surrogates. utf8Ptr and
// loneSurPtr are the pointers of the members where those were found.
func documentProblems(s *scanner, probs []Problem, utf8Ptr, loneSurPtr string) []Problem {
	s.ws()
	if s.pos < len(s.data) {
		probs = append(probs, Problem{Reason: ReasonTrailingData, Offset: s.pos,
			Detail: fmt.Sprintf("%s follow the JSON value, starting with %s; a message must be exactly one JSON value",
				plural(len(s.data)-s.pos, "byte"), describeByte(s.data[s.pos]))})
	}
	if s.badUTF8 >= 0 {
		probs = append(probs, Problem{Reason: ReasonInvalidUTF8, Pointer: utf8Ptr, Offset: s.badUTF8,
			Detail: fmt.Sprintf("a string contains the byte 0x%02x at offset %d, which is not valid UTF-8; JSON text must be UTF-8",
				s.data[s.badUTF8], s.badUTF8)})
	}
	if s.loneSur >= 0 {
		esc := s.data[s.loneSur:min(s.loneSur+6, len(s.data))]
		probs = append(probs, Problem{Reason: ReasonLoneSurrogate, Pointer: loneSurPtr, Offset: s.loneSur,
			Detail: fmt.Sprintf("a string contains the escape %s, a UTF-16 surrogate without its pair; decoders turn it into U+FFFD", esc)})
	}
	return probs
}

func decodeObject(m *Message, s *scanner, start int) {
	raw := s.data
	var (
		spans     [numMembers]member
		present   [numMembers]bool
		dups      problemList
		unknown   problemList
		unknownNm []string
		unknownSt map[string]struct{}
		utf8Ptr   string
		lonePtr   string
	)
	s.pos++ // '{'
	for first := true; ; first = false {
		badBefore, loneBefore := s.badUTF8, s.loneSur
		mem, more, ok := s.nextMember(1, first)
		if !ok {
			m.Problems = []Problem{syntaxProblem(s)}
			return
		}
		if !more {
			break
		}
		name := memberName(raw, mem)
		if badBefore < 0 && s.badUTF8 >= 0 {
			utf8Ptr = "/" + escapePointer(string(name))
		}
		if loneBefore < 0 && s.loneSur >= 0 {
			lonePtr = "/" + escapePointer(string(name))
		}
		if k := knownMember(name); k >= 0 {
			if present[k] {
				dups.duplicate("", string(name), mem.keyStart)
			}
			present[k] = true
			spans[k] = mem
			continue
		}
		nm := string(name)
		seen := false
		if unknownSt != nil {
			_, seen = unknownSt[nm]
		} else {
			for _, u := range unknownNm {
				if u == nm {
					seen = true
					break
				}
			}
		}
		if seen {
			dups.duplicate("", nm, mem.keyStart)
			continue
		}
		if unknownSt == nil && len(unknownNm) >= 8 {
			unknownSt = make(map[string]struct{}, 16)
			for _, u := range unknownNm {
				unknownSt[u] = struct{}{}
			}
		}
		if unknownSt != nil {
			unknownSt[nm] = struct{}{}
		} else {
			unknownNm = append(unknownNm, nm)
		}
		unknown.unknown("", nm, mem.keyStart)
	}

	probs := documentProblems(s, nil, utf8Ptr, lonePtr)
	probs = dups.appendTo(probs)

	val := func(k int) []byte {
		sp := spans[k]
		return raw[sp.valStart:sp.valEnd:sp.valEnd]
	}

	// jsonrpc
	if !present[memJSONRPC] {
		probs = append(probs, Problem{Reason: ReasonJSONRPCMissing, Pointer: "/jsonrpc", Offset: start,
			Detail: `there is no "jsonrpc" member; every message must have "jsonrpc": "2.0"`})
	} else if v := val(memJSONRPC); !isString20(v) {
		probs = append(probs, Problem{Reason: ReasonJSONRPCNot20, Pointer: "/jsonrpc", Offset: spans[memJSONRPC].valStart,
			Detail: fmt.Sprintf(`"jsonrpc" is %s; it must be the string "2.0"`, describe(v))})
	}

	// Shape.
	switch {
	case present[memMethod] && present[memID]:
		m.Shape = KindRequest
	case present[memMethod]:
		m.Shape = KindNotification
	case present[memResult]:
		m.Shape = KindResponse
	case present[memError]:
		m.Shape = KindErrorResponse
	}
	switch {
	case present[memMethod] && (present[memResult] || present[memError]):
		k := memResult
		if !present[memResult] {
			k = memError
		}
		probs = append(probs, Problem{Reason: ReasonMethodWithResponseMember, Pointer: "/" + memberNames[k], Offset: spans[k].keyStart,
			Detail: fmt.Sprintf(`the message has both "method" and %q, so it is both a request and a response`, memberNames[k])})
	case present[memResult] && present[memError]:
		probs = append(probs, Problem{Reason: ReasonResultAndError, Offset: start,
			Detail: `the message has both "result" and "error"; a response must have exactly one of them`})
	case !present[memMethod] && !present[memResult] && !present[memError]:
		probs = append(probs, Problem{Reason: ReasonNoMethodResultOrError, Offset: start,
			Detail: `the object has none of "method", "result" and "error", so it is neither a request, a notification nor a response`})
	}

	// id
	if present[memID] {
		v := val(memID)
		if v[0] == 'n' {
			m.IDNull = true
			if m.Shape != KindErrorResponse {
				probs = append(probs, Problem{Reason: ReasonIDNull, Pointer: "/id", Offset: spans[memID].valStart,
					Detail: "the id is null; MCP requires a string or an integer (null is tolerated only on an error response to a request whose id could not be read)"})
			}
		} else if id, reason, detail := parseID(v); reason != "" {
			probs = append(probs, Problem{Reason: reason, Pointer: "/id", Offset: spans[memID].valStart, Detail: detail})
		} else {
			m.ID = id
		}
	} else {
		m.IDAbsent = true
		if m.Shape == KindResponse {
			probs = append(probs, Problem{Reason: ReasonResponseWithoutID, Pointer: "/id", Offset: start,
				Detail: "the response has no id; a success response must carry the id of the request it answers"})
		}
	}

	// method
	if present[memMethod] {
		v := val(memMethod)
		switch {
		case v[0] != '"':
			probs = append(probs, Problem{Reason: ReasonMethodNotString, Pointer: "/method", Offset: spans[memMethod].valStart,
				Detail: fmt.Sprintf(`"method" is %s; it must be a string`, describe(v))})
		case len(v) == 2:
			probs = append(probs, Problem{Reason: ReasonMethodEmpty, Pointer: "/method", Offset: spans[memMethod].valStart,
				Detail: `"method" is the empty string; it must name a method`})
		default:
			m.Method = unquote(v)
		}
	}

	// params
	if present[memParams] {
		v := val(memParams)
		m.Params = v
		switch v[0] {
		case '{':
		case '[':
			probs = append(probs, Problem{Reason: ReasonParamsArray, Pointer: "/params", Offset: spans[memParams].valStart,
				Detail: `"params" is an array; JSON-RPC allows positional params but MCP requires an object`})
		default:
			probs = append(probs, Problem{Reason: ReasonParamsNotStructured, Pointer: "/params", Offset: spans[memParams].valStart,
				Detail: fmt.Sprintf(`"params" is %s; it must be an object (or be left out)`, describe(v))})
		}
		if !present[memMethod] {
			probs = append(probs, Problem{Reason: ReasonParamsWithoutMethod, Pointer: "/params", Offset: spans[memParams].keyStart,
				Detail: `"params" appears on a message without "method", where it means nothing`})
		}
	}

	// result
	if present[memResult] {
		v := val(memResult)
		m.Result = v
		if v[0] != '{' {
			probs = append(probs, Problem{Reason: ReasonResultNotObject, Pointer: "/result", Offset: spans[memResult].valStart,
				Detail: fmt.Sprintf(`"result" is %s; MCP requires an object`, describe(v))})
		}
	}

	// error
	if present[memError] {
		v := val(memError)
		if v[0] != '{' {
			probs = append(probs, Problem{Reason: ReasonErrorNotObject, Pointer: "/error", Offset: spans[memError].valStart,
				Detail: fmt.Sprintf(`"error" is %s; it must be an object with "code" and "message"`, describe(v))})
		} else {
			m.Error = &ErrorObject{}
			probs = decodeErrorObject(raw, spans[memError].valStart, m.Error, probs)
		}
	}

	probs = unknown.appendTo(probs)
	m.Problems = probs
	m.Kind = m.Shape
	for _, p := range probs {
		if p.Reason.Severity() == SeverityInvalid {
			m.Kind = KindInvalid
			break
		}
	}
}

var memberNames = [numMembers]string{"jsonrpc", "id", "method", "params", "result", "error"}

// MaxListed caps how many duplicate-member problems, and how many
// unknown-member problems, a message lists for its top-level object and for
// its error object. Past the cap, one more problem with the same reason and
// an empty pointer says how many were left out, so a hostile peer cannot make
// the report much larger than its message.
const MaxListed = 32

// problemList collects problems of one reason up to MaxListed.
type problemList struct {
	list    []Problem
	reason  Reason
	parent  string
	omitted int
	omitOff int
}

func (l *problemList) add(p Problem, parent string) bool {
	l.reason, l.parent = p.Reason, parent
	if len(l.list) >= MaxListed {
		if l.omitted == 0 {
			l.omitOff = p.Offset
		}
		l.omitted++
		return false
	}
	return true
}

func (l *problemList) duplicate(parent, name string, off int) {
	if l.add(Problem{Reason: ReasonDuplicateMember, Offset: off}, parent) {
		l.list = append(l.list, Problem{Reason: ReasonDuplicateMember, Pointer: parent + "/" + escapePointer(name), Offset: off,
			Detail: fmt.Sprintf("member %q appears more than once; this decoder uses the last one, but peers may disagree on which counts", name)})
	}
}

func (l *problemList) unknown(parent, name string, off int) {
	if l.add(Problem{Reason: ReasonUnknownMember, Offset: off}, parent) {
		where := "the message"
		if parent != "" {
			where = "the error object"
		}
		l.list = append(l.list, Problem{Reason: ReasonUnknownMember, Pointer: parent + "/" + escapePointer(name), Offset: off,
			Detail: fmt.Sprintf("%s has member %q, which JSON-RPC does not define", where, name)})
	}
}

func (l *problemList) appendTo(probs []Problem) []Problem {
	probs = append(probs, l.list...)
	if l.omitted > 0 {
		what := "duplicate members"
		if l.reason == ReasonUnknownMember {
			what = "unknown members"
		}
		where := "the message"
		if l.parent != "" {
			where = "the error object"
		}
		probs = append(probs, Problem{Reason: l.reason, Pointer: l.parent, Offset: l.omitOff,
			Detail: fmt.Sprintf("%s has %d more %s, not listed", where, l.omitted, what)})
	}
	return probs
}

const (
	errCode = iota
	errMessage
	errData
)

// decodeErrorObject decodes the error object starting at off (its '{'),
// which has already been validated, into e, appending problems to probs.
func decodeErrorObject(raw []byte, off int, e *ErrorObject, probs []Problem) []Problem {
	s := newScanner(raw)
	s.pos = off + 1
	var (
		spans   [3]member
		present [3]bool
		dups    problemList
		unknown problemList
		seen    map[string]bool
	)
	for first := true; ; first = false {
		mem, more, ok := s.nextMember(2, first)
		if !ok || !more {
			break // !ok cannot happen: the object was validated already
		}
		name := memberName(raw, mem)
		k := -1
		switch string(name) {
		case "code":
			k = errCode
		case "message":
			k = errMessage
		case "data":
			k = errData
		}
		if k >= 0 {
			if present[k] {
				dups.duplicate("/error", string(name), mem.keyStart)
			}
			present[k] = true
			spans[k] = mem
			continue
		}
		nm := string(name)
		if seen[nm] {
			dups.duplicate("/error", nm, mem.keyStart)
			continue
		}
		if seen == nil {
			seen = make(map[string]bool)
		}
		seen[nm] = true
		unknown.unknown("/error", nm, mem.keyStart)
	}
	probs = dups.appendTo(probs)
	val := func(k int) []byte { return raw[spans[k].valStart:spans[k].valEnd:spans[k].valEnd] }

	if !present[errCode] {
		probs = append(probs, Problem{Reason: ReasonErrorCodeMissing, Pointer: "/error/code", Offset: off,
			Detail: `the error object has no "code"; it must have an integer code`})
	} else {
		v := val(errCode)
		at := spans[errCode].valStart
		switch {
		case v[0] != '-' && (v[0] < '0' || v[0] > '9'):
			probs = append(probs, Problem{Reason: ReasonErrorCodeNotNumber, Pointer: "/error/code", Offset: at,
				Detail: fmt.Sprintf("the error code is %s; it must be an integer", describe(v))})
		case bytes.ContainsAny(v, ".eE"):
			probs = append(probs, Problem{Reason: ReasonErrorCodeFloat, Pointer: "/error/code", Offset: at,
				Detail: fmt.Sprintf("the error code %s has a fraction part or an exponent; it must be written as an integer", v)})
		default:
			if n, ok := parseInt64(v); ok {
				e.Code = n
			} else {
				probs = append(probs, Problem{Reason: ReasonErrorCodeOutOfRange, Pointer: "/error/code", Offset: at,
					Detail: fmt.Sprintf("the error code %s does not fit in a 64-bit integer", truncate(v))})
			}
		}
	}
	if !present[errMessage] {
		probs = append(probs, Problem{Reason: ReasonErrorMessageMissing, Pointer: "/error/message", Offset: off,
			Detail: `the error object has no "message"; it must have a string message`})
	} else if v := val(errMessage); v[0] != '"' {
		probs = append(probs, Problem{Reason: ReasonErrorMessageNotString, Pointer: "/error/message", Offset: spans[errMessage].valStart,
			Detail: fmt.Sprintf("the error message is %s; it must be a string", describe(v))})
	} else {
		e.Message = unquote(v)
	}
	if present[errData] {
		e.Data = val(errData)
	}
	return unknown.appendTo(probs)
}

// memberName returns a member's decoded name. It aliases raw when the name
// has no escapes.
func memberName(raw []byte, mem member) []byte {
	q := raw[mem.keyStart:mem.keyEnd]
	if !mem.esc {
		return q[1 : len(q)-1]
	}
	return []byte(unquote(q))
}

// unquote decodes a validated JSON string the way encoding/json does
// (invalid UTF-8 and lone surrogates become U+FFFD).
func unquote(q []byte) string {
	inner := q[1 : len(q)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		return string(inner) // unreachable for validated input
	}
	return s
}

func isString20(v []byte) bool {
	if string(v) == `"2.0"` {
		return true
	}
	return v[0] == '"' && unquote(v) == "2.0"
}

// parseID classifies a validated JSON value (not null) as an id. It returns
// the id, or a reason and detail saying why it is not one.
func parseID(v []byte) (ID, Reason, string) {
	switch v[0] {
	case '"':
		return StringID(unquote(v)), "", ""
	case 't', 'f':
		return ID{}, ReasonIDBoolean, fmt.Sprintf("the id is the boolean %s; MCP requires a string or an integer", v)
	case '{':
		return ID{}, ReasonIDObject, "the id is an object; MCP requires a string or an integer"
	case '[':
		return ID{}, ReasonIDArray, "the id is an array; MCP requires a string or an integer"
	case 'n':
		return ID{}, ReasonIDNull, "the id is null; MCP requires a string or an integer"
	}
	if bytes.IndexByte(v, '.') >= 0 {
		return ID{}, ReasonIDFloat, fmt.Sprintf("the id %s has a fraction part; MCP requires a string or an integer", truncate(v))
	}
	if bytes.IndexAny(v, "eE") >= 0 {
		return ID{}, ReasonIDExponent, fmt.Sprintf("the id %s is written with an exponent; MCP requires an integer written with digits only", truncate(v))
	}
	n, ok := parseInt64(v)
	if !ok {
		return ID{}, ReasonIDOutOfRange, fmt.Sprintf("the id %s does not fit in a 64-bit integer; use a smaller integer or a string", truncate(v))
	}
	return IntID(n), "", ""
}

// parseInt64 parses a validated JSON integer (optional '-', digits) and
// reports whether it fits in int64.
func parseInt64(v []byte) (int64, bool) {
	neg := v[0] == '-'
	if neg {
		v = v[1:]
	}
	// Accumulate as a negative number so that MinInt64 fits.
	var n int64
	for _, c := range v {
		d := int64(c - '0')
		if n < (-1<<63+d)/10 {
			return 0, false
		}
		n = n*10 - d
	}
	if !neg {
		if n == -1<<63 {
			return 0, false
		}
		n = -n
	}
	return n, true
}

// describe says what kind of JSON value v is, with the value itself for
// scalars: `the string "1.0"`, `the number 2`, `null`, `an object`.
func describe(v []byte) string {
	switch v[0] {
	case '"':
		return "the string " + truncate(v)
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "the boolean " + string(v)
	case 'n':
		return "null"
	}
	return "the number " + truncate(v)
}

// truncate returns v as a string, shortened to about 64 bytes.
func truncate(v []byte) string {
	const max = 64
	if len(v) <= max {
		return string(v)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return string(v[:cut]) + fmt.Sprintf("… (%d bytes)", len(v))
}

// escapePointer escapes a member name for use in an RFC 6901 JSON pointer.
func escapePointer(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
