package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Every way a request can be invalid, table-driven: each row is one
// message a client must not send, sent on its own on one session, with
// what the server may answer. After each row a sentinel request proves
// the server still serves (and drains a late answer, so it is not
// mistaken for the next row's).

// badRequest is one row: the exact bytes, the id an answer may echo, and
// what answers are right.
type badRequest struct {
	// what says what is wrong with the message, for the report.
	what string
	line string
	// id is the JSON text of the id an answer may echo ("" when the
	// message has none that can be read); an answer may also carry none
	// or null.
	id string
	// codes are the right error codes; nil accepts any code (the message
	// breaks only MCP's rules, which name none).
	codes []int64
	// result accepts a result echoing id (the message is valid JSON-RPC
	// and only MCP forbids it).
	result bool
	// valid marks a request both JSON-RPC and MCP allow: it must be
	// answered, with exactly its id (idv, which 2026-07-28 sessions send
	// as a proper request with _meta and headers instead of line).
	valid bool
	idv   jsonrpc.ID
	// refuseOK accepts, for a valid row, an error without an id: the
	// server says it cannot read the id (one beyond what it can
	// represent) rather than answering another.
	refuseOK bool
}

const (
	reqJSONRPC  = "base.jsonrpc.messages-are-jsonrpc-2"
	reqIDEcho   = "base.response.id-matches-request"
	invalidCode = jsonrpc.InvalidRequest
)

// envelopeRows break JSON-RPC 2.0's request object: the jsonrpc member,
// the method member, params, or the message is not an object at all.
var envelopeRows = []badRequest{
	{what: "no jsonrpc member", line: `{"id":"mcpcheck-env-1","method":"ping"}`, id: `"mcpcheck-env-1"`, codes: []int64{invalidCode}},
	{what: `jsonrpc "1.0"`, line: `{"jsonrpc":"1.0","id":"mcpcheck-env-2","method":"ping"}`, id: `"mcpcheck-env-2"`, codes: []int64{invalidCode}},
	{what: "jsonrpc as the number 2.0", line: `{"jsonrpc":2.0,"id":"mcpcheck-env-3","method":"ping"}`, id: `"mcpcheck-env-3"`, codes: []int64{invalidCode}},
	{what: "no method member", line: `{"jsonrpc":"2.0","id":"mcpcheck-env-4","params":{}}`, id: `"mcpcheck-env-4"`, codes: []int64{invalidCode}},
	{what: "method null", line: `{"jsonrpc":"2.0","id":"mcpcheck-env-5","method":null}`, id: `"mcpcheck-env-5"`, codes: []int64{invalidCode}},
	{what: "params a string (neither object nor array)", line: `{"jsonrpc":"2.0","id":"mcpcheck-env-6","method":"ping","params":"x"}`, id: `"mcpcheck-env-6"`, codes: []int64{invalidCode, jsonrpc.InvalidParams}},
	{what: "params a number", line: `{"jsonrpc":"2.0","id":"mcpcheck-env-7","method":"ping","params":7}`, id: `"mcpcheck-env-7"`, codes: []int64{invalidCode, jsonrpc.InvalidParams}},
	{what: "an empty object", line: `{}`, codes: []int64{invalidCode}},
	{what: "a bare number", line: `7`, codes: []int64{invalidCode}},
	{what: "a bare string", line: `"ping"`, codes: []int64{invalidCode}},
	{what: "null", line: `null`, codes: []int64{invalidCode}},
}

