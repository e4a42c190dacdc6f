package server

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// droppingPings serves the reference server over a pipe, but never lets
// it see some pings: on each connection the first ping (the pool's
// sentinel after the handshake) goes through; of the later ones, drop
// says which are lost (n counts them over every connection, from 1).
func droppingPings(t *testing.T, drop func(n int64) bool) target.PipeServer {
	srv, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	var later atomic.Int64
	return func(ctx context.Context, in io.Reader, out io.Writer) error {
		pr, pw := io.Pipe()
		go func() {
			sc := bufio.NewScanner(in)
			sc.Buffer(make([]byte, 64<<10), 16<<20)
			pings := 0
			for sc.Scan() {
				line := sc.Text()
				if strings.Contains(line, `"method":"ping"`) {
					pings++
					if pings > 1 && drop(later.Add(1)) {
						continue
					}
				}
				if _, err := io.WriteString(pw, line+"\n"); err != nil {
					return
				}
			}
			pw.CloseWithError(sc.Err())
		}()
		return srv.ServeStdio(ctx, pr, out, io.Discard)
	}
}

// TestTimeoutsAreConfirmedAlone: a check whose verdict came with a wait
// that went unanswered is run again alone before it is reported. A
// target that lost one ping (as a loaded one may be late with it) passes
// on the re-run, and the report says what the first attempt ended with;
// one that never answers a check's ping fails on the re-run too, and the
// failure says it was confirmed.
func TestTimeoutsAreConfirmedAlone(t *testing.T) {
	run := func(drop func(int64) bool) (Result, reports.Check) {
		t.Helper()
		cfg := Config{Target: target.Pipe(droppingPings(t, drop)), Only: []string{"ping/empty-result"},
			Versions: []spec.Version{spec.V20251125}, Session: session.Config{Timeout: time.Second}, ToolPolicy: ownTools(ToolPolicy{})}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Report.Checks {
			if c.ID == "ping/empty-result" {
				return res, c
			}
		}
		t.Fatal("ping/empty-result did not run")
		return res, reports.Check{}
	}

	res, c := run(func(n int64) bool { return n == 1 })
	if c.Outcome != reports.Pass || res.Confirmed != 1 {
		t.Errorf("one lost ping: %s (%s %s), %d re-run; want a pass on the re-run", c.Outcome, c.Actual, c.Reason, res.Confirmed)
	}
	if !strings.Contains(c.Retried, "first attempt") || !strings.Contains(c.Retried, "ended fail") || !strings.Contains(c.Retried, "no answer within") {
		t.Errorf("the re-run's report says %q; want the first attempt's failure", c.Retried)
	}

	res, c = run(func(int64) bool { return true })
	if c.Outcome != reports.Fail || res.Confirmed != 1 || !strings.Contains(c.Actual, "no answer within") || c.Retried == "" {
		t.Errorf("every later ping lost: %s (%s), %d re-run, retried %q; want a confirmed failure", c.Outcome, c.Actual, res.Confirmed, c.Retried)
	}
}

// TestUnconfirmedTimeoutIsUntestable: when the run stops (a deadline, a
// signal) after a check's wait went unanswered but before the re-run
// alone could confirm it, the check is untestable — its silence may have
// been our load — never the fail of its first attempt. It used to keep
// that fail: a census server starved by a loaded machine was failed on a
// tools/call whose confirmation the run's deadline had cut off.
func TestUnconfirmedTimeoutIsUntestable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := Config{Target: target.Pipe(droppingPings(t, func(n int64) bool { return n == 1 })), Only: []string{"ping/empty-result"},
		Versions: []spec.Version{spec.V20251125}, Session: session.Config{Timeout: time.Second}, ToolPolicy: ownTools(ToolPolicy{}),
		// The run stops as soon as the first attempt has failed: the
		// confirmation finds it stopped.
		Progress: func(c reports.Check) {
			if c.ID == "ping/empty-result" && c.Outcome == reports.Fail {
				cancel()
			}
		}}
	res, err := Run(ctx, cfg) // ends with the stop's error, and the report
	if err == nil || res.Report.Interrupted == "" {
		t.Fatalf("Run = %v, interrupted %q; want the stop reported", err, res.Report.Interrupted)
	}
	var got *reports.Check
	for i, c := range res.Report.Checks {
		if c.ID == "ping/empty-result" {
			got = &res.Report.Checks[i]
		}
	}
	switch {
	case got == nil:
		t.Fatal("ping/empty-result is not in the report")
	case got.Outcome != reports.Untestable || !strings.Contains(got.Reason, "unconfirmed") || !strings.Contains(got.Reason, "ended fail") || !strings.Contains(got.Reason, "stopped"):
		t.Errorf("a failure from an unanswered wait the stopped run could not confirm: %s (%s%s), %d re-run; want untestable, unconfirmed, naming the first attempt's fail and the stop", got.Outcome, got.Actual, got.Reason, res.Confirmed)
	case res.Confirmed != 0:
		t.Errorf("%d checks re-run after the run was stopped; want none", res.Confirmed)
	}
}
