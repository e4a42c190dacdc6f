package client

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Elicitation and sampling against what the client declared (2024-11-05
// through 2025-11-25, where the server asks with requests of its own): a
// client answers them only when it declared the capability, rejects an
// elicitation in a mode it did not declare with -32602, and takes an
// elicitation without a mode as form mode. The server-requests scenario
// asks for what the client declared (a form request without mode);
// elUndeclaredScenario, a deliberate deviation, asks for what it did not.

// elUndeclaredScenario asks the client for what it did not declare.
const elUndeclaredScenario = "mcpcheck-undeclared-requests"

// elFormRequest is an elicitation without a mode field (form mode).
func elFormRequest() map[string]any {
	return map[string]any{
		"message":         "mcpcheck asks for your name",
		"requestedSchema": json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
	}
}

var _ = RegisterScenarios(Scenario{
	Name: elUndeclaredScenario, Eras: stateful, RidesOn: []string{rideElicitation},
	Title: "deliberate deviation: while serving the client's first request the stage sends sampling/createMessage and elicitation/create to a client that did not declare them, and an elicitation in the mode it did not declare (URL mode to a form-only client, form mode to a URL-only one)",
	Stage: func(env Env) stage.Config {
		return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{EchoTool}, Director: OnFirstRequest(elAskUndeclared)}}
	},
})

// elAskUndeclared asks the client for what it did not declare: sampling,
// elicitation, an elicitation mode.
func elAskUndeclared(c *server.Call) {
	caps, v := c.ClientCapabilities(), c.Version()
	if caps.Sampling == nil {
		askBounded(c, spec.MethodSamplingCreateMessage, mcp.CreateMessageParams{
			Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Single(&mcp.TextContent{Text: "mcpcheck asks: say hello"})}},
			MaxTokens: 50,
		})
	}
	switch {
	case v.Compare(spec.V20250618) < 0:
	case caps.Elicitation == nil:
		askBounded(c, spec.MethodElicitationCreate, elFormRequest())
	case v == spec.V20251125 && !caps.Elicitation.SupportsURL():
		askBounded(c, spec.MethodElicitationCreate, map[string]any{"mode": "url", "message": "mcpcheck asks you to open a page", "url": "https://example.test/mcpcheck", "elicitationId": "mcpcheck-undeclared-url"})
	case v == spec.V20251125 && !caps.Elicitation.SupportsForm():
		p := elFormRequest()
		p["mode"] = "form"
		askBounded(c, spec.MethodElicitationCreate, p)
	}
}

// elAnswers returns the client's answers to the stage's requests of method
// in the case.
func elAnswers(c *Case, method string) []Answer {
	var out []Answer
	for _, a := range c.ClientAnswers() {
		if a.Found && a.Request.Msg.Method == method {
			out = append(out, a)
		}
	}
	return out
}

// elMode is the mode an elicitation request asked for ("" when absent).
func elMode(req Msg) string {
	var p struct {
		Mode string `json:"mode"`
	}
	_ = json.Unmarshal(req.Msg.Params, &p)
	return p.Mode
}

// elUndeclaredJudge judges the answers to requests of method sent to a
// client that did not declare capability (declared reports whether it
// did): a result means the client serves what it did not declare.
func elUndeclaredJudge(t *T, method string, declared func(mcp.ClientCapabilities) bool) {
	n, bad, decl := 0, 0, 0
	for _, c := range t.Cases() {
		caps, known := c.Declared()
		if known && declared(caps) {
			decl++
			continue
		}
		for _, a := range elAnswers(c, method) {
			n++
			var r struct {
				Action string `json:"action"`
			}
			if method == spec.MethodElicitationCreate && a.Response.Msg.Shape == jsonrpc.KindResponse && json.Unmarshal(a.Response.Msg.Result, &r) == nil && r.Action != "accept" {
				// Declining or cancelling is no elicitation served: a client
				// without the capability may answer so.
				t.Saw("the client, without elicitation, answered with action %q (%s)", r.Action, c.Scenario.Name)
				continue
			}
			if a.Response.Msg.Shape == jsonrpc.KindResponse {
				bad++
				t.Fail(method+" served only by a client that declared the capability",
					fmt.Sprintf("the client declared no such capability, yet answered %s with a result: %s (%s)", method, Excerpt(a.Response), c.Scenario.Name))
			}
		}
	}
	if n == 0 && decl > 0 {
		t.NotApplicable("the client declared the capability, so the stage did not ask it without")
		return
	}
	t.Settle(n, bad, "the client was not asked (it made no request other than ping after initialization)", "%d requests to a client without the capability, each refused")
}

