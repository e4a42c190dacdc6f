package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// subscriptions/listen (2026-07-28): the acknowledgement comes first and
// carries the subscription id and the accepted filter; every notification
// of the subscription carries the id; only the requested types arrive.

// subsFilter picks a list-changed filter the server declared, with the
// notification method it stands for.
func subsFilter(t *T) (filter, method string, ok bool) {
	for _, k := range []struct{ cap, filter, method string }{
		{"tools.listChanged", "toolsListChanged", spec.MethodToolsListChanged},
		{"prompts.listChanged", "promptsListChanged", spec.MethodPromptsListChanged},
		{"resources.listChanged", "resourcesListChanged", spec.MethodResourcesListChanged},
	} {
		if t.HasCapability(k.cap) {
			return k.filter, k.method, true
		}
	}
	t.NotApplicable("the server declared no listChanged capability, so there is nothing to listen for")
	return "", "", false
}

// subsID returns the subscriptionId in a notification's params._meta.
func subsID(f wire.Frame) (json.RawMessage, bool) {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if f.Msg.Params == nil || json.Unmarshal(f.Msg.Params, &p) != nil {
		return nil, false
	}
	v, ok := p.Meta[mcp.MetaSubscriptionID]
	return v, ok
}

// subsSameID reports whether a subscriptionId value names the request id
// (as the id itself or as its string form).
func subsSameID(v json.RawMessage, id jsonrpc.ID) bool {
	b, _ := json.Marshal(id)
	if strings.TrimSpace(string(v)) == string(b) {
		return true
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		if is, ok := id.Str(); ok {
			return s == is
		}
		if n, ok := id.Int(); ok {
			return s == fmt.Sprint(n)
		}
	}
	return false
}

// subsListen opens a subscription and returns a predicate for the frames
// that belong to it, and a func ending it.
func subsListen(t *T, c *Conn, filter string) (jsonrpc.ID, func(wire.Frame) bool, func()) {
	t.Taint()
	s := c.S()
	id, st, err := s.Request(t.Ctx, spec.MethodSubscriptionsListen, map[string]any{"notifications": map[string]any{filter: true}})
	t.Must(err)
	mine := func(f wire.Frame) bool {
		if f.Kind != wire.KindMessage || f.Msg.Method == "" || !f.Msg.ID.IsZero() {
			return false
		}
		if !t.Stdio() {
			return f.Stream == st
		}
		v, ok := subsID(f)
		return ok && subsSameID(v, id) || f.Msg.Method == spec.MethodSubscriptionsAcknowledge && !ok
	}
	stop := func() {
		if h := c.Conn.HTTP(); h != nil {
			h.CloseStream(st)
			return
		}
		_ = c.Stateless.Cancel(t.Ctx, id, st)
	}
	return id, mine, stop
}

// subsOpen opens a subscription for filter on c (see subsListen) and
// judges its acknowledgement (see subsAck), reported as ok. The caller
// defers stop whatever ok is.
func subsOpen(t *T, c *Conn, filter string) (id jsonrpc.ID, mine func(wire.Frame) bool, stop func(), ok bool) {
	id, mine, stop = subsListen(t, c, filter)
	return id, mine, stop, subsAck(t, c, id, filter, mine)
}

// subsAck waits for the first message of the subscription and judges it.
func subsAck(t *T, c *Conn, id jsonrpc.ID, filter string, mine func(wire.Frame) bool) bool {
	obs := c.S().WaitFor(t.Ctx, expect.Options{Timeout: t.StepTimeout()}, expect.Matching(
		"notifications/subscriptions/acknowledged first, with _meta subscriptionId "+id.String()+" and the accepted filter",
		func(f wire.Frame) (expect.Verdict, string) {
			if f.IsResponseTo(id) && f.Msg.Error != nil {
				return expect.Rejected, "subscriptions/listen was refused: " + f.Describe()
			}
			if !mine(f) {
				return expect.Unrelated, ""
			}
			if f.Msg.Method != spec.MethodSubscriptionsAcknowledge {
				return expect.Rejected, "the first message of the subscription was " + f.Describe()
			}
			v, ok := subsID(f)
			if !ok || !subsSameID(v, id) {
				return expect.Rejected, fmt.Sprintf("the acknowledgement's subscriptionId is %s, not the listen request id %s", v, id)
			}
			var p struct {
				Notifications map[string]json.RawMessage `json:"notifications"`
			}
			if json.Unmarshal(f.Msg.Params, &p) != nil || p.Notifications == nil {
				return expect.Rejected, "the acknowledgement carries no notifications filter: " + wire.Excerpt(f.Msg.Params, 200)
			}
			return expect.Accepted, ""
		}))
	return t.Judge(obs)
}

