package fuzz

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
)

func TestMinimizeFindsTheNeedle(t *testing.T) {
	in := mutate.Input{Chunks: [][]byte{[]byte("aaaa\nbb"), []byte("b\x00bb\ncccc\n"), []byte("dddd\n")}, CloseAfter: true}
	calls := 0
	got := Minimize(in, func(c mutate.Input) bool {
		calls++
		if !c.CloseAfter {
			t.Fatal("Minimize dropped the CloseAfter flag")
		}
		return bytes.IndexByte(c.Bytes(), 0) >= 0
	}, 200)
	if string(got.Bytes()) != "\x00" {
		t.Errorf("minimized to %q, want the NUL alone", got.Bytes())
	}
	if calls > 200 {
		t.Errorf("%d calls, budget 200", calls)
	}
}

// TestMinimizeProperty: the result always still fails, is never larger
// than the input, and the budget is respected.
func TestMinimizeProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		data := rapid.SliceOfN(rapid.SampledFrom([]byte("ab\nX")), 1, 200).Draw(rt, "data")
		need := rapid.IntRange(1, 3).Draw(rt, "need")
		budget := rapid.IntRange(0, 300).Draw(rt, "budget")
		fails := func(b []byte) bool { return bytes.Count(b, []byte("X")) >= need }
		if !fails(data) {
			return
		}
		in := mutate.Input{Chunks: splitRandomForTest(data)}
		calls := 0
		got := Minimize(in, func(c mutate.Input) bool { calls++; return fails(c.Bytes()) }, budget)
		if !fails(got.Bytes()) {
			rt.Fatalf("minimized input %q no longer fails", got.Bytes())
		}
		if got.Size() > in.Size() {
			rt.Fatalf("grew from %d to %d bytes", in.Size(), got.Size())
		}
		if calls > budget {
			rt.Fatalf("%d calls over a budget of %d", calls, budget)
		}
		if budget >= 300 && len(data) <= 200 && got.Size() != need {
			rt.Fatalf("with a large budget the result should be exactly %d X bytes, got %q", need, got.Bytes())
		}
	})
}

func splitRandomForTest(b []byte) [][]byte {
	if len(b) < 4 {
		return [][]byte{b}
	}
	return [][]byte{b[:len(b)/3], b[len(b)/3 : len(b)/2], b[len(b)/2:]}
}
