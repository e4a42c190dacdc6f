package client

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// tsRecordedOrder is what the stage recorded of the TS SDK 1.32.2 client
// (cmd/interop/clients/ts-client.mjs, --fault cancel-initialize or
// request-before-initialize-result) over streamable HTTP: the client
// streams its initialize body (chunked) and sends second, once that body
// has gone out, a small POST whose body is read first, so it is recorded
// before the initialize, though its handler began after the initialize's.
func tsRecordedOrder(second string) []stage.Event {
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	post := func(stream, raw string, began time.Time, sid string) stage.Event {
		h := http.Header{"Content-Type": {"application/json"}}
		if sid != "" {
			h.Set("Mcp-Session-Id", sid)
		}
		e := fromClient(raw)
		e.Stream, e.HTTP, e.Began = stream, &wire.HTTPInfo{Method: http.MethodPost, URL: "http://127.0.0.1/mcp", Header: h}, began
		return e
	}
	answer := func(stream, raw string, status int, sid string, began time.Time) stage.Event {
		h := http.Header{"Content-Type": {"application/json"}}
		if sid != "" {
			h.Set("Mcp-Session-Id", sid)
		}
		e := fromStage(raw)
		if raw == "" {
			e = stage.Event{From: stage.FromStage, Frame: wire.Frame{Kind: wire.KindStatus}}
		}
		e.Stream, e.HTTP, e.Began = stream, &wire.HTTPInfo{Status: status, Header: h}, began
		return e
	}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ts","version":"1"}}}`
	var early, earlyAnswer stage.Event
	if second == "cancel" {
		early = post("post-2", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0,"reason":"fault"}}`, t0.Add(time.Millisecond), "")
		earlyAnswer = answer("post-2", "", http.StatusAccepted, "", t0.Add(2*time.Millisecond))
	} else {
		early = post("post-2", `{"jsonrpc":"2.0","id":"early-tools-list","method":"tools/list"}`, t0.Add(time.Millisecond), "")
		earlyAnswer = answer("post-2", "", http.StatusBadRequest, "", t0.Add(2*time.Millisecond))
	}
	return rec(
		early,
		earlyAnswer,
		post("post-1", init, t0, ""),
		answer("post-1", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"mcpcheck","version":"1"}}}`, http.StatusOK, "s-1", t0.Add(3*time.Millisecond)),
		post("post-3", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, t0.Add(4*time.Millisecond), "s-1"),
		answer("post-3", "", http.StatusAccepted, "s-1", t0.Add(5*time.Millisecond)),
	)
}

// TestSentOrderPutsInitializeFirst: the TS SDK's cancellation of its
// pending initialize, and its tools/list before the initialize result,
// recorded before the initialize they follow, are judged on their own
// rules once SentOrder restores the order they were sent in; without it
// the cancellation was "of no request of the client in this session" and
// the early tools/list went unseen (pass).
func TestSentOrderPutsInitializeFirst(t *testing.T) {
	evs := SentOrder(tsRecordedOrder("cancel"))
	if evs[0].Msg.Method != spec.MethodInitialize || evs[0].Seq != 1 || evs[1].Msg.Method != spec.MethodCancelled || evs[1].Seq != 2 {
		t.Errorf("SentOrder left %s (seq %d), %s (seq %d) first; want initialize then its cancellation", evs[0].Msg.Method, evs[0].Seq, evs[1].Msg.Method, evs[1].Seq)
	}
	got := judgeRecording(t, "client/cancellation/not-initialize", spec.V20251125, Streamable, map[string][]stage.Event{lcSlowInitScenario: evs})
	if got.Outcome != reports.Fail || !strings.Contains(got.Actual, "cancelled its initialize") {
		t.Errorf("client/cancellation/not-initialize on the TS SDK's cancellation of its pending initialize: want fail (it cancelled its initialize), got %s: %s %s", got.Outcome, got.Reason, got.Actual)
	}
	got = judgeRecording(t, "client/cancellation/in-flight", spec.V20251125, Streamable, map[string][]stage.Event{lcSlowInitScenario: evs})
	if got.Outcome == reports.Fail {
		t.Errorf("client/cancellation/in-flight charged the cancellation of initialize as one of no request: %s", got.Actual)
	}
	evs = SentOrder(tsRecordedOrder("tools/list"))
	got = judgeRecording(t, "client/lifecycle/ping-only-before-result", spec.V20251125, Streamable, map[string][]stage.Event{lcSlowInitScenario: evs})
	if got.Outcome != reports.Warn {
		t.Errorf("client/lifecycle/ping-only-before-result on the TS SDK's tools/list before the initialize result: want warn, got %s: %s %s", got.Outcome, got.Reason, got.Actual)
	}
}

