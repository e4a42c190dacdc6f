package fuzz

import (
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/harness/stage"
	"github.com/mcpcheck/mcpcheck/harness/wire"
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
			obs, _, _ := judgeClient(spec.V20260728, true, evs)
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
	j := newJudge(spec.V20251125)
	j.sent([]byte(`{"jsonrpc":"2.0","id":3.14,"method":"ping"}`))
	if res := j.received(conn.Frame{Data: []byte(`{"jsonrpc":"2.0","id":3,"result":{}}`)}); len(res.obs) != 1 || !strings.HasPrefix(res.obs[0].Check, "response/") {
		t.Errorf("a server's answer with id 3 to id 3.14: %+v", res.obs)
	}
	j = newJudge(spec.V20251125)
	j.sent([]byte(`{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`))
	if res := j.received(conn.Frame{Data: []byte(`{"jsonrpc":"2.0","id":-9223372036854775808,"result":{}}`)}); len(res.obs) != 1 || res.obs[0].Check != "response/id-beyond-2-53-changed" || res.obs[0].Fails() {
		t.Errorf("a server's answer with id -2^63 to id 2^63-1: %+v, want one warning that fails nothing", res.obs)
	}
}
