package client

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"net/http"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/suite"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// Launch says how the client under test is started (see stage.Launch).
type Launch struct {
	// Command is the client's command line, run through sh -c. HTTP
	// clients get the case's URL in place of {url} or appended; stdio
	// clients get the server command line in place of {server} or
	// appended.
	Command string
	// Stdio says the client speaks stdio (mcpcheck client --stdio).
	Stdio bool
	// Relay is the mcpcheck binary stdio clients run as their server
	// ("" means this executable).
	Relay string
	// Env is added to the client's environment; Dir is its working
	// directory.
	Env []string
	Dir string
}

// Config says what a client run checks and how.
type Config struct {
	Launch Launch
	// Versions to run (empty: every released version).
	Versions []spec.Version
	// LabelFilter is a Ginkgo label filter over the checks' labels.
	LabelFilter string
	// Only, when set, runs just the checks with these IDs.
	Only []string
	// Parallel is how many cases (client launches) run at once (default 8:
	// most of a case is waiting on the client or on a timer).
	Parallel int
	// CaseTimeout bounds one client launch from its first message
	// (default 20 s).
	CaseTimeout time.Duration
	// StartupTimeout is how long a launched client may take to send its
	// first message before its case is over (default
	// DefaultStartupTimeout): a host that starts slowly on a busy machine
	// (Node clients under load took over 20 s) has not yet had its
	// CaseTimeout. Once a case has used all of it without a word from a
	// client that has spoken in no case so far, the client is taken to be
	// silent and later cases wait CaseTimeout for its first message.
	StartupTimeout time.Duration
	// Settle is how long a case stays open after the client's last word
	// (or the scenario's end), for trailing messages such as a DELETE on
	// close (default 300 ms).
	Settle time.Duration
	// RunTimeout bounds the whole run (default 30 min).
	RunTimeout time.Duration
	// Verbose keeps transcripts of passing checks too.
	Verbose bool
	// Progress is called after each check ends.
	Progress func(reports.Check)
	// Tool names the tool in the report.
	Tool reports.Tool
	// ResponseHeader is added to every HTTP answer of the stage
	// (mcpcheck client --header).
	ResponseHeader http.Header

	// scenarios, when set, launches only these scenarios: a check judges
	// the recordings of those among its own (a test seam: TestProofs runs
	// a proof on the scenarios where its fault shows).
	scenarios []string
}

// Result is a finished client run.
type Result struct {
	Report   reports.Run
	Problems []error
	// Cases is how many client launches the run made; Silent how many of
	// them saw the client send nothing at all.
	Cases, Silent int
	// Judgements counts, over the checks that reached a verdict (pass,
	// fail or warn), the cases each judged: the unit the official suite
	// counts in (one row per check per scenario).
	Judgements int
	Engine     string
	Specs      int

	// cases are the run's cases, for tests that judge them again.
	cases []*Case
}

// ErrClientSilent is returned when the client sent nothing in any case:
// it never connected, so nothing was judged.
var ErrClientSilent = errors.New("the client under test never connected to the mcpcheck stage")

type caseKey struct {
	v        spec.Version
	scenario string
}

type runner struct {
	cfg       Config
	transport wire.Transport
	stage     *stage.Stage
	run       *harness.Run
	cat       *catalog.Catalog

	mu    sync.Mutex
	cases map[caseKey]*pending
	sem   chan struct{}
	wg    sync.WaitGroup

	judgements atomic.Int64

	spokenMu sync.Mutex
	spoken   map[spec.Version]*spokenVerdict

	shownMu sync.Mutex
	shown   map[*behaviour]*shownVerdict

	starts clientStart
}

// clientStart is what the run has learned of the client's start-up: whether
// it has spoken in any case, and whether a case has waited out its whole
// start-up allowance without a word while it had spoken in none.
type clientStart struct {
	mu    sync.Mutex
	spoke bool
	mute  bool
}

// allowance is how long a new case waits for the client's first message.
func (g *clientStart) allowance(cfg Config) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.mute && !g.spoke {
		return cfg.CaseTimeout
	}
	return max(cfg.StartupTimeout, cfg.CaseTimeout)
}

// spokeOnce notes that the client sent a message in a case.
func (g *clientStart) spokeOnce() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.spoke = true
}

