package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// NewRequest encodes a request. id must not be zero and method must be a
// non-empty, valid UTF-8 string. params is marshalled with encoding/json
// (json.RawMessage is compacted and passed through); it must encode to a JSON
// object, or be nil to leave the member out.
func NewRequest(id ID, method string, params any) ([]byte, error) {
	if id.IsZero() {
		return nil, fmt.Errorf("jsonrpc: NewRequest %q: the id is zero; a request needs a string or integer id (use NewNotification for a message without one)", method)
	}
	if err := checkMethod("NewRequest", method); err != nil {
		return nil, err
	}
	if err := checkID("NewRequest", id); err != nil {
		return nil, err
	}
	p, err := marshalObject(params, "params")
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: NewRequest %q: %w", method, err)
	}
	return build(idValue, id, method, p, "", nil), nil
}

// NewNotification encodes a notification: like NewRequest without an id.
func NewNotification(method string, params any) ([]byte, error) {
	if err := checkMethod("NewNotification", method); err != nil {
		return nil, err
	}
	p, err := marshalObject(params, "params")
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: NewNotification %q: %w", method, err)
	}
	return build(idOmit, ID{}, method, p, "", nil), nil
}

// NewResponse encodes a success response. id must not be zero. result is
// marshalled with encoding/json and must encode to a JSON object, as MCP
// requires; pass json.RawMessage(`{}`) or struct{}{} for an empty result.
func NewResponse(id ID, result any) ([]byte, error) {
	if id.IsZero() {
		return nil, errors.New("jsonrpc: NewResponse: the id is zero; a success response must carry the id of the request it answers")
	}
	if err := checkID("NewResponse", id); err != nil {
		return nil, err
	}
	if result == nil {
		return nil, fmt.Errorf("jsonrpc: NewResponse %s: the result is nil; MCP results are objects, so pass struct{}{} or json.RawMessage(`{}`) for an empty one", id)
	}
	r, err := marshalObject(result, "result")
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: NewResponse %s: %w", id, err)
	}
	return build(idValue, id, "", nil, "result", r), nil
}

// NewErrorResponse encodes an error response. A zero id leaves the "id"
// member out, which protocol versions from 2025-11-25 allow for replies to
// requests whose id could not be read; to send "id": null (plain JSON-RPC 2.0
// style) use RawObject. message is encoded as given, with invalid UTF-8
// replaced by U+FFFD. data is marshalled with encoding/json and left out when
// nil; it may be any JSON value.
func NewErrorResponse(id ID, code int64, message string, data any) ([]byte, error) {
	if err := checkID("NewErrorResponse", id); err != nil {
		return nil, err
	}
	mode := idValue
	if id.IsZero() {
		mode = idOmit
	}
	e, err := errorObject(code, message, data)
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: NewErrorResponse %s: %w", id, err)
	}
	return build(mode, id, "", nil, "error", e), nil
}

// Encode re-encodes a valid message canonically from its decoded fields
// (ID, Method, Params, Result, Error, and IDNull/IDAbsent for error
// responses). It fails for an invalid message: to send one as it was, write
// its Raw bytes.
func (m *Message) Encode() ([]byte, error) {
	switch m.Kind {
	case KindRequest:
		return NewRequest(m.ID, m.Method, rawOrNil(m.Params))
	case KindNotification:
		return NewNotification(m.Method, rawOrNil(m.Params))
	case KindResponse:
		return NewResponse(m.ID, rawOrNil(m.Result))
	case KindErrorResponse:
		if m.Error == nil {
			return nil, errors.New("jsonrpc: Encode: the error response has a nil Error; set it or build the message with NewErrorResponse")
		}
		if err := checkID("Encode", m.ID); err != nil {
			return nil, err
		}
		mode := idValue
		switch {
		case m.IDNull:
			mode = idNull
		case m.ID.IsZero():
			mode = idOmit
		}
		e, err := errorObject(m.Error.Code, m.Error.Message, rawOrNil(m.Error.Data))
		if err != nil {
			return nil, fmt.Errorf("jsonrpc: Encode: %w", err)
		}
		return build(mode, m.ID, "", nil, "error", e), nil
	}
	return nil, fmt.Errorf("jsonrpc: Encode: cannot re-encode a message of kind %s; write its Raw bytes to send it unchanged", m.Kind)
}

