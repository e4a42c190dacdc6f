package fuzz

import (
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestJudgeClientForbiddenNumberIDs: go-sdk v1.8.0 reads a number id as
// a double made a 64-bit integer. An integer id beyond 2^53 past the
// 64-bit range comes back as -2^63 (or saturated): JSON's own limit, as
// base/id-beyond-2-53 judges it, so the echo is the peer's reading and no
// violation, for a client and a server alike. An id MCP allows (2^63-1)
// echoed so is an interoperability warning (a finding that fails
// nothing); one out of the 64-bit range is forbidden already, and its
// echo in any reading is excused. A fraction truncated
// (3.14159... as 3) is a changed id, as base/invalid-ids judges it: JSON-RPC
// wants the same value back.
func TestJudgeClientForbiddenNumberIDs(t *testing.T) {
	ev := func(from stage.Peer, raw string) stage.Event {
		f := wire.Classify([]byte(raw))
		f.Stream = wire.StreamStdio
		return stage.Event{From: from, Conn: 0, Frame: f}
	}
	c, s := stage.FromClient, stage.FromStage
	answered := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"5"}],"resultType":"complete"}}`
	cancelled := func(id string) string {
		return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"},"id":` + id + `}`
	}
	refusal := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"invalid request: unexpected id for \"notifications/cancelled\""}}`
	}
	for _, tc := range []struct {
		name, sent, echoed string
		check              string // "" for none
	}{
		{"2^63 read as -2^63", "9223372036854775808", "-9223372036854775808", ""},
		{"2^64 saturated", "18446744073709551616", "9223372036854775807", ""},
		{"allowed id 2^63-1 read as -2^63", "9223372036854775807", "-9223372036854775808", "response/id-beyond-2-53-changed"},
		{"fraction truncated", "3.141592653589793238462643383279", "3", "response/to-a-response"},
		{"negative fraction truncated", "-7.9", "-7", "response/id-unknown"},
		{"fraction rounded up", "3.9", "4", "response/id-unknown"},
		{"another id", "3.14", "5", "response/id-unknown"},
		{"2^60 read as -2^63", "1152921504606846976", "-9223372036854775808", "response/id-unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := []stage.Event{ev(s, cancelled(tc.sent)), ev(s, answered), ev(c, refusal(tc.echoed))}
			obs, _, _ := oracle.JudgeClient(spec.V20260728, true, evs)
			switch {
			case tc.check == "" && len(obs) != 0:
				t.Errorf("the client's refusal of id %s with id %s was judged: %+v", tc.sent, tc.echoed, obs)
			case tc.check != "" && (len(obs) != 1 || obs[0].Check != tc.check):
				t.Errorf("id %s answered with id %s: got %+v, want %s", tc.sent, tc.echoed, obs, tc.check)
			case tc.check == "response/id-beyond-2-53-changed" && obs[0].Fails():
				t.Errorf("id %s answered with id %s: the warning fails the campaign: %+v", tc.sent, tc.echoed, obs[0])
			}
		})
	}
	// A server is judged alike: 3.14 echoed as 3 is a changed id, 2^63-1
	// echoed as -2^63 the reading of an id beyond 2^53.
	j := oracle.NewJudge(spec.V20251125)
	j.Sent([]byte(`{"jsonrpc":"2.0","id":3.14,"method":"ping"}`))
	if res := j.Received(conn.Frame{Data: []byte(`{"jsonrpc":"2.0","id":3,"result":{}}`)}); len(res.Obs) != 1 || !strings.HasPrefix(res.Obs[0].Check, "response/") {
		t.Errorf("a server's answer with id 3 to id 3.14: %+v", res.Obs)
	}
	j = oracle.NewJudge(spec.V20251125)
	j.Sent([]byte(`{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`))
	if res := j.Received(conn.Frame{Data: []byte(`{"jsonrpc":"2.0","id":-9223372036854775808,"result":{}}`)}); len(res.Obs) != 1 || res.Obs[0].Check != "response/id-beyond-2-53-changed" || res.Obs[0].Fails() {
		t.Errorf("a server's answer with id -2^63 to id 2^63-1: %+v, want one warning that fails nothing", res.Obs)
	}
}

// TestCrashNamesTheFailingFunction: two nil dereferences in two functions
// are two bugs (two signatures); a stack cut before the function still
// matches the finding on replay (oracle.SameBug), and another panic line never.
func TestCrashNamesTheFailingFunction(t *testing.T) {
	goTrace := func(fn string) string {
		return "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x6b2c4e]\n\ngoroutine 35 [running]:\n" +
			fn + "(0xc0001a6000, {0x0, 0x0})\n\t/home/u/go/pkg/mod/x/mcp/client.go:812 +0x2e\ngithub.com/x/mcp.(*Conn).dispatch(0xc0001a6000)\n\t/home/u/go/pkg/mod/x/mcp/conn.go:120 +0x1c5\ncreated by github.com/x/mcp.(*Conn).start in goroutine 1\n"
	}
	exit := &conn.ExitStatus{Code: 2}
	a := oracle.CrashObservation(exit, []byte(goTrace("github.com/x/mcp.(*ClientSession).handleElicitationComplete")))
	b := oracle.CrashObservation(exit, []byte(goTrace("github.com/x/mcp.(*ClientSession).handleInputRequests")))
	if !strings.HasSuffix(a.Check, "[in github.com/x/mcp.(*ClientSession).handleElicitationComplete]") {
		t.Errorf("Go crash check = %q, want the failing function named", a.Check)
	}
	if a.Signature() == b.Signature() {
		t.Errorf("two nil dereferences in two functions share one signature: %q, %q", a.Check, b.Check)
	}
	explicit := oracle.CrashObservation(exit, []byte("panic: boom\n\ngoroutine 1 [running]:\npanic({0x5d2e40?, 0x6f2b10?})\n\t/usr/lib/go/src/runtime/panic.go:804 +0x168\nmain.handle(...)\n\t/src/main.go:12\nmain.main()\n\t/src/main.go:30 +0x25\n"))
	if !strings.HasSuffix(explicit.Check, "[in main.handle]") {
		t.Errorf("an explicit panic's check = %q, want the runtime's panic frame skipped and main.handle named", explicit.Check)
	}
	cut := oracle.CrashObservation(exit, []byte("panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x6b2c4e]\n"))
	if !oracle.SameBug(cut, a) || !oracle.SameBug(a, cut) {
		t.Errorf("a stack cut before the function does not match the finding: %q vs %q", cut.Check, a.Check)
	}
	if oracle.SameBug(a, b) {
		t.Errorf("sameBug matched two functions: %q, %q", a.Check, b.Check)
	}
	other := oracle.CrashObservation(exit, []byte("panic: index out of range [N] with length N\n"))
	if oracle.SameBug(other, cut) {
		t.Errorf("sameBug matched two panic lines: %q, %q", other.Check, cut.Check)
	}
	js := oracle.CrashObservation(exit, []byte("/app/client.js:40\n    throw e;\n    ^\n\nTypeError: Cannot read properties of undefined (reading 'id')\n    at Client._onresponse (/app/node_modules/sdk/client.js:311:27)\n    at Socket.<anonymous> (/app/x.js:1:1)\n\nNode.js v22.1.0\n"))
	if !strings.HasSuffix(js.Check, "[in Client._onresponse]") {
		t.Errorf("a JavaScript crash's check = %q, want the first frame named", js.Check)
	}
	st, _ := oracle.ClientCrash(nil, nil)
	if st.Check != "" {
		t.Errorf("no exit state judged as a crash: %+v", st)
	}
}

// TestRefusedSSEFeaturesAreTwoBugs: a client refusing a byte order mark
// and one refusing CR line ends get two checks; a replay file written
// when both were sse/valid-stream-refused still matches either.
func TestRefusedSSEFeaturesAreTwoBugs(t *testing.T) {
	bom := sseFeature(&mutate.HTTPReply{SSE: &mutate.SSEDamage{BOM: true}})
	cr := sseFeature(&mutate.HTTPReply{SSE: &mutate.SSEDamage{LineEnd: "\r"}})
	if bom != "bom" || cr != "cr-line-ends" {
		t.Errorf("features %q and %q, want bom and cr-line-ends", bom, cr)
	}
	if got := sseFeature(&mutate.HTTPReply{SSE: &mutate.SSEDamage{LineEnd: "\r\n", MultiLine: true}}); got != "crlf-line-ends+multi-line-data" {
		t.Errorf("two features = %q", got)
	}
	req := "transport-http.post.client-handles-json-and-sse"
	a := oracle.Observation{Kind: reports.FindingViolation, Check: "sse/valid-stream-refused/" + bom, Requirement: req}
	b := oracle.Observation{Kind: reports.FindingViolation, Check: "sse/valid-stream-refused/" + cr, Requirement: req}
	old := oracle.Observation{Kind: reports.FindingViolation, Check: "sse/valid-stream-refused", Requirement: req}
	if a.Signature() == b.Signature() || oracle.SameBug(a, b) {
		t.Error("a refused BOM and refused CR line ends are one bug")
	}
	if !oracle.SameBug(a, old) || !oracle.SameBug(b, old) {
		t.Error("an old replay file's sse/valid-stream-refused does not match its refinements")
	}
	if oracle.SameBug(old, a) {
		t.Error("a refinement's replay file matched the unrefined check")
	}
}

// TestMisnumberedPingAnswerIsAnAnswer: a client that answers the stage's
// liveness ping under a wrong id has answered it (alive: the judge reports
// the unknown id, no hang/ping is made of it), once the answers under
// unknown ids number the stage's requests awaiting one. An answer under
// the right id is an answer; an unknown-id answer while another request
// of the stage still awaits one settles nothing, nor does one written
// before the ping went out, nor a late duplicate of an answer.
func TestMisnumberedPingAnswerIsAnAnswer(t *testing.T) {
	ev := func(from stage.Peer, raw string) stage.Event {
		return stage.Event{From: from, Frame: wire.Frame{Kind: wire.KindMessage, Raw: []byte(raw), Msg: jsonrpc.Decode([]byte(raw))}}
	}
	ping := ev(stage.FromStage, `{"jsonrpc":"2.0","id":"`+ProbeID+`","method":"ping"}`)
	roots := ev(stage.FromStage, `{"jsonrpc":"2.0","id":7,"method":"roots/list"}`)
	right := ev(stage.FromClient, `{"jsonrpc":"2.0","id":"`+ProbeID+`","result":{}}`)
	cut := ev(stage.FromClient, `{"jsonrpc":"2.0","id":"`+ProbeID[:len(ProbeID)-1]+`","result":{}}`)
	rootsAnswer := ev(stage.FromClient, `{"jsonrpc":"2.0","id":7,"result":{"roots":[]}}`)
	rootsCut := ev(stage.FromClient, `{"jsonrpc":"2.0","id":70,"result":{"roots":[]}}`)
	for _, tc := range []struct {
		name                  string
		evs                   []stage.Event
		answered, misnumbered bool
	}{
		{"under its id", []stage.Event{ping, right}, true, false},
		{"misnumbered, the only request awaiting", []stage.Event{ping, cut}, true, true},
		{"no answer", []stage.Event{ping}, false, false},
		{"misnumbered while roots/list awaits", []stage.Event{roots, ping, cut}, false, false},
		{"both misnumbered", []stage.Event{roots, ping, rootsCut, cut}, true, true},
		{"roots/list answered, ping misnumbered", []stage.Event{roots, ping, rootsAnswer, cut}, true, true},
		{"unknown answer before the ping", []stage.Event{cut, ping}, false, false},
		{"a late duplicate is no unknown answer", []stage.Event{roots, rootsAnswer, ping, rootsAnswer}, false, false},
	} {
		answered, misnumbered := answeredProbe(tc.evs)
		if answered != tc.answered || misnumbered != tc.misnumbered {
			t.Errorf("%s: answeredProbe = %v, %v; want %v, %v", tc.name, answered, misnumbered, tc.answered, tc.misnumbered)
		}
	}
}
