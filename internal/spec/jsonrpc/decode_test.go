package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

type wantProblem struct {
	reason  Reason
	pointer string
}

type decodeCase struct {
	name     string
	in       string
	kind     Kind
	shape    Kind
	problems []wantProblem // exact, in order
	check    func(t *testing.T, m Message)
}

func wp(r Reason, ptr string) wantProblem { return wantProblem{r, ptr} }

func nested(open, close string, n int) string {
	return strings.Repeat(open, n) + strings.Repeat(close, n)
}

// decodeCases covers every Reason at least once (TestDecodeCoversEveryReason
// checks that) and every valid kind of message.
var decodeCases = []decodeCase{
	// Valid messages.
	{
		name: "request with int id", in: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"c"}}`,
		kind: KindRequest, shape: KindRequest,
		check: func(t *testing.T, m Message) {
			if m.ID != IntID(1) || m.Method != "tools/list" || string(m.Params) != `{"cursor":"c"}` || m.IDNull || m.IDAbsent {
				t.Errorf("fields: id=%v method=%q params=%s", m.ID, m.Method, m.Params)
			}
		},
	},
	{
		name: "request with escaped string id and whitespace", in: " {\n\t\"jsonrpc\" : \"2.0\" , \"id\" : \"a\\\"b\\u00e9\" , \"method\" : \"ping\" }\r\n",
		kind: KindRequest, shape: KindRequest,
		check: func(t *testing.T, m Message) {
			if m.ID != StringID("a\"bé") || m.Method != "ping" || m.Params != nil {
				t.Errorf("fields: id=%v method=%q params=%s", m.ID, m.Method, m.Params)
			}
		},
	},
	{
		name: "request with empty string id", in: `{"jsonrpc":"2.0","id":"","method":"ping"}`,
		kind: KindRequest, shape: KindRequest,
		check: func(t *testing.T, m Message) {
			if m.ID != StringID("") {
				t.Errorf("id = %v, want empty string id", m.ID)
			}
		},
	},
	{
		name: "request with extreme int ids", in: `{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}`,
		kind: KindRequest, shape: KindRequest,
		check: func(t *testing.T, m Message) {
			if m.ID != IntID(-1<<63) {
				t.Errorf("id = %v", m.ID)
			}
		},
	},
	{
		name: "request with max int id", in: `{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`,
		kind: KindRequest, shape: KindRequest,
		check: func(t *testing.T, m Message) {
			if m.ID != IntID(1<<63-1) {
				t.Errorf("id = %v", m.ID)
			}
		},
	},
	{
		name: "escaped member names", in: `{"\u006asonrpc":"\u0032.0","\u0069d":-0,"meth\u006fd":"a\/b"}`,
		kind: KindRequest, shape: KindRequest,
		check: func(t *testing.T, m Message) {
			if m.ID != IntID(0) || m.Method != "a/b" {
				t.Errorf("fields: id=%v method=%q", m.ID, m.Method)
			}
		},
	},
	{
		name: "notification", in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		kind: KindNotification, shape: KindNotification,
		check: func(t *testing.T, m Message) {
			if !m.IDAbsent || !m.ID.IsZero() || m.Method != "notifications/initialized" {
				t.Errorf("fields: %+v", m)
			}
		},
	},
	{
		name: "notification with params", in: `{"method":"notifications/progress","params":{"progress":1},"jsonrpc":"2.0"}`,
		kind: KindNotification, shape: KindNotification,
	},
	{
		name: "response", in: `{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}`,
		kind: KindResponse, shape: KindResponse,
		check: func(t *testing.T, m Message) {
			if m.ID != IntID(7) || string(m.Result) != `{"tools":[]}` || m.Error != nil {
				t.Errorf("fields: %+v", m)
			}
		},
	},
	{
		name: "error response", in: `{"jsonrpc":"2.0","id":"r1","error":{"code":-32601,"message":"Method not found","data":{"method":"x"}}}`,
		kind: KindErrorResponse, shape: KindErrorResponse,
		check: func(t *testing.T, m Message) {
			if m.ID != StringID("r1") || m.Error == nil || m.Error.Code != MethodNotFound ||
				m.Error.Message != "Method not found" || string(m.Error.Data) != `{"method":"x"}` {
				t.Errorf("fields: %+v %+v", m, m.Error)
			}
		},
	},
	{
		name: "error response with null id", in: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		kind: KindErrorResponse, shape: KindErrorResponse,
		check: func(t *testing.T, m Message) {
			if !m.IDNull || m.IDAbsent || !m.ID.IsZero() {
				t.Errorf("IDNull=%v IDAbsent=%v ID=%v", m.IDNull, m.IDAbsent, m.ID)
			}
		},
	},
	{
		name: "error response without id", in: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":null}}`,
		kind: KindErrorResponse, shape: KindErrorResponse,
		check: func(t *testing.T, m Message) {
			if m.IDNull || !m.IDAbsent || string(m.Error.Data) != "null" {
				t.Errorf("IDNull=%v IDAbsent=%v data=%s", m.IDNull, m.IDAbsent, m.Error.Data)
			}
		},
	},
	{
		name: "nesting at the limit", in: `{"jsonrpc":"2.0","method":"x","params":{"a":` + nested("[", "]", MaxDepth-2) + `}}`,
		kind: KindNotification, shape: KindNotification,
	},

	// Document level.
	{name: "not json: truncated", in: `{"jsonrpc":"2.0",`, problems: []wantProblem{wp(ReasonNotJSON, "")},
		check: wantOffset(ReasonNotJSON, 17)},
	{name: "not json: empty", in: ``, problems: []wantProblem{wp(ReasonNotJSON, "")}, check: wantOffset(ReasonNotJSON, 0)},
	{name: "not json: whitespace only", in: " \n", problems: []wantProblem{wp(ReasonNotJSON, "")}, check: wantOffset(ReasonNotJSON, 2)},
	{name: "not json: trailing comma", in: `{"jsonrpc":"2.0","method":"x",}`, problems: []wantProblem{wp(ReasonNotJSON, "")},
		check: wantOffset(ReasonNotJSON, 30)},
	{name: "not json: single quotes", in: `{'jsonrpc':'2.0'}`, problems: []wantProblem{wp(ReasonNotJSON, "")},
		check: wantOffset(ReasonNotJSON, 1)},
	{name: "not json: raw control character", in: "{\"jsonrpc\":\"2.0\",\"method\":\"a\tb\"}", problems: []wantProblem{wp(ReasonNotJSON, "")},
		check: wantOffset(ReasonNotJSON, 28)},
	{name: "not json: bad escape", in: `{"method":"\x41"}`, problems: []wantProblem{wp(ReasonNotJSON, "")}, check: wantOffset(ReasonNotJSON, 11)},
	{name: "not json: short unicode escape", in: `{"method":"\u12"}`, problems: []wantProblem{wp(ReasonNotJSON, "")}},
	{name: "not json: leading plus", in: `{"id":+1}`, problems: []wantProblem{wp(ReasonNotJSON, "")}, check: wantOffset(ReasonNotJSON, 6)},
	{name: "not json: leading zero", in: `{"id":01}`, problems: []wantProblem{wp(ReasonNotJSON, "")}, check: wantOffset(ReasonNotJSON, 7)},
	{name: "not json: bare fraction", in: `{"id":1.}`, problems: []wantProblem{wp(ReasonNotJSON, "")}},
	{name: "not json: NaN", in: `{"id":NaN}`, problems: []wantProblem{wp(ReasonNotJSON, "")}},
	{name: "not json: bad literal", in: `nul`, problems: []wantProblem{wp(ReasonNotJSON, "")}},
	{name: "not json: invalid UTF-8 outside a string", in: "{\xff}", problems: []wantProblem{wp(ReasonNotJSON, "")}},
	{name: "not json: byte order mark", in: "\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"x\"}", problems: []wantProblem{wp(ReasonNotJSON, "")},
		check: wantDetail(ReasonNotJSON, "byte order mark")},
	{name: "not json: unclosed array", in: `[1,2`, problems: []wantProblem{wp(ReasonNotJSON, "")}},
	{name: "too deep", in: `{"jsonrpc":"2.0","method":"x","params":{"a":` + nested("[", "]", MaxDepth-1) + `}}`,
		problems: []wantProblem{wp(ReasonTooDeep, "")}},
	{name: "too deep without closing", in: strings.Repeat("[", MaxDepth+1), problems: []wantProblem{wp(ReasonTooDeep, "")},
		check: wantOffset(ReasonTooDeep, MaxDepth)},
	{
		name: "trailing data", in: `{"jsonrpc":"2.0","method":"x"} {"jsonrpc":"2.0","method":"y"}`,
		shape: KindNotification, problems: []wantProblem{wp(ReasonTrailingData, "")},
		check: func(t *testing.T, m Message) {
			wantOffset(ReasonTrailingData, 31)(t, m)
			if m.Method != "x" {
				t.Errorf("method = %q, want the first value's", m.Method)
			}
		},
	},
	{
		name: "invalid UTF-8 in method", in: "{\"jsonrpc\":\"2.0\",\"method\":\"a\xffb\"}",
		shape: KindNotification, problems: []wantProblem{wp(ReasonInvalidUTF8, "/method")},
		check: wantOffset(ReasonInvalidUTF8, 28),
	},
	{
		name: "invalid UTF-8 in nested params", in: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"k\":[\"\xc3\"]}}",
		shape: KindRequest, problems: []wantProblem{wp(ReasonInvalidUTF8, "/params")},
	},
	{
		name: "surrogate half as UTF-8 bytes", in: "{\"jsonrpc\":\"2.0\",\"method\":\"\xed\xa0\x80\"}",
		shape: KindNotification, problems: []wantProblem{wp(ReasonInvalidUTF8, "/method")},
	},
	{
		name: "lone surrogate escape", in: `{"jsonrpc":"2.0","method":"x","params":{"a":"\ud800x"}}`,
		kind: KindNotification, shape: KindNotification, problems: []wantProblem{wp(ReasonLoneSurrogate, "/params")},
		check: wantOffset(ReasonLoneSurrogate, 45),
	},
	{
		name: "lone low surrogate escape", in: `{"jsonrpc":"2.0","method":"\udc00"}`,
		kind: KindNotification, shape: KindNotification, problems: []wantProblem{wp(ReasonLoneSurrogate, "/method")},
	},
	{
		name: "surrogate pair is fine", in: `{"jsonrpc":"2.0","method":"\ud83d\ude00"}`,
		kind: KindNotification, shape: KindNotification,
		check: func(t *testing.T, m Message) {
			if m.Method != "😀" {
				t.Errorf("method = %q", m.Method)
			}
		},
	},
	{name: "not object: string", in: `"hello"`, problems: []wantProblem{wp(ReasonNotObject, "")}, check: wantDetail(ReasonNotObject, `the string "hello"`)},
	{name: "not object: number", in: ` 42 `, problems: []wantProblem{wp(ReasonNotObject, "")}, check: wantDetail(ReasonNotObject, "the number 42")},
	{name: "not object: boolean", in: `true`, problems: []wantProblem{wp(ReasonNotObject, "")}, check: wantDetail(ReasonNotObject, "the boolean true")},
	{name: "not object: null", in: `null`, problems: []wantProblem{wp(ReasonNotObject, "")}, check: wantDetail(ReasonNotObject, "null")},
	{name: "not object with trailing data", in: `1 2`, problems: []wantProblem{wp(ReasonNotObject, ""), wp(ReasonTrailingData, "")}},
	{name: "batch", in: `[{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":1,"method":"y"}]`, problems: []wantProblem{wp(ReasonBatch, "")}},
	{name: "empty batch", in: `[ ]`, problems: []wantProblem{wp(ReasonEmptyBatch, "")}},

	// Duplicates and unknown members.
	{
		name: "duplicate method", in: `{"jsonrpc":"2.0","method":"a","method":"b"}`,
		shape: KindNotification, problems: []wantProblem{wp(ReasonDuplicateMember, "/method")},
		check: func(t *testing.T, m Message) {
			wantOffset(ReasonDuplicateMember, 30)(t, m)
			if m.Method != "b" {
				t.Errorf("method = %q, want the last occurrence", m.Method)
			}
		},
	},
	{
		name: "duplicate id spelled differently", in: `{"jsonrpc":"2.0","id":1,"\u0069d":2,"method":"x"}`,
		shape: KindRequest, problems: []wantProblem{wp(ReasonDuplicateMember, "/id")},
	},
	{
		name: "duplicate unknown member", in: `{"jsonrpc":"2.0","method":"x","a/b":1,"a/b":2}`,
		shape: KindNotification, problems: []wantProblem{wp(ReasonDuplicateMember, "/a~1b"), wp(ReasonUnknownMember, "/a~1b")},
	},
	{
		name: "many unknown members with a duplicate", in: `{"jsonrpc":"2.0","method":"x","a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"c":2}`,
		shape: KindNotification,
		problems: []wantProblem{wp(ReasonDuplicateMember, "/c"),
			wp(ReasonUnknownMember, "/a"), wp(ReasonUnknownMember, "/b"), wp(ReasonUnknownMember, "/c"), wp(ReasonUnknownMember, "/d"),
			wp(ReasonUnknownMember, "/e"), wp(ReasonUnknownMember, "/f"), wp(ReasonUnknownMember, "/g"), wp(ReasonUnknownMember, "/h"),
			wp(ReasonUnknownMember, "/i"), wp(ReasonUnknownMember, "/j")},
	},
	{
		name: "unknown member is a note", in: `{"jsonrpc":"2.0","id":1,"result":{},"x~y":true}`,
		kind: KindResponse, shape: KindResponse, problems: []wantProblem{wp(ReasonUnknownMember, "/x~0y")},
	},

	// jsonrpc.
	{name: "jsonrpc missing", in: `{"id":1,"method":"x"}`, shape: KindRequest, problems: []wantProblem{wp(ReasonJSONRPCMissing, "/jsonrpc")},
		check: wantOffset(ReasonJSONRPCMissing, 0)},
	{name: "jsonrpc 1.0", in: `{"jsonrpc":"1.0","id":1,"method":"x"}`, shape: KindRequest,
		problems: []wantProblem{wp(ReasonJSONRPCNot20, "/jsonrpc")}, check: wantDetail(ReasonJSONRPCNot20, `the string "1.0"`)},
	{name: "jsonrpc number", in: `{"jsonrpc":2.0,"id":1,"method":"x"}`, shape: KindRequest,
		problems: []wantProblem{wp(ReasonJSONRPCNot20, "/jsonrpc")}, check: wantDetail(ReasonJSONRPCNot20, "the number 2.0")},
	{name: "jsonrpc null", in: `{"jsonrpc":null,"id":1,"method":"x"}`, shape: KindRequest,
		problems: []wantProblem{wp(ReasonJSONRPCNot20, "/jsonrpc")}, check: wantOffset(ReasonJSONRPCNot20, 11)},

	// id.
	{name: "id null on request", in: `{"jsonrpc":"2.0","id":null,"method":"x"}`, shape: KindRequest,
		problems: []wantProblem{wp(ReasonIDNull, "/id")}, check: func(t *testing.T, m Message) {
			if !m.IDNull {
				t.Error("IDNull not set")
			}
		}},
	{name: "id null on response", in: `{"jsonrpc":"2.0","id":null,"result":{}}`, shape: KindResponse, problems: []wantProblem{wp(ReasonIDNull, "/id")}},
	{name: "id float", in: `{"jsonrpc":"2.0","id":1.0,"method":"x"}`, shape: KindRequest, problems: []wantProblem{wp(ReasonIDFloat, "/id")},
		check: wantOffset(ReasonIDFloat, 22)},
	{name: "id float with exponent", in: `{"jsonrpc":"2.0","id":1.5e3,"method":"x"}`, shape: KindRequest, problems: []wantProblem{wp(ReasonIDFloat, "/id")}},
	{name: "id exponent", in: `{"jsonrpc":"2.0","id":1e3,"method":"x"}`, shape: KindRequest, problems: []wantProblem{wp(ReasonIDExponent, "/id")}},
	{name: "id exponent upper case", in: `{"jsonrpc":"2.0","id":-2E+1,"result":{}}`, shape: KindResponse, problems: []wantProblem{wp(ReasonIDExponent, "/id")}},
	{name: "id boolean", in: `{"jsonrpc":"2.0","id":true,"method":"x"}`, shape: KindRequest, problems: []wantProblem{wp(ReasonIDBoolean, "/id")}},
	{name: "id object", in: `{"jsonrpc":"2.0","id":{"n":1},"method":"x"}`, shape: KindRequest, problems: []wantProblem{wp(ReasonIDObject, "/id")}},
	{name: "id array", in: `{"jsonrpc":"2.0","id":[1],"method":"x"}`, shape: KindRequest, problems: []wantProblem{wp(ReasonIDArray, "/id")}},
	{name: "id out of range", in: `{"jsonrpc":"2.0","id":9223372036854775808,"method":"x"}`, shape: KindRequest,
		problems: []wantProblem{wp(ReasonIDOutOfRange, "/id")}},
	{name: "id out of negative range", in: `{"jsonrpc":"2.0","id":-9223372036854775809,"result":{}}`, shape: KindResponse,
		problems: []wantProblem{wp(ReasonIDOutOfRange, "/id")}},
	{name: "id of wrong type on error response", in: `{"jsonrpc":"2.0","id":false,"error":{"code":1,"message":"m"}}`, shape: KindErrorResponse,
		problems: []wantProblem{wp(ReasonIDBoolean, "/id")}},
	{name: "response without id", in: `{"jsonrpc":"2.0","result":{}}`, shape: KindResponse,
		problems: []wantProblem{wp(ReasonResponseWithoutID, "/id")}, check: func(t *testing.T, m Message) {
			if !m.IDAbsent {
				t.Error("IDAbsent not set")
			}
		}},

	// method and params.
	{name: "method number", in: `{"jsonrpc":"2.0","id":1,"method":1}`, shape: KindRequest, problems: []wantProblem{wp(ReasonMethodNotString, "/method")},
		check: wantDetail(ReasonMethodNotString, "the number 1")},
	{name: "method null", in: `{"jsonrpc":"2.0","method":null}`, shape: KindNotification, problems: []wantProblem{wp(ReasonMethodNotString, "/method")}},
	{name: "method empty", in: `{"jsonrpc":"2.0","id":1,"method":""}`, shape: KindRequest, problems: []wantProblem{wp(ReasonMethodEmpty, "/method")}},
	{name: "params array", in: `{"jsonrpc":"2.0","id":1,"method":"x","params":[1,2]}`, shape: KindRequest,
		problems: []wantProblem{wp(ReasonParamsArray, "/params")}, check: func(t *testing.T, m Message) {
			if string(m.Params) != "[1,2]" {
				t.Errorf("params = %s, want the raw array", m.Params)
			}
		}},
	{name: "params string", in: `{"jsonrpc":"2.0","method":"x","params":"p"}`, shape: KindNotification,
		problems: []wantProblem{wp(ReasonParamsNotStructured, "/params")}},
	{name: "params null", in: `{"jsonrpc":"2.0","method":"x","params":null}`, shape: KindNotification,
		problems: []wantProblem{wp(ReasonParamsNotStructured, "/params")}},
	{name: "params on a response", in: `{"jsonrpc":"2.0","id":1,"result":{},"params":{}}`, kind: KindResponse, shape: KindResponse,
		problems: []wantProblem{wp(ReasonParamsWithoutMethod, "/params")}},

	// Response members.
	{name: "result and error", in: `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`, shape: KindResponse,
		problems: []wantProblem{wp(ReasonResultAndError, "")}},
	{name: "no method, result or error", in: `{"jsonrpc":"2.0","id":1}`, shape: KindInvalid,
		problems: []wantProblem{wp(ReasonNoMethodResultOrError, "")}},
	{name: "empty object", in: `{}`, shape: KindInvalid,
		problems: []wantProblem{wp(ReasonJSONRPCMissing, "/jsonrpc"), wp(ReasonNoMethodResultOrError, "")}},
	{name: "method with result", in: `{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`, shape: KindRequest,
		problems: []wantProblem{wp(ReasonMethodWithResponseMember, "/result")}},
	{name: "method with error", in: `{"jsonrpc":"2.0","method":"x","error":{"code":1,"message":"m"}}`, shape: KindNotification,
		problems: []wantProblem{wp(ReasonMethodWithResponseMember, "/error")}},
	{name: "result null", in: `{"jsonrpc":"2.0","id":1,"result":null}`, shape: KindResponse, problems: []wantProblem{wp(ReasonResultNotObject, "/result")}},
	{name: "result array", in: `{"jsonrpc":"2.0","id":1,"result":[]}`, shape: KindResponse, problems: []wantProblem{wp(ReasonResultNotObject, "/result")},
		check: wantDetail(ReasonResultNotObject, "an array")},
	{name: "error string", in: `{"jsonrpc":"2.0","id":1,"error":"boom"}`, shape: KindErrorResponse,
		problems: []wantProblem{wp(ReasonErrorNotObject, "/error")}, check: func(t *testing.T, m Message) {
			if m.Error != nil {
				t.Errorf("Error = %+v, want nil", m.Error)
			}
		}},
	{name: "error code missing", in: `{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}`, shape: KindErrorResponse,
		problems: []wantProblem{wp(ReasonErrorCodeMissing, "/error/code")}, check: wantOffset(ReasonErrorCodeMissing, 32)},
	{name: "error code string", in: `{"jsonrpc":"2.0","id":1,"error":{"code":"-32600","message":"m"}}`, shape: KindErrorResponse,
		problems: []wantProblem{wp(ReasonErrorCodeNotNumber, "/error/code")}},
	{name: "error code null", in: `{"jsonrpc":"2.0","id":1,"error":{"code":null,"message":"m"}}`, shape: KindErrorResponse,
		problems: []wantProblem{wp(ReasonErrorCodeNotNumber, "/error/code")}},
	{name: "error code float", in: `{"jsonrpc":"2.0","id":1,"error":{"code":-32600.0,"message":"m"}}`, shape: KindErrorResponse,
		problems: []wantProblem{wp(ReasonErrorCodeFloat, "/error/code")}, check: wantOffset(ReasonErrorCodeFloat, 40)},
	{name: "error code exponent", in: `{"jsonrpc":"2.0","id":1,"error":{"code":-3.26e4,"message":"m"}}`, shape: KindErrorResponse,
		problems: []wantProblem{wp(ReasonErrorCodeFloat, "/error/code")}},
	{name: "error code out of range", in: `{"jsonrpc":"2.0","id":1,"error":{"code":-99999999999999999999,"message":"m"}}`, shape: KindErrorResponse,
		problems: []wantProblem{wp(ReasonErrorCodeOutOfRange, "/error/code")}},
	{name: "error message missing", in: `{"jsonrpc":"2.0","id":1,"error":{"code":-32600}}`, shape: KindErrorResponse,
		problems: []wantProblem{wp(ReasonErrorMessageMissing, "/error/message")}},
	{name: "error message not string", in: `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":["m"]}}`, shape: KindErrorResponse,
		problems: []wantProblem{wp(ReasonErrorMessageNotString, "/error/message")}},
	{name: "error object duplicates and extras", in: `{"jsonrpc":"2.0","id":1,"error":{"code":1,"code":2,"message":"m","x":1,"x":2}}`, shape: KindErrorResponse,
		problems: []wantProblem{wp(ReasonDuplicateMember, "/error/code"), wp(ReasonDuplicateMember, "/error/x"), wp(ReasonUnknownMember, "/error/x")},
		check: func(t *testing.T, m Message) {
			if m.Error.Code != 2 {
				t.Errorf("code = %d, want the last occurrence", m.Error.Code)
			}
		}},
	{name: "error object with only extras is still an error response", in: `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","retry":true}}`,
		kind: KindErrorResponse, shape: KindErrorResponse, problems: []wantProblem{wp(ReasonUnknownMember, "/error/retry")}},

	// Several problems at once, in the documented order.
	{
		name: "everything wrong with a request", in: `{"jsonrpc":"1.0","id":1.5,"method":"","params":[1],"x":1,"x":2} !`,
		shape: KindRequest,
		problems: []wantProblem{wp(ReasonTrailingData, ""), wp(ReasonDuplicateMember, "/x"), wp(ReasonJSONRPCNot20, "/jsonrpc"),
			wp(ReasonIDFloat, "/id"), wp(ReasonMethodEmpty, "/method"), wp(ReasonParamsArray, "/params"), wp(ReasonUnknownMember, "/x")},
	},
}

