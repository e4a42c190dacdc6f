package client

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Multi round-trip requests (2026-07-28): the client's retry of a request
// answered with input_required carries the inputs asked for, echoes the
// requestState exactly (and invents none), has a new id, and nothing of
// the round leaks into other requests. The checks judge every round in
// every 2026-07-28 scenario; the official scenario
// sep-2322-client-request-state provokes them.

// The official MRTR client scenario and its tools.
const (
	mrtrScenario     = "sep-2322-client-request-state"
	mrtrEchoState    = "test_mrtr_echo_state"
	mrtrUnrelated    = "test_mrtr_unrelated"
	mrtrNoState      = "test_mrtr_no_state"
	mrtrNoResultType = "test_mrtr_no_result_type"
	// mrtrInputKey, mrtrSampleKey and mrtrRootsKey are the keys of the
	// input requests a round asks: an elicitation, a sampling request and
	// a roots listing, each when the client declared what it needs.
	mrtrInputKey  = "confirm"
	mrtrSampleKey = "sample"
	mrtrRootsKey  = "roots"
)

// mrtrState is the requestState of the nth input_required result: opaque
// to the client, and full of what a client that decodes, trims or
// re-encodes it would change (padding, '+', '/', a space, non-ASCII).
func mrtrState(n int64) string {
	return fmt.Sprintf("mcpcheck.v1.%d.eyJzdGVwIjoiY29uZmlybSJ9==.é+/ ~", n)
}

var _ = RegisterScenarios(Scenario{
	Name: mrtrScenario, Eras: StatelessEra,
	Title: "tools answering input_required, each round asking for every input the client declared (a form elicitation, a sampling request, its roots): " + mrtrEchoState + " (inputRequests and a requestState), " + mrtrNoState + " (inputRequests, no requestState), " +
		mrtrNoResultType + " (a result without resultType) and " + mrtrUnrelated,
	Acts: "call " + mrtrEchoState + ", calling " + mrtrUnrelated + " while it waits for input, retry it with the inputs and its requestState; call " +
		mrtrNoState + " and retry it; call " + mrtrNoResultType,
	Stage: func(Env) stage.Config {
		var states atomic.Int64
		var noType sync.Map // ids of the calls of test_mrtr_no_result_type
		ask := func(c *server.Call) map[string]mcp.InputRequest { return mrtrAsk(c.ClientCapabilities()) }
		text := func(s string) (any, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text(s)}}, nil
		}
		tool := func(name, desc string, run func(c *server.Call) (any, error)) server.Tool {
			return server.Tool{Def: mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}, Run: run}
		}
		return stage.Config{Server: server.Options{NoFixtures: true,
			Tools: []server.Tool{
				tool(mrtrEchoState, "Asks for input with a requestState the retry must echo", func(c *server.Call) (any, error) {
					if mrtrIsRetry(c) {
						return text("retry received")
					}
					return c.InputRequired(ask(c), mrtrState(states.Add(1)))
				}),
				tool(mrtrNoState, "Asks for input without a requestState", func(c *server.Call) (any, error) {
					q := ask(c)
					if mrtrIsRetry(c) || q == nil {
						return text("done")
					}
					return c.InputRequired(q, "")
				}),
				tool(mrtrNoResultType, "Answers with a result that has no resultType", func(c *server.Call) (any, error) {
					noType.Store(c.ID().String(), true)
					return text("a result without resultType")
				}),
				tool(mrtrUnrelated, "Answers at once", func(*server.Call) (any, error) { return text("unrelated") }),
			},
			Rewrite: func(o server.Outgoing) [][]byte {
				if _, ok := noType.Load(o.Request.String()); ok && !o.Request.IsZero() {
					return [][]byte{StatelessStripResultType(o.Msg)}
				}
				return [][]byte{o.Msg}
			},
		}}
	},
})