// silentThrough notes that a case waited its whole allowance a and the
// client said nothing.
func (g *clientStart) silentThrough(a time.Duration, cfg Config) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if a >= max(cfg.StartupTimeout, cfg.CaseTimeout) {
		g.mute = true
	}
}

// spokenVerdict is whether the client speaks a version, decided once.
type spokenVerdict struct {
	once sync.Once
	why  string // empty when it speaks it (or nothing tells)
}

// pending is a case that runs (or ran) in the background.
type pending struct {
	done chan struct{}
	c    *Case
}

// Run launches the client once per scenario the selected checks need, in
// every version, and judges the recordings.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Launch.Command == "" {
		return Result{}, errors.New("client: no client command given (mcpcheck client --command CMD or --stdio CMD)")
	}
	if cfg.Launch.Relay == "" && cfg.Launch.Stdio {
		exe, err := os.Executable()
		if err != nil {
			return Result{}, fmt.Errorf("client: cannot find the mcpcheck binary for the stdio relay: %v", err)
		}
		cfg.Launch.Relay = exe
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = max(8, runtime.NumCPU())
	}
	if cfg.CaseTimeout <= 0 {
		cfg.CaseTimeout = 20 * time.Second
	}
	if cfg.StartupTimeout <= 0 {
		cfg.StartupTimeout = DefaultStartupTimeout
	}
	if cfg.Settle <= 0 {
		cfg.Settle = 300 * time.Millisecond
	}
	if cfg.RunTimeout <= 0 {
		cfg.RunTimeout = 30 * time.Minute
	}
	if cfg.Tool.Name == "" {
		cfg.Tool = reports.Tool{Name: "mcpcheck"}
	}
	if len(cfg.Versions) == 0 {
		cfg.Versions = append([]spec.Version(nil), spec.Versions...)
	}
	match, err := suite.ParseLabelFilter(cfg.LabelFilter)
	if err != nil {
		return Result{}, err
	}
	cat, err := catalog.Default()
	if err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.RunTimeout)
	defer cancel()

	r := &runner{cfg: cfg, cat: cat, transport: Streamable, cases: map[caseKey]*pending{}, sem: make(chan struct{}, cfg.Parallel)}
	if cfg.Launch.Stdio {
		r.transport = Stdio
	}
	st, err := stage.New()
	if err != nil {
		return Result{}, err
	}
	r.stage = st
	defer st.Close()
	st.SetResponseHeader(cfg.ResponseHeader)
	run, err := harness.NewRun(harness.RunOptions{Verbose: cfg.Verbose, Transport: r.transport})
	if err != nil {
		return Result{}, err
	}
	r.run = run

	specs, need := r.plan(ctx, match)
	for _, k := range need {
		r.start(ctx, k)
	}
	// The specs only judge: the cases (the client's launches) run in the
	// background, Parallel at a time, and each spec waits for its own.
	// One spec at a time, then, in the one scheduler every run uses.
	n := suite.RunSpecs(specs, suite.SpecConfig{Match: match, Parallel: 1})
	runErr := ctx.Err() // the run's own end (a signal, the deadline), before the cleanup cancel
	cancel()
	r.wg.Wait()

	res := Result{Engine: "scheduler", Specs: n, Problems: run.Problems(), Judgements: int(r.judgements.Load())}
	for _, p := range r.cases {
		if p.c == nil {
			continue
		}
		res.Cases++
		res.cases = append(res.cases, p.c)
		if !p.c.Traffic() {
			res.Silent++
		}
	}
	target := reports.Target{Kind: reports.TargetHTTP, Command: cfg.Launch.Command, Role: string(catalog.RoleClient)}
	if cfg.Launch.Stdio {
		target.Kind = reports.TargetStdio
	}
	res.Report = run.Report(cfg.Tool, target)
	res.Report.LabelFilter = cfg.LabelFilter // see reports.Apply
	res.Report.Peers = r.peers()
	if runErr != nil {
		res.Report.Interrupted = suite.StopCause(ctx)
		return res, runErr
	}
	if res.Cases > 0 && res.Silent == res.Cases {
		return res, fmt.Errorf("%w: in %d of %d cases it sent nothing", ErrClientSilent, res.Silent, res.Cases)
	}
	return res, nil
}

