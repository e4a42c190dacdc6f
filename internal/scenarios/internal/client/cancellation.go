package client

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Cancellation as the client sends it, judged on every scenario: a
// notifications/cancelled names a request the client itself sent and that
// was still unanswered, and never its initialize. (Cancelling a task goes
// through tasks/cancel: tasks.go.)

// caCancel is one of the client's cancellations in a case, with the
// request it names (see caCancels).
type caCancel struct {
	note     Msg
	id       json.RawMessage
	req      Msg
	found    bool
	answered bool // the stage had answered req before the cancellation
}

// caCancels returns the client's cancellations in the case with the
// request each names (found is false when no client request had the id).
func caCancels(c *Case) []caCancel {
	var out []caCancel
	reqs := c.Requests("")
	for _, n := range c.Notifications(spec.MethodCancelled) {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(n.Msg.Params, &p)
		cc := caCancel{note: n, id: p.RequestID}
		var id jsonrpc.ID
		if json.Unmarshal(p.RequestID, &id) == nil {
			for _, r := range reqs {
				if r.Seq < n.Seq && r.Msg.ID == id && c.Session(r) == c.Session(n) {
					cc.req, cc.found = r, true
				}
			}
			if !cc.found && n.HTTP != nil && n.HTTP.Header.Get("Mcp-Session-Id") == "" {
				// Sent without a session id, it may name an initialize
				// sent without one: refused at the HTTP level (401 before
				// authorization), which left it no session to share, or
				// answered while the cancellation was on its way (the
				// client could not have the session id yet). Both refused
				// before the stage took their bodies, the order they were
				// recorded in does not tell which the client sent first
				// (mcp-go's cancellation was recorded first in
				// auth/metadata-default): the last such initialize before
				// it, else the first after it.
				for _, r := range reqs {
					if r.Msg.ID != id || r.Msg.Method != spec.MethodInitialize || r.HTTP == nil || r.HTTP.Header.Get("Mcp-Session-Id") != "" {
						continue
					}
					if r.Seq < n.Seq || !cc.found {
						cc.req, cc.found = r, true
					}
				}
			}
		}
		if cc.found {
			if ans, ok := c.StageAnswer(cc.req); ok && ans.Seq < n.Seq {
				cc.answered = true
			}
		}
		out = append(out, cc)
	}
	return out
}

var _ = Register(
	Def{
		ID: "client/cancellation/in-flight", Area: "cancellation",
		Title:        "the client cancels only a request it sent itself (one whose answer was already on its way may cross the cancellation)",
		Requirements: []string{"cancellation.notify.only-in-flight-same-direction", "cancellation.notify.only-in-flight-client-requests"},
		Proofs: []Proof{
			{Fault: "cancel-unknown-request", Version: spec.V20251125, Want: reports.Fail},
		},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, cc := range caCancels(c) {
					n++
					switch {
					case !cc.found:
						bad++
						t.Fail("notifications/cancelled only for the client's own request still in progress",
							fmt.Sprintf("it cancelled requestId %s, which no request of the client in this session had (%s)", cc.id, c.Scenario.Name))
					case cc.answered:
						// The stage's answer was on its way when the client
						// cancelled: the two crossed on the wire, which the
						// spec allows. Nothing to hold against the client.
						t.Saw("a cancellation of %s (id %s) crossed the stage's answer (%s)", cc.req.Msg.Method, cc.id, c.Scenario.Name)
					}
				}
			}
			t.Settle(n, bad, "the client cancelled nothing", "%d cancellations, each of the client's own request in flight")
		},
	},
	Def{
		ID: "client/cancellation/not-initialize", Area: "cancellation", Eras: stateful,
		Title:        "the client never cancels its initialize request",
		Requirements: []string{"cancellation.initialize.never-cancelled"},
		Proofs: []Proof{{Fault: "cancel-initialize", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "cancel-initialize-streamed", Version: spec.V20251125, Transport: Streamable, Want: reports.Fail},
			{Fault: "cancel-initialize-crossing", Version: spec.V20251125, Transport: Streamable, Want: reports.Fail},
			{Fault: "auth-cancel-refused-initialize", Version: spec.V20251125, Transport: Streamable, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, cc := range caCancels(c) {
					n++
					if cc.found && cc.req.Msg.Method == spec.MethodInitialize {
						bad++
						t.Fail("no notifications/cancelled for initialize", fmt.Sprintf("it cancelled its initialize (id %s) (%s)", cc.id, c.Scenario.Name))
					}
				}
			}
			t.Settle(n, bad, "the client cancelled nothing", "%d cancellations, none of initialize")
		},
	},
)

