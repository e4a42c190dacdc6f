package fuzz

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/spec"
)

func TestSplitCommand(t *testing.T) {
	cases := map[string][]string{
		`node server.js`:                 {"node", "server.js"},
		`  go run ./cmd/x  --stdio `:     {"go", "run", "./cmd/x", "--stdio"},
		`sh -c "echo 'a b'"`:             {"sh", "-c", "echo 'a b'"},
		`a\ b 'c d' "e\"f"`:              {"a b", "c d", `e"f`},
		`npx -y @modelcontextprotocol/x`: {"npx", "-y", "@modelcontextprotocol/x"},
	}
	for in, want := range cases {
		got, err := SplitCommand(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "   ", `a "b`, `a\`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) accepted", bad)
		}
	}
}

// TestStalledTargetIsAHang: a target that stops reading its stdin makes a
// big write stall; the write gives up and the oracle reports a hang instead
// of blocking the campaign.
func TestStalledTargetIsAHang(t *testing.T) {
	e := helperTarget(t, spec.V20260728, "")
	e.Env = append(e.Env, helperEnv+"=noread")
	e.WriteTimeout = 200 * time.Millisecond
	s, err := openSession(context.Background(), e, spec.V20260728, 5*time.Second, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	// The hang/stdin observation is what a write that gave up at its
	// WriteTimeout reports; a write that blocked instead would never
	// return, which the watchdog (not a bound on the time) catches.
	done := make(chan execOutcome, 1)
	go func() { done <- s.exec(Input{Chunks: [][]byte{make([]byte, 8<<20)}}) }()
	var out execOutcome
	select {
	case out = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the stalled write never gave up: exec blocked")
	}
	if len(out.obs) != 1 || out.obs[0].Check != "hang/stdin" || !out.dead {
		t.Fatalf("want one hang/stdin observation, got %+v", out)
	}
}
