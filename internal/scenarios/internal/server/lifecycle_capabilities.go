package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Capabilities respected in the lifecycle: a server that serves a feature
// declares it; a server asks a client only for what the client declared
// (sampling, elicitation, roots). The 2026-07-28 input kinds are in
// base_capabilities.go, prompt notifications in prompts_capabilities.go.

var _ = Register(
	Def{
		ID: "lifecycle/features-declared", Area: "lifecycle",
		Title:        "a server that serves tools, prompts, resources or completion declares the matching capability",
		Requirements: []string{"tools.capability.server-declares", "prompts.capability.server-declares", "resources.capability.server-declares", "completion.capability.server-declares"},
		Proofs:       []Proof{{Fault: "prompts-undeclared", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Session()
			s := c.S()
			probes := []struct{ capPath, method, member, req string }{
				{"tools", spec.MethodToolsList, "tools", "tools.capability.server-declares"},
				{"prompts", spec.MethodPromptsList, "prompts", "prompts.capability.server-declares"},
				{"resources", spec.MethodResourcesList, "resources", "resources.capability.server-declares"},
			}
			probed := 0
			for _, p := range probes {
				if t.HasCapability(p.capPath) {
					continue
				}
				probed++
				r := s.Call(t.Ctx, p.method, map[string]any{})
				if !r.OK() {
					continue
				}
				var m map[string]json.RawMessage
				_ = json.Unmarshal(r.Result, &m)
				var items []json.RawMessage
				_ = json.Unmarshal(m[p.member], &items)
				if len(items) > 0 {
					t.Violation(p.req, fmt.Sprintf("a server offering %s declares the %s capability", p.member, p.capPath), fmt.Sprintf("%s was not declared, yet %s listed %d item(s)", p.capPath, p.method, len(items)))
				}
			}
			if t.InForce("completion.capability.server-declares") && !t.HasCapability("completions") {
				probed++
				r := s.Call(t.Ctx, spec.MethodCompletionComplete, map[string]any{
					"ref":      map[string]any{"type": "ref/prompt", "name": "mcpcheck_probe"},
					"argument": map[string]any{"name": "x", "value": ""},
				})
				if r.OK() {
					t.Violation("completion.capability.server-declares", "a server offering completion declares the completions capability", "completions was not declared, yet completion/complete answered with a result")
				}
			}
			if t.Open() {
				t.Saw("%d undeclared feature(s) probed, none served", probed)
				t.Pass()
			}
		},
	},
	Def{
		ID: "lifecycle/client-capabilities-undeclared", Area: "lifecycle", Eras: Stateful,
		Labels:       clientFixtureLabels("test_sampling", "ref_sampling_tools", "test_elicitation", "ref_elicit_url", "ref_list_roots"),
		Title:        "to a client that declared no capabilities the server sends no sampling, elicitation or roots/list request",
		Requirements: []string{"lifecycle.operation.respect-negotiated", "lifecycle.operation.respect-negotiated-advisory", "roots.server.respect-root-boundaries"},
		Proofs:       []Proof{{Fault: "client-caps-assumed", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			names := []string{"test_sampling", "ref_sampling_tools", "test_elicitation", "test_elicitation_sep1034_defaults", "ref_elicit_url", "ref_list_roots"}
			// The session comes first, fixtures or not: what the server
			// sends a client that declared nothing on its own (right after
			// notifications/initialized) is in the run for
			// lifecycle/capabilities-respected to judge. The sentinel's
			// answer says it has arrived.
			s, ok := clientSession(t, mcp.ClientCapabilities{}, false)
			if !ok {
				return
			}
			Sentinel(expect.OnSkip(t.Ctx, func(string) {}), s)
			if !t.RequireFixture(hasAny(t, names...), fixtureWhy(t, "the target offers no tool that makes it ask the client ("+strings.Join(names, ", ")+")", names...)) {
				return
			}
			reqs, ran := clientRun(t, s, names...)
			ids := []string{"lifecycle.operation.respect-negotiated", "lifecycle.operation.respect-negotiated-advisory"}
			for _, r := range reqs {
				switch r.Frame.Msg.Method {
				case spec.MethodRootsList:
					t.Violation("roots.server.respect-root-boundaries", "roots/list only to a client that declared roots", r.Frame.Describe())
				case spec.MethodSamplingCreateMessage, spec.MethodElicitationCreate:
					t.ViolateFirst(ids, "no "+r.Frame.Msg.Method+" to a client that did not declare it", r.Frame.Describe())
				}
			}
			if t.Open() {
				t.Saw("triggers %v called; the server asked nothing undeclared (%d requests)", ran, len(reqs))
				t.Pass()
			}
		},
	},
)

// capsInputKinds lists the input request methods of an input_required
// result ("" when the result is not one).
func capsInputKinds(raw json.RawMessage) []string {
	var r struct {
		ResultType    string `json:"resultType"`
		InputRequests map[string]struct {
			Method string `json:"method"`
		} `json:"inputRequests"`
	}
	if json.Unmarshal(raw, &r) != nil || r.ResultType != "input_required" {
		return nil
	}
	var out []string
	for _, ir := range r.InputRequests {
		switch ir.Method {
		case spec.MethodElicitationCreate, spec.MethodSamplingCreateMessage, spec.MethodRootsList:
			out = append(out, ir.Method)
		}
	}
	return out
}