// caNoAnswerScenario never answers a tool call; caTimeoutMs is the timeout
// it asks the client to use (MCP_CONFORMANCE_CONTEXT requestTimeoutMs).
// caPatience is how long the stage waits for the client to give up before
// it answers the call itself (with caPatienceText), so a client without a
// timeout still ends its case: six times what the client was asked for.
const (
	caNoAnswerScenario = "mcpcheck-no-answer"
	caTimeoutMs        = 500
	caPatience         = 3 * time.Second
	caPatienceText     = "mcpcheck stopped waiting for the client to give up"
	caLateText         = "a late answer to a call the client gave up on (mcpcheck)"
	// caThenTool is the scenario's tool listed after never_answers.
	caThenTool = "then_echo"
	// caHeldText marks an answer of echo or then_echo held until
	// never_answers was settled.
	caHeldText = "answered once never_answers was settled (mcpcheck)"
)

var _ = RegisterScenarios(Scenario{
	Name:  caNoAnswerScenario,
	Title: "a server whose tool never_answers does not answer until the client gives up (asked, by MCP_CONFORMANCE_CONTEXT requestTimeoutMs, to do so after 500 ms), then answers it late anyway; echo and then_echo (listed after never_answers) answer once that has happened; after 3 s the stage answers never_answers itself",
	Acts:  "call never_answers and give up after requestTimeoutMs (MCP_CONFORMANCE_CONTEXT), then call echo twice",
	Context: func(env Env, sc *stage.Case) string {
		return fmt.Sprintf(`{"requestTimeoutMs":%d}`, caTimeoutMs)
	},
	Stage: func(env Env) stage.Config {
		settled := make(chan struct{})
		var once sync.Once
		var started atomic.Bool
		settle := func() { once.Do(func() { close(settled) }) }
		never := server.Tool{
			Def: mcp.Tool{Name: "never_answers", Description: "Never answers (until the client gives up)", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
			Run: func(c *server.Call) (any, error) {
				started.Store(true)
				defer settle()
				t := time.NewTimer(caPatience)
				defer t.Stop()
				select {
				case <-c.Context().Done():
					// The client gave up: its cancellation and this answer
					// cross, as they may on any wire.
					if b, err := jsonrpc.NewResponse(c.ID(), caToolText(c.Version(), caLateText)); err == nil {
						c.SendRaw(b)
					}
					return nil, server.ErrNoResponse
				case <-t.C:
					return caToolText(c.Version(), caPatienceText), nil
				}
			},
		}
		held := func(c *server.Call) (any, error) {
			// Once never_answers was called, hold the answer until it is
			// settled, so the client's next request follows the late
			// answer.
			if !started.Load() {
				return EchoTool.Run(c)
			}
			t := time.NewTimer(AskTimeout)
			defer t.Stop()
			select {
			case <-settled:
				// Marked: the check cannot tell from the recording alone
				// that this answer followed the late one, since over HTTP
				// the two go out on different streams, each recorded as its
				// writer gets to it.
				var s string
				_ = json.Unmarshal(c.Arguments()["text"], &s)
				return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text(s), mcp.Text(caHeldText)}}, nil
			case <-t.C:
			case <-c.Context().Done():
			}
			return EchoTool.Run(c)
		}
		echo := EchoTool
		echo.Run = held
		// then_echo is listed after never_answers (tools are listed by
		// name), so a client that calls every tool it lists in order has
		// one more call to make after it gave up on never_answers. Without
		// it that give-up was the client's last act: mcp-go and the
		// TypeScript SDK send their cancellation off the caller's path (a
		// goroutine, an unawaited send) and then closed the session at
		// once, so whether the cancellation got out before the close was
		// down to scheduling: on a loaded machine it did, on a quiet one
		// it did not, and a dozen cells moved with the load. The held
		// then_echo keeps the session open until the cancellation has come
		// (or the stage's patience is over).
		then := EchoTool
		then.Def.Name = caThenTool
		then.Def.Description = "Echoes its text; once never_answers was called, only after that call is settled"
		then.Run = held
		return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{never, echo, then}}}
	},
})