var _ = Register(
	Def{
		ID: "client/elicitation/declared", Area: "elicitation", Since: spec.V20250618, Scenarios: []string{elUndeclaredScenario, inUndeclaredScenario, mrtrScenario},
		Title:        "a client that did not declare elicitation elicits nothing: it refuses elicitation/create (in 2026-07-28: a client that accepts an elicitation input request declared elicitation in the _meta of the request that drew it and of the retry)",
		Requirements: []string{"elicitation.capability.client-declares"},
		Proofs: []Proof{{Fault: "elicitation-undeclared", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "elicitation-undeclared", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			declaredJudge(t, spec.MethodElicitationCreate, "elicitation", func(c mcp.ClientCapabilities) bool { return c.Elicitation != nil })
		},
	},
	Def{
		ID: "client/elicitation/undeclared-mode", Area: "elicitation", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{elUndeclaredScenario},
		Title:        "an elicitation in a mode the client did not declare is refused with -32602",
		Requirements: []string{"elicitation.errors.client-rejects-undeclared-mode"},
		Proofs:       []Proof{{Fault: "elicitation-undeclared-mode-accepted", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				caps, known := c.Declared()
				if !known || caps.Elicitation == nil {
					continue
				}
				for _, a := range elAnswers(c, spec.MethodElicitationCreate) {
					mode := elMode(a.Request)
					if (mode == "url" && caps.Elicitation.SupportsURL()) || (mode != "url" && caps.Elicitation.SupportsForm()) {
						continue
					}
					n++
					if e := a.Response.Msg.Error; e == nil || e.Code != jsonrpc.InvalidParams {
						bad++
						t.Fail("error -32602 for an elicitation in a mode the client did not declare",
							fmt.Sprintf("a %q-mode elicitation was answered %s (%s)", orForm(mode), Excerpt(a.Response), c.Scenario.Name))
					}
				}
			}
			t.SettleActed(n, bad, "declare elicitation in one mode and make a request other than ping after initialization", "%d elicitations in undeclared modes, each refused with -32602")
		},
	},
	Def{
		ID: "client/elicitation/form-without-mode", Area: "elicitation", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{ServerRequestsScenario},
		Title:        "a client that declared form elicitation handles a request without mode as form mode: it answers with an action, not an error",
		Requirements: []string{"elicitation.request.missing-mode-means-form", "elicitation.capability.at-least-one-mode"},
		Proofs:       []Proof{{Fault: "elicitation-mode-required", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				caps, known := c.Declared()
				if !known || !caps.Elicitation.SupportsForm() {
					continue
				}
				for _, a := range elAnswers(c, spec.MethodElicitationCreate) {
					if elMode(a.Request) != "" {
						continue
					}
					n++
					var r struct {
						Action string `json:"action"`
					}
					if a.Response.Msg.Shape != jsonrpc.KindResponse || json.Unmarshal(a.Response.Msg.Result, &r) != nil || r.Action == "" {
						bad++
						t.Fail("an action (accept, decline or cancel) for a form elicitation without mode",
							fmt.Sprintf("it was answered %s (%s)", Excerpt(a.Response), c.Scenario.Name))
					}
				}
			}
			t.SettleActed(n, bad, "declare form elicitation and make a request other than ping after initialization", "%d elicitations without mode, each handled as form mode")
		},
	},
)

// orForm names an absent mode.
func orForm(mode string) string {
	if mode == "" {
		return "form (no mode)"
	}
	return mode
}

var _ = Register(OnlyIf(Def{
	ID: "client/elicitation/unknown-complete", Area: "elicitation", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{ServerRequestsScenario},
	Title:        "notifications/elicitation/complete for an elicitationId the client does not know changes nothing: it still answers the stage's next ping",
	Requirements: []string{"elicitation.complete.client-ignores-unknown-ids"},
	Proofs:       []Proof{{Fault: FaultElicitCompleteUnknownFatalName, Version: spec.V20251125, Want: reports.Fail}},
	Body: func(t *T) {
		n, bad := 0, 0
		for _, c := range t.Cases() {
			note, ok := stageNotification(c, spec.MethodElicitationComplete)
			if !ok {
				continue
			}
			n++
			if !answeredAfter(c, note.Seq) {
				bad++
				t.Fail("the client goes on after the unknown completion (it answers the stage's next requests)",
					fmt.Sprintf("after notifications/elicitation/complete for an unknown id the client sent nothing more; it %s (%s)", c.Exit, c.Scenario.Name))
			}
		}
		t.SettleActed(n, bad, "declare URL-mode elicitation and make a request other than ping after initialization", "%d unknown completions disregarded")
	},
}, declaresURLElicitation))

// FaultElicitCompleteUnknownFatalName is the reference client's fault
// switch for an unknown completion (internal/reference/client's
// FaultElicitCompleteUnknownFatal; the suite names it, never imports it).
const FaultElicitCompleteUnknownFatalName = "elicitation-complete-unknown-fatal"
