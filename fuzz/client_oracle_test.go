package fuzz

import (
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/harness/stage"
	"github.com/mcpcheck/mcpcheck/harness/wire"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestJudgeClientForbiddenNumberIDs: go-sdk v1.8.0's conformance client
// (HTTP, 2026-07-28), sent a message with a number id MCP forbids, refuses
// it with an error carrying the id as its decoder read it (a double made a
// 64-bit integer): 3.14159... as 3, 2^63 as -2^63. Those are echoes of
// mcpcheck's own bad id, not answers to another message: 3 was judged an
// answer to the stage's response to tools/call (response/to-a-response),
// -2^63 an unknown id (response/id-unknown), both MUST. Any other id, and
// the same echo of an id MCP allows (2^63-1 answered as -2^63), stays a
// violation; a server campaign's judge is unchanged.
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
		{"fraction truncated", "3.141592653589793238462643383279", "3", ""},
		{"negative fraction truncated", "-7.9", "-7", ""},
		{"2^63 read as -2^63", "9223372036854775808", "-9223372036854775808", ""},
		{"2^64 saturated", "18446744073709551616", "9223372036854775807", ""},
		{"fraction rounded up", "3.9", "4", "response/id-unknown"},
		{"another id", "3.14", "5", "response/id-unknown"},
		{"allowed id 2^63-1 read as -2^63", "9223372036854775807", "-9223372036854775808", "response/id-unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := []stage.Event{ev(s, cancelled(tc.sent)), ev(s, answered), ev(c, refusal(tc.echoed))}
			obs, _, _ := judgeClient(spec.V20260728, true, evs)
			switch {
			case tc.check == "" && len(obs) != 0:
				t.Errorf("the client's refusal of id %s with id %s was judged: %+v", tc.sent, tc.echoed, obs)
			case tc.check != "" && (len(obs) != 1 || obs[0].Check != tc.check):
				t.Errorf("id %s answered with id %s: got %+v, want %s", tc.sent, tc.echoed, obs, tc.check)
			}
		})
	}
	// The server side is not touched: a server echoing 3.14 as 3 is judged
	// as before.
	j := newJudge(spec.V20251125)
	j.sent([]byte(`{"jsonrpc":"2.0","id":3.14,"method":"ping"}`))
	if res := j.received(Frame{Data: []byte(`{"jsonrpc":"2.0","id":3,"result":{}}`)}); len(res.obs) != 1 || !strings.HasPrefix(res.obs[0].Check, "response/") {
		t.Errorf("a server's answer with id 3 to id 3.14: %+v", res.obs)
	}
}