// caToolText is a tools/call result holding text (with resultType in
// 2026-07-28, where results carry one).
func caToolText(v spec.Version, text string) map[string]any {
	res := map[string]any{"content": []mcp.ContentBlock{mcp.Text(text)}}
	if v.Era() == spec.Stateless {
		res["resultType"] = "complete"
	}
	return res
}

// caCall is one of the client's calls of a tool the stage leaves
// unanswered, and what became of it.
type caCall struct {
	call Msg
	// cancel is the client's cancellation of it (ok false: none).
	cancel   Msg
	canceled bool
	// answer is the stage's answer (answered false: none); patience is
	// set when it is the stage's own, given because the client had not
	// given up after caPatience, late when it followed the cancellation.
	answer             Msg
	answered, patience bool
	late               bool
	// movedOn is set when the client sent another request while the call
	// was open (before the stage's patience answer).
	movedOn bool
}

// caCalls returns the client's calls of tool in c.
func caCalls(c *Case, tool string) []caCall {
	var out []caCall
	cancels := caCancels(c)
	reqs := c.Requests("")
	for _, call := range c.Requests(spec.MethodToolsCall) {
		if StatelessTarget(call) != tool {
			continue
		}
		cc := caCall{call: call}
		for _, k := range cancels {
			if k.found && k.req.Seq == call.Seq {
				cc.cancel, cc.canceled = k.note, true
				break
			}
		}
		cc.answer, cc.answered = c.StageAnswer(call)
		if cc.answered {
			// The stage's own answer only shows the client still waiting
			// when the client had not left before it.
			cc.patience = strings.Contains(string(cc.answer.Msg.Result), caPatienceText) && !caLeftBefore(c, call, cc.answer.Seq)
			cc.late = cc.canceled && cc.cancel.Seq < cc.answer.Seq
		}
		for _, r := range reqs {
			if r.Seq > call.Seq && (!cc.patience || r.Seq < cc.answer.Seq) {
				cc.movedOn = true
				break
			}
		}
		out = append(out, cc)
	}
	return out
}

// caWentOnWords says, for a reason, that the client made other requests
// while call was open ("" when it did not).
func caWentOnWords(cc caCall) string {
	if cc.movedOn {
		return "made other requests and "
	}
	return ""
}

// caLeftBefore reports whether the client ended the connection of call
// (closed the server's stdin, exited) before event seq.
func caLeftBefore(c *Case, call Msg, seq int) bool {
	for _, e := range c.Events {
		if e.Seq >= seq {
			return false
		}
		if e.From != stage.FromHarness || e.Seq <= call.Seq || (e.Conn != 0 && e.Conn != call.Conn) {
			continue
		}
		switch e.Note {
		case stage.NoteStdinClosed, stage.NoteClientExit, stage.NoteRelayDropped:
			return true
		}
	}
	return false
}

// StillWaiting reports whether the harness ended c while the client
// may still have been waiting.
func StillWaiting(c *Case) bool {
	return c.Stopped || c.TimedOut || c.Interrupted || len(c.Notes(NoteHarnessStop)) > 0
}

// caStatelessHTTP reports whether, in the check's version and transport,
// a client cancels by closing the request's stream (2026-07-28 HTTP).
func caStatelessHTTP(t *T) bool {
	return t.Version().Era() == spec.Stateless && t.Transport() == Streamable
}

