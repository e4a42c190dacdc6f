package jsonrpc

import (
	"fmt"
	"strconv"
)

// ID is a JSON-RPC request id as MCP allows it: a string or an integer, never
// null. The zero ID is "absent". IDs compare with ==.
type ID struct {
	str   string
	num   int64
	isStr bool
	set   bool
}

// StringID returns a string id.
func StringID(s string) ID { return ID{str: s, isStr: true, set: true} }

// IntID returns an integer id.
func IntID(n int64) ID { return ID{num: n, set: true} }

// IsZero reports whether the id is absent.
func (id ID) IsZero() bool { return !id.set }

// IsString reports whether the id is a JSON string.
func (id ID) IsString() bool { return id.set && id.isStr }

// Int returns the integer value and whether the id is an integer.
func (id ID) Int() (int64, bool) { return id.num, id.set && !id.isStr }

// Str returns the string value and whether the id is a string.
func (id ID) Str() (string, bool) { return id.str, id.set && id.isStr }

// String renders the id as it appears on the wire (strings quoted).
func (id ID) String() string {
	switch {
	case !id.set:
		return "<none>"
	case id.isStr:
		return string(appendString(nil, id.str))
	default:
		return strconv.FormatInt(id.num, 10)
	}
}

// MarshalJSON encodes the id; an absent id encodes as null so that callers
// must decide themselves to omit it (the omitzero struct tag option does, as
// ID has an IsZero method). Strings are escaped like encoding/json does,
// except that <, > and & are left alone.
func (id ID) MarshalJSON() ([]byte, error) {
	switch {
	case !id.set:
		return []byte("null"), nil
	case id.isStr:
		return appendString(nil, id.str), nil
	default:
		return strconv.AppendInt(nil, id.num, 10), nil
	}
}

// UnmarshalJSON accepts a JSON string or an integer that fits in int64,
// surrounded by optional whitespace. Null, floats, numbers with exponents,
// booleans, arrays, objects and anything that is not exactly one JSON value
// are errors naming what was found.
func (id *ID) UnmarshalJSON(b []byte) error {
	s := newScanner(b)
	s.ws()
	start := s.pos
	if start == len(b) {
		return fmt.Errorf("jsonrpc: empty id; MCP requires a string or integer id")
	}
	if !s.value(0) {
		return fmt.Errorf("jsonrpc: id is not valid JSON: %s at byte offset %d", s.errMsg, s.errOff)
	}
	end := s.pos
	s.ws()
	if s.pos != len(b) {
		return fmt.Errorf("jsonrpc: id is followed by unexpected data at byte offset %d", s.pos)
	}
	parsed, reason, detail := parseID(b[start:end])
	if reason != "" {
		return fmt.Errorf("jsonrpc: %s", detail)
	}
	*id = parsed
	return nil
}
