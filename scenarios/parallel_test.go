package scenarios

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpcheck/mcpcheck/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The proof that outcomes do not depend on how many checks run at the
// same time: whole suites against the reference server, once with
// Parallel 1 (every check after the other, registration order) and once
// with Parallel 8, compared check by check (ID, version and transport ->
// outcome).

// wideParallel is the concurrency the tests compare with Parallel 1: more
// than any default, so that every exclusive check and every group is
// contended.
const wideParallel = 8

// outcomeKey names one check of a run.
func outcomeKey(c reports.Check) string {
	return fmt.Sprintf("%s@%s/%s", c.ID, c.Version, c.Transport)
}

// outcomes maps every check of a run to its outcome.
func outcomes(t *testing.T, res Result) map[string]reports.Outcome {
	t.Helper()
	out := map[string]reports.Outcome{}
	for _, c := range res.Report.Checks {
		k := outcomeKey(c)
		if _, dup := out[k]; dup {
			t.Errorf("check %s is reported twice", k)
		}
		out[k] = c.Outcome
	}
	return out
}

// sameOutcomes fails the test for every check whose outcome differs
// between the serial and the concurrent run (with both reasons), and when
// the concurrent run's report does not list its checks in the serial
// run's order.
func sameOutcomes(t *testing.T, what string, serial, wide Result) {
	t.Helper()
	if len(serial.Report.Checks) == 0 {
		t.Fatalf("%s: no check ran", what)
	}
	if d := cmp.Diff(outcomes(t, serial), outcomes(t, wide)); d != "" {
		t.Errorf("%s: outcomes with Parallel 1 (-) and Parallel %d (+) differ:\n%s", what, wideParallel, d)
		byKey := map[string]reports.Check{}
		for _, c := range serial.Report.Checks {
			byKey[outcomeKey(c)] = c
		}
		for _, c := range wide.Report.Checks {
			if s, ok := byKey[outcomeKey(c)]; ok && s.Outcome != c.Outcome {
				t.Errorf("%s: Parallel 1: %s (%s %s); Parallel %d: %s (%s %s)", outcomeKey(c), s.Outcome, s.Reason, s.Actual, wideParallel, c.Outcome, c.Reason, c.Actual)
			}
		}
	}
	var a, b []string
	for _, c := range serial.Report.Checks {
		a = append(a, outcomeKey(c))
	}
	for _, c := range wide.Report.Checks {
		b = append(b, outcomeKey(c))
	}
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("%s: the reports list the checks in another order:\n%s", what, d)
	}
}

// runSerialAndWide runs cfg with Parallel 1 and with wideParallel, each
// against a target of its own (mk), at the same time, and returns both
// results and how long each took.
func runSerialAndWide(t *testing.T, cfg Config, mk func(t *testing.T) target.Target) (serial, wide Result, ts, tw time.Duration) {
	t.Helper()
	var wg sync.WaitGroup
	for _, n := range []int{1, wideParallel} {
		c := cfg
		c.Parallel = n
		c.Target = mk(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			res := runOne(t, c)
			if n == 1 {
				serial, ts = res, time.Since(start)
			} else {
				wide, tw = res, time.Since(start)
			}
		}()
	}
	wg.Wait()
	return serial, wide, ts, tw
}

// runOne runs cfg (direct engine, 5 s steps unless set) and records a
// run that could not be judged or had harness problems as an error of t.
func runOne(t *testing.T, cfg Config) Result {
	cfg.Direct = true
	if cfg.Target.URL != "" {
		cfg.Target.Timeouts = target.Timeouts{Start: 10 * time.Second, Step: 5 * time.Second, Grace: time.Second}
	}
	return runSuitesErr(t, cfg, 3*time.Minute)
}

// TestParallelOutcomesAgainstReference runs every version of the whole
// server suite against the reference server with Parallel 1 and
// Parallel 8, over stdio and over streamable HTTP (a server of its own
// per run), and requires the same outcome for every check and the same
// report order.
func TestParallelOutcomesAgainstReference(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	mcpcheckBinary(t)
	for _, tc := range []struct {
		name string
		mk   func(t *testing.T) target.Target
	}{
		{"stdio", func(t *testing.T) target.Target { return referenceTarget(t) }},
		{"streamable", func(t *testing.T) target.Target {
			tg := target.URL(startReferenceHTTP(t))
			tg.Transport = target.Streamable
			return tg
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			serial, wide, ts, tw := runSerialAndWide(t, Config{Versions: spec.Versions}, tc.mk)
			t.Logf("%d checks: Parallel 1 %s (%d connections), Parallel %d %s (%d connections)",
				len(serial.Report.Checks), ts.Round(time.Millisecond), serial.Starts, wideParallel, tw.Round(time.Millisecond), wide.Starts)
			sameOutcomes(t, tc.name, serial, wide)
		})
	}
}

// runSuitesErr is runSuites for a goroutine of the test: a run that
// cannot be judged, and every harness problem, is an error of t (Fatal
// may only be called from the test's own goroutine).
func runSuitesErr(t *testing.T, cfg Config, limit time.Duration) Result {
	if cfg.Session.Timeout == 0 {
		cfg.Session.Timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Errorf("run with Parallel %d: %v", cfg.Parallel, err)
	}
	for _, p := range res.Problems {
		t.Errorf("harness problem with Parallel %d: %v", cfg.Parallel, p)
	}
	return res
}
