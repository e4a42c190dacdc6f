package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestIDUnmarshal(t *testing.T) {
	good := map[string]ID{
		`"abc"`:                   StringID("abc"),
		` "a\u0062" `:             StringID("ab"),
		`""`:                      StringID(""),
		`0`:                       IntID(0),
		`-0`:                      IntID(0),
		`42`:                      IntID(42),
		`-9223372036854775808`:    IntID(-1 << 63),
		"\t9223372036854775807\n": IntID(1<<63 - 1),
	}
	for in, want := range good {
		var id ID
		if err := json.Unmarshal([]byte(in), &id); err != nil {
			t.Errorf("json.Unmarshal(%q): %v", in, err)
		} else if id != want {
			t.Errorf("json.Unmarshal(%q) = %v, want %v", in, id, want)
		}
		// Direct calls too: json.Unmarshal pre-validates, UnmarshalJSON must not rely on it.
		var direct ID
		if err := direct.UnmarshalJSON([]byte(in)); err != nil || direct != want {
			t.Errorf("UnmarshalJSON(%q) = %v, %v", in, direct, err)
		}
	}
	bad := map[string]string{
		``:                     "empty",
		`null`:                 "null",
		`true`:                 "boolean",
		`{}`:                   "object",
		`[]`:                   "array",
		`1.0`:                  "fraction",
		`1e3`:                  "exponent",
		`9223372036854775808`:  "64-bit",
		`-9223372036854775809`: "64-bit",
		`+1`:                   "not valid JSON",
		`007`:                  "followed by unexpected data",
		`1 2`:                  "followed by unexpected data",
		`"unterminated`:        "not valid JSON",
		`0x10`:                 "followed by unexpected data",
	}
	for in, want := range bad {
		var id ID
		err := id.UnmarshalJSON([]byte(in))
		if err == nil {
			t.Errorf("UnmarshalJSON(%q) = %v, want an error", in, id)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("UnmarshalJSON(%q) error %q does not mention %q", in, err, want)
		}
		if !id.IsZero() {
			t.Errorf("UnmarshalJSON(%q) changed the id on error", in)
		}
	}
}

func TestIDMarshalAndString(t *testing.T) {
	tests := []struct {
		id   ID
		json string
		str  string
	}{
		{ID{}, "null", "<none>"},
		{IntID(-5), "-5", "-5"},
		{StringID("a\"<b>"), `"a\"<b>"`, `"a\"<b>"`},
		{StringID("line\nbreak"), `"line\nbreak"`, `"line\nbreak"`},
	}
	for _, tc := range tests {
		b, err := tc.id.MarshalJSON()
		if err != nil || string(b) != tc.json {
			t.Errorf("MarshalJSON(%#v) = %s, %v; want %s", tc.id, b, err, tc.json)
		}
		if got := tc.id.String(); got != tc.str {
			t.Errorf("String() = %s, want %s", got, tc.str)
		}
	}
	if s, ok := StringID("x").Str(); !ok || s != "x" {
		t.Error("Str")
	}
	if _, ok := StringID("x").Int(); ok {
		t.Error("Int on a string id")
	}
	if n, ok := IntID(3).Int(); !ok || n != 3 {
		t.Error("Int")
	}
	if StringID("") == (ID{}) || IntID(0) == (ID{}) || StringID("1") == IntID(1) {
		t.Error("ids that differ compare equal")
	}
	if !StringID("").IsString() || IntID(1).IsString() || (ID{}).IsString() {
		t.Error("IsString")
	}
}

func TestIDOmitZero(t *testing.T) {
	type withID struct {
		ID ID `json:"id,omitzero"`
	}
	b, err := json.Marshal(withID{})
	if err != nil || string(b) != `{}` {
		t.Errorf("absent id with omitzero: %s, %v", b, err)
	}
	b, err = json.Marshal(withID{IntID(0)})
	if err != nil || string(b) != `{"id":0}` {
		t.Errorf("integer id 0 with omitzero: %s, %v", b, err)
	}
}