// idRows are about ids: types JSON-RPC forbids (answered without an id,
// or not at all), ids only MCP forbids (null, a fraction: any answer but
// one carrying another id), and legal ids a careless implementation
// changes on the way back (2^53-1, negative, escapes). Every one of them
// is carried exactly by any JSON implementation; an id beyond 2^53 is
// bigIDRows'.
var idRows = []badRequest{
	{what: "id true", line: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, id: `true`, codes: []int64{invalidCode}},
	{what: "id an object", line: `{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}`, id: `{"n":1}`, codes: []int64{invalidCode}},
	{what: "id an array", line: `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, id: `[1]`, codes: []int64{invalidCode}},
	{what: "id null (JSON-RPC allows it, MCP does not)", line: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, id: `null`, result: true},
	{what: "id 1.5 (JSON-RPC allows fractions, MCP wants an integer)", line: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, id: `1.5`, result: true},
	{what: "id 9007199254740991 (2^53-1, the largest integer every JSON implementation carries exactly)", line: `{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}`, id: `9007199254740991`, result: true, valid: true, idv: jsonrpc.IntID(1<<53 - 1)},
	{what: "id -7", line: `{"jsonrpc":"2.0","id":-7,"method":"ping"}`, id: `-7`, result: true, valid: true, idv: jsonrpc.IntID(-7)},
	{what: `id "mcpcheck-\"q\"-é-\u0001" (escapes and non-ASCII)`, line: `{"jsonrpc":"2.0","id":"mcpcheck-\"q\"-\u00e9-\u0001","method":"ping"}`, id: `"mcpcheck-\"q\"-é-\u0001"`, result: true, valid: true, idv: jsonrpc.StringID("mcpcheck-\"q\"-é-\u0001")},
}

// bigIDRows probe an integer id past 2^53. MCP allows any integer id and
// a response must echo it, but the schema types ids as JSON numbers, and
// JSON promises exact integers only up to 2^53 (RFC 8259 section 6): a
// peer that reads numbers as IEEE doubles (every JavaScript one) cannot
// echo it. So it is an interoperability probe of its own
// (base/id-beyond-2-53), a warning when the id comes back changed, apart
// from base/invalid-ids, whose ids every implementation carries exactly.
var bigIDRows = []badRequest{
	{what: "id 9007199254740993 (2^53+1, beyond the integers a 64-bit float holds exactly)", line: `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, id: `9007199254740993`, result: true, valid: true, idv: jsonrpc.IntID(1<<53 + 1), refuseOK: true},
}

// The checks are Isolated: each row goes on the check's own session (the
// session is tainted, never lent again), every answer is judged by the id
// its own row carried or by arriving on that session, and nothing a row
// asks for changes what another session sees.
var _ = Register(
	Def{
		ID: "base/invalid-envelope", Isolated: true, Area: "base",
		Title:        "each kind of message that is not a JSON-RPC request object (jsonrpc, method, params, not an object) gets -32600, or no answer, never a result",
		Requirements: []string{reqJSONRPC, reqIDEcho},
		Proofs: []Proof{
			{Fault: "invalid-request-result", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "invalid-request-result", Version: spec.V20241105, Transport: "streamable", Want: reports.Fail},
		},
		Body: func(t *T) { badRequests(t, envelopeRows) },
	},
	Def{
		ID: "base/invalid-ids", Isolated: true, Area: "base",
		Title:        "requests with ids of every awkward kind are refused without an id or answered with exactly the id sent, never with another",
		Requirements: []string{reqJSONRPC, reqIDEcho},
		Proofs: []Proof{
			{Fault: "fraction-ids-truncated", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "fraction-ids-truncated", Version: spec.V20250618, Transport: "streamable", Want: reports.Fail},
		},
		Body: func(t *T) { badRequests(t, idRows) },
	},
	Def{
		ID: "base/id-beyond-2-53", Isolated: true, Area: "base",
		Title:        "an integer id beyond 2^53 is echoed exactly or refused without an id (an interoperability probe: a changed id is a warning, since JSON promises exact integers only up to 2^53)",
		Requirements: []string{reqIDEcho},
		Proofs: []Proof{
			{Fault: "ids-through-float64", Version: spec.V20251125, Want: reports.Warn},
			{Fault: "ids-through-float64", Version: spec.V20250618, Transport: "streamable", Want: reports.Warn},
		},
		Body: func(t *T) { badRequestsAs(t, bigIDRows, true) },
	},
)

// badRequests sends each row on one session and records a violation per
// row that was answered wrongly; it stops early when a stdio server stops
// serving (nothing more is owed after input a client must not write).
func badRequests(t *T, rows []badRequest) { badRequestsAs(t, rows, false) }

