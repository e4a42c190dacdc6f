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

// Sampling: whether a client samples only when it declared the capability
// (client/sampling/declared, on elicitation.go's scenario that asks for
// what a client did not declare).

func init() {
	Exclude(map[string]string{
		"sampling.request.client-honours-max-tokens": "a token is whatever the client's model's tokenizer makes of the text, and the wire shows neither the model's tokenizer nor a token count: no bound on the characters of a result follows from maxTokens, so no answer can be shown to exceed it",
	})
}

// saToolsScenario is sampling with tools (2025-11-25): it sends every
// client that declared sampling a request carrying tools (a deliberate
// deviation for a client that did not declare sampling.tools: it may
// refuse, or sample without them, but a tool use in its answer shows it
// runs sampling with tools undeclared), and a client that declared
// sampling.tools a request whose last message mixes a tool result with
// text, which it should refuse with -32602.
const saToolsScenario = "mcpcheck-sampling-tools"

// saTool is the tool the stage offers the client's model.
var saTool = map[string]any{"name": "mcpcheck_lookup", "description": "Looks something up", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{}}}

var _ = RegisterScenarios(Scenario{
	Name: saToolsScenario, Since: spec.V20251125, Until: spec.V20251125,
	Title: "while serving the client's first request the stage sends a client that declared sampling a sampling request carrying tools, and one that declared sampling.tools a request whose last message mixes a tool result with text",
	Stage: func(Env) stage.Config {
		return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{EchoTool}, Director: seFirstRequest(func(c *server.Call) {
			caps := c.ClientCapabilities()
			if caps.Sampling == nil {
				return
			}
			seAsk(c, spec.MethodSamplingCreateMessage, map[string]any{
				"messages":   []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "mcpcheck asks: look something up"}}},
				"tools":      []any{saTool},
				"toolChoice": map[string]any{"mode": "auto"},
				"maxTokens":  50,
			})
			if caps.Sampling.Tools == nil {
				return
			}
			seAsk(c, spec.MethodSamplingCreateMessage, map[string]any{
				"messages": []any{
					map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "mcpcheck asks: look something up"}},
					map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "mcpcheck-use-1", "name": "mcpcheck_lookup", "input": map[string]any{}}}},
					map[string]any{"role": "user", "content": []any{
						map[string]any{"type": "tool_result", "toolUseId": "mcpcheck-use-1", "content": []any{map[string]any{"type": "text", "text": "found"}}},
						map[string]any{"type": "text", "text": "and a word of my own"},
					}},
				},
				"tools":     []any{saTool},
				"maxTokens": 50,
			})
		})}}
	},
})

// saMixed reports whether a sampling request's last message mixes a
// tool_result with other content.
func saMixed(req Msg) bool {
	var p struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(req.Msg.Params, &p) != nil || len(p.Messages) == 0 {
		return false
	}
	var blocks []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(p.Messages[len(p.Messages)-1].Content, &blocks) != nil {
		return false
	}
	result, other := false, false
	for _, b := range blocks {
		if b.Type == "tool_result" {
			result = true
		} else {
			other = true
		}
	}
	return result && other
}

// saUsesTools reports whether a sampling result asks for a tool: a
// tool_use block or stopReason toolUse.
func saUsesTools(raw json.RawMessage) bool {
	var r struct {
		StopReason string          `json:"stopReason"`
		Content    json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return false
	}
	if r.StopReason == "toolUse" {
		return true
	}
	return strings.Contains(string(r.Content), `"tool_use"`)
}

// saMessage is the role and content of a sampling message or result.
type saMessage struct {
	Role    *string         `json:"role"`
	Content json.RawMessage `json:"content"`
}

// saBadMessage says what is wrong with a sampling message or result ("" when
// it has role user or assistant and a content).
func saBadMessage(raw json.RawMessage) string {
	var m saMessage
	if json.Unmarshal(raw, &m) != nil {
		return "it is not an object"
	}
	switch {
	case m.Role == nil:
		return "it has no role"
	case *m.Role != "user" && *m.Role != "assistant":
		return fmt.Sprintf("its role is %q", *m.Role)
	case len(m.Content) == 0 || string(m.Content) == "null" || string(m.Content) == "[]":
		return "it has no content"
	}
	return ""
}

// saSampleScenario (2026-07-28) has a tool that asks a client that
// declared sampling for a sampling result through input_required.
const saSampleScenario = "mcpcheck-sampling-input"

// saSampleKey is the inputRequests key of its sampling request.
const saSampleKey = "mcpcheck_sample"

var _ = RegisterScenarios(Scenario{
	Name: saSampleScenario, Eras: StatelessEra,
	Title: "the stage lists mcpcheck_ask_model, which answers a client that declared sampling with input_required asking for one sampling result, and the retry with text",
	Stage: func(Env) stage.Config {
		return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{{
			Def: mcp.Tool{Name: "mcpcheck_ask_model", Description: "Asks the client's model a question", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
			Run: func(c *server.Call) (any, error) {
				if mrtrIsRetry(c) || c.ClientCapabilities().Sampling == nil {
					return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text("done")}}, nil
				}
				return c.InputRequired(map[string]mcp.InputRequest{saSampleKey: {Method: spec.MethodSamplingCreateMessage, Params: &mcp.CreateMessageParams{
					Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Single(&mcp.TextContent{Text: "mcpcheck asks: say yes"})}}, MaxTokens: 20}}}, "")
			},
		}}}}
	},
})

