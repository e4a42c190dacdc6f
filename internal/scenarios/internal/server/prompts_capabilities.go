package server

import (
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The prompts capability respected: no prompt notifications from a
// server that did not declare prompts (listChanged for list_changed).

var _ = Register(
	Def{
		ID: "prompts/capability-notifications", Area: "prompts", Passive: true,
		Title:        "no prompt notifications from a server that did not declare prompts (listChanged for list_changed)",
		Requirements: []string{"prompts.capability.both-respect-negotiation"},
		Proofs:       []Proof{{Fault: "prompt-notifications-undeclared", Version: spec.V20251125, Also: []string{"base/response-id-echo"}, Want: reports.Warn}},
		Body: func(t *T) {
			t.JudgeObserved(PassiveRule{
				Expected: "prompt notifications only with a declared prompts capability",
				Limit:    1,
				None:     "the server sent no prompt notification in this run",
				Saw:      "%d prompt notifications, prompts.listChanged declared",
			}, func(o Observation) (bool, string) {
				if o.Kind != wire.KindMessage || !strings.HasPrefix(o.Msg.Method, "notifications/prompts/") {
					return false, ""
				}
				if declared, to := serverDeclared(t, o, "prompts.listChanged"); !declared {
					return true, "prompts.listChanged not declared " + to + ": " + wire.Excerpt(o.Raw, 200)
				}
				return true, ""
			})
		},
	},
)
