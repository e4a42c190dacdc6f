package jsonrpc

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestConstructors(t *testing.T) {
	type params struct {
		Name string `json:"name"`
		Args any    `json:"arguments,omitempty"`
	}
	tests := []struct {
		name   string
		build  func() ([]byte, error)
		want   string
		kind   Kind
		id     ID
		method string
	}{
		{"request", func() ([]byte, error) { return NewRequest(IntID(1), "tools/call", params{Name: "a<b>&c"}) },
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a<b>&c"}}`, KindRequest, IntID(1), "tools/call"},
		{"request without params", func() ([]byte, error) { return NewRequest(StringID("x\n1"), "ping", nil) },
			`{"jsonrpc":"2.0","id":"x\n1","method":"ping"}`, KindRequest, StringID("x\n1"), "ping"},
		{"request with raw params", func() ([]byte, error) {
			return NewRequest(IntID(math.MinInt64), "m", json.RawMessage(" { \"a\" : [ 1 , 2 ] } "))
		}, `{"jsonrpc":"2.0","id":-9223372036854775808,"method":"m","params":{"a":[1,2]}}`, KindRequest, IntID(math.MinInt64), "m"},
		{"notification", func() ([]byte, error) {
			return NewNotification("notifications/progress", map[string]any{"progress": 1, "total": 2})
		}, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"total":2}}`, KindNotification, ID{}, "notifications/progress"},
		{"response", func() ([]byte, error) { return NewResponse(StringID("r"), struct{}{}) },
			`{"jsonrpc":"2.0","id":"r","result":{}}`, KindResponse, StringID("r"), ""},
		{"error response", func() ([]byte, error) {
			return NewErrorResponse(IntID(3), MethodNotFound, "no \"such\" method \u2028", map[string]string{"method": "x"})
		}, `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no \"such\" method \u2028","data":{"method":"x"}}}`, KindErrorResponse, IntID(3), ""},
		{"error response without id", func() ([]byte, error) { return NewErrorResponse(ID{}, ParseError, "Parse error", nil) },
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`, KindErrorResponse, ID{}, ""},
		{"error response with scalar data", func() ([]byte, error) { return NewErrorResponse(IntID(1), -1, "m", "details") },
			`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m","data":"details"}}`, KindErrorResponse, IntID(1), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.build()
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("got  %s\nwant %s", b, tc.want)
			}
			m := Decode(b)
			if m.Kind != tc.kind || m.ID != tc.id || m.Method != tc.method || len(m.Problems) != 0 {
				t.Errorf("decoded: kind %s id %v method %q problems %v", m.Kind, m.ID, m.Method, m.Problems)
			}
			again, err := m.Encode()
			if err != nil || string(again) != string(b) {
				t.Errorf("Encode(Decode(b)) = %s, %v; want the same bytes", again, err)
			}
		})
	}
}

func TestConstructorErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func() ([]byte, error)
		want  string // substring of the error
	}{
		{"request zero id", func() ([]byte, error) { return NewRequest(ID{}, "ping", nil) }, "id is zero"},
		{"request empty method", func() ([]byte, error) { return NewRequest(IntID(1), "", nil) }, "method is empty"},
		{"request bad UTF-8 method", func() ([]byte, error) { return NewRequest(IntID(1), "a\xff", nil) }, "not valid UTF-8"},
		{"request bad UTF-8 id", func() ([]byte, error) { return NewRequest(StringID("\xff"), "a", nil) }, "not valid UTF-8"},
		{"request array params", func() ([]byte, error) { return NewRequest(IntID(1), "a", []int{1}) }, "requires an object"},
		{"request nil map params", func() ([]byte, error) { return NewRequest(IntID(1), "a", map[string]any(nil)) }, "encodes to null"},
		{"request unmarshallable params", func() ([]byte, error) { return NewRequest(IntID(1), "a", map[string]any{"f": func() {}}) }, "cannot marshal params of type map[string]interface {}"},
		{"request invalid raw params", func() ([]byte, error) { return NewRequest(IntID(1), "a", json.RawMessage(`{"a":}`)) }, "cannot marshal params"},
		{"request raw params with bad UTF-8", func() ([]byte, error) { return NewRequest(IntID(1), "a", json.RawMessage("{\"a\":\"\xff\"}")) }, "invalid UTF-8"},
		{"notification empty method", func() ([]byte, error) { return NewNotification("", nil) }, "method is empty"},
		{"notification string params", func() ([]byte, error) { return NewNotification("n", "s") }, "requires an object"},
		{"response zero id", func() ([]byte, error) { return NewResponse(ID{}, struct{}{}) }, "id is zero"},
		{"response nil result", func() ([]byte, error) { return NewResponse(IntID(1), nil) }, "result is nil"},
		{"response array result", func() ([]byte, error) { return NewResponse(IntID(1), []string{}) }, "requires an object"},
		{"error response bad data", func() ([]byte, error) { return NewErrorResponse(IntID(1), 1, "m", make(chan int)) }, "cannot marshal error data of type chan int"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.build()
			if err == nil {
				t.Fatalf("no error; got %s", b)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "jsonrpc: ") {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

func TestEncodeFromDecoded(t *testing.T) {
	// Re-encoding keeps the null/absent id of error responses.
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":[1]}}`,
		`{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":""}}`,
	} {
		m := Decode([]byte(in))
		b, err := m.Encode()
		if err != nil || string(b) != in {
			t.Errorf("Encode(%s) = %s, %v", in, b, err)
		}
	}
	// Canonicalisation: member order, whitespace and escapes are normalised.
	m := Decode([]byte(` { "params" : { "b" : 1 } , "method" : "a\u0062" , "id" : "\u0041" , "jsonrpc" : "2.0" , "extra" : 1 } `))
	b, err := m.Encode()
	if want := `{"jsonrpc":"2.0","id":"A","method":"ab","params":{"b":1}}`; err != nil || string(b) != want {
		t.Errorf("Encode = %s, %v; want %s", b, err, want)
	}
	m = Decode([]byte(`{"jsonrpc":"1.0","id":1,"method":"x"}`))
	if _, err := m.Encode(); err == nil || !strings.Contains(err.Error(), "Raw") {
		t.Errorf("Encode of an invalid message: err = %v, want a hint to use Raw", err)
	}
	bad := Message{Kind: KindErrorResponse}
	if _, err := bad.Encode(); err == nil {
		t.Error("Encode of an error response without Error succeeded")
	}
}

func TestRawObject(t *testing.T) {
	b := RawObject(
		RawMember{Name: "jsonrpc", Value: []byte(`"1.0"`)},
		RawMember{Name: "id", Value: []byte(`null`)},
		RawMember{Name: "id", Value: []byte(`1.5`)},
		RawMember{Name: "me\"thod", Value: []byte(`not json`)},
	)
	want := `{"jsonrpc":"1.0","id":null,"id":1.5,"me\"thod":not json}`
	if string(b) != want {
		t.Errorf("RawObject = %s, want %s", b, want)
	}
	if got := string(RawObject()); got != "{}" {
		t.Errorf("RawObject() = %s", got)
	}
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\ slash/", "ctl \x00\x01\x1f\x7f\b\f\n\r\t", "é😀", "bad \xff\xfe utf8 \xed\xa0\x80",
		"\u2028\u2029", "<&>"} {
		got := appendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Errorf("appendString(%q) = %s, not JSON: %v", s, got, err)
			continue
		}
		want, _ := json.Marshal(s)
		var wantBack string
		_ = json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Errorf("appendString(%q) decodes to %q; encoding/json round-trips to %q", s, back, wantBack)
		}
		if strings.ContainsAny(string(got), "\n\r") {
			t.Errorf("appendString(%q) = %q contains a raw newline", s, got)
		}
	}
}

func TestErrorsWrap(t *testing.T) {
	_, err := NewRequest(IntID(1), "a", json.RawMessage(`{`))
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		t.Errorf("error %v does not wrap the json.SyntaxError", err)
	}
}
