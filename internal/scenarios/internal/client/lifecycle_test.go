package client

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestHTTPMessagesBeforeInitializeResult: over HTTP a client that does not
// wait for the initialize result sends its next messages without an
// Mcp-Session-Id (it cannot know it yet). They belong to the pending
// session: against a slow server (mcpcheck-slow-initialize, which answers
// in JSON after 2 s) a cancellation of the initialize fails
// client/cancellation/not-initialize and a request before the result warns
// client/lifecycle/ping-only-before-result, each in that scenario, while
// the session still opened with initialize and the header rules, which
// bind only after initialization, stay clean. Before the fix the early
// message opened a session of its own ("the first message was
// notifications/cancelled") and the cancellation was of "no request".
// Only the slow scenario is launched (elsewhere the fault's messages race
// the result, and its breaches could crowd the slow scenario's out of a
// check's first ten failures);
// TestCancelBeforeInitializeResultIsThePendingSessions judges recordings
// of that scenario made by hand.
func TestHTTPMessagesBeforeInitializeResult(t *testing.T) {
	t.Parallel()
	only := []string{"client/cancellation/not-initialize", "client/lifecycle/ping-only-before-result", "client/lifecycle/initialize-first",
		"client/transport-http/protocol-version-header", "client/transport-http/session-id"}
	for fault, want := range map[string]string{"cancel-initialize": "client/cancellation/not-initialize", "request-before-initialize-result": "client/lifecycle/ping-only-before-result"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			res := runSuite(t, Config{Launch: referenceLaunch(t, Streamable, fault), Versions: []spec.Version{spec.V20251125}, Only: only, scenarios: []string{lcSlowInitScenario}})
			if len(res.Report.Checks) != len(only) || res.Cases != 1 {
				t.Fatalf("%d checks judged %d cases, want %d checks of the one case of %s", len(res.Report.Checks), res.Cases, len(only), lcSlowInitScenario)
			}
			for _, c := range res.Report.Checks {
				switch {
				case c.ID == want:
					if c.Outcome != reports.Fail && c.Outcome != reports.Warn || !strings.Contains(c.Actual, lcSlowInitScenario) {
						t.Errorf("%s, want a breach seen in %s", describe(c), lcSlowInitScenario)
					}
				case c.ID == "client/lifecycle/initialize-first" || strings.HasPrefix(c.ID, "client/transport-http/"):
					if c.Outcome == reports.Fail || c.Outcome == reports.Warn {
						t.Errorf("%s, want no breach in %s (the early message belongs to the pending session, before initialization)", describe(c), lcSlowInitScenario)
					}
				}
			}
		})
	}
}

// The ways slowInitCase's client cancels its initialize.
const (
	// cancelBefore: a POST without Mcp-Session-Id while the initialize is
	// unanswered, as the cancel-initialize fault sends it.
	cancelBefore = iota
	// cancelAfter: once the result came, with the session id but, like a
	// client that had not taken the result in yet, without
	// MCP-Protocol-Version (the fault sent it so before it went alongside
	// the initialize).
	cancelAfter
	// cancelCrossed: sent before the result, without a session id, its
	// POST begun before the stage wrote the result but recorded after it.
	cancelCrossed
	// cancelNoSession: without a session id, begun after the stage wrote
	// the result: a message outside any session.
	cancelNoSession
)