// TestSentOrderLeavesOrderAlone: a POST that began before the initialize
// (the client sent it first) stays first, and a recording in order is
// returned as it was.
func TestSentOrderLeavesOrderAlone(t *testing.T) {
	evs := tsRecordedOrder("cancel")
	evs[0].Began = evs[2].Began.Add(-time.Millisecond) // the cancellation began first
	got := SentOrder(append([]stage.Event(nil), evs...))
	for i := range got {
		if got[i].Seq != evs[i].Seq || got[i].Stream != evs[i].Stream {
			t.Fatalf("event %d moved: %s %s (seq %d), was %s %s (seq %d)", i, got[i].Stream, got[i].Msg.Method, got[i].Seq, evs[i].Stream, evs[i].Msg.Method, evs[i].Seq)
		}
	}
}

// TestCancelOfRefusedInitialize: in the authorization scenarios the stage
// answers the first initialize 401; the mcp-go and TS fault clients'
// cancellation of it, sent while it was pending, is a cancellation of
// initialize (client/cancellation/not-initialize), not one "of no request
// of the client in this session" (client/cancellation/in-flight), which
// both drew in every auth/ scenario before.
func TestCancelOfRefusedInitialize(t *testing.T) {
	evs := tsRecordedOrder("cancel")
	// The initialize's answer becomes a 401 without a message, written
	// after the cancellation began.
	evs[3] = stage.Event{Seq: evs[3].Seq, From: stage.FromStage, Frame: wire.Frame{Kind: wire.KindStatus, Stream: "post-1",
		HTTP: &wire.HTTPInfo{Status: http.StatusUnauthorized, Header: http.Header{"Www-Authenticate": {`Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`}}}}, Began: evs[3].Began}
	pending := SentOrder(append([]stage.Event(nil), evs[:4]...))
	// The same, the cancellation begun after the 401 was written (it
	// crossed the refusal): recorded after it, with no session to share.
	crossed := rec(evs[2], evs[3], evs[0], evs[1])
	crossed[2].Began, crossed[3].Began = evs[3].Began.Add(time.Millisecond), evs[3].Began.Add(2*time.Millisecond)
	// Both refused before the stage took their bodies (no Began), the
	// cancellation recorded first, as mcp-go's was in auth/metadata-default.
	first := rec(evs[0], evs[1], evs[2], evs[3])
	for i := range first {
		first[i].Began = time.Time{}
	}
	first[1].HTTP = &wire.HTTPInfo{Status: http.StatusUnauthorized, Header: http.Header{}}
	first[1].Kind = wire.KindStatus
	for name, evs := range map[string][]stage.Event{"pending": pending, "crossed": crossed, "cancellation recorded first": first} {
		got := judgeRecording(t, "client/cancellation/in-flight", spec.V20251125, Streamable, map[string][]stage.Event{"auth/metadata-default": evs})
		if got.Outcome == reports.Fail {
			t.Errorf("%s: client/cancellation/in-flight charged the cancellation of the refused initialize as one of no request: %s", name, got.Actual)
		}
		got = judgeRecording(t, "client/cancellation/not-initialize", spec.V20251125, Streamable, map[string][]stage.Event{"auth/metadata-default": evs})
		if got.Outcome != reports.Fail {
			t.Errorf("%s: client/cancellation/not-initialize on the cancellation of the refused initialize: want fail, got %s: %s %s", name, got.Outcome, got.Reason, got.Actual)
		}
	}
}

// TestCancelCrossingInitializeResult: mcp-go's fault client sends its
// cancellation of initialize once the body has gone out; the stage had
// answered by then (recorded and begun after the answer), and the
// cancellation, without the session id the client had not read yet, was
// "of no request of the client in this session" in every scenario that
// answers at once. It is a cancellation of initialize that crossed its
// answer.
func TestCancelCrossingInitializeResult(t *testing.T) {
	evs := tsRecordedOrder("cancel")
	late := evs[3].Began.Add(time.Millisecond)
	evs[0].Began, evs[1].Began = late, late.Add(time.Millisecond)
	crossed := rec(evs[2], evs[3], evs[0], evs[1], evs[4], evs[5])
	got := judgeRecording(t, "client/cancellation/in-flight", spec.V20251125, Streamable, map[string][]stage.Event{"initialize": crossed})
	if got.Outcome == reports.Fail {
		t.Errorf("client/cancellation/in-flight charged the cancellation that crossed the initialize result as one of no request: %s", got.Actual)
	}
	got = judgeRecording(t, "client/cancellation/not-initialize", spec.V20251125, Streamable, map[string][]stage.Event{"initialize": crossed})
	if got.Outcome != reports.Fail {
		t.Errorf("client/cancellation/not-initialize on the cancellation that crossed the initialize result: want fail, got %s: %s %s", got.Outcome, got.Reason, got.Actual)
	}
}
