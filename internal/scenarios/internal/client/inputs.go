package client

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Client capabilities per request (2026-07-28): a client declares roots,
// sampling and elicitation in the _meta of each request
// (io.modelcontextprotocol/clientCapabilities), and the server asks for
// input only inside an input_required result. A client that answers an
// input request of a kind supports it, so the request that drew it and the
// retry carrying the answer must both declare it. inUndeclaredScenario, a
// deliberate deviation, asks each request for the kinds it did not declare.

// inUndeclaredScenario asks for input kinds the request did not declare.
const inUndeclaredScenario = "mcpcheck-undeclared-inputs"

// inUndeclaredTool asks for what the call did not declare; inDeclaredTool
// asks for what it did, as a server may (so a client that plays only
// official scenarios, and declares roots in none that asks for them, is
// still asked for its roots: go-sdk's conformance client, run as
// http-invalid-tool-headers, calls both).
const (
	inUndeclaredTool = "mcpcheck_undeclared_inputs"
	inDeclaredTool   = "mcpcheck_declared_inputs"
)

var _ = RegisterScenarios(Scenario{
	Name: inUndeclaredScenario, Eras: StatelessEra,
	Title: "deliberate deviation: the tool " + inUndeclaredTool + " answers input_required asking for every input kind (elicitation, sampling, roots) the call's _meta did not declare, and a plain result to the retry (or when nothing is undeclared); the tool " + inDeclaredTool + " asks, as a server may, for every kind the call declared",
	Stage: func(Env) stage.Config {
		run := func(c *server.Call) (any, error) {
			caps := c.ClientCapabilities()
			q := map[string]mcp.InputRequest{}
			if caps.Elicitation == nil {
				q[mrtrInputKey] = mcp.InputRequest{Method: spec.MethodElicitationCreate, Params: &mcp.ElicitParams{Mode: mcp.ElicitForm, Message: "mcpcheck asks you to confirm",
					RequestedSchema: &mcp.RequestedSchema{Type: "object", Properties: map[string]mcp.PrimitiveSchema{"confirmed": {Type: "boolean"}}, Required: []string{"confirmed"}}}}
			}
			if caps.Sampling == nil {
				q[mrtrSampleKey] = mcp.InputRequest{Method: spec.MethodSamplingCreateMessage, Params: &mcp.CreateMessageParams{
					Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Single(&mcp.TextContent{Text: "mcpcheck asks: say yes"})}}, MaxTokens: 20}}
			}
			if caps.Roots == nil {
				q[mrtrRootsKey] = mcp.InputRequest{Method: spec.MethodRootsList, Params: &mcp.ListRootsParams{}}
			}
			if mrtrIsRetry(c) || len(q) == 0 {
				return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text("done")}}, nil
			}
			// Built here rather than with Call.InputRequired, which (as a
			// server must) refuses to ask for what the client lacks.
			return &mcp.InputRequiredResult{ResultBase: mcp.ResultBase{ResultType: mcp.ResultInputRequired}, InputRequests: q}, nil
		}
		declared := func(c *server.Call) (any, error) {
			q := mrtrAsk(c.ClientCapabilities())
			if mrtrIsRetry(c) || q == nil {
				return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text("done")}}, nil
			}
			return c.InputRequired(q, "")
		}
		return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{
			{Def: mcp.Tool{Name: inUndeclaredTool, Description: "Asks for input", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}, Run: run},
			{Def: mcp.Tool{Name: inDeclaredTool, Description: "Asks for the input the call declared it can give", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}, Run: declared},
		}}}
	},
})

// inAnswer is one input request of an input_required round and what the
// client did with it.
type inAnswer struct {
	round mrtrRound
	key   string
	// value is the retry's inputResponses entry (nil: none, or no retry).
	value json.RawMessage
	// askedDeclared and retryDeclared say whether the request that drew
	// the round and the retry declared the kind in their _meta.
	askedDeclared, retryDeclared bool
}