// slowInitCase is the streamable HTTP recording of a client in
// mcpcheck-slow-initialize that cancels its initialize (how: cancelBefore
// and the others). The session then goes on as it should.
func slowInitCase(how int) *Case {
	const url = "http://127.0.0.1:1/c/case/mcp"
	msg := func(from stage.Peer, stream, raw string, h *wire.HTTPInfo) stage.Event {
		m := jsonrpc.Decode([]byte(raw))
		return stage.Event{From: from, Frame: wire.Frame{Kind: wire.KindMessage, Raw: m.Raw, Msg: m, Stream: stream, HTTP: h}}
	}
	header := func(hdr []string, base http.Header) http.Header {
		for i := 0; i+1 < len(hdr); i += 2 {
			base.Set(hdr[i], hdr[i+1])
		}
		return base
	}
	post := func(hdr ...string) *wire.HTTPInfo {
		return &wire.HTTPInfo{Method: http.MethodPost, URL: url, Header: header(hdr, http.Header{"Accept": {"application/json, text/event-stream"}, "Content-Type": {"application/json"}})}
	}
	answer := func(code int, hdr ...string) *wire.HTTPInfo {
		return &wire.HTTPInfo{Status: code, Header: header(hdr, http.Header{"Content-Type": {"application/json"}})}
	}
	accepted := func(stream string) stage.Event {
		return stage.Event{From: stage.FromStage, Frame: wire.Frame{Kind: wire.KindStatus, Stream: stream, HTTP: &wire.HTTPInfo{Status: http.StatusAccepted, Header: http.Header{}}}}
	}
	const (
		sid     = "s-1"
		cancel  = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"fault"}}`
		version = string(spec.V20251125)
	)
	evs := []stage.Event{msg(stage.FromClient, "post-1", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, post())}
	result := msg(stage.FromStage, "post-1", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"stage","version":"1"}}}`, answer(http.StatusOK, "Mcp-Session-Id", sid))
	refusal := msg(stage.FromStage, "post-2", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no session"}}`, answer(http.StatusBadRequest))
	switch how {
	case cancelBefore:
		evs = append(evs, msg(stage.FromClient, "post-2", cancel, post()), refusal, result)
	case cancelAfter:
		evs = append(evs, result, msg(stage.FromClient, "post-2", cancel, post("Mcp-Session-Id", sid)), accepted("post-2"))
	case cancelCrossed, cancelNoSession:
		evs = append(evs, result, msg(stage.FromClient, "post-2", cancel, post()), refusal)
	}
	evs = append(evs,
		msg(stage.FromClient, "post-3", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, post("Mcp-Session-Id", sid, "MCP-Protocol-Version", version)),
		accepted("post-3"),
		msg(stage.FromClient, "post-4", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, post("Mcp-Session-Id", sid, "MCP-Protocol-Version", version)),
		msg(stage.FromStage, "post-4", `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`, answer(http.StatusOK, "Mcp-Session-Id", sid)))
	start := time.Unix(1_000_000, 0)
	for i := range evs {
		evs[i].Seq = i + 1
		evs[i].Began = start.Add(time.Duration(i) * time.Second)
		if how == cancelCrossed && evs[i].From == stage.FromClient && evs[i].Stream == "post-2" {
			evs[i].Began = start.Add(500 * time.Millisecond) // after the initialize, before the result was written
		}
	}
	return &Case{Scenario: scenarioNamed(lcSlowInitScenario), Version: spec.V20251125, Transport: Streamable, Launched: true, Exit: "exited with status 0", Events: evs}
}

