package client

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/scenarios/officialsuite"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The client suite against the official conformance suite's client mode,
// measured in one run: each iteration runs both against the same client
// in 2025-11-25 and counts, per second of wall time, what each judged in
// two units. The official suite's unit is a row of a scenario's
// checks.json with a verdict (SUCCESS, FAILURE or WARNING): one check
// judged on one scenario. Ours in that unit is a case judgement (a check
// with a verdict times the cases it judged); our checks (one verdict over
// every case) are reported too, as the stricter unit.
//
// The lab provides the official suite and go-sdk's conformance client
// (see package officialsuite); the benchmark skips when they are absent.
//
//	go test ./internal/scenarios/client -run '^$' -bench 'ClientSuite.*VsOfficial' -benchtime 3x

// officialClientMode runs the official suite's client mode against client
// in version v and returns how many checks it judged and how long it took.
func officialClientMode(b *testing.B, suite officialsuite.Suite, client string, v spec.Version) (int, time.Duration) {
	n, took, err := suite.Run(b.TempDir(), "client", "--command", client, "--suite", "all", "--spec-version", string(v))
	if err != nil {
		b.Fatal(err)
	}
	return n, took
}

// officialVersions are the versions the official suite's client mode
// takes (it has no mode for all of them at once, nor for 2024-11-05).
var officialVersions = []spec.Version{spec.V20250326, spec.V20250618, spec.V20251125, spec.V20260728}

// ourClientSuite runs the client suite against launch in version v and
// returns how many checks reached a verdict, how many case judgements
// they made and how long it took.
func ourClientSuite(b *testing.B, launch Launch, vs ...spec.Version) (int, int, time.Duration) {
	start := time.Now()
	res, err := Run(context.Background(), Config{Launch: launch, Versions: vs})
	took := time.Since(start)
	if err != nil {
		b.Fatalf("client suite: %v", err)
	}
	n := 0
	for _, c := range res.Report.Checks {
		switch c.Outcome {
		case reports.Pass, reports.Fail, reports.Warn:
			n++
		}
	}
	return n, res.Judgements, took
}

func BenchmarkClientSuiteVsOfficial(b *testing.B) {
	suite, err := officialsuite.Find("go/bin/gosdk-conformance-client")
	if err != nil {
		b.Skip(err)
	}
	gosdk := filepath.Join(suite.Lab, "go", "bin", "gosdk-conformance-client")
	bin := mcpcheckBinary(b)
	ref := Launch{Command: bin + " reference client --timeout 10s conformance"}
	v := spec.V20251125
	var offN, gosdkN, gosdkJ, refN, refJ int
	var offT, gosdkT, refT time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n, d := officialClientMode(b, suite, gosdk, v)
		offN, offT = offN+n, offT+d
		n, j, d := ourClientSuite(b, Launch{Command: gosdk}, v)
		gosdkN, gosdkJ, gosdkT = gosdkN+n, gosdkJ+j, gosdkT+d
		n, j, d = ourClientSuite(b, ref, v)
		refN, refJ, refT = refN+n, refJ+j, refT+d
	}
	perSec := func(n int, d time.Duration) float64 { return float64(n) / d.Seconds() }
	per := func(n int) float64 { return float64(n) / float64(b.N) }
	off := perSec(offN, offT)
	b.ReportMetric(off, "official-rows/s")
	b.ReportMetric(per(offN), "official-rows")
	b.ReportMetric(perSec(gosdkJ, gosdkT), "gosdk-judgements/s")
	b.ReportMetric(per(gosdkJ), "gosdk-judgements")
	b.ReportMetric(per(gosdkN), "gosdk-checks")
	b.ReportMetric(perSec(refJ, refT), "ref-judgements/s")
	b.ReportMetric(per(refJ), "ref-judgements")
	b.ReportMetric(per(refN), "ref-checks")
	b.ReportMetric(perSec(gosdkJ, gosdkT)/off, "ratio-gosdk")
	b.ReportMetric(perSec(refJ, refT)/off, "ratio-ref")
	b.ReportMetric(perSec(refN, refT)/off, "ratio-ref-checks")
}

// BenchmarkClientSuiteAllVersionsVsOfficial compares whole runs against
// go-sdk's conformance client: ours is one run over every version
// (mcpcheck client --protocol all); the official suite's is one run per
// version it knows, one after another, as a CI job would have to do.
func BenchmarkClientSuiteAllVersionsVsOfficial(b *testing.B) {
	suite, err := officialsuite.Find("go/bin/gosdk-conformance-client")
	if err != nil {
		b.Skip(err)
	}
	gosdk := filepath.Join(suite.Lab, "go", "bin", "gosdk-conformance-client")
	var offN, ourN, ourJ int
	var offT, ourT time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, v := range officialVersions {
			n, d := officialClientMode(b, suite, gosdk, v)
			offN, offT = offN+n, offT+d
		}
		n, j, d := ourClientSuite(b, Launch{Command: gosdk}, spec.Versions...)
		ourN, ourJ, ourT = ourN+n, ourJ+j, ourT+d
	}
	per := func(n int) float64 { return float64(n) / float64(b.N) }
	off := float64(offN) / offT.Seconds()
	ours := float64(ourJ) / ourT.Seconds()
	b.ReportMetric(per(offN), "official-rows")
	b.ReportMetric(offT.Seconds()/float64(b.N), "official-s")
	b.ReportMetric(off, "official-rows/s")
	b.ReportMetric(per(ourJ), "ours-judgements")
	b.ReportMetric(per(ourN), "ours-checks")
	b.ReportMetric(ourT.Seconds()/float64(b.N), "ours-s")
	b.ReportMetric(ours, "ours-judgements/s")
	b.ReportMetric(ours/off, "ratio")
}
