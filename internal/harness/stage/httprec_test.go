package stage

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// TestSSESplitterMatchesReader checks that parsing a stream as it is
// written, in pieces of any size, yields the events of reading it whole.
func TestSSESplitterMatchesReader(t *testing.T) {
	streams := []string{
		"data: {\"a\":1}\n\n",
		"\xef\xbb\xbfid: 1\r\ndata: x\r\n\r\ndata: y\r\rdata: z\n\n",
		": comment\n\nretry: 500\n\nevent: message\ndata: 1\ndata: 2\n\n",
		"data: partial at the end\n",
		"id: 7\rdata: cr only\r\r\n\ndata: after\n\n",
	}
	rapid.Check(t, func(rt *rapid.T) {
		stream := []byte(rapid.SampledFrom(streams).Draw(rt, "stream"))
		if rapid.Bool().Draw(rt, "concat") {
			stream = append(stream, []byte(rapid.SampledFrom(streams).Draw(rt, "second"))...)
		}
		want := sseFrames(stream)
		var s sseSplitter
		var got []wire.Frame
		for rest := stream; len(rest) > 0; {
			n := rapid.IntRange(1, len(rest)).Draw(rt, "n")
			got = append(got, s.feed(rest[:n])...)
			rest = rest[n:]
		}
		if d := cmp.Diff(want, got, cmpopts.EquateComparable(jsonrpc.ID{}), cmpopts.IgnoreFields(wire.Frame{}, "Time")); d != "" {
			rt.Fatalf("events differ for %q (-whole +pieces):\n%s", stream, d)
		}
	})
}
