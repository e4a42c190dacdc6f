package fuzz

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/harness"
	engine "github.com/mcpcheck/mcpcheck/internal/fuzz"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Options bound and shape a campaign. Duration or MaxExecs must be set.
type Options struct {
	// Version is the protocol version spoken. Empty: the newest the
	// server speaks (spec.Latest, or the newest version with sessions for
	// a server whose answer to server/discover shows it does not speak
	// the stateless one).
	Version spec.Version
	// Duration and MaxExecs bound the campaign (the first reached ends
	// it); at least one must be set.
	Duration time.Duration
	MaxExecs int64
	// Seed makes the campaign reproducible: with one worker the same seed
	// and bound send the same inputs.
	Seed uint64
	// Workers is the number of server instances fuzzed in parallel
	// (default 1).
	Workers int
	// FindingsDir, when set, is where each finding is written with its
	// input, minimized input, transcript and replay file.
	FindingsDir string
	// Wait is the liveness deadline after each input (default 5 s, and a
	// confirmation window after it before a hang is called).
	Wait time.Duration
	// StartupTimeout is how long a fresh server instance may take to say
	// its first word (default 30 s) before it is called unreachable.
	StartupTimeout time.Duration
	// Mutators selects mutators by name or family ("json", "framing",
	// "protocol/double-initialize"); empty uses every one that applies to
	// the target's transport.
	Mutators []string
}

// Result is the outcome of a campaign.
type Result struct {
	// Version is the protocol version the campaign spoke, and VersionNote
	// says why when it is not the one asked for.
	Version     spec.Version
	VersionNote string
	// Summary holds the executions, throughput samples and findings (in
	// the model the reports package writes).
	Summary reports.FuzzSummary
	// Failed is true when a crash, a hang or a MUST-level violation was
	// found.
	Failed bool
	// Unjudged, when set, says why the campaign is no verdict on the
	// server (it never completed a handshake, or the campaign was
	// interrupted): never a pass, findings or not.
	Unjudged string
	// Problems are faults of the campaign itself (an instance that could
	// not be restarted, a finding that could not be written).
	Problems []string
	// SideEffects say what a Command server did to the machine besides
	// speaking MCP while it was fuzzed (it ran in a sandbox of the
	// campaign's own: see harness.Command); not observed for the others.
	SideEffects *reports.SideEffects
}

// Passed reports whether the campaign judged the server and found nothing
// that fails a build.
func (r *Result) Passed() bool { return !r.Failed && r.Unjudged == "" && len(r.Problems) == 0 }

// Run fuzzes the server tg. It returns an error only when the campaign
// could not run: options that do not hold, a target it cannot fuzz, or a
// server that never completed a handshake (then with the Result too,
// Unjudged saying why). A campaign that ctx cancels returns what it
// judged, Unjudged set. A Handler target is served for the length of the
// call; Pipe targets cannot be fuzzed (an input that crashes the server
// would take the caller's process with it): run the server as a Command.
func Run(ctx context.Context, tg harness.Target, opts Options) (*Result, error) {
	if opts.Duration <= 0 && opts.MaxExecs <= 0 {
		return nil, errors.New("fuzz: set Options.Duration or Options.MaxExecs: a campaign needs a bound")
	}
	s, ok := target.FromPublic(tg)
	if !ok {
		return nil, errors.New("fuzz: the target is not a harness.Target")
	}
	if s.Target.Pipe != nil {
		return nil, errors.New("fuzz: a Pipe target cannot be fuzzed: an input that crashes the server would crash this process; run the server as a harness.Command")
	}
	t, stop, err := s.Start("fuzz")
	if err != nil {
		return nil, err
	}
	stop = sync.OnceValue(stop) // once here, after the run, or on an early return
	defer stop()
	ct, err := campaignTarget(ctx, t)
	if err != nil {
		return nil, err
	}
	cfg := engine.Config{
		Target:         ct,
		Version:        opts.Version,
		NewestSpoken:   opts.Version == "",
		Duration:       opts.Duration,
		MaxExecs:       opts.MaxExecs,
		Seed:           opts.Seed,
		Workers:        opts.Workers,
		FindingsDir:    opts.FindingsDir,
		Wait:           opts.Wait,
		StartupTimeout: opts.StartupTimeout,
		Mutators:       opts.Mutators,
	}
	if cfg.Version == "" {
		cfg.Version = spec.Latest
	}
	res, err := engine.Run(ctx, cfg)
	fx := stop()
	if res == nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	out := &Result{
		SideEffects: fx,
		Version:     res.Version,
		VersionNote: res.VersionNote,
		Summary:     res.Summary(engine.ReproducerFor(ct), 0),
		Failed:      res.Verdict.Failed,
		Unjudged:    res.Unjudged,
		Problems:    res.Errors,
	}
	if out.Unjudged == "" && res.Interrupted != "" {
		out.Unjudged = res.Interrupted
	}
	if err != nil {
		return out, fmt.Errorf("fuzz: %w", err)
	}
	return out, nil
}

// campaignTarget is the engine's target for t: a process per instance for
// a stdio server, an HTTP endpoint otherwise, its transport detected once.
func campaignTarget(ctx context.Context, t target.Target) (engine.Target, error) {
	if t.IsStdio() {
		return &engine.ExecTarget{Argv: append([]string{t.Command}, t.Args...), Env: t.Env, Dir: t.Dir, Sandbox: t.Sandbox}, nil
	}
	hdr, err := t.HTTPHeader()
	if err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	h, _, err := engine.HTTPTarget{URL: t.URL, Header: hdr}.Detect(ctx, t.Timeouts)
	if err != nil {
		return nil, fmt.Errorf("fuzz: %s: %w", t.URL, err)
	}
	return h, nil
}
