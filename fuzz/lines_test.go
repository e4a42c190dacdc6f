package fuzz

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestPipeLines: the deadline-aware line splitter frames stdout as
// jsonrpc.LineReader does, and a deadline leaves a partial line buffered.
func TestPipeLines(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := newPipeLines(r, 16)
	soon := func() time.Time { return time.Now().Add(5 * time.Second) }
	write := func(s string) {
		if _, err := w.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(data, problem string) {
		t.Helper()
		f, err := p.next(soon())
		if err != nil {
			t.Fatalf("want %q, got %v", data, err)
		}
		if string(f.Data) != data || !strings.Contains(f.Problem, problem) || (problem == "" && f.Problem != "") {
			t.Fatalf("got %q (problem %q), want %q (problem containing %q)", f.Data, f.Problem, data, problem)
		}
	}
	write("one\r\n\n\r\n  \ntwo")
	expect("one", "")
	expect("  ", "")
	if _, err := p.next(time.Now().Add(20 * time.Millisecond)); !errors.Is(err, ErrDeadline) {
		t.Fatalf("a partial line: %v, want ErrDeadline", err)
	}
	if _, ok := p.available(); ok {
		t.Fatal("available returned a partial line")
	}
	write("\n" + strings.Repeat("x", 40) + "\nthree\n" + strings.Repeat("y", 17) + "\r\n" + strings.Repeat("z", 16) + "\r\n")
	expect("two", "")
	expect("", "40 bytes, over the 16-byte line limit")
	expect("three", "")
	expect("", "17 bytes")
	expect(strings.Repeat("z", 16), "")
	write("last")
	w.Close()
	expect("last", "without a final newline")
	if _, err := p.next(soon()); !errors.Is(err, ErrClosed) {
		t.Fatalf("after the end: %v, want ErrClosed", err)
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
	conn, err := (&ExecTarget{Argv: []string{exe, "-test.run=^$"}, Env: []string{helperEnv + "=echo"}, WriteTimeout: 20 * time.Second}).Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const lines = 5000
	var b strings.Builder
	for i := 0; i < lines; i++ {
		b.WriteString(strings.Repeat("x", 1000) + itoa(i) + "\n")
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
		if want := strings.Repeat("x", 1000) + itoa(i); string(f.Data) != want {
			t.Fatalf("line %d is %.20q…", i, f.Data)
		}
	}
}

// TestGoroutineReaderPath: the path for pipes that take no deadline (a
// reader goroutine, a goroutine per write) still runs a clean campaign and
// finds a crash.
func TestGoroutineReaderPath(t *testing.T) {
	defer func(old bool) { pollPipes = old }(pollPipes)
	pollPipes = false
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