// mrtrAsk is what a round asks a client that declared caps: a form
// elicitation, a sampling request and its roots, each when declared (nil
// when none is).
func mrtrAsk(caps mcp.ClientCapabilities) map[string]mcp.InputRequest {
	q := map[string]mcp.InputRequest{}
	if caps.Elicitation.SupportsForm() {
		q[mrtrInputKey] = mcp.InputRequest{Method: spec.MethodElicitationCreate, Params: &mcp.ElicitParams{Mode: mcp.ElicitForm, Message: "mcpcheck asks you to confirm",
			RequestedSchema: &mcp.RequestedSchema{Type: "object", Properties: map[string]mcp.PrimitiveSchema{"confirmed": {Type: "boolean"}}, Required: []string{"confirmed"}}}}
	}
	if caps.Sampling != nil {
		q[mrtrSampleKey] = mcp.InputRequest{Method: spec.MethodSamplingCreateMessage, Params: &mcp.CreateMessageParams{
			Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Single(&mcp.TextContent{Text: "mcpcheck asks: say yes"})}}, MaxTokens: 20}}
	}
	if caps.Roots != nil {
		q[mrtrRootsKey] = mcp.InputRequest{Method: spec.MethodRootsList, Params: &mcp.ListRootsParams{}}
	}
	if len(q) == 0 {
		return nil
	}
	return q
}

// mrtrIsRetry reports whether a tools/call the stage serves carries
// inputResponses or requestState (it is a retry).
func mrtrIsRetry(c *server.Call) bool {
	var p map[string]json.RawMessage
	_ = json.Unmarshal(c.Params(), &p)
	_, a := p["inputResponses"]
	_, b := p["requestState"]
	return a || b
}

// mrtrRound is one input_required answer of the stage and the client's
// retry of it.
type mrtrRound struct {
	req, ans Msg
	// keys are the inputRequests keys, methods the method each asks;
	// state the requestState (hasState false when the result had none).
	keys     []string
	methods  map[string]string
	state    string
	hasState bool
	// retry is the client's retry: the first later request of the same
	// method and target carrying inputResponses or requestState (nil when
	// the client did not retry, which it may).
	retry *Msg
}

// mrtrRounds returns the rounds of a case, in order.
func mrtrRounds(c *Case) []mrtrRound {
	var rounds []mrtrRound
	claimed := map[int]bool{}
	reqs := c.Requests("")
	for _, req := range reqs {
		if !mcp.SupportsInputRequired(req.Msg.Method) {
			continue
		}
		ans, ok := c.StageAnswer(req)
		if !ok || ans.Msg.Shape != jsonrpc.KindResponse {
			continue
		}
		if rt, err := mcp.ResultTypeOf(ans.Msg.Result); err != nil || rt != mcp.ResultInputRequired {
			continue
		}
		var ir struct {
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			RequestState  *string                    `json:"requestState"`
		}
		_ = json.Unmarshal(ans.Msg.Result, &ir)
		r := mrtrRound{req: req, ans: ans, methods: map[string]string{}}
		for k, raw := range ir.InputRequests {
			r.keys = append(r.keys, k)
			var q struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(raw, &q)
			r.methods[k] = q.Method
		}
		sort.Strings(r.keys)
		if ir.RequestState != nil {
			r.state, r.hasState = *ir.RequestState, true
		}
		for i := range reqs {
			later := reqs[i]
			if later.Seq <= ans.Seq || claimed[later.Seq] || later.Msg.Method != req.Msg.Method || StatelessTarget(later) != StatelessTarget(req) || !slHasMRTRFields(later) {
				continue
			}
			claimed[later.Seq] = true
			r.retry = &reqs[i]
			break
		}
		rounds = append(rounds, r)
	}
	return rounds
}

// mrtrEachRound calls judge with every round of the check's cases that pick
// selects, and ends the check untestable (needs says what the client did
// not do) when there was none.
func mrtrEachRound(t *T, needs, saw string, pick func(r mrtrRound) bool, judge func(c *Case, r mrtrRound)) {
	n := 0
	for _, c := range t.Cases() {
		if c.Scenario.Name == inUndeclaredScenario {
			// It asks for what the client did not declare: how a client
			// fulfils such a round is not what the MRTR rules are about.
			continue
		}
		for _, r := range mrtrRounds(c) {
			if !pick(r) {
				continue
			}
			n++
			judge(c, r)
		}
	}
	if n == 0 {
		mrtrUntestable(t, needs)
		return
	}
	t.Saw(saw, n)
	t.Pass()
}