// plan lists the specs (per version, the checks in registration order) and
// the cases they need, in run order.
func (r *runner) plan(ctx context.Context, match func([]string) bool) ([]suite.Spec, []caseKey) {
	var specs []suite.Spec
	var need []caseKey
	seen := map[caseKey]bool{}
	only := map[string]bool{}
	for _, id := range r.cfg.Only {
		only[id] = true
	}
	for _, v := range r.cfg.Versions {
		for _, d := range Checks() {
			if len(only) > 0 && !only[d.ID] {
				continue
			}
			labels := d.SpecLabels(r.cat, v, catalog.RoleClient)
			d, v := d, v
			specs = append(specs, suite.Spec{Name: d.SpecName(v), Labels: labels, Run: func() { r.execute(ctx, d, v) }})
			if match != nil && !match(labels) {
				continue
			}
			if ok, _ := d.Applies(v, r.transport); !ok {
				continue
			}
			for _, s := range r.scenariosOf(d, v) {
				k := caseKey{v, s.Name}
				if !seen[k] {
					seen[k] = true
					need = append(need, k)
				}
			}
		}
	}
	return specs, need
}

// scenariosOf returns the scenarios whose recordings d judges in version
// v over the run's transport.
func (r *runner) scenariosOf(d Def, v spec.Version) []*Scenario {
	var out []*Scenario
	names := d.Scenarios
	if len(names) == 0 {
		for _, s := range Scenarios() {
			names = append(names, s.Name)
		}
	}
	for _, name := range names {
		if r.cfg.scenarios != nil && !slices.Contains(r.cfg.scenarios, name) {
			continue
		}
		if s := scenarioNamed(name); s != nil && s.runsIn(v, r.transport) {
			out = append(out, s)
		}
	}
	return out
}

// start runs the case k in the background (bounded by Parallel).
func (r *runner) start(ctx context.Context, k caseKey) *pending {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.cases[k]; p != nil {
		return p
	}
	p := &pending{done: make(chan struct{})}
	r.cases[k] = p
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(p.done)
		select {
		case r.sem <- struct{}{}:
		case <-ctx.Done():
			p.c = &Case{Scenario: scenarioNamed(k.scenario), Version: k.v, Transport: r.transport, LaunchErr: ctx.Err()}
			return
		}
		defer func() { <-r.sem }()
		p.c = r.runCase(ctx, scenarioNamed(k.scenario), k.v)
	}()
	return p
}

// execute judges one check in one version.
func (r *runner) execute(ctx context.Context, d Def, v spec.Version) {
	scope := r.run.Scope(v, r.transport)
	judged := 0
	rc := scope.Do(d.ID, d.Title, d.Requirements, func(c *harness.Check) {
		if ok, why := d.Applies(v, r.transport); !ok {
			c.NotApplicable(why)
			return
		}
		if ctx.Err() != nil {
			c.Untestable(suite.NotRun(ctx))
			return
		}
		scs := r.scenariosOf(d, v)
		if len(scs) == 0 {
			c.NotApplicable(fmt.Sprintf("no scenario of this check runs in %s over %s", v, r.transport))
			return
		}
		var cases []*Case
		for _, s := range scs {
			p := r.start(ctx, caseKey{v, s.Name})
			select {
			case <-p.done:
			case <-ctx.Done():
				c.Untestable(suite.NotRun(ctx))
				return
			}
			cases = append(cases, p.c)
		}
		if !d.Unsupported {
			if why := r.notSpoken(ctx, v, cases); why != "" {
				c.NotApplicable(why)
				return
			}
		}
		judged = len(cases)
		t := &T{Check: c, Ctx: ctx, transport: r.transport, cases: cases, launches: runLaunches{r, ctx}}
		c.UseTranscript(transcriptOf(cases))
		d.Body(t)
		for _, cs := range cases {
			if cs.Interrupted {
				c.Interrupted(suite.Stopped(ctx))
				break
			}
		}
	})
	switch rc.Outcome {
	case reports.Pass, reports.Fail, reports.Warn:
		r.judgements.Add(int64(judged))
	}
	if r.cfg.Progress != nil {
		r.cfg.Progress(rc)
	}
}

