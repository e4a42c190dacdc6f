package server

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Completion: at most 100 values with a consistent total and hasMore, the
// error codes for an unknown reference and for a server without the
// capability, and input validation of the reference.

var completionVar = regexp.MustCompile(`\{[+#./;?&]?([A-Za-z0-9_]+)`)

// completionRef finds something to complete: a prompt argument, else a
// variable of a resource template. ok is false when the server offers
// neither.
func completionRef(t *T, s Sess) (ref map[string]any, arg string, ok bool) {
	if t.HasCapability("prompts") {
		ps, _ := promptsListed(t, s)
		for _, p := range ps {
			if len(p.Arguments) > 0 {
				return map[string]any{"type": "ref/prompt", "name": p.Name}, p.Arguments[0].Name, true
			}
		}
	}
	if t.HasCapability("resources") {
		items, _ := t.Walk(s, spec.MethodResourcesTemplatesList, "resourceTemplates")
		for _, tpl := range featuresNames(items, "uriTemplate") {
			if m := completionVar.FindStringSubmatch(tpl); m != nil {
				return map[string]any{"type": "ref/resource", "uri": tpl}, m[1], true
			}
		}
	}
	return nil, "", false
}

// completionAsk asks completion/complete on c for argument "x" (value "")
// of ref.
func completionAsk(t *T, c *Conn, ref map[string]any) (jsonrpc.ID, string) {
	return t.Ask(c, spec.MethodCompletionComplete, map[string]any{"ref": ref, "argument": map[string]any{"name": "x", "value": ""}})
}

var _ = Register(
	Def{
		ID: "completion/values-bound", Area: "completion",
		Title:        "completion/complete answers at most 100 values, with total and hasMore consistent with them",
		Requirements: []string{"completion.server.quality-and-limits"},
		Proofs:       []Proof{{Fault: "completion-values-unbounded", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			if !t.RequireCapability("completions") {
				return
			}
			c := t.Session()
			s := c.S()
			ref, arg, ok := completionRef(t, s)
			if !t.RequireFixture(ok, "the server offers no prompt argument or resource template variable to complete") {
				return
			}
			r := s.Call(t.Ctx, spec.MethodCompletionComplete, map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": ""}})
			if !t.JudgeReply(r) {
				return
			}
			var res struct {
				Completion struct {
					Values  []json.RawMessage `json:"values"`
					Total   *int64            `json:"total"`
					HasMore *bool             `json:"hasMore"`
				} `json:"completion"`
			}
			if err := json.Unmarshal(r.Result, &res); err != nil {
				t.Fail("a completion result", err.Error())
				return
			}
			cp := res.Completion
			n := int64(len(cp.Values))
			switch {
			case n > 100:
				t.Fail("at most 100 completion values", fmt.Sprintf("%d values", n))
			case cp.Total != nil && *cp.Total < n:
				t.Fail("total counts at least the values returned", fmt.Sprintf("total %d with %d values", *cp.Total, n))
			case cp.Total != nil && *cp.Total > n && cp.HasMore != nil && !*cp.HasMore:
				t.Fail("hasMore is true when total says more matches exist than were returned", fmt.Sprintf("total %d, %d values, hasMore false", *cp.Total, n))
			default:
				t.Saw("%d values (total %v, hasMore %v) for %v argument %s", n, ptrText(cp.Total), ptrText(cp.HasMore), ref, arg)
				t.Pass()
			}
		},
	},
	Def{
		ID: "completion/unknown-ref", Area: "completion",
		Title:        "completion/complete for a prompt the server does not have is refused with -32602",
		Requirements: []string{"completion.errors.standard-codes"},
		Proofs:       []Proof{{Fault: "completion-unknown-prompt-code", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			if !t.RequireCapability("completions") {
				return
			}
			c := t.Session()
			id, st := completionAsk(t, c, map[string]any{"type": "ref/prompt", "name": "mcpcheck_no_such_prompt_7f3a"})
			t.Judge(t.AnswerOn(c.S(), st, expect.Error(id, jsonrpc.InvalidParams)))
		},
	},
	Def{
		ID: "completion/not-supported", Area: "completion",
		Title:        "a server that did not declare completions answers completion/complete with -32601",
		Requirements: []string{"completion.errors.standard-codes"},
		Proofs:       []Proof{{Fault: "completions-undeclared-wrong-code", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			if !t.Require(!t.HasCapability("completions"), "the server declared completions") {
				return
			}
			c := t.Session()
			id, st := completionAsk(t, c, map[string]any{"type": "ref/prompt", "name": "mcpcheck_probe"})
			t.Judge(t.AnswerOn(c.S(), st, expect.Error(id, jsonrpc.MethodNotFound)))
		},
	},
	Def{
		ID: "completion/invalid-ref", Area: "completion",
		Title:        "completion/complete with a reference of an unknown type is refused with an error",
		Requirements: []string{"security.completion.input-and-disclosure"},
		Proofs:       []Proof{{Fault: "completion-bogus-ref-served", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			if !t.RequireCapability("completions") {
				return
			}
			c := t.Session()
			id, st := completionAsk(t, c, map[string]any{"type": "ref/mcpcheck-bogus", "name": "x"})
			t.Expect("implementations validate completion inputs: a reference type MCP does not define is refused")
			t.Judge(t.AnswerOn(c.S(), st, expect.Error(id)))
		},
	},
)

func ptrText[V any](p *V) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprint(*p)
}