// inAnswers returns the client's dealings with the input requests of
// method in a 2026-07-28 case.
func inAnswers(c *Case, method string, declared func(mcp.ClientCapabilities) bool) []inAnswer {
	decl := func(m Msg) bool {
		meta := metaOf(m)
		if meta == nil {
			return false
		}
		caps, ok, err := meta.ClientCapabilities()
		return ok && err == nil && declared(caps)
	}
	var out []inAnswer
	for _, r := range mrtrRounds(c) {
		var p struct {
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
		}
		if r.retry != nil {
			_ = json.Unmarshal(r.retry.Msg.Params, &p)
		}
		for _, k := range r.keys {
			if r.methods[k] != method {
				continue
			}
			a := inAnswer{round: r, key: k, value: p.InputResponses[k], askedDeclared: decl(r.req)}
			if r.retry != nil {
				a.retryDeclared = decl(*r.retry)
			}
			out = append(out, a)
		}
	}
	return out
}

// inServed reports whether an inputResponses value serves the request:
// any result, except an elicitation declined or cancelled (a client
// without elicitation may answer so).
func inServed(method string, v json.RawMessage) bool {
	if len(v) == 0 || string(v) == "null" {
		return false
	}
	if method == spec.MethodElicitationCreate {
		var r struct {
			Action string `json:"action"`
		}
		return json.Unmarshal(v, &r) == nil && r.Action == string(mcp.ActionAccept)
	}
	return true
}

// inUndeclaredJudge judges, in a 2026-07-28 check, the input requests of
// method: a client that served one supports the kind, so the request that
// drew it and the retry carrying the answer both declare it. n counts the
// input requests the client was asked without declaring the kind and the
// answers it served; decl the calls of the scenario's tool that declared
// the kind (so the stage had no reason to ask them without it).
func inUndeclaredJudge(t *T, method, capability string, declared func(mcp.ClientCapabilities) bool) (n, bad, decl int) {
	for _, c := range t.Cases() {
		for _, m := range slToolCalls(c, inUndeclaredTool) {
			if meta := metaOf(m); meta != nil && !slHasMRTRFields(m) {
				if caps, ok, err := meta.ClientCapabilities(); ok && err == nil && declared(caps) {
					decl++
				}
			}
		}
		for _, a := range inAnswers(c, method, declared) {
			served := inServed(method, a.value)
			if a.askedDeclared && (!served || a.retryDeclared) {
				continue
			}
			n++
			if !served {
				t.Saw("asked for %s without declaring %s, the client did not serve it (%s)", method, capability, mrtrDescribe(c, a.round))
				continue
			}
			bad++
			which := "the request that drew it"
			if a.askedDeclared {
				which = "the retry carrying the answer"
			}
			t.Fail(fmt.Sprintf("a client that answers %s input requests declares %s in the _meta clientCapabilities of each request", method, capability),
				fmt.Sprintf("it answered inputResponses[%q] of %s with %s, but %s declared no %s: %s (%s)", a.key, mrtrDescribe(c, a.round), rules.OneLine(string(a.value)), which, capability, Excerpt(*a.round.retry), c.Scenario.Name))
		}
	}
	return n, bad, decl
}

// declaredJudge judges a capability a client must declare before it
// serves requests of method: in the stateful era the answers to the
// stage's requests in the scenario that asks clients without it
// (elUndeclaredJudge), in 2026-07-28 the input requests of
// inUndeclaredScenario and of every other scenario (inUndeclaredJudge).
func declaredJudge(t *T, method, capability string, declared func(mcp.ClientCapabilities) bool) {
	if t.Version().Era() != spec.Stateless {
		elUndeclaredJudge(t, method, declared)
		return
	}
	n, bad, decl := inUndeclaredJudge(t, method, capability, declared)
	if n == 0 && decl > 0 {
		t.NotApplicable(fmt.Sprintf("the client declared %s in the _meta of its requests, so the stage did not ask it without", capability))
		return
	}
	t.SettleActed(n, bad, "call "+inUndeclaredTool+" and answer or refuse its input requests", "%d input requests of a kind the request did not declare, none served")
}
