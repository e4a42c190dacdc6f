package client

import (
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// cancelOfInitialize runs the reference client with fault in scenario
// (2025-11-25, streamable HTTP) and requires client/cancellation/
// not-initialize to fail on its cancellation of initialize and
// client/cancellation/in-flight to pass (the cancellation names a request
// the client did send); it returns the run.
func cancelOfInitialize(t *testing.T, fault, scenario string) Result {
	t.Helper()
	res := runSuite(t, Config{Launch: referenceLaunch(t, Streamable, fault), Versions: []spec.Version{spec.V20251125},
		Only: []string{"client/cancellation/not-initialize", "client/cancellation/in-flight"}, scenarios: []string{scenario}})
	want := map[string]reports.Outcome{"client/cancellation/not-initialize": reports.Fail, "client/cancellation/in-flight": reports.Pass}
	wantOutcomes(t, res, want)
	return res
}

// TestCancelCrossingInitializeOnTheWire: with fault
// cancel-initialize-crossing the reference client cancels its initialize
// after the result came, without the session id the result gave (as
// mcp-go's client did before it had read the result). The sessionless
// cancellation is of that initialize, which it crossed.
func TestCancelCrossingInitializeOnTheWire(t *testing.T) {
	cancelOfInitialize(t, "cancel-initialize-crossing", "initialize")
}

// TestCancelOfRefusedInitializeOnTheWire: in a protected server's
// scenario the reference client cancels its first initialize, which the
// stage refuses with 401: with fault cancel-initialize while it is
// unanswered, with fault auth-cancel-refused-initialize once the 401 came.
// Neither POST carries a token, so both are refused and neither gets a
// session. The cancellation is still of that initialize.
func TestCancelOfRefusedInitializeOnTheWire(t *testing.T) {
	for _, fault := range []string{"cancel-initialize", "auth-cancel-refused-initialize"} {
		t.Run(fault, func(t *testing.T) {
			res := cancelOfInitialize(t, fault, RideAuth)
			for _, c := range res.cases {
				for _, e := range c.Events {
					if e.HTTP != nil && e.HTTP.Status == http.StatusUnauthorized {
						return
					}
				}
			}
			t.Error("no request was refused with 401: the scenario did not refuse the initialize, so this test shows nothing")
		})
	}
}

// TestCancelAfterAnswerSaysWhatHappened: when no cancellation of the stage
// crossed an answer of the client, client/cancellation/cancel-after-answer
// is untestable and its reason says what happened instead. Gemini CLI sent
// initialize and a ping of its own and nothing else, so the stage, which
// pings while serving the client's first other request, sent no ping at
// all: the reason said "did not answer the stage's ping".
func TestCancelAfterAnswerSaysWhatHappened(t *testing.T) {
	initialize := fromClient(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"gemini-cli-mcp-client","version":"1"}}}`)
	result := fromStage(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"mcpcheck","version":"1"}}}`)
	initialized := fromClient(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	list := fromClient(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	ping := fromStage(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	pong := fromClient(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	cancel := fromStage(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"mcpcheck: this crossed your answer"}}`)
	for _, tc := range []struct {
		name      string
		events    []stage.Event
		want, not string
	}{
		{"no request to serve (Gemini CLI)", rec(initialize, result, initialized,
			fromClient(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), fromStage(`{"jsonrpc":"2.0","id":1,"result":{}}`)),
			"the stage sent no ping to answer: it pings while serving the client's first request after initialization other than ping, and the client made none (its requests: initialize, ping; it exited with status 0)", "did not answer"},
		{"initialize only, then a signal (Gemini CLI 0.61.0 in the census)", rec(initialize, result),
			"the stage sent no ping to answer: it pings while serving the client's first request after initialization other than ping, and the client made none (its requests: initialize; it exited with status 0)", "did not answer"},
		{"ping unanswered", rec(initialize, result, initialized, list, ping, cancel),
			"the client did not answer the stage's ping (id 1), so there was no answer for a cancellation to cross", ""},
		{"answered after the cancellation", rec(initialize, result, initialized, list, ping, cancel, pong),
			"the client answered the stage's ping (id 1) only after the stage had cancelled it", ""},
		{"no cancellation followed", rec(initialize, result, initialized, list, ping, pong),
			"the client answered the stage's ping (id 1), but no notifications/cancelled naming it followed from the stage", ""},
	} {
		c := judgeRecording(t, "client/cancellation/cancel-after-answer", spec.V20251125, Stdio, map[string][]stage.Event{ServerRequestsScenario: tc.events})
		if c.Outcome != reports.Untestable || !strings.Contains(c.Reason, tc.want) || tc.not != "" && strings.Contains(c.Reason, tc.not) {
			t.Errorf("%s: %s; want untestable saying %q", tc.name, describe(c), tc.want)
		}
	}
	crossed := rec(initialize, result, initialized, list, ping, pong, cancel, fromClient(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	if c := judgeRecording(t, "client/cancellation/cancel-after-answer", spec.V20251125, Stdio, map[string][]stage.Event{ServerRequestsScenario: crossed}); c.Outcome != reports.Pass {
		t.Errorf("a cancellation crossing the answer: %s, want pass", describe(c))
	}
}

// TestLateAnswerSaysWhatHappened: client/cancellation/late-answer, with
// nothing to judge, says what the client did: it cancelled never_answers
// and took the late answer, but made no request after it (it exited
// cleanly: no failure either); it did not say the client failed to call
// never_answers or to cancel it.
func TestLateAnswerSaysWhatHappened(t *testing.T) {
	evs := rec(
		fromClient(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
		fromStage(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"mcpcheck","version":"1"}}}`),
		fromClient(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"never_answers","arguments":{}}}`),
		fromClient(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`),
		fromStage(`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"`+caLateText+`"}]}}`),
	)
	c := judgeRecording(t, "client/cancellation/late-answer", spec.V20251125, Stdio, map[string][]stage.Event{caNoAnswerScenario: evs})
	want := "in scenario mcpcheck-no-answer after the late answer to tools/call never_answers (id 4) no request of the client was answered, and it exited with status 0"
	if c.Outcome != reports.Untestable || !strings.Contains(c.Reason, want) {
		t.Errorf("%s; want untestable saying %q", describe(c), want)
	}
}

