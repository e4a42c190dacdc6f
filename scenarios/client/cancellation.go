package client

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
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