func wantOffset(r Reason, off int) func(*testing.T, Message) {
	return func(t *testing.T, m Message) {
		t.Helper()
		p, ok := m.Problem(r)
		if !ok {
			t.Fatalf("no %s problem", r)
		}
		if p.Offset != off {
			t.Errorf("%s offset = %d, want %d (%s)", r, p.Offset, off, p.Detail)
		}
	}
}

func wantDetail(r Reason, sub string) func(*testing.T, Message) {
	return func(t *testing.T, m Message) {
		t.Helper()
		p, ok := m.Problem(r)
		if !ok {
			t.Fatalf("no %s problem", r)
		}
		if !strings.Contains(p.Detail, sub) {
			t.Errorf("%s detail %q does not mention %q", r, p.Detail, sub)
		}
	}
}

func TestDecode(t *testing.T) {
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			orig := bytes.Clone(in)
			m := Decode(in)
			if !bytes.Equal(m.Raw, orig) || !bytes.Equal(in, orig) {
				t.Fatalf("Raw = %q, want the input %q unchanged", m.Raw, orig)
			}
			if len(in) > 0 && &m.Raw[0] != &in[0] {
				t.Errorf("Raw is a copy; Decode should keep the caller's bytes")
			}
			if m.Kind != tc.kind || m.Shape != tc.shape {
				t.Errorf("Kind, Shape = %s, %s; want %s, %s", m.Kind, m.Shape, tc.kind, tc.shape)
			}
			var got []wantProblem
			for _, p := range m.Problems {
				got = append(got, wp(p.Reason, p.Pointer))
				if p.Detail == "" {
					t.Errorf("%s has no detail", p.Reason)
				}
				if p.Offset < 0 || p.Offset > len(in) {
					t.Errorf("%s offset %d is outside the input", p.Reason, p.Offset)
				}
			}
			if !equalProblems(got, tc.problems) {
				t.Errorf("problems:\n got %v\nwant %v", got, tc.problems)
				for _, p := range m.Problems {
					t.Logf("  %s", p)
				}
			}
			if tc.check != nil {
				tc.check(t, m)
			}
		})
	}
}

