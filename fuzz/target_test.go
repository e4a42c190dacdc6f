package fuzz

import (
	"context"
	"reflect"
	"testing"
	"time"

	htarget "github.com/mcpcheck/mcpcheck/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
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

// harnessHelper is the test server launched through harness/target.
func harnessHelper(t testing.TB, v spec.Version, fault string) HarnessTarget {
	e := helperTarget(t, v, fault)
	return HarnessTarget{T: htarget.Target{Command: e.Argv[0], Args: e.Argv[1:], Env: e.Env, Transport: htarget.Stdio}}
}

// TestHarnessTargetAdapter runs campaigns through the harness's stdio
// transport: a careful server stays clean, a crashing one is found and
// replayed.
func TestHarnessTargetAdapter(t *testing.T) {
	t.Parallel()
	v := spec.V20251125
	execs := int64(80)
	if raceEnabled {
		// Every instance a start of the race-instrumented test binary; the
		// adapter's plumbing (start, exchange, restart) shows in a few.
		// A careful server's silence over many inputs is
		// TestCarefulServerHasNoFindings'.
		execs = 10
	}
	res, err := Run(context.Background(), Config{Target: harnessHelper(t, v, ""), Version: v, MaxExecs: execs, Seed: 11, Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		t.Errorf("finding on the careful server through the harness: %s %s: %s", f.Kind, f.Check, f.Message)
	}
	dir := t.TempDir()
	target := harnessHelper(t, v, "exit-garbage")
	res, err = Run(context.Background(), Config{Target: target, Version: v, MaxExecs: 4, Seed: 2, Mutators: []string{"bytes/garbage-line"}, FindingsDir: dir, Wait: 10 * time.Second, MinimizeBudget: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 || res.Findings[0].Kind != reports.FindingCrash || !res.Findings[0].Reproduced {
		t.Fatalf("want a reproduced crash, got %+v", res.Findings)
	}
	if c := res.Findings[0].Check; c != "crash/exited-with-status-3" {
		t.Errorf("check %q, want the exit status", c)
	}
	rr, err := Replay(context.Background(), res.Findings[0].Dir, target, ReplayOptions{})
	if err != nil || !rr.Reproduced {
		t.Fatalf("replay through the harness: %v, %+v", err, rr)
	}
	if _, err := (HarnessTarget{T: htarget.URL("http://127.0.0.1:1/mcp")}).Start(context.Background()); err == nil {
		t.Error("an HTTP target was accepted by the stdio-only adapter")
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
