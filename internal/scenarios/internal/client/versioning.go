package client

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Version negotiation as the client does it (2024-11-05 through
// 2025-11-25): it offers a released version, the newest it implements, and
// goes no further in a session answered with a revision it does not
// implement (lcUnknownVersionScenario, in lifecycle.go).

var _ = Register(
	Def{
		ID: "client/versioning/offers-released-version", Area: "versioning", Eras: stateful,
		Title:        "the protocolVersion the client offers in initialize is a released protocol version",
		Requirements: []string{"versioning.initialize.client-offers-supported-version"},
		Proofs:       []Proof{{Fault: "offer-unreleased-version", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, m := range c.Requests(spec.MethodInitialize) {
					var p mcp.InitializeParams
					_ = json.Unmarshal(m.Msg.Params, &p)
					n++
					if !spec.Version(p.ProtocolVersion).Known() || spec.Version(p.ProtocolVersion).Era() != spec.Stateful {
						bad++
						t.Fail("initialize offers a released initialize-based protocol version ("+joinVersions()+")",
							fmt.Sprintf("the client offered %q (%s)", p.ProtocolVersion, c.Scenario.Name))
					}
				}
			}
			t.Settle(n, bad, "the client sent no initialize", "%d initialize requests, each offering a released version")
		},
	},
	Def{
		ID: "client/versioning/disconnects-on-unknown", Area: "versioning", Eras: stateful, Scenarios: []string{lcUnknownVersionScenario},
		Title:        "a client whose initialize is answered with a revision it does not implement goes no further in that session",
		Requirements: []string{"versioning.initialize.client-disconnects-on-unsupported"},
		Proofs:       []Proof{{Fault: "continue-on-unknown-version", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, s := range c.Sessions() {
					rest, ok := afterInitializeResult(s)
					if !ok {
						continue
					}
					n++
					for _, e := range rest {
						if e.From == stage.FromClient && e.IsMessage() && e.Msg.Method != "" && e.Msg.Method != spec.MethodCancelled {
							bad++
							t.Fail("no further message in a session whose initialize result names an unknown revision",
								fmt.Sprintf("after the stage chose %s the client sent %s (%s)", lcUnknownVersion, Excerpt(e), c.Scenario.Name))
							break
						}
					}
				}
			}
			t.SettleActed(n, bad, "send initialize", "%d sessions left after the unknown revision")
		},
	},
	Def{
		ID: "client/versioning/offers-latest", Area: "versioning", Eras: stateful,
		Title: "the client offers the newest revision it implements: one that offers an older revision and goes on when the stage answers with the case's version implements that version and should have offered it " +
			"(judged in every scenario, and only for a client seen refusing a revision it does not implement)",
		Requirements: []string{"versioning.initialize.client-offers-latest"},
		Proofs:       []Proof{{Fault: "offer-older-version", Want: reports.Warn}, {Fault: "offer-older-version", Version: spec.V20250618, Transport: Streamable, Want: reports.Warn}},
		Body: func(t *T) {
			type suspect struct {
				c               *Case
				offer, answered spec.Version
				next            Msg
			}
			var suspects []suspect
			n := 0
			var refused, accepted []string // what the unknown-version cases show
			for _, c := range t.Cases() {
				for _, s := range c.Sessions() {
					offer, countered, ok := lcOffer(c, s)
					if !ok {
						continue
					}
					next, wentOn := lcWentOn(s)
					if c.Scenario.Name == lcUnknownVersionScenario {
						if countered == lcUnknownVersion && wentOn {
							accepted = append(accepted, fmt.Sprintf("it went on with %s after offering %s (%s)", lcUnknownVersion, offer, Excerpt(next)))
						} else if countered == lcUnknownVersion {
							refused = append(refused, string(offer))
						}
						continue
					}
					if !offer.Known() || offer.Era() != spec.Stateful || !countered.Known() || countered.Era() != spec.Stateful {
						continue
					}
					n++
					if offer.Compare(countered) < 0 && wentOn {
						suspects = append(suspects, suspect{c, offer, countered, next})
					}
				}
			}
			switch {
			case len(suspects) > 0 && len(accepted) > 0:
				t.Untestable(fmt.Sprintf("the client offered %s and went on when the stage answered %s (%s), but that does not show it implements %s: in %s %s, so it goes on whatever revision it is answered with",
					suspects[0].offer, suspects[0].answered, suspects[0].c.Scenario.Name, suspects[0].answered, lcUnknownVersionScenario, accepted[0]))
			case len(suspects) > 0 && len(refused) == 0:
				t.Untestable(fmt.Sprintf("the client offered %s and went on when the stage answered %s (%s); whether it implements %s cannot be told, since it was never seen refusing a revision it does not implement (in %s it did not initialize)",
					suspects[0].offer, suspects[0].answered, suspects[0].c.Scenario.Name, suspects[0].answered, lcUnknownVersionScenario))
			case len(suspects) > 0:
				for i, sp := range suspects {
					if i == 10 {
						t.Saw("%d older offers in all, the first 10 shown", len(suspects))
						break
					}
					t.Fail("initialize offers the newest revision the client implements",
						fmt.Sprintf("it offered %s, and when the stage answered %s it went on (%s), so it implements %s and should have offered it; it does refuse a revision it does not implement (%s) (%s)",
							sp.offer, sp.answered, Excerpt(sp.next), sp.answered, lcUnknownVersionScenario, sp.c.Scenario.Name))
				}
			default:
				t.SettleActed(n, 0, "send initialize offering a released revision", "%d initialize offers, none older than a revision the client went on with")
			}
		},
	},
)
