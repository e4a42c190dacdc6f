package server

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Multi round-trip requests (2026-07-28): input the server needs from the
// client comes as an InputRequiredResult on tools/call, prompts/get or
// resources/read only; the round trip completes; a tampered requestState
// is refused.

// mrtrInputMethods are the client-side requests MRTR replaces.
var mrtrInputMethods = map[string]bool{spec.MethodRootsList: true, spec.MethodSamplingCreateMessage: true, spec.MethodElicitationCreate: true}

// mrtrAllowed are the requests an InputRequiredResult may answer.
var mrtrAllowed = map[string]bool{spec.MethodToolsCall: true, spec.MethodPromptsGet: true, spec.MethodResourcesRead: true}

// mrtrResultType returns the resultType of a result ("" when it has none).
func mrtrResultType(raw json.RawMessage) string {
	rt, _ := resultType(raw)
	return rt
}

// mrtrComplete accepts a result whose resultType is complete.
func mrtrComplete(res json.RawMessage) error {
	if rt := mrtrResultType(res); rt != "complete" {
		return fmt.Errorf("resultType %q", rt)
	}
	return nil
}

// mrtrCall sends tools/call with params on s and waits on its stream for
// a result to it (desc; check judges it, nil for any).
func mrtrCall(t *T, s Sess, params map[string]any, desc string, check func(json.RawMessage) error) expect.Observed {
	id, st, err := s.Request(t.Ctx, spec.MethodToolsCall, params)
	t.Must(err)
	return t.AnswerOn(s, st, expect.Result(id, desc, check))
}

// mrtrRetry turns params into the retry of the input_required result ir:
// inputResponses answering every input request (see mrtrAnswer) and ir's
// requestState. For a request other than an elicitation it returns its
// key and false, leaving params as they were.
func mrtrRetry(params map[string]any, ir mcp.InputRequiredResult) (string, bool) {
	answers := map[string]any{}
	for k, req := range ir.InputRequests {
		a, ok := mrtrAnswer(req)
		if !ok {
			return k, false
		}
		answers[k] = a
	}
	params["inputResponses"] = answers
	if ir.RequestState != "" {
		params["requestState"] = ir.RequestState
	}
	return "", true
}

// mrtrAnswer builds an inputResponses entry for an elicitation request:
// accept, with a value of the right type for every requested property.
func mrtrAnswer(req mcp.InputRequest) (any, bool) {
	var r struct {
		Method string `json:"method"`
		Params struct {
			RequestedSchema struct {
				Properties map[string]struct {
					Type string `json:"type"`
				} `json:"properties"`
			} `json:"requestedSchema"`
		} `json:"params"`
	}
	b, err := json.Marshal(req)
	if err != nil || json.Unmarshal(b, &r) != nil || r.Method != spec.MethodElicitationCreate {
		return nil, false
	}
	content := map[string]any{}
	for k, p := range r.Params.RequestedSchema.Properties {
		switch p.Type {
		case "boolean":
			content[k] = true
		case "integer", "number":
			content[k] = 1
		default:
			content[k] = "mcpcheck"
		}
	}
	return map[string]any{"action": "accept", "content": content}, true
}

