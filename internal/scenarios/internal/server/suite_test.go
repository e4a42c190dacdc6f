package server

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildOut  string
	// buildCtx bounds the build; TestMain cancels it when the tests are
	// done, so that a build no test waited for does not outlive them.
	buildCtx, buildCancel = context.WithCancel(context.Background())
)

// buildMcpcheck builds the mcpcheck binary into a temporary directory,
// once per test process (buildOnce): TestMain starts it at once, beside
// the tests that need no binary, and mcpcheckBinary waits for it.
func buildMcpcheck() {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpcheck-scenarios-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "mcpcheck")
		cmd := exec.CommandContext(buildCtx, "go", "build", "-o", binPath, "github.com/mcpcheck/mcpcheck/cmd/mcpcheck")
		out, err := cmd.CombinedOutput()
		buildErr, buildOut = err, string(out)
	})
}

// mcpcheckBinary returns the mcpcheck binary (buildMcpcheck); its
// "reference server --stdio" is the target.
func mcpcheckBinary(t testing.TB) string {
	t.Helper()
	buildMcpcheck()
	if buildErr != nil {
		t.Skipf("the reference server does not build yet, so the suites cannot run against it: %v\n%s", buildErr, buildOut)
	}
	probe := exec.Command(binPath, "reference", "server", "--list-faults")
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("the mcpcheck binary has no working reference server yet: %v\n%s", err, out)
	}
	return binPath
}

// faultArgs are the reference server's arguments switching faults on.
func faultArgs(faults []string) []string {
	var args []string
	for _, f := range faults {
		args = append(args, "--fault", f)
	}
	return args
}

func referenceTarget(t testing.TB, faults ...string) target.Target {
	args := append([]string{"reference", "server", "--stdio", "--page-size", "3"}, faultArgs(faults)...)
	tg := target.Command(mcpcheckBinary(t), args...)
	tg.Timeouts = target.Timeouts{Step: 5 * time.Second, Grace: time.Second}
	return tg
}

// ownTools is the tool policy of a run against mcpcheck's own servers
// (the reference server, its faulty variants, the test servers): every
// tool, since they are harmless and the tests want every check judged,
// in 2024-11-05 too (which has no annotations), unless the test chose a
// policy. Tests of the default policy set CallReadOnly.
func ownTools(p ToolPolicy) ToolPolicy {
	if p.Calls == "" {
		p.Calls = CallAll
	}
	return p
}

// runReference runs the suites against the reference server.
func runReference(t testing.TB, cfg Config, faults ...string) Result {
	t.Helper()
	cfg.Target = referenceTarget(t, faults...)
	return runSuites(t, cfg, 2*time.Minute)
}

// runSuites runs the suites as cfg says (a 5 s session timeout unless it
// sets one) within limit, and fails the test when the run cannot be judged
// or has harness problems.
func runSuites(t testing.TB, cfg Config, limit time.Duration) Result {
	t.Helper()
	if cfg.Session.Timeout == 0 {
		cfg.Session = session.Config{Timeout: 5 * time.Second}
	}
	cfg.ToolPolicy = ownTools(cfg.ToolPolicy)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, p := range res.Problems {
		t.Errorf("harness problem: %v", p)
	}
	return res
}

// TestSuiteAgainstReference runs every suite (all versions) against the
// reference server over stdio, served in process over pipes: nothing may
// fail, warn or error. It runs one check at a time (Parallel 1: the
// scheduler with one slot), and the same outcomes as the run with
// Parallel 8 against the server's process. The runs are the stdio clean
// pair's (sharedStdio), which other tests judge too.
func TestSuiteAgainstReference(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	p := sharedStdio(t)
	res := p.serial
	t.Logf("engine %s, %d specs, %d checks, %d connections, %s", res.Engine, res.Specs, len(res.Report.Checks), res.Starts, p.ts.Round(time.Millisecond))
	counts := map[spec.Version]map[reports.Outcome]int{}
	for _, c := range res.Report.Checks {
		if counts[c.Version] == nil {
			counts[c.Version] = map[reports.Outcome]int{}
		}
		counts[c.Version][c.Outcome]++
		switch c.Outcome {
		case reports.Fail, reports.Warn, reports.Error:
			t.Errorf("%s [%s] %s: %s\n  expected: %s\n  actual: %s\n  reason: %s", c.Outcome, c.Version, c.ID, c.Title, c.Expected, c.Actual, c.Reason)
		}
	}
	for _, v := range spec.Versions {
		t.Logf("%s: %v", v, counts[v])
	}
	// One check at a time and many at once, the same scheduler: the same
	// outcomes (a version's passive checks after the active ones whose
	// traffic they judge, in both).
	if res.Engine != "scheduler" || p.wide.Engine != "scheduler" {
		t.Errorf("engines %q and %q, want the one scheduler for both", res.Engine, p.wide.Engine)
	}
	sameOutcomes(t, "Parallel 1 vs Parallel 8", res, p.wide)
}

func outcomeOf(res Result, id string, v spec.Version) (reports.Check, bool) {
	for _, c := range res.Report.Checks {
		if c.ID == id && c.Version == v {
			return c, true
		}
	}
	return reports.Check{}, false
}

// expectOutcome fails the test unless check ran in v and ended want; what
// says what the run had switched on, for the message. It returns the
// check's result and whether it ended want.
func expectOutcome(t *testing.T, res Result, check string, v spec.Version, want reports.Outcome, what string) (reports.Check, bool) {
	t.Helper()
	c, ok := outcomeOf(res, check, v)
	if !ok {
		t.Fatalf("check %s did not run in %s", check, v)
	}
	if c.Outcome != want {
		t.Errorf("%s: check %s in %s ended %s, want %s\n  expected: %s\n  actual: %s\n  reason: %s", what, check, v, c.Outcome, want, c.Expected, c.Actual, c.Reason)
		return c, false
	}
	return c, true
}
