package client

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Prompts as the client uses them: only with a server that declared the
// prompts capability (prNoPromptsScenario declares none). Following
// prompts/list pages is judged with the other pagination rules
// (pagination.go).

// prNoPromptsScenario is a server with tools and no prompts capability.
const prNoPromptsScenario = "mcpcheck-no-prompts"

var _ = RegisterScenarios(Scenario{
	Name: prNoPromptsScenario, Eras: stateful,
	Title: "a server that declares tools and no prompts capability",
	Stage: func(env Env) stage.Config {
		return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{EchoTool}, Rewrite: func(o server.Outgoing) [][]byte {
			if o.Method != spec.MethodInitialize {
				return [][]byte{o.Msg}
			}
			var msg, res, caps map[string]json.RawMessage
			if json.Unmarshal(o.Msg, &msg) != nil || json.Unmarshal(msg["result"], &res) != nil || json.Unmarshal(res["capabilities"], &caps) != nil || caps == nil {
				return [][]byte{o.Msg}
			}
			delete(caps, "prompts")
			res["capabilities"], _ = json.Marshal(caps)
			msg["result"], _ = json.Marshal(res)
			b, err := json.Marshal(msg)
			if err != nil {
				return [][]byte{o.Msg}
			}
			return [][]byte{b}
		}}}
	},
})

var _ = Register(
	Def{
		ID: "client/prompts/capability", Area: "prompts", Eras: stateful, Scenarios: []string{prNoPromptsScenario},
		Title:        "the client sends no prompts request to a server that did not declare prompts",
		Requirements: []string{"prompts.capability.both-respect-negotiation"},
		Proofs:       []Proof{{Fault: "prompts-without-capability", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				m, _, ok := c.Initialize()
				if !ok {
					continue
				}
				ans, ok := c.StageAnswer(m)
				if !ok || ans.Msg.Shape != jsonrpc.KindResponse {
					continue
				}
				var r struct {
					Capabilities map[string]json.RawMessage `json:"capabilities"`
				}
				_ = json.Unmarshal(ans.Msg.Result, &r)
				if _, declared := r.Capabilities["prompts"]; declared {
					continue
				}
				n++
				for _, req := range c.Requests("") {
					if strings.HasPrefix(req.Msg.Method, "prompts/") {
						bad++
						t.Fail("no prompts/* request to a server without the prompts capability",
							fmt.Sprintf("the stage declared no prompts, yet the client sent %s (%s)", Excerpt(req), c.Scenario.Name))
						break
					}
				}
			}
			t.Settle(n, bad, "every server the client met declared prompts", "%d sessions with a server without prompts, none asked for prompts")
		},
	},
)