var _ = Register(
	Def{
		ID: "mrtr/input-via-mrtr-only", Area: "mrtr", Eras: Stateless, Passive: true,
		Title:        "in 2026-07-28 the server never sends roots/list, sampling or elicitation requests: it asks through InputRequiredResult",
		Requirements: []string{"mrtr.server.input-via-mrtr-only"},
		Proofs:       []Proof{{Fault: "input-via-request", Version: spec.V20260728, Also: []string{"mrtr/round-trip"}, Want: reports.Fail}},
		Body: func(t *T) {
			t.JudgeObserved(PassiveRule{
				Expected: "input requested only through an InputRequiredResult",
				Limit:    1,
				None:     "nothing was observed",
			}, func(o Observation) (bool, string) {
				if o.Kind == wire.KindMessage && mrtrInputMethods[o.Msg.Method] && !o.Msg.ID.IsZero() {
					return true, "the server sent a request: " + o.Describe()
				}
				return true, ""
			})
		},
	},
	Def{
		ID: "mrtr/only-supported-requests", Area: "mrtr", Eras: Stateless, Passive: true,
		Title:        "only tools/call, prompts/get and resources/read are ever answered with input_required",
		Requirements: []string{"mrtr.server.only-supported-requests"},
		Proofs:       []Proof{{Fault: "input-required-on-complete", Version: spec.V20260728, Also: []string{"completion/values-bound"}, Want: reports.Fail}},
		Body: func(t *T) {
			t.JudgeObserved(PassiveRule{
				Expected: "input_required only on tools/call, prompts/get or resources/read",
				Limit:    1,
				None:     "no result was observed",
			}, func(o Observation) (bool, string) {
				if o.Kind != wire.KindMessage || o.Msg.Result == nil || o.Answers == "" {
					return false, ""
				}
				if mrtrResultType(o.Msg.Result) == "input_required" && !mrtrAllowed[o.Answers] {
					return true, fmt.Sprintf("%s was answered input_required: %s", o.Answers, o.Describe())
				}
				return true, ""
			})
		},
	},
	Def{
		ID: "mrtr/round-trip", Area: "mrtr", Eras: Stateless,
		Title:        "a tool that needs elicitation asks with input_required and completes once the answer is sent back",
		Requirements: []string{"mrtr.server.input-via-mrtr-only"},
		Proofs:       []Proof{{Fault: "input-via-request", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			const name = "test_input_required_result_elicitation"
			if _, ok := t.RequireTool(name); !ok {
				return
			}
			c := t.Session()
			r := c.S().Call(t.Ctx, spec.MethodToolsCall, map[string]any{"name": name, "arguments": map[string]any{}})
			if !t.JudgeReply(r) {
				return
			}
			if len(r.Rounds) == 0 {
				t.Untestable("the fixture " + name + " completed without asking for input, so there was no round trip to judge")
				return
			}
			if rt := mrtrResultType(r.Result); rt != "complete" {
				t.Fail("resultType complete after the input was supplied", fmt.Sprintf("after %d round(s) the result has resultType %q", len(r.Rounds), rt))
				return
			}
			t.Saw("%d input_required round(s), then a complete result", len(r.Rounds))
			t.Pass()
		},
	},
	Def{
		ID: "mrtr/tampered-state", Area: "mrtr", Eras: Stateless,
		Title:        "a retry whose requestState was tampered with is refused",
		Requirements: []string{"mrtr.server.request-state-reject-tampered"},
		Proofs:       []Proof{{Fault: "accept-tampered-state", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *T) {
			const name = "test_input_required_result_tampered_state"
			if _, ok := t.RequireTool(name); !ok {
				return
			}
			c := t.Session()
			s := c.S()
			params := map[string]any{"name": name, "arguments": map[string]any{}}
			obs := mrtrCall(t, s, params, "an input_required result with a requestState", nil)
			if !t.Judge(obs) {
				return
			}
			var ir mcp.InputRequiredResult
			if json.Unmarshal(obs.Frame.Msg.Result, &ir) != nil || mrtrResultType(obs.Frame.Msg.Result) != "input_required" || ir.RequestState == "" {
				t.Untestable("the fixture " + name + " did not answer input_required with a requestState")
				return
			}
			if k, ok := mrtrRetry(params, ir); !ok {
				t.Untestable("the fixture asks for input other than elicitation: " + k)
				return
			}
			// The tampering the fixture's contract names: the state with
			// "-TAMPERED" appended. The rule binds state that influences
			// the outcome, which a black box cannot see in general; the
			// fixture exists to be such state.
			state := ir.RequestState + "-TAMPERED"
			params["requestState"] = state
			id2, st2, err := s.Request(t.Ctx, spec.MethodToolsCall, params)
			t.Must(err)
			t.Expect("a retry with requestState %q (the fixture's state with -TAMPERED appended) is refused with an error", state)
			t.Judge(t.AnswerOn(s, st2,
				expect.Matching("an error response (or a fresh input_required: the tampered state not honoured)", func(f wire.Frame) (expect.Verdict, string) {
					if !f.IsResponseTo(id2) {
						return expect.Unrelated, ""
					}
					if f.Msg.Error != nil {
						return expect.Accepted, ""
					}
					if rt := mrtrResultType(f.Msg.Result); rt != "input_required" {
						return expect.Rejected, fmt.Sprintf("the tampered requestState was accepted: resultType %q", rt)
					}
					return expect.Accepted, ""
				})))
		},
	},
)

// mrtrRound1 calls a fixture tool and returns its input_required result,
// or ends the check untestable.
func mrtrRound1(t *T, c *Conn, name string) (map[string]any, bool) {
	params := map[string]any{"name": name, "arguments": map[string]any{}}
	obs := mrtrCall(t, c.S(), params, "an input_required result", nil)
	var ir mcp.InputRequiredResult
	if !obs.OK() || json.Unmarshal(obs.Frame.Msg.Result, &ir) != nil || mrtrResultType(obs.Frame.Msg.Result) != "input_required" {
		t.Untestable("the fixture " + name + " did not answer input_required: " + obs.Actual)
		return nil, false
	}
	if k, ok := mrtrRetry(params, ir); !ok {
		t.Untestable("the fixture " + name + " asks for input other than elicitation: " + k)
		return nil, false
	}
	return params, true
}