var _ = Register(
	// Exclusive: a listen stream carries what the server announces to every listener, whoever caused it.
	Def{
		ID: "subscriptions/listen-ack", Exclusive: true, Area: "subscriptions", Eras: Stateless,
		Title:        "subscriptions/listen is acknowledged first, with the subscription id and the accepted filter",
		Requirements: []string{"subscriptions.ack.first-message", "subscriptions.ack.nothing-before"},
		Proofs:       []Proof{{Proxy: "listen-no-ack", Good: "plain", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *T) {
			filter, _, ok := subsFilter(t)
			if !ok {
				return
			}
			_, _, stop, ok := subsOpen(t, t.Session(), filter)
			defer stop()
			if ok {
				t.Saw("the subscription for %s was acknowledged first", filter)
			}
		},
	},
	// Exclusive: the trigger announces a tool list change to every session and listener.
	Def{
		ID: "subscriptions/listen-notifications", Exclusive: true, Area: "subscriptions", Eras: Stateless,
		Title:        "notifications of a subscription carry its id and are only of the requested types",
		Requirements: []string{"subscriptions.meta.notification-carries-subscription-id", "subscriptions.listen.only-requested-types"},
		Proofs:       []Proof{{Fault: "listen-no-subscription-id", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			const trigger = "test_trigger_tool_change"
			if !t.RequireCapability("tools.listChanged") || toolRefused(t, trigger) {
				return
			}
			c := t.Session()
			id, mine, stop, ok := subsOpen(t, c, "toolsListChanged")
			defer stop()
			if !ok {
				return
			}
			// The trigger's response is not waited for: the notification may
			// come before it.
			tid, _, err := c.S().Request(t.Ctx, spec.MethodToolsCall, map[string]any{"name": trigger, "arguments": map[string]any{}})
			t.Must(err)
			obs := c.S().WaitFor(t.Ctx, expect.Options{Timeout: t.StepTimeout()}, expect.Matching(
				"notifications/tools/list_changed with _meta subscriptionId "+id.String(),
				func(f wire.Frame) (expect.Verdict, string) {
					if f.IsResponseTo(tid) && f.Msg.Error != nil {
						return expect.Rejected, "mcpcheck-trigger-failed: " + f.Describe()
					}
					if !mine(f) {
						if t.Stdio() && f.Kind == wire.KindMessage && f.Msg.Method == spec.MethodToolsListChanged {
							if _, ok := subsID(f); !ok {
								return expect.Rejected, "a tools/list_changed without a subscriptionId: " + f.Describe()
							}
						}
						return expect.Unrelated, ""
					}
					if f.Msg.Method != spec.MethodToolsListChanged {
						return expect.Rejected, "a notification the subscription did not ask for: " + f.Describe()
					}
					if v, ok := subsID(f); !ok || !subsSameID(v, id) {
						return expect.Rejected, fmt.Sprintf("the notification's subscriptionId is %s, not %s", v, id)
					}
					return expect.Accepted, ""
				}))
			if !obs.OK() && strings.Contains(obs.Actual, "mcpcheck-trigger-failed") {
				t.Untestable("the target offers no " + trigger + " fixture (the official suite's hidden trigger), so no list change could be provoked: " + obs.Actual)
				return
			}
			if !obs.OK() {
				if strings.Contains(obs.Actual, "did not ask for") {
					t.Violation("subscriptions.listen.only-requested-types", obs.Expected, obs.Actual)
				} else {
					t.Violation("subscriptions.meta.notification-carries-subscription-id", obs.Expected, obs.Actual)
				}
				return
			}
			q := t.WaitQuiet(c.S(), "only tools/list_changed on the subscription", func(f wire.Frame) bool {
				return mine(f) && f.Msg.Method != spec.MethodToolsListChanged
			})
			if !q.OK() {
				t.Violation("subscriptions.listen.only-requested-types", "only the requested notification types", q.Actual)
				return
			}
			t.Saw("tools/list_changed arrived tagged with subscription %s", id)
			t.Pass()
		},
	},
)