func equalProblems(a, b []wantProblem) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDecodeCoversEveryReason(t *testing.T) {
	seen := map[Reason]bool{}
	for _, tc := range decodeCases {
		for _, p := range tc.problems {
			seen[p.reason] = true
		}
	}
	for _, r := range Reasons() {
		if !seen[r] {
			t.Errorf("no decode case produces %s", r)
		}
	}
}

func TestReasonsAreDistinct(t *testing.T) {
	seen := map[Reason]bool{}
	for _, r := range Reasons() {
		if seen[r] {
			t.Errorf("reason %q listed twice", r)
		}
		seen[r] = true
		if s := r.Severity(); s != SeverityInvalid && s != SeverityNote {
			t.Errorf("%s has severity %q", r, s)
		}
	}
	notes := []Reason{ReasonLoneSurrogate, ReasonUnknownMember, ReasonParamsWithoutMethod}
	for _, r := range notes {
		if r.Severity() != SeverityNote {
			t.Errorf("%s severity = %s, want note", r, r.Severity())
		}
	}
	if Reason("made-up").Severity() != SeverityInvalid {
		t.Error("unknown reasons should be treated as invalid")
	}
}

func TestDepthLimitMatchesEncodingJSON(t *testing.T) {
	ok := `{"a":` + nested("[", "]", MaxDepth-1) + `}`
	deep := `{"a":` + nested("[", "]", MaxDepth) + `}`
	if !json.Valid([]byte(ok)) {
		t.Error("encoding/json rejects the deepest message Decode accepts")
	}
	if json.Valid([]byte(deep)) {
		t.Error("encoding/json accepts a message Decode calls too deep")
	}
	if m := Decode([]byte(ok)); m.Has(ReasonTooDeep) {
		t.Error("Decode rejects nesting at the limit")
	}
	if m := Decode([]byte(deep)); !m.Has(ReasonTooDeep) {
		t.Error("Decode accepts nesting past the limit")
	}
}