// TestCancelBeforeInitializeResultIsThePendingSessions: a cancellation of
// the initialize POSTed before its result (no Mcp-Session-Id, no
// MCP-Protocol-Version: the client cannot know either yet) is the pending
// session's, also when its POST, begun before the stage wrote the result,
// was recorded after it. It fails client/cancellation/not-initialize,
// and nothing else: the session still opened with initialize, and the
// header rules, which bind after initialization, do not judge it. The same
// cancellation sent after the result, with the session id but without
// MCP-Protocol-Version, is a request after initialization without the
// header, and fails client/transport-http/protocol-version-header: that
// is what the cancel-initialize fault sent over HTTP while it waited for
// the initialize's JSON answer before sending the cancellation (the skip
// of issue 30, in the runs where the slow scenario came among the first
// ten failures listed). Begun after the result was written, a POST
// without a session id is no session's.
func TestCancelBeforeInitializeResultIsThePendingSessions(t *testing.T) {
	for _, tc := range []struct {
		how  int
		id   string
		want reports.Outcome
	}{
		{cancelBefore, "client/cancellation/not-initialize", reports.Fail},
		{cancelBefore, "client/lifecycle/initialize-first", reports.Pass},
		{cancelBefore, "client/lifecycle/ping-only-before-result", reports.Pass},
		{cancelBefore, "client/lifecycle/initialized", reports.Pass},
		{cancelBefore, "client/transport-http/protocol-version-header", reports.Pass},
		{cancelBefore, "client/transport-http/session-id", reports.Pass},
		{cancelCrossed, "client/cancellation/not-initialize", reports.Fail},
		{cancelCrossed, "client/lifecycle/initialize-first", reports.Pass},
		{cancelCrossed, "client/lifecycle/ping-only-before-result", reports.Pass},
		{cancelCrossed, "client/lifecycle/initialized", reports.Pass},
		{cancelCrossed, "client/transport-http/protocol-version-header", reports.Pass},
		{cancelCrossed, "client/transport-http/session-id", reports.Pass},
		{cancelAfter, "client/cancellation/not-initialize", reports.Fail},
		{cancelAfter, "client/lifecycle/initialize-first", reports.Pass},
		{cancelAfter, "client/transport-http/protocol-version-header", reports.Fail},
		{cancelAfter, "client/transport-http/session-id", reports.Pass},
		{cancelNoSession, "client/lifecycle/initialize-first", reports.Fail},
	} {
		if c := judgeCase(t, tc.id, slowInitCase(tc.how)); c.Outcome != tc.want {
			t.Errorf("cancellation %d: %s, want %s", tc.how, describe(c), tc.want)
		}
	}
	for how, want := range map[int]bool{cancelBefore: true, cancelCrossed: true, cancelAfter: false, cancelNoSession: false} {
		cs := slowInitCase(how)
		for _, e := range cs.Events {
			if e.Stream != "post-2" || e.From != stage.FromClient {
				continue
			}
			if got := cs.BeforeInitializeResult(e); got != want {
				t.Errorf("cancellation %d: BeforeInitializeResult %v, want %v (session %q)", how, got, want, cs.Session(e))
			}
		}
		if s := cs.Sessions(); want && (len(s) != 1 || len(s[0]) < 3 || s[0][1].Msg.Method != spec.MethodCancelled) {
			t.Errorf("cancellation %d: %d sessions, want one with the cancellation second, before the result", how, len(s))
		}
	}
}

// TestOffersLatestNeedsARefusal: "it went on with 2025-11-25, so it
// implements it" holds only for a client seen refusing a revision it does
// not implement. A client that offers an older revision and also goes on
// with 2099-01-01 (mcpcheck-unknown-version; Codex did) gets no
// client/versioning/offers-latest warning: the check is untestable and says
// why. With the refusal in place the same offer warns in every scenario.
//
// Two scenarios tell it: initialize, where the older offer goes on, and
// mcpcheck-unknown-version, where the client goes on with 2099-01-01; only
// they are launched.
func TestOffersLatestNeedsARefusal(t *testing.T) {
	only := []string{"client/versioning/offers-latest"}
	res := runSuite(t, Config{Launch: referenceLaunch(t, Stdio, "offer-older-version", "continue-on-unknown-version"), Versions: []spec.Version{spec.V20251125}, Only: only,
		scenarios: []string{"initialize", lcUnknownVersionScenario}})
	if len(res.Report.Checks) != 1 {
		t.Fatalf("%d checks ran, want 1", len(res.Report.Checks))
	}
	if c := res.Report.Checks[0]; c.Outcome != reports.Untestable || !strings.Contains(c.Reason, lcUnknownVersion) {
		t.Errorf("%s, want untestable naming %s (the client goes on with any revision)", describe(c), lcUnknownVersion)
	}
}