var _ = Register(
	OnlyIf(Def{
		ID: "client/sampling/tools-declared", Area: "sampling", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{saToolsScenario},
		Title:        "a client answers a sampling request with a tool use only when it declared sampling.tools",
		Requirements: []string{"sampling.tools.client-declares-tools-capability"},
		Proofs:       []Proof{{Fault: "sampling-tools-undeclared", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				caps, _ := c.Declared()
				tools := caps.Sampling != nil && caps.Sampling.Tools != nil
				for _, a := range elAnswers(c, spec.MethodSamplingCreateMessage) {
					if !strings.Contains(string(a.Request.Msg.Params), `"tools"`) {
						continue
					}
					n++
					if !tools && a.Response.Msg.Shape == jsonrpc.KindResponse && saUsesTools(a.Response.Msg.Result) {
						bad++
						t.Fail("a tool use in a sampling result only from a client that declared sampling.tools",
							fmt.Sprintf("the client declared no sampling.tools, yet answered with a tool use: %s (%s)", Excerpt(a.Response), c.Scenario.Name))
					}
				}
			}
			t.SettleActed(n, bad, "declare sampling and make a request other than ping after initialization", "%d sampling requests carrying tools, no tool use without sampling.tools")
		},
	}, declaresSampling),
	OnlyIf(Def{
		ID: "client/sampling/mixed-tool-results-refused", Area: "sampling", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{saToolsScenario},
		Title:        "a client that declared sampling.tools refuses a sampling request whose message mixes a tool result with other content with -32602",
		Requirements: []string{"sampling.errors.client-reports-failures"},
		Proofs:       []Proof{{Fault: "sampling-mixed-results-sampled", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, a := range elAnswers(c, spec.MethodSamplingCreateMessage) {
					if !saMixed(a.Request) {
						continue
					}
					n++
					if e := a.Response.Msg.Error; e == nil || e.Code != jsonrpc.InvalidParams {
						bad++
						t.Fail("error -32602 for a message that mixes a tool result with text",
							fmt.Sprintf("it was answered %s (%s)", Excerpt(a.Response), c.Scenario.Name))
					}
				}
			}
			t.SettleActed(n, bad, "declare sampling.tools and make a request other than ping after initialization", "%d requests mixing tool results with text, each refused with -32602")
		},
	}, declaresSampling),
	OnlyIf(Def{
		ID: "client/sampling/result-role-and-content", Area: "sampling", Eras: StatelessEra,
		Title:        "every sampling result the client hands back in inputResponses has role user or assistant and a content",
		Requirements: []string{"sampling.messages.role-and-content"},
		Proofs:       []Proof{{Fault: "sampling-result-no-role", Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, r := range mrtrRounds(c) {
					if r.retry == nil {
						continue
					}
					var ans struct {
						InputRequests map[string]struct {
							Method string `json:"method"`
						} `json:"inputRequests"`
					}
					var retry struct {
						InputResponses map[string]json.RawMessage `json:"inputResponses"`
					}
					_ = json.Unmarshal(r.ans.Msg.Result, &ans)
					_ = json.Unmarshal(r.retry.Msg.Params, &retry)
					for key, q := range ans.InputRequests {
						resp, ok := retry.InputResponses[key]
						if q.Method != spec.MethodSamplingCreateMessage || !ok {
							continue
						}
						n++
						if why := saBadMessage(resp); why != "" {
							bad++
							t.Fail("a sampling result with role user or assistant and a content",
								fmt.Sprintf("inputResponses[%q]: %s: %s (%s)", key, why, rules.OneLine(string(resp)), Where(c, *r.retry)))
						}
					}
				}
			}
			t.SettleActed(n, bad, "declare sampling, call mcpcheck_ask_model and retry it with the sampling result", "%d sampling results, each with role and content")
		},
	}, declaresSampling),
)

var _ = Register(
	Def{
		ID: "client/sampling/declared", Area: "sampling", Scenarios: []string{elUndeclaredScenario, inUndeclaredScenario, mrtrScenario},
		Title:        "a client that did not declare sampling samples nothing: it refuses sampling/createMessage (in 2026-07-28: a client that answers a sampling input request declared sampling in the _meta of the request that drew it and of the retry)",
		Requirements: []string{"sampling.capability.client-declares"},
		Proofs: []Proof{{Fault: "sampling-undeclared", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "sampling-undeclared", Version: spec.V20260728, Transport: Streamable, Want: reports.Fail}},
		Body: func(t *T) {
			declaredJudge(t, spec.MethodSamplingCreateMessage, "sampling", func(c mcp.ClientCapabilities) bool { return c.Sampling != nil })
		},
	},
)
