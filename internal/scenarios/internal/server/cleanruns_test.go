package server

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/spec"
)

// cleanPair is a pair of clean runs of the whole suite against the
// reference server over one transport: Parallel 1 (serial) and Parallel
// 8 with every transcript kept (wide), each against a server of its own,
// at the same time. The wide run covers every version; the serial run
// every version over stdio, and over streamable HTTP the versions of
// streamableSerialVersions. Over stdio the serial run's
// server is served in process over pipes (pipeReference): one check
// after the other, each of its 141 connections a process start, took
// 61 s of the package's time on a quiet 2-core machine (107 s at load
// 30; 33 s over pipes). The wide run keeps the process, so the pair also
// holds that the reference server's messages are the same in process and
// as a process (both runs must end every check alike). Several tests judge the same
// clean runs (nothing fails, warns or errors; the same outcomes with
// Parallel 1 and 8; the report states the tool policy; every transcript
// is its check's own), so each pair is paid for once per test process,
// by the first test that needs it.
type cleanPair struct {
	once         sync.Once
	serial, wide Result
	// serialVersions are the versions of the serial run (nil: every
	// version).
	serialVersions []spec.Version
	ts, tw         time.Duration
	problems       []string // run errors and harness problems of either run
}

var (
	cleanStdio      cleanPair
	cleanStreamable = cleanPair{serialVersions: streamableSerialVersions}
)

// streamableSerialVersions are the versions of the streamable pair's
// serial run: 2025-06-18, streamable HTTP with sessions, no tasks, no
// resumable listen streams. One check after the other over HTTP, every
// version, was the longest run of the package (47 s of its 128 on a quiet
// 2-core machine), and 2025-11-25 with 2026-07-28 alone cost 109 s of
// 131 at load 30; what it adds is version-independent: the scheduler
// with one slot (the same outcomes as Parallel 8,
// TestParallelOutcomesAgainstReference) and a clean run with it
// (TestSuiteOverHTTPAgainstReference). The wide run judges every version
// over streamable HTTP, the stdio pair's serial run every version one
// check at a time, and TestParallelFaultRows compares Parallel 1 and 8
// over streamable HTTP in 2025-11-25 and 2026-07-28, with faults.
var streamableSerialVersions = []spec.Version{spec.V20250618}

// cleanRunLimit bounds each run of a pair: both run at the same time,
// every version, the serial one one check after the other.
const cleanRunLimit = 4 * time.Minute

// sharedStdio is the stdio pair.
func sharedStdio(t *testing.T) *cleanPair {
	t.Helper()
	mcpcheckBinary(t) // build once, or skip (before the Once: a skip inside it would leave the pair empty)
	cleanStdio.once.Do(func() {
		cleanStdio.run(Config{Target: pipeReference()}, Config{Target: referenceTarget(t)})
	})
	return cleanStdio.judged(t, "stdio")
}

// sharedStreamable is the streamable HTTP pair.
func sharedStreamable(t *testing.T) *cleanPair {
	t.Helper()
	mcpcheckBinary(t)
	cleanStreamable.once.Do(func() {
		mk := func() target.Target {
			tg := target.URL(startReferenceHTTP(t))
			tg.Transport = target.Streamable
			tg.Timeouts = target.Timeouts{Start: 10 * time.Second, Step: 5 * time.Second, Grace: time.Second}
			return tg
		}
		cleanStreamable.run(Config{Target: mk()}, Config{Target: mk()})
	})
	return cleanStreamable.judged(t, "streamable")
}

// run runs serial with Parallel 1 (in the calling goroutine) and wide with Parallel 8 and Verbose, at the
// same time.
func (p *cleanPair) run(serial, wide Config) {
	serial.Parallel, serial.Versions = 1, spec.Versions
	if p.serialVersions != nil {
		serial.Versions = p.serialVersions
	}
	wide.Parallel, wide.Versions, wide.Verbose = wideParallel, spec.Versions, true
	var wg sync.WaitGroup
	var wideProblems []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		p.wide, wideProblems = runCollect(wide)
		p.tw = time.Since(start)
	}()
	start := time.Now()
	var serialProblems []string
	p.serial, serialProblems = runCollect(serial)
	p.ts = time.Since(start)
	wg.Wait()
	p.problems = append(serialProblems, wideProblems...)
}

// runCollect runs cfg (5 s session steps, every tool callable) and
// returns the run error and harness problems as messages.
func runCollect(cfg Config) (Result, []string) {
	cfg.Session.Timeout = 5 * time.Second
	cfg.ToolPolicy = ownTools(cfg.ToolPolicy)
	ctx, cancel := context.WithTimeout(context.Background(), cleanRunLimit)
	defer cancel()
	res, err := Run(ctx, cfg)
	var out []string
	if err != nil {
		out = append(out, fmt.Sprintf("run with Parallel %d: %v", cfg.Parallel, err))
	}
	for _, pr := range res.Problems {
		out = append(out, fmt.Sprintf("harness problem with Parallel %d: %v", cfg.Parallel, pr))
	}
	return res, out
}

// judged fails t for every problem of the pair's runs (each test that
// uses the pair reports them) and when either ran no check.
func (p *cleanPair) judged(t *testing.T, what string) *cleanPair {
	t.Helper()
	for _, pr := range p.problems {
		t.Errorf("shared clean run over %s: %s", what, pr)
	}
	if len(p.serial.Report.Checks) == 0 || len(p.wide.Report.Checks) == 0 {
		t.Fatalf("shared clean run over %s: %d checks with Parallel 1, %d with Parallel %d", what, len(p.serial.Report.Checks), len(p.wide.Report.Checks), wideParallel)
	}
	return p
}

// wideLikeSerial is the wide run's result restricted to the versions of
// the serial run, to compare the two check by check.
func (p *cleanPair) wideLikeSerial() Result {
	if p.serialVersions == nil {
		return p.wide
	}
	res := p.wide
	res.Report.Checks = nil
	for _, c := range p.wide.Report.Checks {
		if slices.Contains(p.serialVersions, c.Version) {
			res.Report.Checks = append(res.Report.Checks, c)
		}
	}
	return res
}
