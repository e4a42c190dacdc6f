package server

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Resource updates per session (up to 2025-11-25): the server sends
// notifications/resources/updated only for a resource the session
// subscribed to with resources/subscribe (or a sub-resource of one, which
// the protocol allows), and not once the session unsubscribed and the
// server answered. Over streamable HTTP an update may travel on the GET
// stream and cross the answer to the unsubscribe on its POST stream, so
// there only updates for resources never subscribed are held against the
// server. The subscribe capability itself is lifecycle/capabilities-respected's.

var _ = Register(
	Def{
		ID: "resources/updated-subscribed", Area: "resources", Passive: true, Eras: Stateful,
		Title:        "notifications/resources/updated comes only for resources its session subscribed to, and not after it unsubscribed",
		Requirements: []string{"lifecycle.operation.respect-negotiated", "lifecycle.operation.respect-negotiated-advisory"},
		Proofs: []Proof{
			{Fault: "unsubscribed-resource-updated", Version: spec.V20251125, Also: []string{"base/response-id-echo"}, Want: reports.Fail},
			{Fault: "unsubscribed-resource-updated", Version: spec.V20250618, Also: []string{"base/response-id-echo"}, Want: reports.Fail},
			{Fault: "unsubscribed-resource-updated", Version: spec.V20250326, Also: []string{"base/response-id-echo"}, Want: reports.Warn},
			{Fault: "unsubscribed-resource-updated", Version: spec.V20241105, Transport: "sse", Also: []string{"base/response-id-echo"}, Want: reports.Warn},
			{Fault: "unsubscribed-resource-updated", Version: spec.V20251125, Transport: "streamable", Also: []string{"progress/no-token-no-progress"}, Want: reports.Fail},
		},
		Body: func(t *T) {
			t.JudgeObserved(PassiveRule{
				Expected: "notifications/resources/updated only for a resource the session subscribed to (or a sub-resource of one), not after it unsubscribed",
				Limit:    3,
				None:     "the server sent no notifications/resources/updated in this run",
				Saw:      "%d resource updates, each for a resource its session subscribed to",
			}, func(o Observation) (bool, string) {
				if o.Kind != wire.KindMessage || o.Msg.Method != spec.MethodResourcesUpdated {
					return false, ""
				}
				var p struct {
					URI string `json:"uri"`
				}
				_ = json.Unmarshal(o.Msg.Params, &p)
				switch o.Place.Subscription {
				case SubNever:
					return true, fmt.Sprintf("an update of %q on %s, which never subscribed to it (%d subscriptions in all): %s", p.URI, SessionText(o), o.Session.Subscribed, wire.Excerpt(o.Raw, 200))
				case SubEnded:
					return true, fmt.Sprintf("an update of %q on %s after the server had answered its resources/unsubscribe: %s", p.URI, SessionText(o), wire.Excerpt(o.Raw, 200))
				case SubActive:
					return true, ""
				}
				return false, ""
			})
		},
	},
)
