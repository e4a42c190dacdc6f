package client

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/harness/stage"
	"github.com/mcpcheck/mcpcheck/reference/server"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec/mcp"
)

// Cancellation as the client sends it, judged on every scenario: a
// notifications/cancelled names a request the client itself sent and that
// was still unanswered, and never its initialize. (Cancelling a task goes
// through tasks/cancel: tasks.go.)

// caCancels returns the client's cancellations in the case with the
// request each names (found is false when no client request had the id).
type caCancel struct {
	note     Msg
	id       json.RawMessage
	req      Msg
	found    bool
	answered bool // the stage had answered req before the cancellation
}

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
		Judge: func(t *T) {
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
			t.settle(n, bad, "the client cancelled nothing", "%d cancellations, each of the client's own request in flight")
		},
	},
	Def{
		ID: "client/cancellation/not-initialize", Area: "cancellation", Eras: stateful,
		Title:        "the client never cancels its initialize request",
		Requirements: []string{"cancellation.initialize.never-cancelled"},
		Proofs:       []Proof{{Fault: "cancel-initialize", Version: spec.V20251125, Want: reports.Fail}},
		Judge: func(t *T) {
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
			t.settle(n, bad, "the client cancelled nothing", "%d cancellations, none of initialize")
		},
	},
)

// caNoAnswerScenario never answers a tool call; caTimeoutMs is the timeout
// it asks the client to use (MCP_CONFORMANCE_CONTEXT requestTimeoutMs).
const (
	caNoAnswerScenario = "mcpcheck-no-answer"
	caTimeoutMs        = 500
)

var _ = RegisterScenarios(Scenario{
	Name:  caNoAnswerScenario,
	Title: "a server whose tool never_answers never answers; the client is asked (MCP_CONFORMANCE_CONTEXT requestTimeoutMs) to give up after 500 ms",
	Acts:  "call never_answers and give up after requestTimeoutMs (MCP_CONFORMANCE_CONTEXT)",
	Context: func(env Env, sc *stage.Case) string {
		return fmt.Sprintf(`{"requestTimeoutMs":%d}`, caTimeoutMs)
	},
	Stage: func(env Env) stage.Config {
		tool := server.Tool{
			Def: mcp.Tool{Name: "never_answers", Description: "Never answers (until the client goes)", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
			Run: func(c *server.Call) (any, error) {
				<-c.Context().Done()
				return nil, server.ErrNoResponse
			},
		}
		return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{tool}}}
	},
})

var _ = Register(
	Def{
		ID: "client/cancellation/on-timeout", Area: "cancellation", Scenarios: []string{caNoAnswerScenario},
		Title:        "a client that gives up on a request that is never answered tells the server with notifications/cancelled",
		Requirements: []string{"cancellation.timeout.cancel-on-expiry", "lifecycle.timeouts.cancel-on-timeout"},
		Proofs:       []Proof{{Fault: "timeout-without-cancel", Version: spec.V20251125, Want: reports.Warn}},
		Judge: func(t *T) {
			n, bad, waiting := 0, 0, 0
			for _, c := range t.Cases() {
				for _, call := range c.Requests(spec.MethodToolsCall) {
					if _, answered := c.StageAnswer(call); answered {
						continue
					}
					cancelled := false
					for _, cc := range caCancels(c) {
						if cc.found && cc.req.Seq == call.Seq {
							cancelled = true
						}
					}
					switch {
					case cancelled:
						n++
					case c.Version.Era() == spec.Stateless && t.Transport() == Streamable:
						// From 2026-07-28 over HTTP, closing the request's
						// stream is the cancellation: nothing more to send.
						n++
						t.Saw("over 2026-07-28 HTTP the client's giving up closes the request's stream, which cancels it (%s)", c.Scenario.Name)
					case c.Stopped || c.TimedOut || len(c.Notes(NoteHarnessStop)) > 0:
						waiting++ // still waiting when the case ended: its timeout may be longer
					default:
						n++
						bad++
						t.Fail("notifications/cancelled for the request the client gave up on",
							fmt.Sprintf("the client gave up on tools/call (id %s) without cancelling it; it %s (%s)", call.Msg.ID, c.Exit, c.Scenario.Name))
					}
				}
			}
			if n == 0 {
				if waiting > 0 {
					t.Untestable(fmt.Sprintf("the client was still waiting for the unanswered call when the case ended (%d calls): its timeout, if any, is longer than the case", waiting))
					return
				}
				t.NeedAction(false, "call never_answers and give up on it")
				return
			}
			t.settle(n, bad, "", "%d unanswered calls, each cancelled when the client gave up")
		},
	},
)

var _ = Register(Def{
	ID: "client/cancellation/unknown-ignored", Area: "cancellation", Eras: stateful, Scenarios: []string{ServerRequestsScenario},
	Title:        "a notifications/cancelled naming no request in progress (the stage sends one for requestId mcpcheck-never-sent) is dropped in silence: the client still answers the stage's next ping",
	Requirements: []string{"cancellation.invalid.ignored"},
	Proofs:       []Proof{{Fault: "unknown-cancel-fatal", Version: spec.V20251125, Want: reports.Warn}},
	Judge: func(t *T) {
		n, bad := 0, 0
		for _, c := range t.Cases() {
			note, ok := stageNotification(c, spec.MethodCancelled)
			if !ok {
				continue
			}
			n++
			alive := clientSpokeAfter(c, note.Seq)
			if !alive {
				bad++
				t.Fail("the client goes on after a stray cancellation (it answers the stage's next requests)",
					fmt.Sprintf("after notifications/cancelled for a request it never got, the client sent nothing more; it %s (%s)", c.Exit, c.Scenario.Name))
			}
		}
		if n == 0 {
			t.NeedAction(false, "make a request after initialization (the stage sends its notifications while serving it)")
			return
		}
		t.settle(n, bad, "", "%d stray cancellations dropped in silence")
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
