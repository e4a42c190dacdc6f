package rules

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

func TestRequirementsAreInTheCatalog(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range All {
		if _, ok := c.Get(id); !ok {
			t.Errorf("rules cite %q, which the catalog does not have", id)
		}
	}
}

func msg(s string) jsonrpc.Message { return jsonrpc.Decode([]byte(s)) }

func TestResponseShapeByVersion(t *testing.T) {
	both := msg(`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`)
	b, ok := ResponseShape(spec.V20250618, both)
	if !ok || b.Requirement != ReqNotResultAndError {
		t.Errorf("2025-06-18: got %+v, %v; want a breach of %s", b, ok, ReqNotResultAndError)
	}
	b, ok = ResponseShape(spec.V20251125, both)
	if !ok || b.Requirement != ReqJSONRPC2 {
		t.Errorf("2025-11-25 (not-both is restated as the envelope rule): got %q, want %s", b.Requirement, ReqJSONRPC2)
	}
	if _, ok := ResponseShape(spec.V20251125, msg(`{"jsonrpc":"2.0","id":1,"result":{}}`)); ok {
		t.Error("a clean result response was called a breach")
	}
}

func TestErrorObjectAndNotificationID(t *testing.T) {
	_, counted, ok := ErrorObject(spec.V20251125, msg(`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}`))
	if !counted || !ok {
		t.Error("a fractional error code was not a breach")
	}
	_, counted, _ = ErrorObject(spec.V20251125, msg(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	if counted {
		t.Error("a result response was counted as an error response")
	}
	b, counted, ok := NotificationID(spec.V20251125, msg(`{"jsonrpc":"2.0","id":3,"method":"notifications/initialized"}`))
	if !counted || !ok || b.Requirement != ReqNotificationNoID {
		t.Errorf("a notification with an id: got %+v %v %v", b, counted, ok)
	}
}

func TestRequestIDsByEraAndSender(t *testing.T) {
	req := msg(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	// Before 2026-07-28 an id is never reused in a session, answered or not.
	l := NewRequestIDs(spec.ClientToServer, 0)
	l.Request(spec.V20251125, req)
	l.Answered(jsonrpc.IntID(7))
	if b, ok := l.Request(spec.V20251125, req); !ok || b.Requirement != ReqIDUniqueInSession {
		t.Errorf("2025-11-25 reuse after the answer: got %+v %v", b, ok)
	}
	// From 2026-07-28 a client may reuse an id once it was answered, not before.
	l = NewRequestIDs(spec.ClientToServer, 0)
	l.Request(spec.V20260728, req)
	if b, ok := l.Request(spec.V20260728, req); !ok || b.Requirement != ReqIDUniqueOutstanding {
		t.Errorf("2026-07-28 reuse while outstanding: got %+v %v", b, ok)
	}
	l.Answered(jsonrpc.IntID(7))
	if b, ok := l.Request(spec.V20260728, req); ok {
		t.Errorf("2026-07-28 reuse after the answer was called a breach: %+v", b)
	}
	// The outstanding rule binds clients only.
	l = NewRequestIDs(spec.ServerToClient, 0)
	l.Request(spec.V20260728, req)
	if b, ok := l.Request(spec.V20260728, req); ok {
		t.Errorf("a client-only rule was held to a server: %+v", b)
	}
	if b, ok := NewRequestIDs(spec.ClientToServer, 0).Request(spec.V20251125, msg(`{"jsonrpc":"2.0","id":null,"method":"ping"}`)); !ok || b.Requirement != ReqIDNotNull {
		t.Errorf("null id: got %+v %v", b, ok)
	}
}

func TestInvalidMapsProblemsToRequirements(t *testing.T) {
	cases := []struct {
		v    spec.Version
		raw  string
		want string
	}{
		{spec.V20250618, `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, ReqNotResultAndError},
		{spec.V20251125, `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, ReqJSONRPC2},
		{spec.V20251125, `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"x"}}`, ReqErrorCodeInteger},
		{spec.V20241105, `{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}`, ReqJSONRPC2},
		{spec.V20251125, `{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}`, ReqErrorCodeAndMessage},
		{spec.V20251125, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, ReqIDStringOrInteger},
		{spec.V20251125, `{"jsonrpc":"1.0","id":1,"method":"ping"}`, ReqJSONRPC2},
	}
	for _, c := range cases {
		b, ok := Invalid(c.v, msg(c.raw), nil)
		if !ok || b.Requirement != c.want {
			t.Errorf("%s %s: got %q (%v), want %s", c.v, c.raw, b.Requirement, ok, c.want)
		}
	}
	if _, ok := Invalid(spec.V20251125, msg(`{"jsonrpc":"2.0","id":1.5,"result":{}}`), func(jsonrpc.Problem) bool { return true }); ok {
		t.Error("an excused problem was reported")
	}
}

func TestPendingSettlesOneByOne(t *testing.T) {
	var p Pending[int]
	p.Add("1", "ping", 10)
	p.Add("1", "ping", 11)
	if m, e, ok := p.Get("1"); !ok || m != "ping" || e != 11 || p.Outstanding("1") != 2 {
		t.Fatalf("Get = %q %d %v, outstanding %d", m, e, ok, p.Outstanding("1"))
	}
	if p.Settle("1") || !p.Settle("1") || p.Len() != 0 {
		t.Error("two requests under one id did not settle one by one")
	}
	p.Add("2", "ping", 0)
	p.Add("2", "tools/list", 0)
	if m, _, _ := p.Get("2"); m != "" {
		t.Errorf("an id outstanding for two methods kept method %q", m)
	}
}

func TestMethodsAnswerableAndSchema(t *testing.T) {
	ms := NewMethods(2)
	ms.Sent([]byte(`{"jsonrpc":"2.0","id":"a","method":"tools/list"}` + "\n"))
	if got := ms.Method(jsonrpc.StringID("a")); got != "tools/list" {
		t.Errorf("Method = %q", got)
	}
	ms.Sent([]byte(`{"jsonrpc":"2.0","id":"b","method":"ping"}`))
	ms.Sent([]byte(`{"jsonrpc":"2.0","id":"c","method":"ping"}`))
	if ms.Method(jsonrpc.StringID("a")) != "" {
		t.Error("a full Methods did not start over")
	}
	if Answerable(spec.V20251125, spec.ServerToClient, "roots/list") != "" {
		t.Error("a server's answer to roots/list (a request the server never receives) was judged by its method")
	}
	if Answerable(spec.V20251125, spec.ClientToServer, "roots/list") != "roots/list" {
		t.Error("a client's answer to roots/list was not judged by its method")
	}
	bad := msg(`{"jsonrpc":"2.0","id":"r","result":{"roots":[{"name":"no uri"}]}}`)
	if vs := Schema(spec.V20251125, spec.ClientToServer, "roots/list", bad); len(vs) == 0 {
		t.Error("a roots/list result without uri passed the schema")
	}
}

// TestMethodsAnswer: the first answer to a request is attributed to its
// method; a second answer to the same id (a duplicate, or another
// request's id mangled into it, as 1.5 rounded to 1) is not, unless the
// id was sent again.
func TestMethodsAnswer(t *testing.T) {
	ms := NewMethods(0)
	one := jsonrpc.IntID(1)
	ms.Sent([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	ms.Sent([]byte(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`)) // no usable id: not learnt
	if m, awaited := ms.Answer(one); m != "initialize" || !awaited {
		t.Errorf("first answer to id 1: %q, awaited %v; want initialize, true", m, awaited)
	}
	if m, awaited := ms.Answer(one); awaited {
		t.Errorf("second answer to id 1 (initialize answered): %q, awaited %v; want not awaited", m, awaited)
	}
	if _, awaited := ms.Answer(jsonrpc.IntID(7)); awaited {
		t.Error("an answer to an id never sent was awaited")
	}
	ms.Sent([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if m, awaited := ms.Answer(one); m != "ping" || !awaited {
		t.Errorf("answer to id 1 sent again: %q, awaited %v; want ping, true", m, awaited)
	}
	if n := ms.Sends(one); n != 2 {
		t.Errorf("Sends(1) = %d, want 2", n)
	}
}

// TestSwapCase swaps ASCII letters only, keeps other bytes (UTF-8
// included), and is its own inverse.
func TestSwapCase(t *testing.T) {
	for in, want := range map[string]string{
		"get_Weather-2":  "GET_wEATHER-2",
		"Mcp-Session-Id": "mCP-sESSION-iD",
		"émoji_ß":        "éMOJI_ß",
		"":               "",
		"123_-":          "123_-",
	} {
		if got := SwapCase(in); got != want {
			t.Errorf("SwapCase(%q) = %q; want %q", in, got, want)
		}
		if back := SwapCase(SwapCase(in)); back != in {
			t.Errorf("SwapCase twice on %q gave %q", in, back)
		}
	}
}