// RawMember is one member of an object built by RawObject.
type RawMember struct {
	// Name is encoded as a JSON string (escaped as needed).
	Name string
	// Value is written exactly as given, even when it is not JSON or is
	// empty.
	Value []byte
}

// RawObject is the unsafe encoding path: it writes an object with the given
// members in the given order and checks nothing, so a conformance test can
// produce duplicate members, a wrong "jsonrpc", a null id, non-JSON values
// and so on. Only the member names are escaped. For bytes that are not even
// an object, use a byte slice directly; to send either over stdio, use
// LineWriter.WriteLineUnsafe or LineWriter.WriteRaw.
func RawObject(members ...RawMember) []byte {
	n := 2
	for _, m := range members {
		n += len(m.Name) + len(m.Value) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, m.Name)
		b = append(b, ':')
		b = append(b, m.Value...)
	}
	return append(b, '}')
}

func rawOrNil(r json.RawMessage) any {
	if r == nil {
		return nil
	}
	return r
}

func checkMethod(fn, method string) error {
	if method == "" {
		return fmt.Errorf("jsonrpc: %s: the method is empty; pass the method name, such as \"tools/list\"", fn)
	}
	if !utf8.ValidString(method) {
		return fmt.Errorf("jsonrpc: %s: the method %q is not valid UTF-8; method names must be text", fn, method)
	}
	return nil
}

func checkID(fn string, id ID) error {
	if s, ok := id.Str(); ok && !utf8.ValidString(s) {
		return fmt.Errorf("jsonrpc: %s: the string id %q is not valid UTF-8, so it would not survive encoding; use valid UTF-8 or an integer id", fn, s)
	}
	return nil
}

// marshal encodes v compactly without HTML escaping.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return b[:len(b)-1], nil // Encode appends a newline
}

// marshalObject marshals v (nil: no member) and checks that it is an object.
func marshalObject(v any, what string) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	b, err := marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cannot marshal %s of type %T: %w", what, v, err)
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("%s of type %T encodes to %s, but MCP requires an object; pass a struct or map (or nil to leave it out)", what, v, describe(b))
	}
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("%s of type %T encodes to invalid UTF-8 (a json.RawMessage or MarshalJSON result with raw non-UTF-8 bytes); fix the bytes or use RawObject to send them deliberately", what, v)
	}
	return b, nil
}

// errorObject encodes {"code":..,"message":..,"data":..}.
func errorObject(code int64, message string, data any) ([]byte, error) {
	b := make([]byte, 0, 32+len(message))
	b = append(b, `{"code":`...)
	b = strconv.AppendInt(b, code, 10)
	b = append(b, `,"message":`...)
	b = appendString(b, message)
	if data != nil {
		d, err := marshal(data)
		if err != nil {
			return nil, fmt.Errorf("cannot marshal error data of type %T: %w", data, err)
		}
		if !utf8.Valid(d) {
			return nil, fmt.Errorf("error data of type %T encodes to invalid UTF-8; fix the bytes or use RawObject to send them deliberately", data)
		}
		b = append(b, `,"data":`...)
		b = append(b, d...)
	}
	return append(b, '}'), nil
}

type idMode uint8

const (
	idValue idMode = iota
	idOmit
	idNull
)

// build assembles a canonical message. Exactly one of method, resultName
// is non-empty.
func build(mode idMode, id ID, method string, params []byte, resultName string, result []byte) []byte {
	b := make([]byte, 0, 48+len(method)+len(params)+len(result))
	b = append(b, `{"jsonrpc":"2.0"`...)
	switch mode {
	case idValue:
		b = append(b, `,"id":`...)
		if s, ok := id.Str(); ok {
			b = appendString(b, s)
		} else {
			n, _ := id.Int()
			b = strconv.AppendInt(b, n, 10)
		}
	case idNull:
		b = append(b, `,"id":null`...)
	}
	if method != "" {
		b = append(b, `,"method":`...)
		b = appendString(b, method)
		if params != nil {
			b = append(b, `,"params":`...)
			b = append(b, params...)
		}
	} else {
		b = append(b, ',')
		b = appendString(b, resultName)
		b = append(b, ':')
		b = append(b, result...)
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Like encoding/json it replaces
// invalid UTF-8 with U+FFFD and escapes U+2028 and U+2029; unlike its
// default it does not escape <, > and &.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
