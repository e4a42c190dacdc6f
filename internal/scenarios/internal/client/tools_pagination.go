package client

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Tools on the pagination scenario (pgScenario, pagination.go): tool names
// are case-sensitive, so two tools differing only in case are two tools.

var _ = Register(
	Def{
		ID: "client/tools/case-sensitive-names", Area: "tools", Since: spec.V20251125, Scenarios: []string{pgScenario},
		Title:        "tool names that differ only in case are different tools: the client calls each by its own name",
		Requirements: []string{"tools.name.case-sensitive"},
		Proofs:       []Proof{{Fault: "tool-names-lowercased", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				called := map[string]int{}
				for _, m := range c.Requests(spec.MethodToolsCall) {
					var p struct {
						Name string `json:"name"`
					}
					_ = json.Unmarshal(m.Msg.Params, &p)
					called[p.Name]++
				}
				for _, pair := range pgCasePairs {
					// A client that listed one page only was never given
					// both names of the pair across pages: calling the one
					// it saw is no confusion of the two.
					a, b := pair[0], pair[1]
					if called[a]+called[b] == 0 || !pgListed(c, a) || !pgListed(c, b) {
						continue
					}
					n++
					if called[a] == 0 || called[b] == 0 {
						bad++
						t.Fail(fmt.Sprintf("both %s and %s called, each by its own name", a, b),
							fmt.Sprintf("the client called %s %d time(s) and %s %d time(s) (%s)", a, called[a], b, called[b], c.Scenario.Name))
					}
				}
			}
			t.SettleActed(n, bad, "list both tools of a pair that differs only in case (Pg_page and pg_page on page 1, Pg_case and pg_case on pages 1 and 2) and call the listed tools", "%d pairs of tools differing only in case, each tool called by its own name")
		},
	},
)