// badRequestsAs is badRequests; interop makes every wrong answer an
// interoperability warning (harness.Check.Interop) rather than a
// violation of the requirement it breaks.
func badRequestsAs(t *T, rows []badRequest, interop bool) {
	c := t.Session()
	t.Taint()
	s := c.S()
	sentinel := SentinelMethod(t.Version())
	if t.Version().Era() == spec.Stateless {
		// The stateless era wants _meta on every request; a row's own
		// method would be refused for that alone.
		rows = append([]badRequest(nil), rows...)
		for i := range rows {
			rows[i].line = strings.ReplaceAll(rows[i].line, `"method":"ping"`, `"method":"`+sentinel+`"`)
		}
	}
	judged := 0
	for _, row := range rows {
		var st string
		if row.valid && c.Stateless != nil {
			params, err := json.Marshal(map[string]any{"_meta": c.Stateless.Meta()})
			t.Must(err)
			h, err := c.Stateless.Headers(sentinel, params)
			t.Must(err)
			st, err = c.Stateless.RequestRaw(t.Ctx, row.idv, sentinel, params, h)
			t.Must(err)
		} else {
			st = t.SendLine(s, []byte(row.line))
		}
		own := row.ownID()
		alts := []expect.Alt{expect.Matching("an answer to a message with "+row.what, func(f wire.Frame) (expect.Verdict, string) {
			if answersOther(s, f, own...) || otherPost(st, f) {
				// A late answer to an earlier row or request of the
				// session: judged for its own, not as this row's.
				return expect.Unrelated, ""
			}
			v, why, _ := row.judge(f)
			return v, why
		})}
		if !row.valid {
			alts = append(alts, expect.Silence("no answer"))
			// 202 with no body acknowledges the message without
			// answering it, as for a notification or a response: no
			// answer, which is allowed.
			for _, a := range append(t.httpRefusal(st), httpAck(t, st)...) {
				// A refusing status with a JSON-RPC body is judged by its
				// body: a result under HTTP 400 still treats the message as
				// a valid request.
				on := a.On
				a.On = func(f wire.Frame) (expect.Verdict, string) {
					if IsResponse(f) {
						return expect.Unrelated, ""
					}
					return on(f)
				}
				alts = append(alts, a)
			}
		}
		if t.Stdio() {
			alts = append(alts, expect.StreamEnd(wire.StreamStdio))
		}
		obs := s.WaitFor(t.Ctx, expect.Options{Stream: st, Timeout: waitFor(t, row)}, alts...)
		switch {
		case obs.Status == expect.Aborted:
			t.Judge(obs)
			return
		case t.Stdio() && obs.OK() && obs.Alt == len(alts)-1:
			t.Saw("after the message with %s the server closed stdout; a client must not write that to a stdio server, so nothing more is owed", row.what)
			settle(t, judged)
			return
		case obs.OK():
			judged++
			t.Saw("%s: %s", row.what, obs.Actual)
		default:
			judged++
			req := reqJSONRPC
			if obs.Frame.Kind == wire.KindMessage {
				_, _, req = row.judge(obs.Frame)
			} else if row.valid {
				req = reqIDEcho
			}
			if interop {
				t.Interop(row.expected(), fmt.Sprintf("%s: %s", row.what, obs.Actual))
			} else {
				t.Violation(req, row.expected(), fmt.Sprintf("%s: %s", row.what, obs.Actual))
			}
		}
		if r := Sentinel(t.Ctx, s); !r.OK() {
			if stdioGaveUp(t, r) {
				return
			}
			what, got := fmt.Sprintf("the server keeps serving after a message with %s: %s is answered", row.what, sentinel), r.Describe()
			if interop {
				t.Interop(what, got)
			} else {
				t.Fail(what, got)
			}
			return
		}
	}
	settle(t, judged)
}

// waitFor is how long a row waits: a valid request the step timeout, an
// invalid one the quiet window (silence is an answer there).
func waitFor(t *T, row badRequest) time.Duration {
	if row.valid {
		return t.StepTimeout()
	}
	return t.Quiet()
}

// settle passes the check when rows were judged without a violation
// (violations already decide the outcome).
func settle(t *T, judged int) {
	if judged == 0 {
		t.Untestable("no message of the table could be judged")
		return
	}
	t.Pass()
}

// ownID is the row's id as MCP reads ids (none when it cannot: 1.5,
// true, an object), for telling its answer from another request's.
func (row badRequest) ownID() []jsonrpc.ID {
	if !row.idv.IsZero() {
		return []jsonrpc.ID{row.idv}
	}
	var id jsonrpc.ID
	if row.id == "" || json.Unmarshal([]byte(row.id), &id) != nil {
		return nil
	}
	return []jsonrpc.ID{id}
}

