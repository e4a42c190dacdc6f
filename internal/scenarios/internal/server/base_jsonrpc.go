package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// JSON-RPC base layer: ids, error codes, result xor error, notifications,
// malformed input and batches. The active checks send something and judge
// the answer; the passive ones (Passive: true) judge every message the
// target sent during the version's run.

// SentinelMethod is the request every server of the era answers.
func SentinelMethod(v spec.Version) string {
	if v.Era() == spec.Stateless {
		return spec.MethodServerDiscover
	}
	return spec.MethodPing
}

var _ = Register(
	Def{
		ID: "base/response-id-echo", Area: "base",
		Title:        "a response echoes the request's id exactly, for a string id and an integer id",
		Requirements: []string{"base.response.id-matches-request"},
		Proofs:       []Proof{{Fault: "result-id-truncated", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Session()
			for _, id := range []jsonrpc.ID{jsonrpc.StringID("mcpcheck-id-echo-1"), jsonrpc.IntID(900001)} {
				st := t.SendWithID(c, id, SentinelMethod(t.Version()), nil)
				if !t.Judge(t.AnswerOn(c.S(), st, expect.Matching(
					fmt.Sprintf("a response whose id is %s", id),
					func(f wire.Frame) (expect.Verdict, string) {
						if !IsResponse(f) || answersOther(c.S(), f, id) {
							return expect.Unrelated, ""
						}
						if f.IsResponseTo(id) {
							return expect.Accepted, ""
						}
						return expect.Rejected, fmt.Sprintf("the response carries id %s instead of %s", strings.TrimSpace(IDText(f)), id)
					}))) {
					return
				}
			}
		},
	},
	Def{
		ID: "base/error-id-echo", Area: "base",
		Title:        "an error response to a request with a readable id echoes that id",
		Requirements: []string{"base.response.error-id-matches-request"},
		Proofs:       []Proof{{Fault: "error-id-mismatch", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Session()
			id := jsonrpc.StringID("mcpcheck-error-echo-1")
			st := t.SendWithID(c, id, "mcpcheck/no-such-method", nil)
			obs := t.AnswerOn(c.S(), st, append([]expect.Alt{expect.Matching(
				fmt.Sprintf("an error response whose id is %s", id),
				func(f wire.Frame) (expect.Verdict, string) {
					if !IsResponse(f) || answersOther(c.S(), f, id) {
						return expect.Unrelated, ""
					}
					if f.IsResponseTo(id) {
						if f.Msg.Error != nil {
							return expect.Accepted, ""
						}
						return expect.Rejected, "the server answered an unknown method with a result, not an error"
					}
					if f.Msg.Error != nil {
						return expect.Rejected, fmt.Sprintf("the error response carries id %s instead of %s", IDText(f), id)
					}
					return expect.Unrelated, ""
				})}, t.httpRefusal(st)...)...)
			if obs.OK() && obs.Alt > 0 {
				// An HTTP refusal without a JSON-RPC error object has no id
				// to echo; base/unknown-method judges the refusal itself.
				t.Untestable("the request was refused at the HTTP level (" + obs.Frame.Describe() + ") with no JSON-RPC error response, so there was no error id to compare")
				return
			}
			t.Judge(obs)
		},
	},
	Def{
		ID: "base/unknown-method", Area: "base",
		Title:        "an unknown method is refused with -32601 (Method not found)",
		Requirements: []string{"base.jsonrpc.messages-are-jsonrpc-2"},
		Proofs:       []Proof{{Fault: "unknown-method-wrong-code", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Session()
			t.Expect("JSON-RPC 2.0, which MCP messages follow, reserves -32601 for a method the receiver does not have")
			t.Judge(t.AskError(c, "mcpcheck/no-such-method", nil, jsonrpc.MethodNotFound))
		},
	},
	Def{
		ID: "base/parse-error", Area: "base",
		Title:        "invalid JSON gets -32700 (Parse error) without an id, or no answer, and the server keeps serving",
		Requirements: []string{"base.jsonrpc.messages-are-jsonrpc-2"},
		Proofs:       []Proof{{Fault: "parse-error-wrong-code", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Session()
			t.Taint()
			s := c.S()
			st := t.SendLine(s, []byte(`{"jsonrpc":"2.0","id":"mcpcheck-parse-1","method":"ping"`))
			alts := append([]expect.Alt{
				expect.ErrorWithoutID(jsonrpc.ParseError),
				expect.Error(jsonrpc.StringID("mcpcheck-parse-1"), jsonrpc.ParseError),
				expect.Silence("no answer (JSON-RPC has no id to answer an unreadable message with)"),
			}, t.httpRefusal(st)...)
			if !judgeBadInput(t, s, alts) {
				return
			}
			if r := Sentinel(t.Ctx, s); !r.OK() && !stdioGaveUp(t, r) {
				t.Fail("the server keeps serving after a line of invalid JSON: "+SentinelMethod(t.Version())+" is answered", r.Describe())
			}
		},
	},
	Def{
		ID: "base/invalid-request", Area: "base",
		Title:        "a message that is not a valid request object gets -32600 (Invalid Request), or no answer, never a result",
		Requirements: []string{"base.jsonrpc.messages-are-jsonrpc-2"},
		Proofs:       []Proof{{Fault: "invalid-request-result", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Session()
			t.Taint()
			s := c.S()
			id := jsonrpc.StringID("mcpcheck-invalid-1")
			st := t.SendLine(s, []byte(`{"jsonrpc":"2.0","id":"mcpcheck-invalid-1","method":42}`))
			alts := append([]expect.Alt{
				expect.Error(id, jsonrpc.InvalidRequest),
				expect.ErrorWithoutID(jsonrpc.InvalidRequest),
				expect.Silence("no answer"),
			}, t.httpRefusal(st)...)
			if !judgeBadInput(t, s, alts) {
				return
			}
			if r := Sentinel(t.Ctx, s); !r.OK() && !stdioGaveUp(t, r) {
				t.Fail("the server keeps serving after an invalid request object", r.Describe())
			}
		},
	},
	Def{
		ID: "base/batch-rejected", Area: "base", Since: spec.V20250618,
		Title:        "from 2025-06-18 a JSON-RPC batch is not answered with a batch response",
		Requirements: []string{"base.jsonrpc.messages-are-jsonrpc-2", "transport-stdio.stdout.only-mcp-messages"},
		Proofs:       []Proof{{Fault: "batch-answered", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Session()
			t.Taint()
			s := c.S()
			params := json.RawMessage(`{}`)
			if c.Stateless != nil {
				p, err := c.Stateless.Params(nil)
				t.Must(err)
				params = p
			}
			batch := fmt.Sprintf(`[{"jsonrpc":"2.0","id":"mcpcheck-batch-1","method":%q,"params":%s}]`, SentinelMethod(t.Version()), params)
			st := t.SendLine(s, []byte(batch))
			t.Expect("batches were removed in 2025-06-18: an array is not an MCP message, so no batch (array) response may come back")
			inside := jsonrpc.StringID("mcpcheck-batch-1")
			alts := append([]expect.Alt{
				expect.Matching("an error response (-32600 or -32700) refusing the batch, or an answer to the request inside it on its own (no array)", func(f wire.Frame) (expect.Verdict, string) {
					if bytes.HasPrefix(bytes.TrimSpace(f.Raw), []byte("[")) {
						return expect.Rejected, "the server answered with a JSON-RPC batch response (an array)"
					}
					if f.IsResponseTo(inside) {
						// The sender broke the one-message rule; a server
						// that answers the request inside on its own sent
						// one MCP message, not a batch response.
						return expect.Accepted, ""
					}
					if !IsResponse(f) || f.Msg.Error == nil {
						return expect.Unrelated, ""
					}
					if f.Msg.Error.Code == jsonrpc.InvalidRequest || f.Msg.Error.Code == jsonrpc.ParseError {
						return expect.Accepted, ""
					}
					return expect.Unrelated, ""
				}),
				expect.Silence("no answer"),
			}, t.httpRefusal(st)...)
			// A batch array is valid JSON-RPC 2.0; on stdio what it
			// breaks is the rule that stdout carries only MCP messages,
			// which a batch no longer is.
			req := "base.jsonrpc.messages-are-jsonrpc-2"
			if t.Stdio() {
				req = "transport-stdio.stdout.only-mcp-messages"
			}
			if !judgeBadInputAs(t, s, alts, req) {
				return
			}
			if r := Sentinel(t.Ctx, s); !r.OK() && !stdioGaveUp(t, r) {
				t.Violation(req, "the server keeps serving after a batch", r.Describe())
			}
		},
	},
	Def{
		ID: "base/batch-accepted", Area: "base",
		Title:        "in 2025-03-26 a JSON-RPC batch of requests is answered with a batch response holding every answer",
		Requirements: []string{"base.batch.receiving-required"},
		Proofs:       []Proof{{Fault: "batch-refused", Version: spec.V20250326, Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Session()
			t.Taint()
			s := c.S()
			st := t.SendLine(s, []byte(`[{"jsonrpc":"2.0","id":"mcpcheck-batch-a","method":"ping"},{"jsonrpc":"2.0","id":"mcpcheck-batch-b","method":"ping"}]`))
			// Over streamable HTTP (2025-03-26) the answers on the POST's
			// SSE stream MAY come batched or one event per response.
			sseSeen := map[string]bool{}
			t.Judge(s.WaitFor(t.Ctx, expect.Options{Timeout: t.StepTimeout()}, expect.Matching(
				"a batch response (array) answering mcpcheck-batch-a and mcpcheck-batch-b (over streamable HTTP also one response per SSE event)",
				func(f wire.Frame) (expect.Verdict, string) {
					if t.Transport() == "streamable" && st != "" && f.Stream == st && IsResponse(f) && f.Msg.Error == nil {
						for _, id := range []string{"mcpcheck-batch-a", "mcpcheck-batch-b"} {
							if f.IsResponseTo(jsonrpc.StringID(id)) {
								sseSeen[id] = true
							}
						}
						if sseSeen["mcpcheck-batch-a"] && sseSeen["mcpcheck-batch-b"] {
							return expect.Accepted, ""
						}
						if sseSeen["mcpcheck-batch-a"] || sseSeen["mcpcheck-batch-b"] {
							return expect.Unrelated, ""
						}
					}
					raw := bytes.TrimSpace(f.Raw)
					if bytes.HasPrefix(raw, []byte("[")) {
						msgs, _ := jsonrpc.DecodeBatch(raw)
						seen := map[string]bool{}
						for _, m := range msgs {
							if s, ok := m.ID.Str(); ok {
								seen[s] = true
							}
						}
						if seen["mcpcheck-batch-a"] && seen["mcpcheck-batch-b"] {
							return expect.Accepted, ""
						}
						return expect.Rejected, "the batch response does not answer both requests"
					}
					if IsResponse(f) {
						if f.Msg.Error != nil && (f.Msg.IDAbsent || f.Msg.IDNull) {
							return expect.Rejected, "the server refused the batch"
						}
						if f.IsResponseTo(jsonrpc.StringID("mcpcheck-batch-a")) || f.IsResponseTo(jsonrpc.StringID("mcpcheck-batch-b")) {
							return expect.Rejected, "the server answered a batched request outside a batch response"
						}
					}
					return expect.Unrelated, ""
				})))
		},
		Since: spec.V20250326, Until: spec.V20250326,
	},
	// Isolated: it judges answers to its own notifications on its own session.
	Def{
		ID: "base/notification-no-response", Isolated: true, Area: "base",
		Title:        "notifications, unknown or invalid ones included, are never answered",
		Requirements: []string{"base.notification.no-response"},
		Proofs:       []Proof{{Fault: "reply-to-notification", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Session()
			t.Taint()
			s := c.S()
			// refusals are the notification POSTs: over streamable HTTP a
			// server that cannot accept a notification answers its POST
			// with an HTTP error status, whose body MAY be a JSON-RPC
			// error response without an id (transport rule, 2025-03-26
			// on). That body is the transport's refusal, not an answer.
			refusals := map[string]bool{}
			for _, n := range []struct{ method, raw string }{
				{"notifications/mcpcheck/unknown", `{"jsonrpc":"2.0","method":"notifications/mcpcheck/unknown","params":{}}`},
				{"notifications/cancelled", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcpcheck-never-sent"}}`},
			} {
				st := sendNotification(t, c, n.method, []byte(n.raw))
				if t.Transport() == "streamable" {
					refusals[st] = true
				}
			}
			desc := "no response without an id (an answer to a notification)"
			answer := notificationAnswer(refusals)
			r := Sentinel(t.Ctx, s)
			if r.Err != nil && r.Observed.Status == 0 {
				t.Error(r.Err)
				return
			}
			for _, f := range r.Observed.Others {
				if answer(f) {
					t.Fail(desc, "the server answered a notification: "+f.Describe())
					return
				}
			}
			obs := t.WaitQuiet(s, desc, answer)
			if !r.OK() && obs.Status != expect.Mismatched && obs.Status != expect.Aborted {
				// The probe's own answer carries the probe's id (or it
				// got none): that answers no notification, so it is no
				// violation of this rule; without it the check cannot
				// tell the server still serves.
				t.Untestable(fmt.Sprintf("the liveness probe after the notifications (%s, id %s) failed: %s; no answer to a notification was seen", SentinelMethod(t.Version()), r.ID, r.Describe()))
				return
			}
			t.Judge(obs)
		},
	},

	// Passive checks: everything the target sent during the version.
	Def{
		ID: "base/wire-schema", Area: "base", Passive: true,
		Title:        "every message the server sent conforms to the JSON-RPC 2.0 framing and the version's schema",
		Requirements: []string{"base.jsonrpc.messages-are-jsonrpc-2"},
		Proofs:       []Proof{{Fault: "ping-meta-not-object", Version: spec.V20251125, Also: []string{"base/response-id-echo"}, Want: reports.Fail}},
		Body: func(t *T) {
			n, big := 0, []string{}
			for _, f := range t.SessionFindings() {
				if f.Kind == session.FindingNotValidated {
					big = append(big, f.String())
					continue
				}
				if f.Kind != session.FindingSchema || deliberateErrorAnswer(f.Raw) || noMetaProbeAnswer(wire.Frame{Msg: jsonrpc.Decode(f.Raw)}) || batchProbeAnswer(f.Raw) || invalidIDEchoOnly(f) {
					continue
				}
				n++
				if n > 20 {
					continue
				}
				t.Violation("", "every message conforms to the "+string(t.Version())+" schema", f.String()+" in "+wire.Excerpt(f.Raw, 300))
			}
			if n > 20 {
				t.Saw("%d schema findings in all, the first 20 shown", n)
			}
			if len(big) > 0 {
				t.Saw("%d messages were too large to be validated (the first: %s)", len(big), big[0])
			}
			if n == 0 {
				obs, _ := t.Observed()
				if len(big) >= len(obs) {
					t.Untestable(fmt.Sprintf("every message the server sent was too large to be validated against the schema (the first: %s)", big[0]))
					return
				}
				t.Saw("%d frames received, no schema violation", len(obs))
				t.Pass()
			}
		},
	},
	Def{
		ID: "base/response-shape", Area: "base", Passive: true,
		Title:        "every response carries exactly one of result and error",
		Requirements: []string{"base.response.not-both-result-and-error", "base.response.result-or-error", "base.response.result-member-present", "base.jsonrpc.messages-are-jsonrpc-2"},
		Proofs:       []Proof{{Fault: "error-with-result", Version: spec.V20250618, Also: []string{"base/unknown-method"}, Want: reports.Fail}},
		Body: func(t *T) {
			obs, _ := t.Observed()
			bad, other := 0, 0
			for _, o := range obs {
				if o.Kind != wire.KindMessage {
					continue
				}
				if !carriesResponseID(o.Msg) {
					// No response: a request, a notification, or an
					// object with neither method nor id (a replayed SSE
					// data: {}). A malformed one is base/wire-schema's.
					other++
					continue
				}
				if b, broke := rules.ResponseShape(t.Version(), o.Msg); broke {
					bad++
					t.Breach(b)
				}
			}
			if bad == 0 {
				t.Saw("%d frames received, every response had exactly one of result and error", len(obs))
				if other > 0 {
					t.Saw("%d messages carried no id or a method, so they are no response to judge here (base/wire-schema judges their framing)", other)
				}
				t.Pass()
			}
		},
	},
	Def{
		ID: "base/error-objects", Area: "base", Passive: true,
		Title:        "every error carries an integer code and a string message",
		Requirements: []string{"base.response.error-code-integer", "base.response.error-has-code-and-message"},
		Proofs:       []Proof{{Fault: "error-without-message", Version: spec.V20251125, Also: []string{"base/unknown-method"}, Want: reports.Fail}},
		Body: func(t *T) {
			t.tallyObserved("the server sent no error response in this run", "%d error responses, all well formed", func(o Observation) (bool, bool) {
				if o.Kind != wire.KindMessage {
					return false, false
				}
				b, counted, broke := rules.ErrorObject(t.Version(), o.Msg)
				if broke {
					t.Breach(b)
				}
				return counted, broke
			})
		},
	},
	Def{
		ID: "base/notification-no-id", Area: "base", Passive: true,
		Title:        "the server's notifications carry no id",
		Requirements: []string{"base.notification.no-id"},
		Proofs:       []Proof{{Fault: "notification-with-id", Version: spec.V20251125, Also: []string{"progress/increasing"}, Want: reports.Fail}},
		Body: func(t *T) {
			t.JudgeObserved(PassiveRule{
				Expected: "a notification has no id member",
				None:     "the server sent no notification in this run",
				Saw:      "%d notifications, none with an id",
			}, func(o Observation) (bool, string) {
				if o.Kind != wire.KindMessage {
					return false, ""
				}
				b, counted, broke := rules.NotificationID(t.Version(), o.Msg)
				if broke {
					return true, b.Actual
				}
				return counted, ""
			})
		},
	},
	Def{
		ID: "base/request-ids", Area: "base", Passive: true,
		Title:        "the server's requests carry non-null string or integer ids, never reused in a session",
		Requirements: []string{"base.request.id-string-or-integer", "base.request.id-not-null", "base.request.id-unique-in-session"},
		Proofs:       []Proof{{Fault: "server-request-id-reused", Version: spec.V20251125, Also: []string{"sampling/tool-loop-balance"}, Want: reports.Fail}},
		Body: func(t *T) {
			obs, _ := t.Observed()
			n, breaches := serverRequestIDs(t.Version(), obs)
			for _, b := range breaches {
				t.Breach(b)
			}
			if n == 0 {
				t.NotApplicable("the server sent no request to the client in this run, so there were no request ids to judge")
				return
			}
			t.Saw("%d requests from the server", n)
			t.Pass()
		},
	},
	Def{
		ID: "base/utf8", Area: "base", Passive: true,
		Title:        "every message is UTF-8",
		Requirements: []string{"base.messages.utf8"},
		Proofs:       []Proof{{Fault: "latin1-ping", Version: spec.V20251125, Also: []string{"base/response-id-echo"}, Want: reports.Fail}},
		Body: func(t *T) {
			obs, _ := t.Observed()
			n := 0
			for _, o := range obs {
				if o.Kind != wire.KindMessage && o.Kind != wire.KindGarbage {
					continue
				}
				n++
				if b, broke := rules.UTF8(t.Version(), o.Raw); broke {
					t.Fail(b.Expected, b.Actual)
					return
				}
			}
			t.Saw("%d messages, all valid UTF-8", n)
			t.Pass()
		},
	},
	Def{
		ID: "base/result-type", Area: "base", Passive: true,
		Title:        "every result carries a resultType string",
		Requirements: []string{"base.result-type.present"},
		Proofs: []Proof{
			{Fault: "no-result-type", Version: spec.V20260728, Want: reports.Fail},
			{Fault: "no-result-type", Version: spec.V20260728, Transport: "streamable", Also: []string{"transport-http/origin-403", "versioning/modern-names-versions"}, Want: reports.Fail},
		},
		Body: func(t *T) {
			t.JudgeObserved(PassiveRule{
				Expected: "every result object carries a string resultType",
				Limit:    10,
				None:     "no result was received in this run",
				Saw:      "%d results, all with resultType",
			}, func(o Observation) (bool, string) {
				if !modernResult(o) {
					return false, ""
				}
				if _, ok := resultType(o.Msg.Result); !ok {
					return true, "no resultType in the result of " + NonEmpty(o.Answers, "a request") + ": " + wire.Excerpt(o.Raw, 200)
				}
				return true, ""
			})
		},
	},
	Def{
		ID: "base/error-code-ranges", Area: "base", Passive: true,
		Title:        "error codes keep to the 2026-07-28 allocation policy",
		Requirements: []string{"base.error-code.retired-codes-not-emitted", "base.error-code.reserved-range-only-defined", "base.error-code.legacy-range-avoid", "base.error-code.custom-outside-reserved"},
		Proofs:       []Proof{{Fault: "retired-not-found-code", Version: spec.V20260728, Transport: "streamable", Also: []string{"resources/not-found", "transport-http/origin-403"}, Want: reports.Fail}},
		Body: func(t *T) {
			obs, _ := t.Observed()
			n := 0
			dualEra := -1 // unknown until a transport refusal needs it
			for _, o := range obs {
				code, ok := ErrorCodeOf(o.Frame)
				if o.Kind != wire.KindMessage || !ok {
					continue
				}
				n++
				ex := wire.Excerpt(o.Raw, 200)
				if code <= -32000 && code >= -32019 && code != -32002 && transportRefusal(o.Frame) {
					// The body of an HTTP refusal (Origin 403, session
					// 400) is served before any protocol version is
					// read, to every era alike. For a server that also
					// implements the initialize-based versions, which
					// allocated the legacy band, it is not a
					// 2026-07-28 error code; a modern-only server is
					// still held to the policy.
					if dualEra < 0 {
						dualEra = 0
						if len(t.StatefulSupport()) > 0 {
							dualEra = 1
						}
					}
					if dualEra == 1 {
						t.Saw("legacy-band code %d in an HTTP %d refusal body of a server that also implements the initialize-based versions: %s", code, o.Status(), ex)
						continue
					}
				}
				switch {
				case code == -32002 || code == -32042:
					t.Violation("base.error-code.retired-codes-not-emitted", "the retired codes -32002 and -32042 are not emitted", ex)
				case code <= -32020 && code >= -32099 && code != -32020 && code != -32021 && code != -32022:
					t.Violation("base.error-code.reserved-range-only-defined", "codes in -32020..-32099 are only the defined ones", ex)
				case code <= -32000 && code >= -32019:
					t.Violation("base.error-code.legacy-range-avoid", "no codes in the legacy band -32000..-32019", ex)
				case code >= -32768 && code <= -32000 && !jsonrpc.IsStandard(code) && code > -32020 || code < -32099 && code >= -32768 && !jsonrpc.IsStandard(code):
					t.Violation("base.error-code.custom-outside-reserved", "implementation codes lie outside -32768..-32000", ex)
				}
			}
			if n == 0 {
				t.NotApplicable("the server sent no error response in this run")
				return
			}
			t.Saw("%d error responses", n)
			t.Pass()
		},
	},
	Def{
		ID: "base/server-info-meta", Area: "base", Passive: true,
		Title:        "results carry io.modelcontextprotocol/serverInfo in _meta",
		Requirements: []string{"base.meta.server-info-on-results"},
		Proofs:       []Proof{{Fault: "no-server-info-meta", Version: spec.V20260728, Also: []string{"tools/names"}, Want: reports.Warn}},
		Body: func(t *T) {
			t.JudgeObserved(PassiveRule{
				Expected: "every result names the server in _meta io.modelcontextprotocol/serverInfo",
				Limit:    5,
				None:     "no result was received in this run",
				Saw:      "%d results, all with serverInfo",
			}, func(o Observation) (bool, string) {
				if !modernResult(o) {
					return false, ""
				}
				var r struct {
					Meta map[string]json.RawMessage `json:"_meta"`
				}
				if json.Unmarshal(o.Msg.Result, &r) != nil || r.Meta["io.modelcontextprotocol/serverInfo"] == nil {
					return true, "missing in the result of " + NonEmpty(o.Answers, "a request") + ": " + wire.Excerpt(o.Raw, 200)
				}
				return true, ""
			})
		},
	},
	Def{
		ID: "base/no-server-requests", Area: "base", Passive: true,
		Title:        "from 2026-07-28 the server sends no JSON-RPC requests",
		Requirements: []string{"base.patterns.server-never-sends-requests", "base.transport.binding-delivery-directions"},
		Proofs:       []Proof{{Fault: "stateless-server-request", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			t.NoServerRequests("no request from the server (input goes through InputRequiredResult)", "%d frames, no request among them")
		},
	},
)

// batchProbeAnswer reports a batch (array) answer to the batch probes of
// base/batch-accepted and base/batch-rejected, which judge it themselves.
func batchProbeAnswer(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return bytes.HasPrefix(raw, []byte("[")) && bytes.Contains(raw, []byte(`"mcpcheck-batch-`))
}

// noMetaProbeID is the id of base/meta-required's request without a
// protocol version: a dual-era server may serve it under the legacy rules,
// so the passive 2026-07-28 checks set its answer aside.
const noMetaProbeID = "mcpcheck-no-protocol-version"

// noMetaProbeAnswer reports the answer to that request.
func noMetaProbeAnswer(f wire.Frame) bool {
	s, ok := f.Msg.ID.Str()
	return ok && s == noMetaProbeID && f.Msg.Method == ""
}

// carriesResponseID reports whether m is a response as base/response-shape
// reads one: an id member (null included) and no method. An object with
// neither (the SSE data {} a resumed stream replays) answers no request,
// whatever members it lacks.
func carriesResponseID(m jsonrpc.Message) bool {
	return m.Method == "" && !m.IDAbsent
}

// invalidIDEchoOnly reports a schema finding whose only fault is the id
// of an answer base/invalid-ids accepts as the echo of an id it sent
// invalid on purpose (echoesInvalidID): the id is mcpcheck's, not the
// server's. Any other violation in the same message still counts.
func invalidIDEchoOnly(fd session.Finding) bool {
	if len(fd.Violations) == 0 {
		return false
	}
	for _, v := range fd.Violations {
		if v.Pointer != "/id" {
			return false
		}
	}
	return echoesInvalidID(wire.Frame{Kind: wire.KindMessage, Raw: fd.Raw, Msg: jsonrpc.Decode(fd.Raw)})
}

// deliberateErrorAnswer reports an error response without an id: the answer
// to the unreadable messages the base checks send on purpose. Older schemas
// have no way to express it; its shape is judged by base/parse-error.
func deliberateErrorAnswer(raw []byte) bool {
	m := jsonrpc.Decode(raw)
	return m.Shape == jsonrpc.KindErrorResponse && (m.IDAbsent || m.IDNull)
}

func IDText(f wire.Frame) string {
	switch {
	case f.Msg.IDAbsent:
		return "(none)"
	case f.Msg.IDNull:
		return "null"
	case f.Msg.ID.IsZero():
		return "(invalid)"
	}
	return f.Msg.ID.String()
}

func NonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// sendNotification sends the notification raw (of method) the way a
// conformant client does: on 2026-07-28 streamable HTTP with the request
// metadata headers (MCP-Protocol-Version, Mcp-Method) that every POST
// carries, elsewhere as SendLine.
func sendNotification(t *T, c *Conn, method string, raw []byte) string {
	h := c.Conn.HTTP()
	if c.Stateless == nil || h == nil {
		return t.SendLine(c.S(), raw)
	}
	hdr, err := c.Stateless.Headers(method, nil)
	t.Must(err)
	st, err := h.Post(t.Ctx, raw, hdr)
	t.Must(err)
	return st
}

// notificationAnswer reports a frame that answers a notification: a
// response without an id, unless it is the body of an HTTP error status on
// the POST of the notification itself (one of refusals), which the
// streamable HTTP transport permits as the refusal of the notification.
func notificationAnswer(refusals map[string]bool) func(wire.Frame) bool {
	return func(f wire.Frame) bool {
		if !idless(f) {
			return false
		}
		return !(refusals[f.Stream] && f.HTTP != nil && !f.InSSE && f.Status() >= 400)
	}
}

// legacyEraResult reports the result of an initialize: a dual-era server
// answers it in the initialize-based version it negotiates, so the
// 2026-07-28 rules on results (resultType, serverInfo in _meta) do not
// apply to it, unless it negotiated a stateless-era version.
func legacyEraResult(o Observation) bool {
	if noMetaProbeAnswer(o.Frame) {
		return true
	}
	if o.Answers != spec.MethodInitialize {
		return false
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(o.Msg.Result, &r) != nil {
		return false
	}
	return spec.Version(r.ProtocolVersion).Era() == spec.Stateful
}

// transportRefusal reports an error response without an id in the body of
// an HTTP error status: the transport's refusal of a request, which the
// streamable HTTP transport lets a server give as a JSON-RPC error.
func transportRefusal(f wire.Frame) bool {
	return f.HTTP != nil && !f.InSSE && f.Status() >= 400 && f.Msg.Shape == jsonrpc.KindErrorResponse && (f.Msg.IDAbsent || f.Msg.IDNull)
}

// judgeBadInput waits for the answer to input that is not a valid MCP
// message and judges it; it reports whether the check goes on. On stdio
// the client must not send such input at all, so a server that closes
// stdout on it owes nothing more: the check passes there.
func judgeBadInput(t *T, s Sess, alts []expect.Alt) bool {
	return judgeBadInputAs(t, s, alts, "")
}

// judgeBadInputAs is judgeBadInput whose mismatch breaks req alone ("":
// every requirement the check cites).
func judgeBadInputAs(t *T, s Sess, alts []expect.Alt, req string) bool {
	if t.Stdio() {
		alts = append(alts, expect.StreamEnd(wire.StreamStdio))
	}
	obs := s.WaitFor(t.Ctx, expect.Options{Timeout: t.Quiet()}, alts...)
	if t.Stdio() && obs.OK() && obs.Alt == len(alts)-1 {
		t.Saw("the server closed stdout on input a client must not write to a stdio server; nothing more is owed")
		t.Pass()
		return false
	}
	if req != "" {
		return t.JudgeAs(obs, req)
	}
	return t.Judge(obs)
}

// stdioGaveUp reports (and notes) a stdio server that stopped answering
// after input a client must not write to its stdin: no rule makes it
// serve on after that.
func stdioGaveUp(t *T, r session.Reply) bool {
	if !t.Stdio() {
		return false
	}
	t.Saw("after that input the server stopped answering (%s); a client must not write it to a stdio server, so nothing more is owed", r.Describe())
	t.Pass()
	return true
}

// serverRequestIDs judges the ids of the requests the server sent, per
// connection, and returns how many requests it judged and the breaches.
// An SSE event delivered again under its event ID (a resumed stream
// replays what it had sent) is the same request once more, not a second
// request under a used id: it is passed over. Whether a replay belongs
// on the resumed stream is transport-http/resume-same-stream's to judge.
func serverRequestIDs(v spec.Version, obs []Observation) (int, []rules.Breach) {
	type event struct {
		conn int
		id   string
	}
	ledgers := map[int]*rules.RequestIDs{}
	delivered := map[event][]byte{}
	n := 0
	var out []rules.Breach
	for _, o := range obs {
		if o.Kind != wire.KindMessage || !rules.IsRequest(o.Msg) {
			continue
		}
		if o.HasEventID && o.EventID != "" {
			e := event{o.Conn, o.EventID}
			if raw, again := delivered[e]; again && bytes.Equal(raw, o.Raw) {
				continue
			}
			if len(delivered) < maxLedgerEntries {
				delivered[e] = o.Raw
			}
		}
		n++
		l := ledgers[o.Conn]
		if l == nil {
			l = rules.NewRequestIDs(spec.ServerToClient, 0)
			ledgers[o.Conn] = l
		}
		if b, broke := l.Request(v, o.Msg); broke {
			out = append(out, b)
		}
	}
	return n, out
}
