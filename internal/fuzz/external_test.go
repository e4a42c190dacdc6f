package fuzz

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestExternalCampaign runs a campaign against any stdio server, until the
// CLI's "mcpcheck fuzz" exists:
//
//	MCPCHECK_FUZZ_TARGET="node server.js" \
//	MCPCHECK_FUZZ_VERSION=2025-11-25 MCPCHECK_FUZZ_DURATION=60s \
//	MCPCHECK_FUZZ_WORKERS=2 MCPCHECK_FUZZ_SEED=1 MCPCHECK_FUZZ_FINDINGS=/tmp/findings \
//	go test ./internal/fuzz -run TestExternalCampaign -v -timeout 0
//
// It logs progress and every finding with its reproducer, and fails when
// the verdict does.
func TestExternalCampaign(t *testing.T) {
	cmd := os.Getenv("MCPCHECK_FUZZ_TARGET")
	if cmd == "" {
		t.Skip("set MCPCHECK_FUZZ_TARGET to a stdio server command line")
	}
	target, err := conn.CommandTarget(cmd)
	if err != nil {
		t.Fatal(err)
	}
	v := spec.Latest
	if s := os.Getenv("MCPCHECK_FUZZ_VERSION"); s != "" {
		if v, err = spec.ParseVersion(s); err != nil {
			t.Fatal(err)
		}
	}
	d := 30 * time.Second
	if s := os.Getenv("MCPCHECK_FUZZ_DURATION"); s != "" {
		if d, err = time.ParseDuration(s); err != nil {
			t.Fatal(err)
		}
	}
	workers, _ := strconv.Atoi(os.Getenv("MCPCHECK_FUZZ_WORKERS"))
	seed, _ := strconv.ParseUint(os.Getenv("MCPCHECK_FUZZ_SEED"), 10, 64)
	res, err := Run(context.Background(), Config{Target: target, Version: v, Duration: d, Seed: seed, Workers: workers,
		FindingsDir: os.Getenv("MCPCHECK_FUZZ_FINDINGS"), ProgressEvery: 5 * time.Second,
		Progress: func(p Progress) {
			t.Logf("%6.1fs %7d execs %7.0f/s findings %d (crash %d hang %d) methods %d restarts %d heap %d KiB",
				p.Elapsed.Seconds(), p.Execs, p.ExecsPerSec, p.Findings, p.Crashes, p.Hangs, p.MethodsCovered, p.Restarts, p.HeapBytes>>10)
		}})
	if err != nil {
		t.Fatal(err)
	}
	repro := DefaultReproducer(target.Describe())
	for _, f := range res.Findings {
		t.Logf("FINDING %s %s [%s %s] hits=%d reproduced=%v mutator=%s seed=%d input=%dB minimized=%dB\n  %s\n  %s",
			f.Kind, f.Check, f.Requirement, f.Level, f.Hits, f.Reproduced, f.Mutator, f.Seed, f.Input.Size(), f.Minimized.Size(), f.Message, repro(f))
	}
	t.Logf("execs %d in %v, methods %v, peak heap %d KiB, errors %v", res.Execs, res.Duration, res.MethodsCovered, res.PeakHeapBytes>>10, res.Errors)
	t.Logf("verdict: failed=%v %s", res.Verdict.Failed, res.Verdict.Reason)
	if res.Verdict.Failed {
		t.Fail()
	}
}