// TestLateAnswerHeldAnswerRecordedFirst: over HTTP the late answer to
// never_answers and the answer to then_echo, held until the late one was
// sent, go out on different streams and were recorded in either order
// (ts-sdk-client, streamable: pass in one run, untestable in the next).
// The held answer is marked, so the client that got it and ended cleanly
// went on after the late answer, whichever was recorded first.
func TestLateAnswerHeldAnswerRecordedFirst(t *testing.T) {
	for _, held := range []bool{true, false} {
		text := `{"type":"text","text":""}`
		if held {
			text += `,{"type":"text","text":"` + caHeldText + `"}`
		}
		evs := rec(
			fromClient(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
			fromStage(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"mcpcheck","version":"1"}}}`),
			fromClient(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"never_answers","arguments":{}}}`),
			fromClient(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"then_echo","arguments":{}}}`),
			fromClient(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`),
			fromStage(`{"jsonrpc":"2.0","id":4,"result":{"content":[`+text+`]}}`),
			fromStage(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"`+caLateText+`"}]}}`),
		)
		c := judgeRecording(t, "client/cancellation/late-answer", spec.V20251125, Streamable, map[string][]stage.Event{caNoAnswerScenario: evs})
		want := reports.Pass
		if !held {
			want = reports.Untestable // an answer recorded first, unmarked, may have gone out first
		}
		if c.Outcome != want {
			t.Errorf("held answer marked %v: %s; want %s", held, describe(c), want)
		}
	}
}

// TestCancelAfterAnswerNeedsAnAnswerAfterIt: a message of the client
// recorded after the stage's cancellation is no sign it survived the
// cancellation when the stage asked something after it and got no answer:
// the client may have sent it before it read the cancellation. Under load
// the reference client's answered-cancel-fatal fault passed once so. Here
// a notification of the client crosses the cancellation; the last ping,
// unanswered, fails it.
func TestCancelAfterAnswerNeedsAnAnswerAfterIt(t *testing.T) {
	base := []stage.Event{
		fromClient(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
		fromStage(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"mcpcheck","version":"1"}}}`),
		fromClient(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`),
		fromStage(`{"jsonrpc":"2.0","id":1,"method":"ping"}`),
		fromClient(`{"jsonrpc":"2.0","id":1,"result":{}}`),
		fromStage(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"mcpcheck: this crossed your answer"}}`),
		fromClient(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`),
		fromStage(`{"jsonrpc":"2.0","id":2,"method":"ping"}`),
	}
	c := judgeRecording(t, "client/cancellation/cancel-after-answer", spec.V20251125, Stdio, map[string][]stage.Event{ServerRequestsScenario: rec(append([]stage.Event(nil), base...)...)})
	if c.Outcome != reports.Fail {
		t.Errorf("last ping unanswered: %s; want fail", describe(c))
	}
	answered := append(append([]stage.Event(nil), base...), fromClient(`{"jsonrpc":"2.0","id":2,"result":{}}`))
	if c := judgeRecording(t, "client/cancellation/cancel-after-answer", spec.V20251125, Stdio, map[string][]stage.Event{ServerRequestsScenario: rec(answered...)}); c.Outcome != reports.Pass {
		t.Errorf("last ping answered: %s; want pass", describe(c))
	}
}

// wantOutcomes holds res to want (check ID -> outcome): each check judged,
// with that outcome.
func wantOutcomes(t *testing.T, res Result, want map[string]reports.Outcome) {
	t.Helper()
	left := maps.Clone(want)
	for _, c := range res.Report.Checks {
		if w, ok := left[c.ID]; ok {
			delete(left, c.ID)
			if c.Outcome != w {
				t.Errorf("%s; want %s", describe(c), w)
			}
		}
	}
	for id := range left {
		t.Errorf("%s was not judged", id)
	}
}