func TestDecodeBatch(t *testing.T) {
	t.Run("batch", func(t *testing.T) {
		in := []byte(` [ {"jsonrpc":"2.0","id":1,"method":"a"} , {"jsonrpc":"2.0","method":"b"},[1], 3 ,{"jsonrpc":"2.0","id":1,"result":{}}] `)
		msgs, ok := DecodeBatch(in)
		if !ok || len(msgs) != 5 {
			t.Fatalf("DecodeBatch = %d messages, %v; want 5, true", len(msgs), ok)
		}
		wantKinds := []Kind{KindRequest, KindNotification, KindInvalid, KindInvalid, KindResponse}
		wantRaw := []string{`{"jsonrpc":"2.0","id":1,"method":"a"}`, `{"jsonrpc":"2.0","method":"b"}`, `[1]`, `3`, `{"jsonrpc":"2.0","id":1,"result":{}}`}
		for i, m := range msgs {
			if m.Kind != wantKinds[i] || string(m.Raw) != wantRaw[i] {
				t.Errorf("element %d: kind %s raw %q; want %s %q", i, m.Kind, m.Raw, wantKinds[i], wantRaw[i])
			}
		}
		if !msgs[2].Has(ReasonNotObject) || msgs[2].Has(ReasonBatch) {
			t.Errorf("nested array: %v", msgs[2].Problems)
		}
		if !msgs[3].Has(ReasonNotObject) {
			t.Errorf("number element: %v", msgs[3].Problems)
		}
	})
	t.Run("empty", func(t *testing.T) {
		msgs, ok := DecodeBatch([]byte(`[]`))
		if !ok || len(msgs) != 1 || !msgs[0].Has(ReasonEmptyBatch) || msgs[0].Kind != KindInvalid {
			t.Errorf("DecodeBatch([]) = %+v, %v", msgs, ok)
		}
	})
	for _, in := range []string{`{"jsonrpc":"2.0","method":"a"}`, `[{"jsonrpc":"2.0","method":"a"}`, `[] x`, `"s"`, ``} {
		msgs, ok := DecodeBatch([]byte(in))
		if ok || len(msgs) != 1 {
			t.Errorf("DecodeBatch(%q) = %d messages, %v; want 1, false", in, len(msgs), ok)
			continue
		}
		want := Decode([]byte(in))
		if msgs[0].Kind != want.Kind || len(msgs[0].Problems) != len(want.Problems) {
			t.Errorf("DecodeBatch(%q) differs from Decode", in)
		}
	}
	t.Run("invalid UTF-8 stays in its element", func(t *testing.T) {
		msgs, ok := DecodeBatch([]byte("[{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"},{\"jsonrpc\":\"2.0\",\"method\":\"b\"}]"))
		if !ok || len(msgs) != 2 || !msgs[0].Has(ReasonInvalidUTF8) || msgs[1].Kind != KindNotification {
			t.Errorf("got %d messages, %v", len(msgs), ok)
		}
	})
}

