package server

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Cancellation: a cancelled request gets no response (a long-running
// fixture makes "already in flight" impossible to confuse with "sent after
// the cancel"); cancellations of unknown, finished or initialize requests,
// and malformed ones, are dropped without an answer and without breaking
// the session.

// cancelSend sends notifications/cancelled with params (the era's _meta
// added in 2026-07-28, where only stdio carries the notification).
func cancelSend(t *T, c *Conn, params map[string]any) {
	if c.Stateful != nil {
		_, err := c.Stateful.Notify(t.Ctx, spec.MethodCancelled, params)
		t.Must(err)
		return
	}
	p, err := c.Stateless.Params(params)
	t.Must(err)
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": spec.MethodCancelled, "params": p})
	t.Must(err)
	t.SendLine(c.S(), b)
}

// cancelQuiet judges that nothing answers the cancellation and that the
// session still serves.
func cancelQuiet(t *T, c *Conn, what string) bool {
	s := c.S()
	obs := t.WaitQuiet(s, "no response to the notifications/cancelled ("+what+")", func(f wire.Frame) bool {
		return IsResponse(f) && (f.Msg.IDAbsent || f.Msg.IDNull)
	})
	if !t.Judge(obs) {
		t.Taint()
		return false
	}
	if r := Sentinel(t.Ctx, s); !r.OK() {
		t.Taint()
		t.Fail("the session keeps working after "+what, r.Describe())
		return false
	}
	return true
}

// cancelEraOK makes the check n/a where a client-sent notifications/cancelled
// cannot be tested: 2026-07-28 over HTTP, where closing the response stream
// is the cancellation.
func cancelEraOK(t *T) bool {
	return t.Require(t.Version().Era() == spec.Stateful || t.Stdio(), "in 2026-07-28 over HTTP a request is cancelled by closing its response stream; there is no notification to send")
}

var _ = Register(
	// Isolated: it judges cancellations of ids no session sent, on its own session.
	Def{
		ID: "cancellation/unknown-id", Isolated: true, Area: "cancellation",
		Title:        "notifications/cancelled for an id never sent, or without a requestId, is dropped: no answer, the session keeps working",
		Requirements: []string{"cancellation.invalid.ignored"},
		Proofs:       []Proof{{Fault: "stale-cancel-answered", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			if !cancelEraOK(t) {
				return
			}
			c := t.Session()
			cancelSend(t, c, map[string]any{"requestId": "mcpcheck-never-sent-7f3a", "reason": "mcpcheck: unknown id"})
			cancelSend(t, c, map[string]any{"reason": "mcpcheck: no requestId"})
			if !cancelQuiet(t, c, "a cancellation of an unknown request id and one without a requestId") {
				return
			}
			t.Saw("both cancellations dropped silently; the session still answers")
			t.Pass()
		},
	},
	// Isolated: it judges cancellations of its own requests on its own session.
	Def{
		ID: "cancellation/finished-request", Isolated: true, Area: "cancellation",
		Title:        "a cancellation that arrives after the request was answered (including initialize) is handled gracefully",
		Requirements: []string{"cancellation.race.handled-gracefully", "cancellation.invalid.ignored"},
		Proofs:       []Proof{{Fault: "stale-cancel-answered", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			if !cancelEraOK(t) {
				return
			}
			var c *Conn
			var done jsonrpc.ID
			if t.Version().Era() == spec.Stateful {
				c = t.Fresh()
				_, r, _ := c.Stateful.Initialize(t.Ctx, nil)
				if !r.OK() {
					t.Error(fmt.Errorf("initialize failed: %s", r.Describe()))
					return
				}
				_, err := c.Stateful.Initialized(t.Ctx)
				t.Must(err)
				done = r.ID
				cancelSend(t, c, map[string]any{"requestId": done, "reason": "mcpcheck: initialize already answered"})
			} else {
				c = t.Session()
			}
			r := Sentinel(t.Ctx, c.S())
			if !r.OK() {
				t.Error(fmt.Errorf("%s failed: %s", SentinelMethod(t.Version()), r.Describe()))
				return
			}
			cancelSend(t, c, map[string]any{"requestId": r.ID, "reason": "mcpcheck: already answered"})
			if !cancelQuiet(t, c, "cancellations of answered requests (initialize included in the stateful era)") {
				return
			}
			t.Saw("cancellations of answered requests were dropped; the session still answers")
			t.Pass()
		},
	},
	// Isolated: it judges its own cancelled request on its own session.
	Def{
		ID: "cancellation/no-response-after-cancel", Isolated: true, Area: "cancellation", Labels: []string{FeatureFixture("ref_slow")},
		Title:        "a request cancelled while it runs gets no response (the fixture runs for 20 s, so no answer can already be in flight)",
		Requirements: []string{"cancellation.receiver.stop-and-stay-silent", "cancellation.server.stop-and-stay-silent", "cancellation.transport.no-messages-after-cancel"},
		Proofs:       []Proof{{Fault: "respond-after-cancel", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			if !cancelEraOK(t) {
				return
			}
			if _, ok := t.RequireTool("ref_slow"); !ok {
				return
			}
			c := t.Session()
			t.Taint() // the cancelled call may still answer late
			s := c.S()
			start := time.Now()
			id, st, err := s.Request(t.Ctx, spec.MethodToolsCall, map[string]any{"name": "ref_slow", "arguments": map[string]any{"ms": 20000}})
			t.Must(err)
			if c.Stateful != nil {
				_, err = c.Stateful.Cancel(t.Ctx, id, "mcpcheck: cancel while running")
			} else {
				err = c.Stateless.Cancel(t.Ctx, id, st)
			}
			t.Must(err)
			ping := Sentinel(t.Ctx, s)
			var early []wire.Frame
			for _, f := range ping.Observed.Others {
				if f.IsResponseTo(id) {
					early = append(early, f)
				}
			}
			if len(early) > 0 {
				t.Fail("no response to the cancelled tools/call", fmt.Sprintf("%s, %s after the request (the tool runs for 20 s)", early[0].Describe(), time.Since(start).Round(time.Millisecond)))
				return
			}
			t.Judge(t.WaitQuiet(s, "no response to the cancelled request "+id.String(), func(f wire.Frame) bool { return f.IsResponseTo(id) }))
		},
	},
)

func init() {
	Exclude(map[string]string{
		"cancellation.tasks.use-tasks-cancel":      "the server would cancel a task-augmented request only to a client that accepts tasks; mcpcheck's built-in client declares no tasks capability",
		"cancellation.sender.ignore-late-response": "whether a server disregards the client's late answer to a request it cancelled is internal; provoking a server-side cancellation needs a server-specific trigger",
	})
}

var _ = Register(
	Def{
		ID: "cancellation/server-sent", Area: "cancellation", Passive: true,
		Title:        "a notifications/cancelled from the server names only a request it may cancel: one of its own in-flight requests (up to 2025-11-25), a subscriptions/listen request (2026-07-28)",
		Requirements: []string{"cancellation.notify.only-in-flight-same-direction", "cancellation.notify.only-in-flight-client-requests", "cancellation.server.only-for-subscriptions"},
		Proofs:       []Proof{{Fault: "cancel-client-request", Version: spec.V20251125, Also: []string{"base/response-id-echo"}, Want: reports.Fail}},
		Body: func(t *T) {
			obs, _ := t.Observed()
			own := map[int]map[string]bool{}     // ids of the server's requests, per connection
			listens := map[int]map[string]bool{} // subscription ids acknowledged, per connection
			add := func(m map[int]map[string]bool, conn int, id string) {
				if m[conn] == nil {
					m[conn] = map[string]bool{}
				}
				m[conn][id] = true
			}
			n := 0
			for _, o := range obs {
				if o.Kind != wire.KindMessage || o.Msg.Method == "" {
					continue
				}
				if !o.Msg.ID.IsZero() {
					add(own, o.Conn, o.Msg.ID.String())
					continue
				}
				switch o.Msg.Method {
				case spec.MethodSubscriptionsAcknowledge:
					var p struct {
						Meta map[string]json.RawMessage `json:"_meta"`
					}
					_ = json.Unmarshal(o.Msg.Params, &p)
					if raw, ok := p.Meta["io.modelcontextprotocol/subscriptionId"]; ok {
						var sid string
						if json.Unmarshal(raw, &sid) != nil {
							sid = string(raw)
						}
						add(listens, o.Conn, sid)
					}
				case spec.MethodCancelled:
					n++
					var p struct {
						RequestID json.RawMessage `json:"requestId"`
					}
					_ = json.Unmarshal(o.Msg.Params, &p)
					id := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":` + string(p.RequestID) + `,"result":{}}`)).ID.String()
					var sid string
					if json.Unmarshal(p.RequestID, &sid) != nil {
						sid = string(p.RequestID)
					}
					if t.Version().Era() == spec.Stateless {
						if !listens[o.Conn][sid] {
							t.ViolateFirst([]string{"cancellation.server.only-for-subscriptions", "cancellation.notify.only-in-flight-client-requests"}, "a server cancels only subscriptions/listen requests", wire.Excerpt(o.Raw, 200))
						}
					} else if !own[o.Conn][id] {
						t.Violation("cancellation.notify.only-in-flight-same-direction", "a server cancels only requests it sent itself", wire.Excerpt(o.Raw, 200))
					}
				}
			}
			if n == 0 {
				t.NotApplicable("the server sent no notifications/cancelled in this run")
				return
			}
			if t.Open() {
				t.Saw("%d cancellations from the server, each naming a request it may cancel", n)
				t.Pass()
			}
		},
	},
)
