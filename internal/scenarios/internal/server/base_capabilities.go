package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Capabilities in the 2026-07-28 base protocol: a server relies on no
// capability the client did not declare in the request's _meta (no input
// request of a kind the client did not declare).

var _ = Register(
	Def{
		ID: "base/stateless-undeclared-capabilities", Area: "base", Eras: Stateless,
		Labels:       clientFixtureLabels("test_input_required_result_elicitation", "test_input_required_result_sampling", "test_input_required_result_list_roots"),
		Title:        "in 2026-07-28 a server asks a client that declared nothing for no elicitation, sampling or roots input",
		Requirements: []string{"base.meta.no-reliance-on-undeclared-capabilities", "mrtr.server.only-declared-input-kinds"},
		Proofs:       []Proof{{Fault: "undeclared-input-kinds", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			names := []string{"test_input_required_result_elicitation", "test_input_required_result_sampling", "test_input_required_result_list_roots"}
			if !t.RequireFixture(hasAny(t, names...), fixtureWhy(t, "the target offers no tool that asks for input ("+strings.Join(names, ", ")+")", names...)) {
				return
			}
			c := t.Fresh()
			cfg := c.Stateless.Config()
			cfg.Capabilities = &mcp.ClientCapabilities{}
			c.Stateless.Detach()
			s := session.NewStateless(c.Conn, cfg)
			ran := 0
			for _, n := range names {
				if _, ok := t.Tool(n); !ok {
					continue
				}
				ran++
				r := t.CallTool(s, n, json.RawMessage(`{}`), nil)
				rounds := append(append([]session.Reply(nil), r.Rounds...), r)
				for _, rr := range rounds {
					if kinds := capsInputKinds(rr.Result); len(kinds) > 0 {
						t.Fail("no input_required asking for a capability the client did not declare", fmt.Sprintf("%s asked for %v: %s", n, kinds, Clip(rr.Result)))
						return
					}
				}
				t.Saw("%s: %s", n, r.Describe())
			}
			t.Pass()
		},
	},
)