func TestDecodeDoesNotPanicOnTruncations(t *testing.T) {
	// Every prefix of every case must classify without panicking, and every
	// strict prefix of an object must be not-json.
	for _, tc := range decodeCases {
		if len(tc.in) > 500 || strings.Contains(tc.name, "trailing data") {
			continue
		}
		for i := 0; i < len(tc.in); i++ {
			m := Decode([]byte(tc.in[:i]))
			if m.Kind != KindInvalid && strings.TrimSpace(tc.in[:i]) != strings.TrimSpace(tc.in) {
				t.Errorf("prefix %q of %q decoded as %s", tc.in[:i], tc.name, m.Kind)
			}
		}
	}
}

func TestErrorObjectError(t *testing.T) {
	e := &ErrorObject{Code: MethodNotFound, Message: "no such method"}
	if got := e.Error(); !strings.Contains(got, "-32601") || !strings.Contains(got, "MethodNotFound") || !strings.Contains(got, "no such method") {
		t.Errorf("Error() = %q", got)
	}
	e = &ErrorObject{Code: 7, Message: "custom"}
	if got := e.Error(); !strings.Contains(got, "7") || strings.Contains(got, "()") {
		t.Errorf("Error() = %q", got)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindInvalid: "invalid", KindRequest: "request", KindNotification: "notification",
		KindResponse: "response", KindErrorResponse: "error response", Kind(9): "kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
	if !KindErrorResponse.IsResponse() || KindRequest.IsResponse() {
		t.Error("IsResponse")
	}
}

func TestDecodeCapsListedProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","method":"x"`)
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, `,"u%d":0,"u%d":1`, i, i)
	}
	b.WriteString(`,"error":{"code":1,"message":"m"`)
	for i := 0; i < 100; i++ {
		b.WriteString(`,"code":1`)
	}
	b.WriteString(`}}`)
	m := Decode([]byte(b.String()))
	count := map[Reason]int{}
	var summaries []Problem
	for _, p := range m.Problems {
		count[p.Reason]++
		if strings.Contains(p.Detail, "not listed") {
			summaries = append(summaries, p)
		}
	}
	// Top level: 32 duplicates + summary, 32 unknown + summary; error object: 32 duplicates + summary.
	if count[ReasonDuplicateMember] != 2*MaxListed+2 {
		t.Errorf("%d duplicate-member problems, want %d", count[ReasonDuplicateMember], 2*MaxListed+2)
	}
	if count[ReasonUnknownMember] != MaxListed+1 {
		t.Errorf("%d unknown-member problems, want %d", count[ReasonUnknownMember], MaxListed+1)
	}
	if len(summaries) != 3 {
		t.Fatalf("summaries: %v", summaries)
	}
	if summaries[0].Pointer != "" || !strings.Contains(summaries[0].Detail, "968 more duplicate members") {
		t.Errorf("top-level duplicate summary: %+v", summaries[0])
	}
	if summaries[1].Pointer != "/error" || !strings.Contains(summaries[1].Detail, "68 more duplicate members") {
		t.Errorf("error-object duplicate summary: %+v", summaries[1])
	}
	if summaries[2].Pointer != "" || !strings.Contains(summaries[2].Detail, "968 more unknown members") {
		t.Errorf("unknown-member summary: %+v", summaries[2])
	}
}
