package client

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Roots (2024-11-05 through 2025-11-25, where the server asks with a
// request of its own): the roots a client lists are file URIs, a client
// that lists roots declared the capability, and one without roots support
// answers roots/list with the standard error. The stage asks for roots in
// the server-requests scenario (clients that declared them) and, as a
// deliberate deviation, in rtUndeclaredScenario (clients that did not).

// rtUndeclaredScenario asks a client that did not declare roots for them.
const rtUndeclaredScenario = "mcpcheck-roots-undeclared"

var _ = RegisterScenarios(Scenario{
	Name: rtUndeclaredScenario, Eras: stateful,
	Title: "deliberate deviation: while serving the client's first request the stage sends roots/list to a client that did not declare roots (nothing for one that did)",
	Stage: func(env Env) stage.Config {
		return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{EchoTool}, Director: OnFirstRequest(func(c *server.Call) {
			if c.ClientCapabilities().Roots == nil {
				askBounded(c, spec.MethodRootsList, nil)
			}
		})}}
	},
})

// rtAnswers returns the client's answers to the stage's roots/list
// requests in the case, with whether the client declared roots there.
func rtAnswers(c *Case) (answers []Answer, declared, known bool) {
	caps, ok := c.Declared()
	for _, a := range c.ClientAnswers() {
		if a.Found && a.Request.Msg.Method == spec.MethodRootsList {
			answers = append(answers, a)
		}
	}
	return answers, ok && caps.Roots != nil, ok
}

var _ = Register(
	Def{
		ID: "client/roots/file-uris", Area: "roots", Scenarios: []string{ServerRequestsScenario, rtUndeclaredScenario, mrtrScenario, inUndeclaredScenario},
		Title:        "every root the client lists has a file:// URI (in 2026-07-28: every root it gives in inputResponses)",
		Requirements: []string{"roots.root.uri-is-file-scheme"},
		Proofs: []Proof{{Fault: "roots-http-uri", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "roots-http-uri", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad, results := 0, 0, 0
			for _, c := range t.Cases() {
				var lists []json.RawMessage
				answers, _, _ := rtAnswers(c)
				for _, a := range answers {
					if a.Response.Msg.Shape == jsonrpc.KindResponse {
						lists = append(lists, a.Response.Msg.Result)
					}
				}
				for _, a := range inAnswers(c, spec.MethodRootsList, func(mcp.ClientCapabilities) bool { return true }) {
					if len(a.value) > 0 {
						lists = append(lists, a.value)
					}
				}
				for _, list := range lists {
					results++
					var r struct {
						Roots []struct {
							URI json.RawMessage `json:"uri"`
						} `json:"roots"`
					}
					_ = json.Unmarshal(list, &r)
					for i, root := range r.Roots {
						n++
						var uri string
						if json.Unmarshal(root.URI, &uri) != nil || !strings.HasPrefix(strings.ToLower(uri), "file://") {
							bad++
							t.Fail("roots with file:// URIs", fmt.Sprintf("root %d has uri %s (%s)", i, rules.OrAbsent(root.URI, len(root.URI) > 0), c.Scenario.Name))
						}
					}
				}
			}
			if results == 0 {
				t.NeedAction(false, "declare roots and answer the stage's roots/list")
				return
			}
			t.Settle(n, bad, "the client listed no roots", "%d roots, each a file:// URI")
		},
	},
	Def{
		ID: "client/roots/declared", Area: "roots", Scenarios: []string{rtUndeclaredScenario, inUndeclaredScenario, mrtrScenario},
		Title:        "a client that did not declare roots does not list any: it answers roots/list with an error (in 2026-07-28: a client that lists roots in inputResponses declared roots in the _meta of the request that drew them and of the retry)",
		Requirements: []string{"roots.capability.client-declares"},
		Proofs: []Proof{{Fault: "roots-undeclared", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "roots-undeclared", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			declaredJudge(t, spec.MethodRootsList, "roots", func(c mcp.ClientCapabilities) bool { return c.Roots != nil })
		},
	},
	Def{
		ID: "client/roots/error-code", Area: "roots", Eras: stateful, Scenarios: []string{rtUndeclaredScenario},
		Title:        "a client without roots answers roots/list with -32601 (method not found)",
		Requirements: []string{"roots.errors.client-standard-codes"},
		Proofs:       []Proof{{Fault: "roots-error-code", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			n, bad, declared := 0, 0, 0
			for _, c := range t.Cases() {
				answers, decl, known := rtAnswers(c)
				if known && decl {
					declared++
					continue
				}
				for _, a := range answers {
					if e := a.Response.Msg.Error; a.Response.Msg.Shape == jsonrpc.KindErrorResponse && e != nil {
						n++
						if e.Code != jsonrpc.MethodNotFound {
							bad++
							t.Fail("error -32601 (method not found) from a client without roots",
								fmt.Sprintf("error %d (%q) (%s)", e.Code, e.Message, c.Scenario.Name))
						}
					}
				}
			}
			if n == 0 && declared > 0 {
				t.NotApplicable("the client declared roots, so the stage did not ask it without")
				return
			}
			t.Settle(n, bad, "the client answered no roots/list with an error", "%d roots/list errors, each -32601")
		},
	},
)
