package client

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/schema"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The JSON-RPC base layer, judged on everything the client sent in every
// scenario: the same rules (internal/harness/rules) the server suite holds servers
// to, with the direction turned around.

var _ = Register(
	Def{
		ID: "client/base/jsonrpc", Area: "base",
		Title:        "every message the client sends is valid JSON-RPC 2.0 and conforms to the version's schema",
		Requirements: []string{rules.ReqJSONRPC2},
		Proofs: []Proof{{Fault: "invalid-jsonrpc", Want: reports.Fail},
			{Fault: "stateless-batch-requests", Want: reports.Fail},
			{Fault: "stateless-batch-requests", Transport: Streamable, Want: reports.Fail},
			{Fault: "elicit-content-object", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "elicit-content-object", Version: spec.V20260728, Transport: Streamable, Want: reports.Fail},
			{Fault: "roots-without-uri", Version: spec.V20250618, Want: reports.Fail},
			{Fault: "roots-without-uri", Version: spec.V20260728, Want: reports.Fail},
			{Fault: "roots-answered-as-elicitation", Version: spec.V20260728, Transport: Streamable, Want: reports.Fail},
			{Fault: "sampling-model-number", Version: spec.V20251125, Transport: Streamable, Want: reports.Fail},
			{Fault: "sampling-model-number", Version: spec.V20260728, Want: reports.Fail},
			{Fault: "ping-result-meta-string", Version: spec.V20241105, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				// The method each response answers, paired on its connection
				// ("" for a batch of answers to different methods).
				methods := map[int]string{}
				for _, a := range c.ClientAnswers() {
					if !a.Found {
						continue
					}
					if prev, ok := methods[a.Response.Seq]; ok && prev != a.Request.Msg.Method {
						methods[a.Response.Seq] = ""
						continue
					}
					methods[a.Response.Seq] = a.Request.Msg.Method
				}
				flagged := map[int]bool{} // messages already found invalid
				for _, m := range c.Client() {
					n++
					if c.IsDiscoverProbe(m) {
						// A dual-era client's server/discover probe (2026-07-28
						// asks clients to probe so): judged by the 2026 rules.
						continue
					}
					v := c.SchemaVersion(m)
					if m.Msg.Has(jsonrpc.ReasonBatch) && v != spec.V20250326 {
						// Only 2025-03-26 has batches; the codec's own
						// words for an array are about decoding it.
						bad++
						flagged[m.Seq] = true
						elems, _ := jsonrpc.DecodeBatch(m.Raw)
						t.Breach(c, rules.Breach{Rule: "jsonrpc/batch", Requirement: rules.ReqJSONRPC2, Expected: "every message is one JSON-RPC message (only 2025-03-26 allows batches)",
							Actual: fmt.Sprintf("a JSON-RPC batch (an array of %s) in %s: %s", plural(len(elems), "message"), v, Excerpt(m))})
						continue
					}
					if b, broke := rules.Invalid(v, m.Msg, nil); broke {
						bad++
						flagged[m.Seq] = true
						t.Breach(c, rules.Breach{Rule: b.Rule, Requirement: rules.ReqJSONRPC2, Expected: "every message is valid JSON-RPC 2.0", Actual: b.Actual + " in " + Excerpt(m)})
						continue
					}
					answers := methods[m.Seq]
					vs := rules.SortViolations(rules.Schema(v, spec.ClientToServer, answers, m.Msg))
					if m.Msg.Method == spec.MethodInitialize && m.Msg.Shape == jsonrpc.KindRequest && v.Era() == spec.Stateful {
						// What every initialize must hold is
						// client/lifecycle/initialize-params' to judge.
						kept := vs[:0]
						for _, vi := range vs {
							if !lcInitializeParamPointers[vi.Pointer] {
								kept = append(kept, vi)
							}
						}
						vs = kept
					}
					for _, vi := range vs {
						bad++
						t.Breach(c, rules.Breach{Rule: "schema", Requirement: rules.ReqJSONRPC2, Expected: "every message conforms to the " + string(v) + " schema", Actual: vi.String() + " in " + Excerpt(m)})
						break
					}
					if len(vs) > 0 {
						flagged[m.Seq] = true
					}
				}
				bad += inputResponsesInvalid(t, c, flagged)
			}
			t.Settle(n, bad, "the client sent no message", "%d messages, all valid")
		},
	},
	Def{
		ID: "client/base/utf8", Area: "base",
		Title:        "every message the client sends is UTF-8",
		Requirements: []string{rules.ReqUTF8},
		Proofs:       []Proof{{Fault: "latin1-message", Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, e := range c.Frames() {
					if e.Kind == wire.KindTooLong {
						continue
					}
					n++
					if b, broke := rules.UTF8(t.Version(), e.Raw); broke {
						bad++
						t.Breach(c, b)
					}
				}
			}
			t.Settle(n, bad, "the client sent no message", "%d messages, all UTF-8")
		},
	},
	Def{
		ID: "client/base/request-ids", Area: "base",
		Title:        "the client's requests carry string or integer ids, never null, never reused while they must not be",
		Requirements: []string{rules.ReqIDStringOrInteger, rules.ReqIDNotNull, rules.ReqIDUniqueInSession, rules.ReqIDUniqueOutstanding},
		Proofs:       []Proof{{Fault: "reuse-request-id", Version: spec.V20251125, Want: reports.Fail}, {Fault: "reuse-request-id", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				// One ledger per session: a stdio connection, or an HTTP
				// session (stateless requests share one: ids only need to
				// differ among outstanding ones).
				ledgers := map[string]*rules.RequestIDs{}
				for _, e := range c.Events {
					if !e.IsMessage() {
						continue
					}
					key := c.Session(e)
					l := ledgers[key]
					if l == nil {
						l = rules.NewRequestIDs(spec.ClientToServer, 0)
						ledgers[key] = l
					}
					switch {
					case e.From == stage.FromClient && rules.IsRequest(e.Msg):
						n++
						if b, broke := l.Request(t.Version(), e.Msg); broke {
							bad++
							t.Breach(c, b)
						}
					case e.From == stage.FromStage && e.Msg.Shape.IsResponse():
						l.Answered(e.Msg.ID)
					}
				}
			}
			t.Settle(n, bad, "the client sent no request", "%d requests, ids well formed and not reused")
		},
	},
	Def{
		ID: "client/base/notifications", Area: "base",
		Title:        "the client's notifications carry no id",
		Requirements: []string{rules.ReqNotificationNoID},
		Proofs:       []Proof{{Fault: "notification-with-id", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			t.EachMessage(Rule{Expected: "a notification has no id member", None: "the client sent no notification", Saw: "%d notifications, none with an id"},
				func(c *Case, m Msg) (bool, string) {
					b, counted, broke := rules.NotificationID(t.Version(), m.Msg)
					if broke {
						return true, b.Actual
					}
					return counted, ""
				})
		},
	},
	Def{
		ID: "client/base/response-shape", Area: "base",
		Title:        "the client's responses carry exactly one of result and error, and well-formed errors",
		Requirements: []string{rules.ReqNotResultAndError, rules.ReqResultOrError, rules.ReqResultMemberPresent, rules.ReqErrorCodeInteger, rules.ReqErrorCodeAndMessage, rules.ReqJSONRPC2},
		Proofs:       []Proof{{Fault: "response-result-and-error", Version: spec.V20250618, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, m := range c.Client() {
					if !m.Msg.Shape.IsResponse() && !m.Msg.Has(jsonrpc.ReasonResultAndError) && !m.Msg.Has(jsonrpc.ReasonNoMethodResultOrError) {
						continue
					}
					n++
					if b, broke := rules.ResponseShape(t.Version(), m.Msg); broke {
						bad++
						t.Breach(c, b)
						continue
					}
					if b, _, broke := rules.ErrorObject(t.Version(), m.Msg); broke {
						bad++
						t.Breach(c, b)
					}
				}
			}
			t.Settle(n, bad, "the client sent no response (the stage's requests to it came in other scenarios, or it answered none)", "%d responses, all well formed")
		},
	},
	Def{
		ID: "client/base/response-ids", Area: "base",
		Title:        "the client's responses echo the id of the stage request they answer, and answer nothing else",
		Requirements: []string{rules.ReqIDMatchesRequest, rules.ReqErrorIDMatchesRequest, rules.ReqNotificationNoReply},
		Proofs:       []Proof{{Fault: "response-id-mismatch", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, a := range c.ClientAnswers() {
					n++
					if a.Found {
						continue
					}
					bad++
					req := rules.ReqIDMatchesRequest
					if a.Response.Msg.Shape == jsonrpc.KindErrorResponse && t.InForce(rules.ReqErrorIDMatchesRequest) {
						req = rules.ReqErrorIDMatchesRequest
					}
					t.Violation(req, "a response carries the id of a request the stage sent on that connection",
						fmt.Sprintf("the client answered id %s, which no stage request had: %s (%s)", a.Response.Msg.ID, Excerpt(a.Response), c.Scenario.Name))
				}
			}
			t.Settle(n, bad, "the client sent no response", "%d responses, each to a stage request")
		},
	},
)

var _ = Register(Def{
	ID: "client/base/batch-answered", Area: "base", Since: spec.V20250326, Until: spec.V20250326, Scenarios: []string{ServerRequestsScenario},
	Title:        "in 2025-03-26 the client takes a JSON-RPC batch (the stage sends two pings in one) and answers every request in it, as one batch response or one by one",
	Requirements: []string{"base.batch.receiving-required"},
	Proofs:       []Proof{{Fault: "batch-ignored", Version: spec.V20250326, Want: reports.Fail}},
	Body: func(t *T) {
		n, bad := 0, 0
		for _, c := range t.Cases() {
			answers := c.ClientAnswers()
			for _, e := range c.Events {
				if e.From != stage.FromStage || !e.IsMessage() || !e.Msg.Has(jsonrpc.ReasonBatch) {
					continue
				}
				n++
				answered := map[jsonrpc.ID]bool{}
				for _, a := range answers {
					if a.Found && a.Request.Seq == e.Seq {
						answered[a.Request.Msg.ID] = true
					}
				}
				var missing []string
				for _, el := range BatchElements(e) {
					if el.Msg.Shape == jsonrpc.KindRequest && !answered[el.Msg.ID] {
						missing = append(missing, el.Msg.ID.String())
					}
				}
				if len(missing) > 0 {
					bad++
					t.Fail("an answer to every request of a batch the server sends",
						fmt.Sprintf("the stage sent %s; the client answered %d of its requests, none to id %s; it %s (%s)", Excerpt(e), len(answered), strings.Join(missing, ", "), c.Exit, c.Scenario.Name))
				}
			}
		}
		t.SettleActed(n, bad, "make a request other than ping after initialization (the stage sends its batch while serving it)", "%d batches, every request in them answered")
	},
})

var _ = Register(Def{
	ID: "client/base/layers-2026", Area: "base", Eras: StatelessEra, Scenarios: []string{mrtrScenario},
	Title:        "a 2026-07-28 client speaks the multi round-trip pattern every implementation must: it fulfils input_required results and retries",
	Requirements: []string{"base.layers.support-base-versioning-patterns"},
	Proofs:       []Proof{{Fault: "mrtr-unsupported", Want: reports.Fail}},
	Body: func(t *T) {
		n, retried := 0, 0
		var first string
		for _, c := range t.Cases() {
			for _, r := range mrtrRounds(c) {
				n++
				if r.retry != nil {
					retried++
				} else if first == "" {
					first = mrtrDescribe(c, r)
				}
			}
		}
		switch {
		case n == 0:
			mrtrUntestable(t, "call the tools that answer input_required")
		case retried == 0:
			t.Fail("the client fulfils input_required results and retries the request (multi round-trip requests are a core pattern of 2026-07-28)",
				fmt.Sprintf("it retried none of the %d requests the stage answered with input_required, the first %s", n, first))
		default:
			t.Saw("the client retried %d of %d requests answered with input_required", retried, n)
			t.Pass()
		}
	},
})

// inputResultDefs names the result each input request of 2026-07-28 is
// answered with.
var inputResultDefs = map[string]string{
	spec.MethodElicitationCreate:     "ElicitResult",
	spec.MethodSamplingCreateMessage: "CreateMessageResult",
	spec.MethodRootsList:             "ListRootsResult",
}

// inputResponsesInvalid holds each value of a 2026-07-28 retry's
// inputResponses to the result its input request asked for (the message
// schema only asks for one of the three results, so a sampling result given
// for an elicitation passes it), and returns how many values broke it.
// Retries already found invalid as messages are not judged again.
func inputResponsesInvalid(t *T, c *Case, flagged map[int]bool) int {
	if c.Version.Era() != spec.Stateless {
		return 0
	}
	bad := 0
	for _, r := range mrtrRounds(c) {
		if r.retry == nil || flagged[r.retry.Seq] {
			continue
		}
		var p struct {
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
		}
		_ = json.Unmarshal(r.retry.Msg.Params, &p)
		for _, k := range r.keys {
			def, raw := inputResultDefs[r.methods[k]], p.InputResponses[k]
			if def == "" || raw == nil {
				continue // a missing answer is mrtr/fulfils' to judge
			}
			var vs []schema.Violation
			for _, vi := range schema.ValidateDef(c.SchemaVersion(*r.retry), def, raw) {
				if rules.Erratum(vi, raw) == "" {
					vs = append(vs, vi)
				}
			}
			if len(vs) == 0 {
				continue
			}
			bad++
			vi := rules.SortViolations(vs)[0]
			vi.Pointer = "/params/inputResponses/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1") + vi.Pointer
			t.Breach(c, rules.Breach{Rule: "schema", Requirement: rules.ReqJSONRPC2, Expected: fmt.Sprintf("each inputResponses value is the result its input request asked for (%s for %s)", def, r.methods[k]),
				Actual: vi.String() + " in " + Excerpt(*r.retry)})
			flagged[r.retry.Seq] = true
			break
		}
	}
	return bad
}

// plural says n things: "1 message", "2 messages".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