// notSpoken says why the client does not speak version v, or "" when it
// does or nothing tells. Only the stateless era can be told from the wire
// alone: a client that in every launch of a 2026-07-28 run sent initialize
// and nothing of 2026-07-28 is a client of older versions, and the checks
// of 2026-07-28 clients do not apply to it. The check's own cases answer
// at once when they show the version; otherwise every case of v is
// awaited, so that one case where the client did speak it decides.
func (r *runner) notSpoken(ctx context.Context, v spec.Version, cases []*Case) string {
	if v.Era() != spec.Stateless {
		return ""
	}
	for _, c := range cases {
		if ok, _ := c.SpeaksStateless(); ok {
			return ""
		}
	}
	sv := memo(&r.spokenMu, &r.spoken, v)
	sv.once.Do(func() {
		r.mu.Lock()
		var all []*pending
		for k, p := range r.cases {
			if k.v == v {
				all = append(all, p)
			}
		}
		r.mu.Unlock()
		launches, talked := 0, 0
		offered := map[string]bool{}
		for _, p := range all {
			select {
			case <-p.done:
			case <-ctx.Done():
				return
			}
			launches++
			if p.c == nil || !p.c.Traffic() {
				continue
			}
			talked++
			ok, off := p.c.SpeaksStateless()
			if ok {
				return
			}
			for _, o := range off {
				offered[o] = true
			}
		}
		if talked == 0 || len(offered) == 0 {
			return // nothing tells: the checks say what they could not see
		}
		vs := make([]string, 0, len(offered))
		for o := range offered {
			vs = append(vs, o)
		}
		sort.Strings(vs)
		sv.why = fmt.Sprintf("the client does not speak %s: in %d launches it never sent server/discover or a %s request, and its initialize offered %s; the checks of %s clients do not apply (how it meets a server of a version it lacks is still judged)",
			v, launches, v, strings.Join(vs, ", "), v)
	})
	return sv.why
}

// shownVerdict is whether any launch of the run showed a behaviour,
// decided once.
type shownVerdict struct {
	once         sync.Once
	shown, known bool
	n            int
}

// runLaunches is the run's launches as a check sees them (given.go).
type runLaunches struct {
	r   *runner
	ctx context.Context
}

// shows waits for every launch of the run to end and reports whether any
// shows b. A run stopped before that (a signal, its deadline) tells
// nothing.
func (l runLaunches) shows(b *behaviour) (bool, int, bool) {
	r := l.r
	sv := memo(&r.shownMu, &r.shown, b)
	sv.once.Do(func() {
		r.mu.Lock()
		all := make([]*pending, 0, len(r.cases))
		for _, p := range r.cases {
			all = append(all, p)
		}
		r.mu.Unlock()
		for _, p := range all {
			select {
			case <-p.done:
			case <-l.ctx.Done():
				return
			}
			if p.c == nil || p.c.Interrupted || !p.c.Launched && l.ctx.Err() != nil {
				return
			}
			sv.n++
			if !sv.shown && b.In(p.c) {
				sv.shown = true
			}
		}
		sv.known = l.ctx.Err() == nil
	})
	return sv.shown, sv.n, sv.known
}

// memo returns m's entry for k, made on first use (under mu): a verdict
// the run decides once.
func memo[K comparable, V any](mu *sync.Mutex, m *map[K]*V, k K) *V {
	mu.Lock()
	defer mu.Unlock()
	if *m == nil {
		*m = map[K]*V{}
	}
	v := (*m)[k]
	if v == nil {
		v = new(V)
		(*m)[k] = v
	}
	return v
}

// maxTranscript bounds the events a check's report carries.
const maxTranscript = 4000

// transcriptOf joins the cases' transcripts, each introduced by a note.
func transcriptOf(cases []*Case) []reports.WireEvent {
	var out []reports.WireEvent
	for _, c := range cases {
		out = append(out, reports.WireEvent{Direction: reports.Note, Note: c.Describe()})
		ev := c.Transcript
		if len(out)+len(ev) > maxTranscript {
			keep := max(0, maxTranscript-len(out))
			out = append(out, ev[:keep]...)
			out = append(out, reports.WireEvent{Direction: reports.Note, Note: fmt.Sprintf("the transcript is cut here (%d more events)", len(ev)-keep)})
			break
		}
		out = append(out, ev...)
	}
	return out
}
