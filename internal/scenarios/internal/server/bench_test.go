package server

import (
	"context"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/spec"
)

// BenchmarkSuiteStdio measures the full suite of one protocol version
// against the reference server over stdio (issue #5: 2025-11-25 in at most
// 5 s), and in the same run its baseline: one process start with an
// initialize and a ping, the price a check would pay if the harness
// started the target per check. It reports the suite's seconds, the
// connections (process starts) it paid for, and suite-time/start-time.
//
//	go test ./internal/scenarios/internal/server -run '^$' -bench SuiteStdio -benchtime 3x
func BenchmarkSuiteStdio(b *testing.B) {
	tg := referenceTarget(b)
	var startCost time.Duration
	b.Run("baseline-one-start", func(b *testing.B) {
		start := time.Now()
		for i := 0; i < b.N; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			conn, err := target.Connect(ctx, tg)
			if err != nil {
				cancel()
				b.Fatal(err)
			}
			s := session.NewStateful(conn, session.Config{Version: spec.V20251125, Timeout: 5 * time.Second})
			if _, r, err := s.Initialize(ctx, nil); err != nil || !r.OK() {
				b.Fatalf("initialize: %v %s", err, r.Describe())
			}
			if r := Sentinel(ctx, s); !r.OK() {
				b.Fatalf("ping: %s", r.Describe())
			}
			conn.Close()
			cancel()
		}
		startCost = time.Since(start) / time.Duration(b.N)
	})
	for _, v := range []spec.Version{spec.V20251125, spec.V20260728} {
		b.Run("suite-"+string(v), func(b *testing.B) {
			starts, checks := 0, 0
			start := time.Now()
			for i := 0; i < b.N; i++ {
				res := runReference(b, Config{Versions: []spec.Version{v}})
				starts += res.Starts
				checks = len(res.Report.Checks)
				for _, c := range res.Report.Checks {
					if c.Broken() {
						b.Fatalf("%s %s: %s", c.ID, c.Outcome, c.Actual)
					}
				}
			}
			per := time.Since(start) / time.Duration(b.N)
			b.ReportMetric(per.Seconds(), "s/suite")
			b.ReportMetric(float64(starts)/float64(b.N), "starts/suite")
			b.ReportMetric(float64(checks), "checks/suite")
			if startCost > 0 {
				b.ReportMetric(float64(per)/float64(startCost), "x-one-start")
			}
		})
	}
}

// BenchmarkWrongIDServer measures a full run (every version, stdio)
// against a server whose every answer carries a wrong id, next to a
// clean run against the reference server in the same benchmark: the
// x-clean metric is how many clean runs one broken run costs.
func BenchmarkWrongIDServer(b *testing.B) {
	var clean time.Duration
	for _, tc := range []struct {
		name   string
		faults []string
	}{{"clean", nil}, {"response-ids-wrong", []string{"response-ids-wrong"}}} {
		b.Run(tc.name, func(b *testing.B) {
			start := time.Now()
			for i := 0; i < b.N; i++ {
				runReference(b, Config{Versions: spec.Versions}, tc.faults...)
			}
			per := time.Since(start) / time.Duration(b.N)
			b.ReportMetric(per.Seconds(), "s/run")
			if tc.faults == nil {
				clean = per
			} else if clean > 0 {
				b.ReportMetric(float64(per)/float64(clean), "x-clean")
			}
		})
	}
}

// BenchmarkParallelStdio measures a full run (every version) against the
// reference server over stdio with Parallel 1 (one check after another,
// as before checks ran concurrently) and with the default
// (DefaultParallel), in one benchmark run: s/run and checks/s of each,
// and for the default x-parallel-1, how many times faster it is than
// Parallel 1, and the parallelism it used.
//
//	go test ./internal/scenarios/internal/server -run '^$' -bench ParallelStdio -benchtime 3x
func BenchmarkParallelStdio(b *testing.B) {
	tg := referenceTarget(b)
	var serial time.Duration
	for _, tc := range []struct {
		name     string
		parallel int
	}{{"parallel-1", 1}, {"parallel-default", 0}} {
		b.Run(tc.name, func(b *testing.B) {
			checks := 0
			start := time.Now()
			for i := 0; i < b.N; i++ {
				res := runSuites(b, Config{Target: tg, Versions: spec.Versions, Parallel: tc.parallel}, 2*time.Minute)
				checks = len(res.Report.Checks)
				for _, c := range res.Report.Checks {
					if c.Broken() {
						b.Fatalf("%s [%s] %s: %s", c.ID, c.Version, c.Outcome, c.Actual)
					}
				}
			}
			per := time.Since(start) / time.Duration(b.N)
			b.ReportMetric(per.Seconds(), "s/run")
			b.ReportMetric(float64(checks)/per.Seconds(), "checks/s")
			if tc.parallel == 1 {
				serial = per
				return
			}
			b.ReportMetric(float64(DefaultParallel(tg)), "parallel")
			if serial > 0 {
				b.ReportMetric(float64(serial)/float64(per), "x-parallel-1")
			}
		})
	}
}