var _ = Register(
	OnlyIf(Def{
		ID: "client/cancellation/on-timeout", Area: "cancellation", Scenarios: []string{caNoAnswerScenario},
		Title:        "a client that gives up on a request that is never answered tells the server with notifications/cancelled",
		Requirements: []string{"cancellation.timeout.cancel-on-expiry", "lifecycle.timeouts.cancel-on-timeout"},
		Proofs:       []Proof{{Fault: "timeout-without-cancel", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			n, bad, waiting := 0, 0, 0
			for _, c := range t.Cases() {
				for _, cc := range caCalls(c, "never_answers") {
					switch {
					case cc.canceled:
						n++
					case cc.patience && cc.movedOn:
						n++
						bad++
						t.Fail("notifications/cancelled for the request the client gave up on",
							fmt.Sprintf("the client went on to other requests while tools/call never_answers (id %s) was open, and never cancelled it (%s)", cc.call.Msg.ID, c.Scenario.Name))
					case cc.patience:
						waiting++ // it had not given up at all: judged by request-timeout
					case caStatelessHTTP(t):
						// From 2026-07-28 over HTTP, closing the request's
						// stream is the cancellation: nothing more to send.
						n++
						t.Saw("over 2026-07-28 HTTP the client's giving up closes the request's stream, which cancels it (%s)", c.Scenario.Name)
					case StillWaiting(c):
						waiting++
					default:
						n++
						bad++
						t.Fail("notifications/cancelled for the request the client gave up on",
							fmt.Sprintf("the client gave up on tools/call never_answers (id %s) without cancelling it; it %s%s (%s)", cc.call.Msg.ID, caWentOnWords(cc), c.Exit, c.Scenario.Name))
					}
				}
			}
			if n == 0 {
				if waiting > 0 {
					t.Untestable(fmt.Sprintf("the client never gave up on the unanswered call (%d calls); client/cancellation/request-timeout judges that", waiting))
					return
				}
				t.NeedAction(false, "call never_answers and give up on it")
				return
			}
			t.Settle(n, bad, "", "%d unanswered calls, each cancelled when the client gave up")
		},
	}, doesGiveUp),
	Def{
		ID: "client/cancellation/request-timeout", Area: "cancellation", Scenarios: []string{caNoAnswerScenario},
		Title:        "a client gives up on a request that is never answered: asked to wait 500 ms, it has not still got the call open after 3 s",
		Requirements: []string{"lifecycle.timeouts.per-request-timeout", "cancellation.timeout.set-for-requests", "lifecycle.errors.handle-negotiation-failures"},
		Proofs:       []Proof{{Fault: "no-request-timeout", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			n, bad, unclear := 0, 0, 0
			for _, c := range t.Cases() {
				for _, cc := range caCalls(c, "never_answers") {
					switch {
					case !cc.patience && !StillWaiting(c):
						n++ // it cancelled, closed the stream or left
					case cc.patience && !cc.movedOn:
						n++
						bad++
						t.Fail("a request the server never answers is given up on (the scenario asked for requestTimeoutMs 500)",
							fmt.Sprintf("tools/call never_answers (id %s) was still open %v later, with no notifications/cancelled and no other request meanwhile; the stage answered it itself (%s)", cc.call.Msg.ID, caPatience, c.Scenario.Name))
					default:
						unclear++
					}
				}
			}
			switch {
			case n == 0 && unclear > 0:
				t.Untestable(fmt.Sprintf("whether the client gave up cannot be told: it kept %d unanswered calls open without cancelling them, while making other requests or until the case ended", unclear))
			case n == 0:
				t.NeedAction(false, "call never_answers and give up on it")
			default:
				t.Settle(n, bad, "", "%d unanswered calls, each given up on within "+caPatience.String())
			}
		},
	},
	OnlyIf(Def{
		ID: "client/cancellation/late-answer", Area: "cancellation", Scenarios: []string{caNoAnswerScenario},
		Title:        "an answer that arrives after the client cancelled its request (the stage answers never_answers once cancelled) is ignored: the client goes on with its next requests",
		Requirements: []string{"cancellation.sender.ignore-late-response", "cancellation.client.ignore-late-response", "cancellation.race.handled-gracefully"},
		Proofs: []Proof{
			{Fault: "late-answer-fatal", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "late-answer-fatal", Version: spec.V20260728, Want: reports.Fail},
		},
		Body: func(t *T) {
			if caStatelessHTTP(t) {
				t.NotApplicable("over 2026-07-28 HTTP a client cancels by closing the request's stream, so no answer can reach it after the cancellation")
				return
			}
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, cc := range caCalls(c, "never_answers") {
					if !cc.late {
						continue
					}
					switch {
					case wentOnAfter(c, cc.answer.Seq):
						n++
					case c.ExitCode > 0:
						n++
						bad++
						t.Fail("the client takes a late answer to a cancelled request in its stride and goes on",
							fmt.Sprintf("after the late answer to tools/call never_answers (id %s) the client made no further request; it %s (%s)", cc.call.Msg.ID, c.Exit, c.Scenario.Name))
					}
				}
			}
			if n == 0 {
				t.Untestable(caWhyEach(t.Cases(), caLateWhy))
				return
			}
			t.Settle(n, bad, "", "%d late answers, after each of which the client went on")
		},
	}, doesCancel),
)

var _ = Register(Def{
	ID: "client/cancellation/unknown-ignored", Area: "cancellation", Eras: stateful, Scenarios: []string{ServerRequestsScenario},
	Title:        "a notifications/cancelled naming no request in progress (the stage sends one for requestId mcpcheck-never-sent) is dropped in silence: the client still answers the stage's next ping",
	Requirements: []string{"cancellation.invalid.ignored"},
	Proofs:       []Proof{{Fault: "unknown-cancel-fatal", Version: spec.V20251125, Want: reports.Warn}},
	Body: func(t *T) {
		n, bad := 0, 0
		for _, c := range t.Cases() {
			note, ok := stageNotification(c, spec.MethodCancelled)
			if !ok {
				continue
			}
			n++
			if !answeredAfter(c, note.Seq) {
				bad++
				t.Fail("the client goes on after a stray cancellation (it answers the stage's next requests)",
					fmt.Sprintf("after notifications/cancelled for a request it never got, the client sent nothing more; it %s (%s)", c.Exit, c.Scenario.Name))
			}
		}
		t.SettleActed(n, bad, "make a request other than ping after initialization (the stage sends its notifications while serving it)", "%d stray cancellations dropped in silence")
	},
})

// stageNotification returns the stage's first notification of method in
// the case.
func stageNotification(c *Case, method string) (Msg, bool) {
	for _, e := range c.Events {
		if e.From == stage.FromStage && e.IsMessage() && e.Msg.Method == method {
			return e, true
		}
	}
	return Msg{}, false
}

// wentOnAfter reports whether the client carried on after the stage's
// message seq: a request of it was answered after that message, and it
// then spoke again or ended cleanly. A request alone is no proof: a client
// may send its next request before it has read what the stage sent (the
// two cross on the wire), and only then fall over on it. When that request
// was sent does not matter (mcp-go and the TypeScript SDK send their next
// call before their cancellation, so before the late answer), only that
// its answer followed the message: recorded after it, or, in
// mcpcheck-no-answer, marked as held until never_answers was settled,
// which the stage does only after it sent its late answer (over HTTP the
// two go out on different streams and may be recorded in either order).
func wentOnAfter(c *Case, seq int) bool {
	for _, r := range c.Requests("") {
		a, ok := c.StageAnswer(r)
		if !ok || a.Seq <= seq && !strings.Contains(string(a.Msg.Result), caHeldText) {
			continue
		}
		if c.ExitCode == 0 || clientSpokeAfter(c, max(a.Seq, seq)) {
			return true
		}
	}
	return false
}

// answeredAfter reports whether the client went on after the stage's
// notification seq: it answered a request the stage sent after it (the
// stage goes on asking after its notifications: at the least a last
// ping), or, when the stage sent none, it sent anything after it. A
// message of the client recorded after the notification is no proof when
// the stage asked something after it: the client may have sent it before
// it read the notification, and only then fallen over (under load the
// reference client's answered-cancel-fatal fault passed so).
func answeredAfter(c *Case, seq int) bool {
	asked := false
	for _, r := range c.StageRequests() {
		if r.Seq <= seq {
			continue
		}
		asked = true
		if _, ok := c.ClientAnswer(r); ok {
			return true
		}
	}
	return !asked && clientSpokeAfter(c, seq)
}

// clientSpokeAfter reports whether the client sent any message after seq:
// a client the stage still asks things of goes on answering.
func clientSpokeAfter(c *Case, seq int) bool {
	for _, m := range c.Client() {
		if m.Seq > seq {
			return true
		}
	}
	return false
}

var _ = Register(Def{
	ID: "client/cancellation/cancel-after-answer", Area: "cancellation", Eras: stateful, Scenarios: []string{ServerRequestsScenario},
	Title:        "a notifications/cancelled that crosses the client's answer (the stage cancels the ping the client has just answered) does the client no harm: it still answers the stage's next requests",
	Requirements: []string{"cancellation.race.handled-gracefully"},
	Proofs:       []Proof{{Fault: "answered-cancel-fatal", Version: spec.V20251125, Want: reports.Fail}},
	Body: func(t *T) {
		n, bad := 0, 0
		for _, c := range t.Cases() {
			note, req, ok := caCrossedCancel(c)
			if !ok {
				continue
			}
			n++
			if !answeredAfter(c, note.Seq) {
				bad++
				t.Fail("the client goes on after a cancellation of a request it has already answered",
					fmt.Sprintf("after notifications/cancelled for %s id %s, which it had answered, the client sent nothing more; it %s (%s)", req.Msg.Method, req.Msg.ID, c.Exit, c.Scenario.Name))
			}
		}
		if n == 0 {
			t.Untestable(caWhyEach(t.Cases(), caAfterAnswerWhy))
			return
		}
		t.Settle(n, bad, "", "%d cancellations crossing the client's answer taken in its stride")
	},
})

// caWhyEach joins, for an untestable reason, what why says of each case.
func caWhyEach(cases []*Case, why func(*Case) string) string {
	var out []string
	for _, c := range cases {
		out = append(out, why(c))
	}
	if len(out) == 0 {
		return "no scenario of this check ran"
	}
	return strings.Join(out, "; ")
}

// caScenario names c's scenario for a reason, with the official one it
// was run as.
func caScenario(c *Case) string {
	if c.RodeOn != "" {
		return fmt.Sprintf("%s (run as %q, the client having refused it)", c.Scenario.Name, c.RodeOn)
	}
	return c.Scenario.Name
}

// caMethods lists the methods of the client's requests in c, each once,
// in the order first sent.
func caMethods(c *Case) string {
	var out []string
	seen := map[string]bool{}
	for _, r := range c.Requests("") {
		if !seen[r.Msg.Method] {
			seen[r.Msg.Method] = true
			out = append(out, r.Msg.Method)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// caStageCancelOf returns the stage's first notifications/cancelled
// naming id after seq.
func caStageCancelOf(c *Case, id jsonrpc.ID, seq int) (Msg, bool) {
	for _, e := range c.Events {
		if e.Seq <= seq || e.From != stage.FromStage || !e.IsMessage() || e.Msg.Method != spec.MethodCancelled {
			continue
		}
		var p struct {
			RequestID jsonrpc.ID `json:"requestId"`
		}
		if json.Unmarshal(e.Msg.Params, &p) == nil && p.RequestID == id {
			return e, true
		}
	}
	return Msg{}, false
}

// caAfterAnswerWhy says what happened in a case of
// client/cancellation/cancel-after-answer in which no cancellation of the
// stage crossed an answer of the client: no ping was sent (the client made
// no request for the stage to ping it while serving), the ping went
// unanswered, or the answer and the cancellation did not cross.
func caAfterAnswerWhy(c *Case) string {
	if !c.Launched || c.refused() || !c.Traffic() {
		return c.UntestableWhy("answer the stage's ping")
	}
	sc := caScenario(c)
	var ping Msg
	sent := false
	for _, r := range c.StageRequests() {
		if r.Msg.Method == spec.MethodPing {
			ping, sent = r, true
			break
		}
	}
	if !sent {
		return fmt.Sprintf("in scenario %s the stage sent no ping to answer: it pings while serving the client's first request after initialization other than ping, and the client made none (its requests: %s; it %s)", sc, caMethods(c), c.Exit)
	}
	ans, answered := c.ClientAnswer(ping)
	if !answered {
		return fmt.Sprintf("in scenario %s the client did not answer the stage's ping (id %s), so there was no answer for a cancellation to cross (it %s)", sc, ping.Msg.ID, c.Exit)
	}
	cancel, cancelled := caStageCancelOf(c, ping.Msg.ID, ping.Seq)
	switch {
	case !cancelled:
		return fmt.Sprintf("in scenario %s the client answered the stage's ping (id %s), but no notifications/cancelled naming it followed from the stage (it %s)", sc, ping.Msg.ID, c.Exit)
	case cancel.Seq < ans.Seq:
		return fmt.Sprintf("in scenario %s the client answered the stage's ping (id %s) only after the stage had cancelled it, so the cancellation did not cross an answer", sc, ping.Msg.ID)
	}
	return fmt.Sprintf("in scenario %s the client answered the stage's ping (id %s) and the stage cancelled it, but not in the session the answer came in", sc, ping.Msg.ID)
}

// caLateWhy says what happened in a case of client/cancellation/late-answer
// that judged nothing: no call of never_answers, no cancellation of it,
// the stage's own answer before the cancellation (nothing came late), or
// no request of the client answered after the late answer.
func caLateWhy(c *Case) string {
	calls := caCalls(c, "never_answers")
	if len(calls) == 0 {
		return c.UntestableWhy("call never_answers")
	}
	sc := caScenario(c)
	var out []string
	for _, cc := range calls {
		switch {
		case !cc.canceled:
			out = append(out, fmt.Sprintf("the client did not cancel tools/call never_answers (id %s)", cc.call.Msg.ID))
		case !cc.answered:
			out = append(out, fmt.Sprintf("the client cancelled tools/call never_answers (id %s) and the stage sent no answer to it afterwards", cc.call.Msg.ID))
		case !cc.late:
			out = append(out, fmt.Sprintf("the client cancelled tools/call never_answers (id %s) only after the stage had answered it, so no answer came late", cc.call.Msg.ID))
		default:
			out = append(out, fmt.Sprintf("after the late answer to tools/call never_answers (id %s) no request of the client was answered, and it %s", cc.call.Msg.ID, c.Exit))
		}
	}
	return fmt.Sprintf("in scenario %s %s", sc, strings.Join(out, "; "))
}

// caCrossedCancel finds the stage's notifications/cancelled for one of its
// requests the client had already answered, and that request.
func caCrossedCancel(c *Case) (note, req Msg, ok bool) {
	bySeq := map[int]Msg{}
	for _, a := range c.ClientAnswers() {
		if a.Found {
			bySeq[a.Response.Seq] = a.Request
		}
	}
	answered := map[string]Msg{}
	for _, e := range c.Events {
		if r, found := bySeq[e.Seq]; found && e.From == stage.FromClient {
			answered[c.Session(e)+"/"+r.Msg.ID.String()] = r
		}
		if e.From != stage.FromStage || !e.IsMessage() || e.Msg.Method != spec.MethodCancelled {
			continue
		}
		var p struct {
			RequestID jsonrpc.ID `json:"requestId"`
		}
		if json.Unmarshal(e.Msg.Params, &p) != nil || p.RequestID.IsZero() {
			continue
		}
		if r, found := answered[c.Session(e)+"/"+p.RequestID.String()]; found {
			return e, r, true
		}
	}
	return Msg{}, Msg{}, false
}

// caEndlessScenario reports progress on a call without end and never
// answers it; caMaxTotalMs is the upper bound it asks the client to keep
// (MCP_CONFORMANCE_CONTEXT maxTotalTimeoutMs), caTick how often progress
// comes.
const (
	caEndlessScenario = "mcpcheck-endless-progress"
	caMaxTotalMs      = 1000
	caTick            = 100 * time.Millisecond
)

var _ = RegisterScenarios(Scenario{
	Name:  caEndlessScenario,
	Title: "a server whose tool endless_progress reports progress every 100 ms and never answers; the client is asked (MCP_CONFORMANCE_CONTEXT requestTimeoutMs 500, maxTotalTimeoutMs 1000) to give up after 1 s however much progress comes; after 3 s the stage answers itself",
	Acts:  "call endless_progress with a progressToken and give up after maxTotalTimeoutMs (MCP_CONFORMANCE_CONTEXT) even though progress keeps coming",
	Context: func(env Env, sc *stage.Case) string {
		return fmt.Sprintf(`{"requestTimeoutMs":%d,"maxTotalTimeoutMs":%d}`, caTimeoutMs, caMaxTotalMs)
	},
	Stage: func(env Env) stage.Config {
		tool := server.Tool{
			Def: mcp.Tool{Name: "endless_progress", Description: "Reports progress every 100 ms and never finishes", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
			Run: func(c *server.Call) (any, error) {
				tok, has, err := c.Meta().ProgressToken()
				has = has && err == nil && !tok.IsZero()
				patience := time.NewTimer(caPatience)
				defer patience.Stop()
				tick := time.NewTicker(caTick)
				defer tick.Stop()
				for i := 1; ; i++ {
					select {
					case <-c.Context().Done():
						return nil, server.ErrNoResponse
					case <-patience.C:
						return caToolText(c.Version(), caPatienceText), nil
					case <-tick.C:
						if has {
							c.Notify(spec.MethodProgress, mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Message: "still working"})
						}
					}
				}
			},
		}
		return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{tool}}}
	},
})

var _ = Register(OnlyIf(Def{
	ID: "client/cancellation/maximum-despite-progress", Area: "cancellation", Scenarios: []string{caEndlessScenario},
	Title:        "progress does not keep a request alive for ever: asked for an upper bound of 1 s, the client has given up on a call that reports progress every 100 ms within 3 s",
	Requirements: []string{"lifecycle.timeouts.maximum-despite-progress", "cancellation.timeout.hard-maximum"},
	Proofs:       []Proof{{Fault: "progress-extends-timeout", Version: spec.V20251125, Want: reports.Warn}},
	Body: func(t *T) {
		n, bad, unclear, tokenless := 0, 0, 0, 0
		for _, c := range t.Cases() {
			for _, cc := range caCalls(c, "endless_progress") {
				var p struct {
					Meta mcp.Meta `json:"_meta"`
				}
				_ = json.Unmarshal(cc.call.Msg.Params, &p)
				if tok, has, err := p.Meta.ProgressToken(); !has || err != nil || tok.IsZero() {
					tokenless++
					continue
				}
				switch {
				case !cc.patience && !StillWaiting(c):
					n++
				case cc.patience && !cc.movedOn:
					n++
					bad++
					t.Fail("an upper bound on a request however much progress it reports (the scenario asked for maxTotalTimeoutMs 1000)",
						fmt.Sprintf("tools/call endless_progress (id %s) was still open %v later while progress came every %v, with no notifications/cancelled and no other request; the stage answered it itself (%s)", cc.call.Msg.ID, caPatience, caTick, c.Scenario.Name))
				default:
					unclear++
				}
			}
		}
		switch {
		case n > 0:
			t.Settle(n, bad, "", "%d calls with endless progress, each given up on within "+caPatience.String())
		case unclear > 0:
			t.Untestable(fmt.Sprintf("whether the client gave up cannot be told: it kept %d calls open without cancelling them, while making other requests or until the case ended", unclear))
		case tokenless > 0:
			t.Untestable("the client called endless_progress without a progressToken, so no progress could keep the call alive")
		default:
			t.NeedAction(false, "call endless_progress with a progressToken and give up on it")
		}
	},
}, doesAskProgress))
