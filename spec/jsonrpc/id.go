// Package jsonrpc is a JSON-RPC 2.0 codec for MCP that keeps every message's
// raw bytes and classifies what it decoded, including what is wrong with it.
package jsonrpc

import (
	"bytes"
	"encoding/json"
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
		return strconv.Quote(id.str)
	default:
		return strconv.FormatInt(id.num, 10)
	}
}

// MarshalJSON encodes the id; an absent id encodes as null so that callers
// must decide themselves to omit it.
func (id ID) MarshalJSON() ([]byte, error) {
	switch {
	case !id.set:
		return []byte("null"), nil
	case id.isStr:
		return json.Marshal(id.str)
	default:
		return strconv.AppendInt(nil, id.num, 10), nil
	}
}

// UnmarshalJSON accepts a JSON string or an integer that fits in int64. Null,
// floats, booleans, arrays and objects are errors naming what was found.
func (id *ID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return fmt.Errorf("jsonrpc: empty id")
	}
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("jsonrpc: id is not a valid JSON string: %v", err)
		}
		*id = StringID(s)
		return nil
	case 'n':
		return fmt.Errorf("jsonrpc: id is null; MCP requires a string or integer id")
	case 't', 'f':
		return fmt.Errorf("jsonrpc: id is a boolean; MCP requires a string or integer id")
	case '{':
		return fmt.Errorf("jsonrpc: id is an object; MCP requires a string or integer id")
	case '[':
		return fmt.Errorf("jsonrpc: id is an array; MCP requires a string or integer id")
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("jsonrpc: id %s is not an integer that fits in 64 bits; MCP requires a string or integer id", b)
	}
	*id = IntID(n)
	return nil
}
