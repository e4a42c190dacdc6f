package server

import (
	"context"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/scenarios/officialsuite"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// BenchmarkServerSuiteVsOfficial measures the server suite against the
// official conformance suite's server mode, in one run, against the same
// reference server over streamable HTTP (one process, started once): per
// version, each iteration runs the official suite and then mcpcheck, and
// the benchmark reports the applicable checks each judged per second of
// wall time and their ratio (ours over theirs). Applicable means a
// verdict: the official suite's SUCCESS, FAILURE and WARNING rows of its
// checks.json files, mcpcheck's pass, fail and warn (not n/a, not
// untestable). mcpcheck runs at its default parallelism and with its
// silence windows as they are.
//
// The lab provides the official suite (see package officialsuite); the
// benchmark skips when it is absent.
//
//	make bench-official
//	go test ./internal/scenarios/internal/server -run '^$' -bench ServerSuiteVsOfficial -benchtime 3x
func BenchmarkServerSuiteVsOfficial(b *testing.B) {
	suite, err := officialsuite.Find()
	if err != nil {
		b.Skip(err)
	}
	url := startReferenceHTTP(b, "--page-size", "100") // the default page size
	for _, v := range []spec.Version{spec.V20251125, spec.V20260728} {
		b.Run(string(v), func(b *testing.B) {
			var offN, ourN int
			var offT, ourT time.Duration
			for i := 0; i < b.N; i++ {
				n, d := officialServerMode(b, suite, url, v)
				offN, offT = offN+n, offT+d
				n, d = ourServerSuite(b, url, v)
				ourN, ourT = ourN+n, ourT+d
			}
			per := func(n int) float64 { return float64(n) / float64(b.N) }
			off := float64(offN) / offT.Seconds()
			ours := float64(ourN) / ourT.Seconds()
			b.ReportMetric(per(offN), "official-checks")
			b.ReportMetric(offT.Seconds()/float64(b.N), "official-s")
			b.ReportMetric(off, "official-checks/s")
			b.ReportMetric(per(ourN), "ours-checks")
			b.ReportMetric(ourT.Seconds()/float64(b.N), "ours-s")
			b.ReportMetric(ours, "ours-checks/s")
			b.ReportMetric(ours/off, "ratio")
		})
	}
}

// officialServerMode runs the official suite's server mode against url in
// version v and returns how many checks it judged and how long it took.
func officialServerMode(b *testing.B, suite officialsuite.Suite, url string, v spec.Version) (int, time.Duration) {
	n, took, err := suite.Run(b.TempDir(), "server", "--url", url, "--spec-version", string(v))
	if err != nil {
		b.Fatal(err)
	}
	if n == 0 {
		b.Fatalf("the official suite judged no check against %s in %s", url, v)
	}
	return n, took
}

// ourServerSuite runs mcpcheck's server suite against url in version v at
// its default parallelism and returns how many checks reached a verdict and
// how long the run took. Nothing may fail: the target is the reference
// server.
func ourServerSuite(b *testing.B, url string, v spec.Version) (int, time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, Config{Target: target.URL(url), Versions: []spec.Version{v}, Session: session.Config{Timeout: 5 * time.Second}, ToolPolicy: ownTools(ToolPolicy{})})
	took := time.Since(start)
	if err != nil {
		b.Fatalf("mcpcheck against %s: %v", url, err)
	}
	n := 0
	for _, c := range res.Report.Checks {
		switch c.Outcome {
		case reports.Pass, reports.Fail, reports.Warn:
			n++
		}
		if c.Broken() {
			b.Errorf("%s %s: %s %s", c.ID, v, c.Outcome, c.Actual)
		}
	}
	return n, took
}