// mrtrUntestable ends an MRTR check untestable, giving the reason of the
// scenario that provokes rounds (the others provoke none).
func mrtrUntestable(t *T, needs string) { StatelessUntestableIn(t, mrtrScenario, needs) }

func mrtrDescribe(c *Case, r mrtrRound) string {
	s := r.req.Msg.Method
	if tg := StatelessTarget(r.req); tg != "" {
		s += " " + tg
	}
	return fmt.Sprintf("%s (%s)", s, Where(c, r.req))
}

var _ = Register(
	Def{
		ID: "client/mrtr/echo-request-state", Area: "mrtr", Eras: StatelessEra,
		Title:        "a retry echoes the requestState of the input_required result exactly, unaltered",
		Requirements: []string{"mrtr.client.echo-request-state", "mrtr.client.request-state-opaque"},
		Proofs: []Proof{{Fault: "mrtr-drop-request-state", Want: reports.Fail}, {Fault: "mrtr-alter-request-state", Want: reports.Fail},
			{Fault: "mrtr-alter-request-state", Transport: Streamable, Want: reports.Fail}},
		Body: func(t *T) {
			mrtrEachRound(t, "retry a request answered with input_required and a requestState ("+mrtrEchoState+")", "%d retries, each echoing the requestState exactly",
				func(r mrtrRound) bool { return r.hasState && r.retry != nil },
				func(c *Case, r mrtrRound) {
					raw, ok := StatelessParams(*r.retry)["requestState"]
					if !ok {
						t.Violation("mrtr.client.echo-request-state", fmt.Sprintf("the retry of %s carries requestState %q", mrtrDescribe(c, r), r.state),
							"the retry has no requestState: "+Excerpt(*r.retry))
						return
					}
					var got string
					if json.Unmarshal(raw, &got) != nil || got != r.state {
						actual := fmt.Sprintf("the retry of %s carries requestState %s instead of %q (%s)", mrtrDescribe(c, r), string(raw), r.state, Where(c, *r.retry))
						t.Violation("mrtr.client.echo-request-state", "the retry echoes requestState byte for byte", actual)
						t.Violation("mrtr.client.request-state-opaque", "requestState is opaque: the client passes it back unaltered", actual)
					}
				})
		},
	},
	Def{
		ID: "client/mrtr/no-invented-state", Area: "mrtr", Eras: StatelessEra,
		Title:        "a retry of an input_required result without requestState carries none",
		Requirements: []string{"mrtr.client.no-invented-request-state"},
		Proofs:       []Proof{{Fault: "mrtr-invent-request-state", Want: reports.Fail}},
		Body: func(t *T) {
			mrtrEachRound(t, "retry a request answered with input_required without a requestState ("+mrtrNoState+")", "%d retries of results without requestState, none inventing one",
				func(r mrtrRound) bool { return !r.hasState && r.retry != nil },
				func(c *Case, r mrtrRound) {
					if raw, ok := StatelessParams(*r.retry)["requestState"]; ok {
						t.Fail("no requestState in the retry when the input_required result had none",
							fmt.Sprintf("the retry of %s carries requestState %s (%s)", mrtrDescribe(c, r), string(raw), Where(c, *r.retry)))
					}
				})
		},
	},
	Def{
		ID: "client/mrtr/fulfil-input-requests", Area: "mrtr", Eras: StatelessEra,
		Title:        "a retry carries inputResponses answering every key of the inputRequests",
		Requirements: []string{"mrtr.client.fulfil-before-retry"},
		Proofs:       []Proof{{Fault: "mrtr-retry-without-responses", Want: reports.Fail}},
		Body: func(t *T) {
			mrtrEachRound(t, "retry a request answered with input_required with inputRequests ("+mrtrEchoState+")", "%d retries, each answering every input request",
				func(r mrtrRound) bool { return len(r.keys) > 0 && r.retry != nil },
				func(c *Case, r mrtrRound) {
					var got map[string]json.RawMessage
					raw, ok := StatelessParams(*r.retry)["inputResponses"]
					if ok {
						_ = json.Unmarshal(raw, &got)
					}
					var missing []string
					for _, k := range r.keys {
						if !slIsObject(got[k]) {
							missing = append(missing, k)
						}
					}
					if len(missing) > 0 {
						t.Fail(fmt.Sprintf("the retry carries inputResponses with a result for each of %s", strings.Join(r.keys, ", ")),
							fmt.Sprintf("the retry of %s has inputResponses %s, without a result for %s (%s)", mrtrDescribe(c, r), slDescribeRaw(raw), strings.Join(missing, ", "), Where(c, *r.retry)))
					}
				})
		},
	},
	Def{
		ID: "client/mrtr/retry-new-id", Area: "mrtr", Eras: StatelessEra,
		Title:        "a retry is a new request with an id of its own",
		Requirements: []string{"mrtr.client.retry-new-id"},
		Proofs:       []Proof{{Fault: "mrtr-retry-same-id", Want: reports.Fail}},
		Body: func(t *T) {
			mrtrEachRound(t, "retry a request answered with input_required ("+mrtrEchoState+")", "%d retries, each with a new id",
				func(r mrtrRound) bool { return r.retry != nil },
				func(c *Case, r mrtrRound) {
					if r.retry.Msg.ID == r.req.Msg.ID {
						t.Fail("the retry's JSON-RPC id differs from the original request's",
							fmt.Sprintf("the retry of %s reuses id %s (%s)", mrtrDescribe(c, r), r.req.Msg.ID, Where(c, *r.retry)))
					}
				})
		},
	},
	Def{
		ID: "client/mrtr/no-cross-request-reuse", Area: "mrtr", Eras: StatelessEra,
		Title:        "inputResponses and requestState of a round go only into its retry, never into other requests",
		Requirements: []string{"mrtr.client.no-cross-request-reuse"},
		Proofs:       []Proof{{Fault: "mrtr-leak-request-state", Want: reports.Fail}},
		Body: func(t *T) {
			n := 0
			for _, c := range t.Cases() {
				rounds := mrtrRounds(c)
				if len(rounds) == 0 {
					continue
				}
				retries := map[int]mrtrRound{}
				issued := map[string]mrtrRound{}
				for _, r := range rounds {
					if r.retry != nil {
						retries[r.retry.Seq] = r
					}
					if r.hasState {
						issued[r.state] = r
					}
				}
				for _, m := range c.Requests("") {
					if m.Seq <= rounds[0].ans.Seq {
						continue
					}
					var state string
					hasState := json.Unmarshal(StatelessParams(m)["requestState"], &state) == nil
					if r, ok := retries[m.Seq]; ok {
						if from, ok := issued[state]; hasState && ok && (from.req.Msg.Method != r.req.Msg.Method || StatelessTarget(from.req) != StatelessTarget(r.req)) {
							t.Fail("a retry carries only what its own round gave it",
								fmt.Sprintf("the retry of %s carries the requestState given to %s (%s)", mrtrDescribe(c, r), mrtrDescribe(c, from), Where(c, m)))
						}
						continue
					}
					n++
					if !slHasMRTRFields(m) {
						continue
					}
					what := "inputResponses or requestState"
					if from, ok := issued[state]; hasState && ok {
						what = "the requestState given to " + mrtrDescribe(c, from)
					}
					name := m.Msg.Method
					if tg := StatelessTarget(m); tg != "" {
						name += " " + tg
					}
					t.Fail("requests other than the retry of an input_required request carry no inputResponses or requestState",
						fmt.Sprintf("%s, which no input_required answer asked to retry, carries %s (%s)", name, what, Where(c, m)))
				}
			}
			if n == 0 {
				mrtrUntestable(t, "make another request while or after an input_required round is open ("+mrtrUnrelated+")")
				return
			}
			t.Saw("%d requests besides retries after an input_required round, none carrying its fields", n)
			t.Pass()
		},
	},
)