// expected says what the row accepts, for the report.
func (row badRequest) expected() string {
	var ok []string
	if row.codes != nil {
		ok = append(ok, fmt.Sprintf("an error %v", row.codes))
	} else {
		ok = append(ok, "an error")
	}
	if row.result {
		ok = append(ok, "a result")
	}
	ids := "with no id or id null"
	if row.id != "" && row.id != "null" {
		ids = "with id " + row.id + ", null or none"
	}
	if row.valid {
		ids = "with id " + row.id + " exactly"
	} else {
		ok = append(ok, "no answer")
	}
	return fmt.Sprintf("for a message with %s: %s, %s", row.what, strings.Join(ok, " or "), ids)
}

// judge says whether f is a right answer to the row, why not, and which
// requirement a wrong one breaks.
func (row badRequest) judge(f wire.Frame) (expect.Verdict, string, string) {
	if !IsResponse(f) {
		return expect.Unrelated, "", ""
	}
	got := rawMember(f.Msg.Raw, "id")
	idless := got == "" || got == "null"
	echoed := row.id != "" && sameJSON(got, row.id)
	if row.valid && row.refuseOK && idless && f.Msg.Error != nil {
		return expect.Accepted, "", ""
	}
	if row.valid && !echoed {
		return expect.Rejected, fmt.Sprintf("the answer carries id %s, not the id sent (%s)", NonEmpty(got, "(none)"), row.id), reqIDEcho
	}
	if !idless && !echoed {
		return expect.Rejected, fmt.Sprintf("the answer carries id %s, which the message did not carry (it sent %s)", got, NonEmpty(row.id, "no readable id")), reqIDEcho
	}
	if f.Msg.Error == nil {
		if row.result {
			return expect.Accepted, "", ""
		}
		return expect.Rejected, "a result: the server treated a message that is not a request object as a valid request", reqJSONRPC
	}
	if row.codes == nil {
		return expect.Accepted, "", ""
	}
	for _, c := range row.codes {
		if f.Msg.Error.Code == c {
			return expect.Accepted, "", ""
		}
	}
	return expect.Rejected, fmt.Sprintf("error code %d, where JSON-RPC 2.0 wants %v", f.Msg.Error.Code, row.codes), reqJSONRPC
}

// echoesInvalidID reports whether f is an answer base/invalid-ids accepts
// that carries, exactly, an id a row of it sent invalid on purpose (1.5,
// true, an object): the rule base/wire-schema shares, since such an id
// breaks the schema's RequestId only because mcpcheck sent it. null is
// left out: base/wire-schema sets an error with id null aside already
// (deliberateErrorAnswer), and a result with id null cannot be told from
// a broken answer to another request.
func echoesInvalidID(f wire.Frame) bool {
	if !IsResponse(f) {
		return false
	}
	got := rawMember(f.Msg.Raw, "id")
	for _, row := range idRows {
		if row.valid || row.id == "" || row.id == "null" || !sameJSON(got, row.id) {
			continue
		}
		if v, _, _ := row.judge(f); v == expect.Accepted {
			return true
		}
	}
	return false
}

// rawMember is the compact JSON text of member name of the object raw,
// "" when raw is not an object or has no such member.
func rawMember(raw []byte, name string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	v, ok := m[name]
	if !ok {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// sameJSON reports whether two JSON texts are the same id: equal strings
// after unescaping, numbers of equal value (1.5 and 1.50), or both null.
func sameJSON(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	var sa, sb string
	if json.Unmarshal([]byte(a), &sa) == nil && json.Unmarshal([]byte(b), &sb) == nil {
		return sa == sb && a[0] == '"' && b[0] == '"'
	}
	ra, oka := new(big.Rat).SetString(a)
	rb, okb := new(big.Rat).SetString(b)
	if oka && okb {
		return ra.Cmp(rb) == 0
	}
	return a == b
}

// httpAck accepts, on streamable HTTP, the exchange st ending in 202 Accepted with
// no JSON-RPC answer.
func httpAck(t *T, st string) []expect.Alt {
	if t.Transport() != "streamable" {
		// On HTTP+SSE 202 is every POST's receipt; the answer follows on
		// the event stream.
		return nil
	}
	return []expect.Alt{expect.HTTPStatus(st, http.StatusAccepted)}
}
