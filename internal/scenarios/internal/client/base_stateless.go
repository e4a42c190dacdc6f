package client

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The base layer of 2026-07-28: _meta on every request, the directions
// messages travel, resultType, and neutrality towards the server's name.
var _ = Register(
	Def{
		ID: "client/base/request-meta", Area: "base", Eras: StatelessEra,
		Title:        "every request carries _meta protocolVersion (a string) and clientCapabilities (an object)",
		Requirements: []string{"base.meta.required-request-fields"},
		Proofs:       []Proof{{Fault: "meta-no-capabilities", Want: reports.Fail}, {Fault: "meta-no-capabilities", Transport: Streamable, Want: reports.Fail}},
		Body: func(t *T) {
			t.EachMessage(Rule{Expected: "params._meta carries io.modelcontextprotocol/protocolVersion (a string) and io.modelcontextprotocol/clientCapabilities (an object)",
				None: "the client sent no 2026-07-28 request", Saw: "%d requests, each with protocolVersion and clientCapabilities in _meta"},
				slModernRequest(func(c *Case, m Msg) string {
					var missing []string
					meta := metaOf(m)
					if !slIsString(meta[mcp.MetaProtocolVersion]) {
						missing = append(missing, "protocolVersion "+slDescribeRaw(meta[mcp.MetaProtocolVersion]))
					}
					if !slIsObject(meta[mcp.MetaClientCapabilities]) {
						missing = append(missing, "clientCapabilities "+slDescribeRaw(meta[mcp.MetaClientCapabilities]))
					}
					if len(missing) == 0 {
						return ""
					}
					return fmt.Sprintf("%s (%s): %s; %s", m.Msg.Method, Where(c, m), strings.Join(missing, ", "), Excerpt(m))
				}))
		},
	},
	Def{
		ID: "client/base/client-info", Area: "base", Eras: StatelessEra,
		Title:        "every request names the client in _meta io.modelcontextprotocol/clientInfo",
		Requirements: []string{"base.meta.client-info-on-requests"},
		Proofs:       []Proof{{Fault: "meta-no-client-info", Want: reports.Warn}},
		Body: func(t *T) {
			t.EachMessage(Rule{Expected: "params._meta carries io.modelcontextprotocol/clientInfo with a name and a version",
				None: "the client sent no 2026-07-28 request", Saw: "%d requests, each with clientInfo"},
				slModernRequest(func(c *Case, m Msg) string {
					raw := metaOf(m)[mcp.MetaClientInfo]
					var info struct {
						Name    *string `json:"name"`
						Version *string `json:"version"`
					}
					if raw != nil && json.Unmarshal(raw, &info) == nil && info.Name != nil && info.Version != nil {
						return ""
					}
					return fmt.Sprintf("%s (%s) has clientInfo %s", m.Msg.Method, Where(c, m), slDescribeRaw(raw))
				}))
		},
	},
	Def{
		ID: "client/base/stateless-directions", Area: "base", Eras: StatelessEra,
		Title:        "the client sends requests and notifications only, never a JSON-RPC response",
		Requirements: []string{"base.transport.binding-delivery-directions"},
		Proofs:       []Proof{{Fault: "stateless-stray-response", Want: reports.Fail}},
		Body:         StatelessNoResponses,
	},
	Def{
		ID: "client/base/result-type-absent", Area: "base", Eras: StatelessEra,
		Scenarios:    []string{StatelessScenFlow, StatelessScenResultAbsent, mrtrScenario},
		Title:        "a result without resultType is used as a complete one",
		Requirements: []string{"base.result-type.absent-means-complete"},
		Proofs:       []Proof{{Fault: "absent-result-type-invalid", Want: reports.Fail}},
		Body: func(t *T) {
			cs := StatelessCasesByName(t)
			n := 0
			if c := cs[StatelessScenResultAbsent]; c != nil {
				switch ok, why := StatelessCompareWithFlow(cs[StatelessScenFlow], c); {
				case why != "":
					t.Saw("%s", why)
				case ok:
					n++
					t.Saw("without resultType the client went on to call %s, as in the baseline (%s)", StatelessEchoTool, c.Scenario.Name)
				default:
					n++
					t.Fail("results without resultType are complete results: the client uses the tools/list result and calls "+StatelessEchoTool+" as it did in "+StatelessScenFlow,
						fmt.Sprintf("the client never called %s in %s, where no result carries resultType (it %s)", StatelessEchoTool, c.Scenario.Name, c.Exit))
				}
			}
			if c := cs[mrtrScenario]; c != nil {
				for _, req := range slToolCalls(c, mrtrNoResultType) {
					ans, ok := c.StageAnswer(req)
					if !ok || ans.Msg.Shape != jsonrpc.KindResponse {
						continue
					}
					n++
					t.Saw("the client got %s's result without resultType (%s)", mrtrNoResultType, c.Scenario.Name)
					for _, later := range c.Requests(spec.MethodToolsCall) {
						if later.Seq > ans.Seq && StatelessTarget(later) == mrtrNoResultType && slHasMRTRFields(later) {
							t.Fail("a result without resultType is complete: no input_required retry follows it",
								fmt.Sprintf("after the result of %s without resultType the client retried it with inputResponses or requestState: %s (%s)", mrtrNoResultType, Excerpt(later), Where(c, later)))
							break
						}
					}
					break
				}
			}
			if n == 0 {
				t.NeedAction(false, "call "+StatelessEchoTool+" after a tools/list result without resultType, or call "+mrtrNoResultType)
				return
			}
			t.Pass()
		},
	},
	Def{
		ID: "client/base/result-type-unknown", Area: "base", Eras: StatelessEra,
		Scenarios:    []string{StatelessScenFlow, StatelessScenResultUnknown, StatelessScenResultUnnegot},
		Title:        "a result whose resultType is unknown, or belongs to an extension not negotiated, is not used",
		Requirements: []string{"base.result-type.unknown-invalid", "base.result-type.supported-set"},
		Proofs: []Proof{{Fault: "accept-unknown-result-type", Want: reports.Fail},
			{Fault: "accept-unnegotiated-result-type", Want: reports.Fail}},
		Body: func(t *T) {
			cs := StatelessCasesByName(t)
			base := cs[StatelessScenFlow]
			n := 0
			for _, v := range []struct{ scen, req, rt string }{
				{StatelessScenResultUnknown, "base.result-type.unknown-invalid", StatelessUnknownResultType},
				{StatelessScenResultUnnegot, "base.result-type.supported-set", StatelessUnnegotiatedResult},
			} {
				c := cs[v.scen]
				if c == nil {
					continue
				}
				switch {
				case !slAnsweredResultType(c, spec.MethodToolsList, v.rt):
					t.Saw("in %s the stage sent no tools/list result with resultType %q (the client did not list tools, or declared the extension)", v.scen, v.rt)
				case slCalled(c, StatelessEchoTool):
					n++
					t.Violation(v.req, fmt.Sprintf("a tools/list result with resultType %q is invalid: the client does not use the tools it lists", v.rt),
						fmt.Sprintf("the client called %s, which only that result listed (%s)", StatelessEchoTool, v.scen))
				case base == nil || !slCalled(base, StatelessEchoTool):
					t.Saw("in %s the client did not call %s, but it did not call it in the baseline %s either: nothing tells rejection from inaction", v.scen, StatelessEchoTool, StatelessScenFlow)
				default:
					n++
					t.Saw("with resultType %q the client did not use the listed tools (%s), though it called %s in the baseline", v.rt, v.scen, StatelessEchoTool)
				}
			}
			if n == 0 {
				t.NeedAction(false, "list the tools and call "+StatelessEchoTool)
				return
			}
			t.Pass()
		},
	},
	Def{
		ID: "client/base/identity-neutral", Area: "base", Eras: StatelessEra,
		Scenarios:    []string{StatelessScenFlow, StatelessScenIdentity},
		Title:        "the client makes the same requests whatever name the server reports in serverInfo",
		Requirements: []string{"base.meta.implementation-info-no-behaviour-change"},
		Proofs:       []Proof{{Fault: "server-name-allowlist", Want: reports.Warn}},
		Body: func(t *T) {
			cs := StatelessCasesByName(t)
			base, alt := cs[StatelessScenFlow], cs[StatelessScenIdentity]
			if base == nil || alt == nil {
				t.NotApplicable("the baseline or the identity scenario did not run")
				return
			}
			// Two launches compare only when both ran their course: one
			// that never connected, or was cut short while the other
			// ended by itself, says nothing about server names.
			for _, c := range []*Case{base, alt} {
				if !c.Traffic() {
					t.Untestable(fmt.Sprintf("nothing to compare: %s", c.UntestableWhy("")))
					return
				}
			}
			if base.TimedOut != alt.TimedOut {
				cut, other := base, alt
				if alt.TimedOut {
					cut, other = alt, base
				}
				t.Untestable(fmt.Sprintf("nothing to compare: in %s the client was stopped at the case's time limit while in %s it %s, so their requests differ for another reason than the server's name",
					cut.Scenario.Name, other.Scenario.Name, other.Exit))
				return
			}
			a, b := slRequestSummary(base), slRequestSummary(alt)
			if !t.NeedAction(len(a) > 0, "make a request other than server/discover") {
				return
			}
			if strings.Join(a, ", ") != strings.Join(b, ", ") {
				t.Fail("the same requests whether the server calls itself "+slStageServerName+" or "+StatelessOtherServerName,
					fmt.Sprintf("%s: [%s]; %s: [%s]", StatelessScenFlow, strings.Join(a, ", "), StatelessScenIdentity, strings.Join(b, ", ")))
				return
			}
			t.Saw("the same requests under both server names: %s", strings.Join(a, ", "))
			t.Pass()
		},
	},
)
