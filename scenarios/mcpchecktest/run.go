package mcpchecktest

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/scenarios"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Options say which checks run and how they are judged. The zero value
// runs every server check in every released protocol version.
type Options struct {
	// Versions are the protocol versions to check, each in turn; empty
	// means every released version (spec.Versions). A version the server
	// does not speak leaves its checks n/a.
	Versions []spec.Version
	// LabelFilter selects checks by label, as mcpcheck server
	// --label-filter does: "area:tools", "level:must && !area:tasks".
	LabelFilter string
	// Baseline lists the failures the test expects (see ReadBaseline): a
	// broken check it lists is skipped, not failed, and an entry that no
	// longer describes the run (the check passes now, or no longer exists)
	// fails the test.
	Baseline *reports.Baseline
	// Timeout bounds each wait for an answer from the server; zero means
	// 10 s.
	Timeout time.Duration
	// Deadline bounds the whole suite; zero means 30 minutes, or less when
	// the test has a deadline (go test -timeout): the suite stops early
	// enough for its results to be reported.
	Deadline time.Duration
	// Strict fails the subtest of a check that found a SHOULD broken (a
	// warning); by default a warning is only logged.
	Strict bool
	// Verbose keeps the wire transcripts of passing checks too.
	Verbose bool
	// ToolPolicy says which of the server's tools the checks call and
	// with which arguments, as mcpcheck server --call-tools and
	// --tool-args do; the zero value calls only the tools annotated
	// readOnlyHint: true (see ToolPolicy).
	ToolPolicy ToolPolicy

	// only, when set, runs just these check IDs (TestServer sets it from
	// the -run pattern), and selection records the pattern in the report
	// (reports.Run.Selection): baseline entries about the checks it left
	// out are out of scope, not stale.
	only      []string
	selection string
}

// Result is a finished suite.
type Result struct {
	// Report is the run, with the baseline applied; the reports package
	// writes it in every format.
	Report *reports.Run
	// Stale are the baseline entries that no longer describe the run.
	Stale []reports.Stale
	// Problems are faults of the harness itself during the run (a check
	// that panicked, cited an unknown requirement, or a version whose
	// server could not be reached); a run with problems is not to be
	// trusted.
	Problems []error
}

// Run runs the server suite against tg and returns the report. It fails
// only when nothing could be judged: a target that cannot be started or
// reached, or options that do not parse. A Handler target is served for
// the length of the call; a Command runs in a sandbox of the call's own,
// and the report's SideEffects say what it did besides speaking MCP.
func Run(ctx context.Context, tg Target, opts Options) (*Result, error) {
	t, stop, err := start(tg)
	if err != nil {
		return nil, err
	}
	stop = sync.OnceValue(stop) // once here, after the run, or on an early return
	defer stop()
	if opts.Timeout > 0 {
		t.Timeouts.Step = opts.Timeout
	}
	res, err := scenarios.Run(ctx, scenarios.Config{
		Target:      t,
		Versions:    opts.Versions,
		LabelFilter: opts.LabelFilter,
		Only:        opts.only,
		Session:     session.Config{Timeout: opts.Timeout},
		RunTimeout:  opts.Deadline,
		Verbose:     opts.Verbose,
		ToolPolicy:  opts.ToolPolicy.policy(),
		Tool:        reports.Tool{Name: "mcpcheck (mcpchecktest)", Version: moduleVersion()},
	})
	if err != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("mcpchecktest: %w", err)
	}
	run := res.Report
	run.SideEffects = stop()
	if opts.selection != "" {
		run.Selection = opts.selection
	}
	out := &Result{Report: &run, Problems: res.Problems}
	if opts.Baseline != nil {
		out.Stale = reports.Apply(&run, opts.Baseline)
	}
	if err != nil {
		out.Problems = append(out.Problems, fmt.Errorf("the suite stopped early: %w (%s)", err, run.Interrupted))
	}
	return out, nil
}

// ReadBaseline reads a baseline file (as "mcpcheck baseline write" writes
// it) for Options.Baseline.
func ReadBaseline(path string) (*reports.Baseline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mcpchecktest: read the baseline: %w", err)
	}
	defer f.Close()
	b, err := reports.ParseBaseline(path, f)
	if err != nil {
		return nil, fmt.Errorf("mcpchecktest: %w", err)
	}
	return b, nil
}

// modulePath is mcpcheck's module, whose version names the tool in reports.
const modulePath = "github.com/mcpcheck/mcpcheck"

// moduleVersion is the version of mcpcheck built into the test binary: a
// dependency's version in the caller's module, "(devel)" in mcpcheck's own.
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	if bi.Main.Path == modulePath {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == modulePath {
			if d.Replace != nil {
				return d.Version + " => " + d.Replace.Path + " " + d.Replace.Version
			}
			return d.Version
		}
	}
	return "(unknown)"
}
