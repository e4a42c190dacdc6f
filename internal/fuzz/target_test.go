package fuzz

import (
	"context"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
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
		got, err := conn.SplitCommand(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "   ", `a "b`, `a\`} {
		if _, err := conn.SplitCommand(bad); err == nil {
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
	go func() { done <- s.exec(mutate.Input{Chunks: [][]byte{make([]byte, 8<<20)}}) }()
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

// TestSendWhileTheTargetWrites: a large input to a target that answers
// every line as it reads it (echo) fills both pipes; the write must drain
// stdout rather than wait for a target that is itself waiting for us, and
// every answer must still come out of Recv, in order.
func TestSendWhileTheTargetWrites(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := (&conn.ExecTarget{Argv: []string{exe, "-test.run=^$"}, Env: []string{helperEnv + "=echo"}, WriteTimeout: 20 * time.Second}).Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const lines = 5000
	var b strings.Builder
	for i := 0; i < lines; i++ {
		b.WriteString(strings.Repeat("x", 1000) + strconv.Itoa(i) + "\n")
	}
	// A write that waited for the target instead of draining its stdout
	// would stall until WriteTimeout and fail the Send; an answer lost or
	// out of order fails the reads.
	if err := conn.Send([]byte(b.String())); err != nil {
		t.Fatalf("sending %d bytes: %v", b.Len(), err)
	}
	for i := 0; i < lines; i++ {
		f, err := conn.Recv(time.Now().Add(10 * time.Second))
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if want := strings.Repeat("x", 1000) + strconv.Itoa(i); string(f.Data) != want {
			t.Fatalf("line %d is %.20q…", i, f.Data)
		}
	}
}

// TestGoroutineReaderPath: the path for pipes that take no deadline (a
// reader goroutine, a goroutine per write) still runs a clean campaign and
// finds a crash.
func TestGoroutineReaderPath(t *testing.T) {
	defer func(old bool) { conn.PollPipes = old }(conn.PollPipes)
	conn.PollPipes = false
	v := spec.V20251125
	execs := int64(150)
	if raceEnabled {
		execs = 12 // every instance a start of the race-instrumented test binary: the reader's plumbing shows in a few
	}
	res, err := Run(context.Background(), Config{Target: helperTarget(t, v, ""), Version: v, MaxExecs: execs, Seed: 3, Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		t.Errorf("finding on the careful server: %s %s (%s): %s", f.Kind, f.Check, f.Mutator, f.Message)
	}
	// Every input crashes this target (a NUL in each), each at the first
	// execution: four show the crash and the restarts after it; thirty
	// were thirty starts of the race-instrumented test binary.
	res, err = Run(context.Background(), Config{Target: helperTarget(t, v, "panic-nul"), Version: v, MaxExecs: 4, Seed: 1,
		Mutators: []string{"bytes/nul"}, Wait: 10 * time.Second, MinimizeBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 || res.Findings[0].Kind != reports.FindingCrash {
		t.Errorf("no crash found: %+v", res.Findings)
	}
}
