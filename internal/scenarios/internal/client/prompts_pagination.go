package client

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Prompts on the pagination scenario (pgScenario, pagination.go): a client
// that lists prompts follows every page.

var _ = Register(
	OnlyIf(Def{
		ID: "client/prompts/paginates", Area: "prompts", Scenarios: []string{pgScenario},
		Title:        "the client follows prompts/list through every page",
		Requirements: []string{"prompts.list.client-paginates"},
		Proofs:       []Proof{{Fault: "prompts-first-page-only", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				ls := pgListings(c, spec.MethodPromptsList)
				for i, l := range ls {
					if !l.answered || l.next == nil {
						continue
					}
					n++
					if !pgFollowed(ls, i, *l.next) {
						bad++
						t.Fail("every page of prompts/list requested",
							fmt.Sprintf("after a prompts/list page with nextCursor %q the client asked for no further page (%s)", *l.next, c.Scenario.Name))
					}
				}
			}
			t.SettleActed(n, bad, "list the prompts", "%d prompt pages followed")
		},
	}, doesListPrompts),
)
