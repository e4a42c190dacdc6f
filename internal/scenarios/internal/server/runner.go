package server

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness"
	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/record"
	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/suite"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// Config says what a run checks and how.
type Config struct {
	// Target is the server to check (a stdio command or a URL).
	Target target.Target
	// Versions are the protocol versions to run, each in turn; a version the
	// server does not speak gets n/a checks (the negotiation checks still
	// run). Empty means every released version.
	Versions []spec.Version
	// LabelFilter is a Ginkgo label filter expression over the labels of
	// labels.go ("area:base && level:must").
	LabelFilter string
	// Only, when set, runs just the checks with these IDs (tests); an ID a
	// check carried before it was renamed selects it too
	// (reports.CanonicalCheckID).
	Only []string
	// Session configures the built-in client; Session.Timeout bounds each
	// wait for an answer (default 10 s).
	Session session.Config
	// Quiet is how long a check watches for something that must not arrive
	// once the exchange it is about has settled (default 250 ms).
	Quiet time.Duration
	// RunTimeout bounds the whole run (default 30 min).
	RunTimeout time.Duration
	// Verbose keeps transcripts of passing checks too.
	Verbose bool
	// Progress, when set, is called after each check ends (from the
	// goroutine that ran the check, one call at a time), for live
	// progress.
	Progress func(reports.Check)
	// Tool names the tool in the report (default mcpcheck).
	Tool reports.Tool
	// Shard, when set, runs only the active checks of that shard (and
	// every passive one); see Shard.
	Shard Shard
	// Parallel is how many checks run at the same time (0 means
	// DefaultParallel of the target). Up to Parallel checks run at a
	// time, the versions' one after another but overlapping (a version's
	// checks start while the last ones of the version before still run):
	// the exclusive ones (Def.Exclusive) alone after the others of their
	// version have started, those of one group (Def.Group) never
	// together, and a version's passive ones once every active one of it
	// and the versions before has ended. Outcomes do not depend on it. 1
	// is the same scheduler with one slot: one check after another, each
	// version's isolated ones first, then the others in registration
	// order, the exclusive ones last, and its passive ones after them.
	Parallel int
	// OneInstance keeps at most one of a stdio target's processes alive,
	// for servers whose instances cannot run side by side (a fixed port,
	// a lock file): one check at a time (Parallel 1), the idle sessions
	// of every version closed before another process starts, and no
	// liveness probe on a connection of its own. A check that needs two
	// sessions at once is untestable. It is for command targets only.
	OneInstance bool
	// ToolPolicy says which of the target's tools the checks may call and
	// with which arguments (the zero value: those annotated readOnlyHint:
	// true, with arguments generated from their inputSchema). A
	// tool it names that the target lists in no version run makes Run
	// return an error wrapping ErrToolPolicy, with the report.
	ToolPolicy ToolPolicy
}

// DefaultParallel is how many checks a run against tg makes at the same
// time by default: over stdio every session is a process of its own, and
// most of a check is waiting (answers, silence windows), so 4 per core, at
// least 8 and at most 16; over HTTP
// all sessions share one server, which gets 12 (most of a check is
// waiting: answers and silence windows; the isolated checks, which start
// first and are mostly silence windows, take up to 8 of them, and the
// others get the rest).
func DefaultParallel(tg target.Target) int {
	if !tg.IsStdio() {
		return 12
	}
	return min(max(4*runtime.NumCPU(), 8), 16)
}

// The bounds of the run's transcripts (see record.Options): with checks
// running at the same time each check's recorder gets its share.
const (
	runTranscriptEvents = 100000
	runTranscriptBytes  = 32 << 20
	minCheckBytes       = 1 << 20
)

// Result is a finished run.
type Result struct {
	// Report is the run's results, for the writers and baselines.
	Report reports.Run
	// Problems are harness or scenario errors (a check that cites an unknown
	// requirement, a target that could not be reached): a CLI exits 3.
	Problems []error
	// Starts is how many connections (process starts for stdio) the run
	// paid for.
	Starts int
	// Engine is the engine that ran the checks: "scheduler", the one
	// every run uses (suite.RunSpecs).
	Engine string
	// Specs is how many specs the engine ran (after the label filter).
	Specs int
	// Parallel is how many checks the run let run at the same time
	// (Config.Parallel, or its default).
	Parallel int
	// Throttled counts the times the run halved how many checks run at
	// once because the target's answers slowed down under its load, and
	// Lowest is the fewest it went down to (Parallel when never).
	Throttled, Lowest int
	// Confirmed counts the checks run a second time, alone, because
	// their first verdict came with a wait that went unanswered (their
	// reports.Check.Retried says what the first attempt ended with).
	Confirmed int
	// FailedBeside counts the target's processes that exited with a
	// failure before they said anything while another of its processes
	// was running: the mark of a server of which one instance can run at
	// a time, whose checks fail for no fault of its own unless the run
	// keeps one alive (Config.OneInstance). A CLI says so.
	FailedBeside int
	// Serial says the run went on one check at a time once the target
	// had sent a message of session.LargeFrame bytes or more, or more
	// than a version's sessions keep (it floods): see runner.heavy.
	Serial bool
}

// ErrUnreachable wraps the error of a target that could not be started or
// reached at all.
var ErrUnreachable = errors.New("the target could not be reached")

type runner struct {
	cfg         Config
	target      target.Target
	transport   wire.Transport
	run         *harness.Run
	cat         *catalog.Catalog
	versions    []*versionRun
	parallel    int
	heavyTarget atomic.Bool // the target sent a large frame or flooded (heavy)
	// quietWindows and quietLongest count the silence windows the checks
	// watched and the longest (T.Quiet), and quietTypical is the longest
	// typical answer time a window was stretched to, for the report.
	quietWindows atomic.Int64
	quietLongest atomic.Int64
	quietTypical atomic.Int64
	recOpts      record.Options // of each check's recorder
	progress     sync.Mutex     // Config.Progress is called under it
	only         map[string]bool
	side         []*versionRun // probed for negotiation checks, not reported
	// unconfirmed are the checks whose verdict came with an unanswered
	// wait, to be run again (confirm).
	unconfirmed []confirmItem
	mu          sync.Mutex
	specs       int
	claimOnce   sync.Once
	claimed     map[string]bool
	// probing is the version the liveness probe handshakes in: the
	// version of the check under way, so a target that speaks only some
	// versions is not found dead for want of another's handshake.
	probing atomic.Value // spec.Version
	// starts bounds the target processes started at the same time.
	starts *startGate
	// gov lowers how many checks run at once while the target slows down
	// under the run's load.
	gov *governor
	// uses follows the tools the target listed and the calls the checks
	// made (the report's tools section, the policy's unknown names).
	uses toolUses
	// hooks holds what each RunHook's Start returned for this run.
	hooks map[*RunHook]any
	// solo keeps one target process alive at a time (Config.OneInstance),
	// else nil.
	solo *soloGate
	// live counts the target's processes alive, and failedBeside those
	// that exited with a failure before they said anything while another
	// was alive (Result.FailedBeside).
	live, failedBeside atomic.Int64
}

// A RunHook is something an area package keeps for the whole of a run
// (the upstream API the authorization checks play for
// target.AuthUpstream): Start is called when a run starts, once its
// target is settled and before any check, and what it returns is what
// T.RunState gives the run's checks; stop, unless nil, is called when the
// run ends. Area packages add their hooks from a package-level var
// (AddRunHook), before any run.
type RunHook struct {
	Start func(tg target.Target) (state any, stop func())
}

var runHooks []*RunHook

// AddRunHook makes every run start h; it returns h, for package-level
// vars.
func AddRunHook(h *RunHook) *RunHook {
	runHooks = append(runHooks, h)
	return h
}

// RunState is what h's Start returned for the check's run.
func (t *T) RunState(h *RunHook) any { return t.vr.r.hooks[h] }

// Run executes the suites against cfg.Target and returns the report. It
// returns an error only when nothing could be judged (a bad configuration
// or label filter, or a target that cannot be reached); harness problems
// during the run are in Result.Problems.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.Target.Validate(); err != nil {
		return Result{}, err
	}
	if cfg.Session.Timeout <= 0 {
		cfg.Session.Timeout = 10 * time.Second
	}
	if cfg.Quiet <= 0 {
		cfg.Quiet = 250 * time.Millisecond
	}
	if cfg.RunTimeout <= 0 {
		cfg.RunTimeout = 30 * time.Minute
	}
	if !cfg.Shard.Valid() {
		return Result{}, fmt.Errorf("shard %d/%d: want K/N with 1 <= K <= N", cfg.Shard.K, cfg.Shard.N)
	}
	if cfg.Tool.Name == "" {
		cfg.Tool = reports.Tool{Name: "mcpcheck"}
	}
	if len(cfg.Versions) == 0 {
		cfg.Versions = append([]spec.Version(nil), spec.Versions...)
	}
	if cfg.Parallel < 0 {
		return Result{}, fmt.Errorf("parallel %d: give at least 1 check at a time (0 for the default)", cfg.Parallel)
	}
	if cfg.OneInstance {
		switch {
		case !cfg.Target.IsStdio() || cfg.Target.Pipe != nil:
			return Result{}, errors.New("one instance: only a command target starts instances of its own; a server at a URL is one server already, so leave it out")
		case cfg.Parallel > 1:
			return Result{}, fmt.Errorf("one instance runs one check at a time, and parallel %d asks for more: leave parallel out", cfg.Parallel)
		}
		cfg.Parallel = 1
	}
	if cfg.Parallel == 0 {
		cfg.Parallel = DefaultParallel(cfg.Target)
	}
	if err := cfg.ToolPolicy.Validate(); err != nil {
		return Result{}, err
	}
	// One Health for the run: a target that stops answering gets shorter
	// deadlines, and a mute one is not waited for again (expect.Health).
	// Checks running at the same time share it.
	r := &runner{cfg: cfg, parallel: cfg.Parallel}
	r.recOpts = record.Options{MaxEvents: runTranscriptEvents / cfg.Parallel, MaxBytes: max(runTranscriptBytes/cfg.Parallel, minCheckBytes)}
	r.probing.Store(cfg.Versions[len(cfg.Versions)-1])
	if cfg.Session.StartupTimeout <= 0 {
		cfg.Session.StartupTimeout = session.DefaultStartupTimeout
	}
	r.cfg.Session.StartupTimeout = cfg.Session.StartupTimeout
	health := expect.NewHealth()
	health.StartupAllowance = cfg.Session.StartupTimeout
	if !cfg.OneInstance {
		// The probe opens a connection of its own, a second instance.
		health.Probe = livenessProbe(cfg, func() spec.Version { return r.probing.Load().(spec.Version) })
	} else {
		r.solo = &soloGate{}
	}
	ctx = expect.WithHealth(ctx, health)
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

	r.cat = cat
	if len(cfg.Only) > 0 {
		r.only = map[string]bool{}
		for _, id := range cfg.Only {
			r.only[reports.CanonicalCheckID(id)] = true // an old ID selects the renamed check
		}
	}
	tg := cfg.Target
	var resolveErr error // the URL's transport could not be detected
	switch {
	case tg.IsStdio():
		r.transport = "stdio"
	default:
		rt, _, err := target.Resolve(ctx, tg)
		if err != nil {
			if ctx.Err() != nil || neverConnected(err) {
				return Result{}, fmt.Errorf("%w: %v", ErrUnreachable, err)
			}
			// Judged anyway, over streamable HTTP: every check then ends
			// on what the target does to it, fast, and the run still
			// has a report saying so (the run's error cites this cause).
			resolveErr = err
			rt = tg
			rt.Transport = target.Streamable
		}
		tg = rt
		r.transport = tg.Transport
		if tg.Transport == target.Stateless {
			r.transport = wire.TransportStreamable
		}
	}
	r.target = tg
	r.hooks = map[*RunHook]any{}
	for _, h := range runHooks {
		state, stop := h.Start(tg)
		r.hooks[h] = state
		if stop != nil {
			defer stop()
		}
	}
	r.starts = newStartGate(tg.IsStdio() && tg.Pipe == nil, cfg.Parallel)
	r.gov = newGovernor(cfg.Parallel)
	run, err := harness.NewRun(harness.RunOptions{Verbose: cfg.Verbose, Transport: r.transport})
	if err != nil {
		return Result{}, err
	}
	r.run = run
	for _, v := range cfg.Versions {
		if r.transport == "sse" && v != spec.V20241105 {
			continue // HTTP+SSE carries 2024-11-05 only
		}
		r.versions = append(r.versions, &versionRun{r: r, v: v})
	}
	if len(r.versions) == 0 {
		return Result{}, fmt.Errorf("no protocol version to run over %s (HTTP+SSE carries 2024-11-05 only)", r.transport)
	}

	plan := r.plan()
	for _, it := range plan {
		if match != nil && !match(it.labels) {
			it.vr.done() // never run: what the version keeps goes after its last spec that runs
		}
	}
	n := suite.RunSpecs(r.specList(ctx, plan), suite.SpecConfig{Match: match, Parallel: cfg.Parallel,
		Serial: r.heavy, Overlap: true, Limit: r.gov.Limit})
	r.specs = n
	confirmed := r.confirm(ctx)

	var problems []error
	starts := 0
	unreachable := 0
	for _, vr := range r.versions {
		if err := vr.shutdown(); err != nil {
			_ = err // closing a target that already died is not a problem of the run
		}
		if vr.err != nil && ctx.Err() == nil {
			unreachable++
			problems = append(problems, fmt.Errorf("%s: %w: %v", vr.v, ErrUnreachable, vr.err))
		}
		vr.mu.Lock()
		starts += vr.conns
		vr.mu.Unlock()
	}
	for _, vr := range r.side {
		_ = vr.shutdown()
		vr.mu.Lock()
		starts += vr.conns
		vr.mu.Unlock()
	}
	problems = append(problems, run.Problems()...)
	res := Result{
		Report:    run.Report(cfg.Tool, r.targetReport(tg)),
		Problems:  problems,
		Starts:    starts,
		Engine:    "scheduler",
		Specs:     r.specs,
		Parallel:  cfg.Parallel,
		Serial:    cfg.Parallel > 1 && r.heavy(),
		Confirmed: confirmed,
	}
	res.FailedBeside = int(r.failedBeside.Load())
	res.Throttled, res.Lowest = r.gov.report()
	// In the order of the spec names, as merged shards are: a report
	// does not depend on which engine ran the checks or how many ran at
	// the same time.
	reports.SortChecks(res.Report.Checks)
	// What selected the checks, so that a baseline leaves alone the
	// entries about checks the run did not select (reports.Apply).
	res.Report.LabelFilter = cfg.LabelFilter
	res.Report.Shard = cfg.Shard.String()
	for _, vr := range r.versions {
		if vr.setupDone() && vr.err == nil && vr.silent == "" && !vr.support && vr.heard {
			res.Report.Unspoken = append(res.Report.Unspoken, vr.v)
		}
	}
	fastest, median, slowest, measured := health.StartupTimes()
	res.Report.Startup = &reports.Startup{Allowance: cfg.Session.StartupTimeout, Measured: measured, Fastest: fastest, Median: median, Slowest: slowest}
	res.Report.Silence = &reports.Silence{Window: cfg.Quiet, Longest: time.Duration(r.quietLongest.Load()), Typical: time.Duration(r.quietTypical.Load()), Windows: int(r.quietWindows.Load())}
	res.Report.ToolPolicy = policyReport(cfg.ToolPolicy, &r.uses)
	res.Report.Peers = r.peers()
	if ctx.Err() != nil {
		res.Report.Interrupted = suite.StopCause(ctx)
	}
	if resolveErr != nil && ctx.Err() == nil {
		// Not an MCP server as far as detection could tell: the report
		// says what it did, and the run is no conformance verdict.
		return res, fmt.Errorf("%w: %v", ErrUnreachable, resolveErr)
	}
	if unreachable == len(r.versions) && r.specs > 0 && ctx.Err() == nil {
		return res, fmt.Errorf("%w: %v", ErrUnreachable, r.versions[0].err)
	}
	if ctx.Err() == nil {
		if err := r.uses.unknown(cfg.ToolPolicy); err != nil {
			return res, err
		}
	}
	return res, ctx.Err()
}

// specItem is one (version, check) pair: one spec of the run.
type specItem struct {
	vr     *versionRun
	def    Def
	name   string
	labels []string
	phase  int
}

// plan lists the specs in run order: per version, the active checks in
// registration order, then the passive ones (each its own phase: see
// Spec.Phase).
func (r *runner) plan() []specItem {
	defs := Checks()
	var out []specItem
	seen := map[string]bool{}
	for i, vr := range r.versions {
		for _, passive := range []bool{false, true} {
			for _, d := range defs {
				if d.Passive != passive || (r.only != nil && !r.only[d.ID]) || (!passive && !r.cfg.Shard.Includes(vr.v, d.ID)) {
					continue
				}
				labels := d.SpecLabels(r.cat, vr.v, catalog.RoleServer)
				name := d.SpecName(vr.v)
				if seen[name] {
					panic(fmt.Sprintf("scenarios: duplicate spec name %q", name))
				}
				seen[name] = true
				phase := 2 * i
				if passive {
					phase++
				}
				out = append(out, specItem{vr: vr, def: d, name: name, labels: labels, phase: phase})
				vr.pending++
			}
		}
	}
	return out
}

func (r *runner) specList(ctx context.Context, plan []specItem) []suite.Spec {
	var out []suite.Spec
	// Over stdio every session is a process of its own, leased to one
	// check at a time: the task store a group's checks share, and the
	// lists and log level an exclusive check changes, live in a process
	// no other check talks to. So there the checks of a group run side by
	// side, and exclusive checks are only late (Spec.Late): they hold
	// whole listings, and by the time they start a target whose lists are
	// huge is known and the run is serial (runner.heavy). A server that
	// keeps its state outside its process (a file, a database) is run
	// with Parallel 1. A pipe target's function may share state between
	// its connections, so it keeps the rule of HTTP targets.
	ownProcess := r.transport == "stdio" && r.cfg.Target.Pipe == nil
	for _, it := range plan {
		it := it
		exclusive, isolated, group := it.def.Exclusive, it.def.Isolated, it.def.Group
		if slices.Contains(it.def.IsolatedIn, it.vr.v.Era()) {
			exclusive, isolated = false, true
		}
		late := false
		if ownProcess {
			group = ""
			late, exclusive = exclusive, false
		}
		out = append(out, suite.Spec{Name: it.name, Labels: it.labels, Run: func() { r.execute(ctx, it, nil) },
			Phase: it.phase, Waits: it.def.Passive, Exclusive: exclusive, Isolated: isolated, Late: late, Group: group})
	}
	return out
}

// execute runs one spec: gating first (version window, era, transport,
// version support), then the body. first is nil on the spec's first run;
// on a confirming re-run (confirm) it is the first attempt's verdict, and
// the re-run's replaces it.
func (r *runner) execute(ctx context.Context, it specItem, first *reports.Check) {
	vr, d := it.vr, it.def
	scope := r.run.Scope(vr.v, r.transport)
	if first != nil {
		scope = scope.Again()
	} else {
		defer vr.done()
	}
	timedOut := false
	rc := scope.Do(d.ID, d.Title, d.Requirements, func(c *harness.Check) {
		// The check's own transcript: its connections route what they
		// carry to it, so checks running at the same time do not mix.
		rec := record.New(r.run.Recorder().Start(), r.recOpts)
		c.UseRecorder(rec)
		ctx := withRecorder(expect.OnTimeout(expect.OnSkip(ctx, c.TargetGone), c.NoteTimeout), rec)
		defer func() { timedOut = c.TimedOut() }()
		if first != nil {
			c.Retried(firstAttempt(*first, r.parallel))
		}
		if ctx.Err() != nil {
			c.Untestable(suite.NotRun(ctx))
			return
		}
		defer func() {
			if ctx.Err() != nil {
				c.Interrupted(suite.Stopped(ctx))
			}
		}()
		if ok, why := d.Applies(vr.v, r.transport); !ok {
			c.NotApplicable(why)
			return
		}
		r.probing.Store(vr.v)
		vr.setup(ctx)
		if vr.err != nil {
			c.Error(fmt.Errorf("%w: %v", ErrUnreachable, vr.err))
			return
		}
		if vr.silent != "" && !d.Unsupported {
			c.Error(errors.New(vr.silent))
			return
		}
		if !vr.support && !d.Unsupported {
			if mute, why := expect.HealthOf(ctx).Mute(); mute {
				// Not "does not speak": nothing is known of a mute target.
				c.Untestable(fmt.Sprintf("whether the server speaks %s is unknown: %s", vr.v, why))
				return
			}
			if errors.Is(vr.openErr, session.ErrWrongID) {
				// It answers, so "does not speak" would be a guess.
				c.Untestable(fmt.Sprintf("no %s session could start, so whether the server speaks it is unknown: %v", vr.v, vr.openErr))
				return
			}
			c.NotApplicable(vr.unsupportedReason())
			return
		}
		if d.Passive {
			// Without the check's recorder: the settling traffic is
			// the run's, not this check's.
			vr.settle(expect.OnSkip(ctx, func(string) {}))
		}
		t := &T{Check: c, Ctx: ctx, vr: vr, def: d, rec: rec}
		defer t.finish()
		defer t.passiveEvidence()
		defer t.cite()
		defer func() {
			if p := recover(); p != nil {
				if a, ok := p.(abort); ok {
					if a.untestable() {
						c.Untestable(a.err.Error())
						return
					}
					c.Error(a.err)
					return
				}
				panic(p)
			}
		}()
		d.Body(t)
	})
	if first == nil {
		r.gov.observe(expect.HealthOf(ctx).Typical())
	}
	if first == nil && timedOut && rc.Broken() && !d.Passive && ctx.Err() == nil {
		r.mu.Lock()
		r.unconfirmed = append(r.unconfirmed, confirmItem{it: it, first: rc})
		r.mu.Unlock()
	}
	if r.cfg.Progress != nil {
		r.progress.Lock()
		defer r.progress.Unlock()
		r.cfg.Progress(rc)
	}
}

// confirmItem is a check whose verdict (fail, warn or error) came with a
// wait that went unanswered: first is that verdict, to be confirmed.
type confirmItem struct {
	it    specItem
	first reports.Check
}

// maxConfirmations bounds the checks a run re-runs to confirm.
const maxConfirmations = 64

// confirm re-runs, one at a time, the checks whose verdict came with an
// unanswered wait (execute collects them): alone, with fresh sessions,
// and with a Health of their own, so no deadline is shortened by what
// the target did to other checks. The re-run's verdict is the check's,
// with the first attempt noted (reports.Check.Retried): a target that
// answers when it is not loaded by a dozen checks at once is judged on
// that answer, and one that still does not has its failure confirmed. A
// target that has answered nothing in the whole run is not asked again
// (its checks are harness errors already, not failures). A check whose
// re-run cannot happen — the run was stopped or out of time, or more than
// maxConfirmations wait — is untestable (unconfirmed): its silence may
// have been our load. Only once maxConfirmedInARow re-runs in a row have
// ended as their first attempts did do the rest keep their first
// verdicts: the target has shown its silence alone.
func (r *runner) confirm(ctx context.Context) int {
	if mute, _ := expect.HealthOf(ctx).Mute(); mute {
		return 0
	}
	r.mu.Lock()
	items := r.unconfirmed
	r.unconfirmed = nil
	r.mu.Unlock()
	order := map[string]int{}
	for i, it := range r.plan() {
		order[string(it.vr.v)+" "+it.name] = i
	}
	slices.SortStableFunc(items, func(a, b confirmItem) int {
		return order[string(a.it.vr.v)+" "+a.it.name] - order[string(b.it.vr.v)+" "+b.it.name]
	})
	ran, confirmedInARow := 0, 0
	for i, c := range items {
		switch {
		case confirmedInARow == maxConfirmedInARow:
			// The re-runs keep confirming: the target's silence is its
			// own, and the rest keep their first verdicts.
			return ran
		case ctx.Err() != nil:
			r.leaveUnconfirmed(c, "the run was stopped before it ("+suite.StopCause(ctx)+")")
			continue
		case i >= maxConfirmations:
			r.leaveUnconfirmed(c, fmt.Sprintf("a run re-runs at most %d checks to confirm them, and %d waited", maxConfirmations, len(items)))
			continue
		}
		fresh := expect.NewHealth()
		fresh.StartupAllowance = r.cfg.Session.StartupTimeout
		r.execute(expect.WithHealth(ctx, fresh), c.it, &c.first)
		ran++
		if again := r.run.Find(c.first.Key()); again.Broken() && again.Outcome == c.first.Outcome {
			confirmedInARow++
		} else {
			confirmedInARow = 0
		}
	}
	return ran
}

// leaveUnconfirmed turns the first verdict of a check that could not be
// confirmed into untestable, saying why (why completes "the re-run
// alone could not run: ...").
func (r *runner) leaveUnconfirmed(c confirmItem, why string) {
	d := c.it.def
	r.run.Scope(c.it.vr.v, r.transport).Again().Do(d.ID, d.Title, d.Requirements, func(hc *harness.Check) {
		hc.Untestable(fmt.Sprintf("unconfirmed: with up to %d checks running at once the check ended %s (%s), and a wait went unanswered there; the re-run alone that tells the target's silence from our load could not run: %s", r.parallel, c.first.Outcome, firstWhat(c.first), why))
	})
}

// maxConfirmedInARow is how many re-runs in a row that end as their
// first attempt did stop the confirmations: a target that leaves those
// requests unanswered alone too has been shown to, and re-running every
// other such check would only wait out its deadlines again.
const maxConfirmedInARow = 5

// firstAttempt says what the first attempt of a re-run check ended with.
func firstAttempt(c reports.Check, parallel int) string {
	return fmt.Sprintf("the first attempt (with up to %d checks running at once) ended %s: %s; a wait went unanswered there, so the check was run again alone, with fresh sessions and the full timeout, and this verdict is that run's", parallel, c.Outcome, firstWhat(c))
}

// firstWhat is what a first attempt saw (its actual, else its reason), on
// one line of at most 300 bytes.
func firstWhat(c reports.Check) string {
	what := c.Actual
	if what == "" {
		what = c.Reason
	}
	what = strings.Join(strings.Fields(what), " ")
	if len(what) > 300 {
		what = what[:300] + "…"
	}
	return what
}

// allStateful returns the version runs of every initialize-based version,
// creating runs (probed, never reported) for versions outside cfg.Versions.
// Over HTTP+SSE too: the suites run 2024-11-05 there, but nothing stops a
// server from negotiating a later initialize-based version over the legacy
// endpoints, and what it implements there is what a counter-offer is
// judged against.
func (r *runner) allStateful() []*versionRun {
	var out []*versionRun
	for _, v := range spec.Versions {
		if v.Era() != spec.Stateful {
			continue
		}
		out = append(out, r.versionRunFor(v))
	}
	return out
}

// versionRunFor returns the run of version v, creating a side run when v
// is not one of the run's versions.
func (r *runner) versionRunFor(v spec.Version) *versionRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, vr := range r.versions {
		if vr.v == v {
			return vr
		}
	}
	for _, vr := range r.side {
		if vr.v == v {
			return vr
		}
	}
	vr := &versionRun{r: r, v: v}
	r.side = append(r.side, vr)
	return vr
}

// livenessProbe is the run's expect.Health.Probe: a fresh connection to
// the target, the handshake of the version version names (the one of the
// check under way), and the era's sentinel request. Any answer to the
// handshake and an answer to the sentinel are a sign of life; its ctx
// bounds it all.
func livenessProbe(cfg Config, version func() spec.Version) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		v := version()
		sc := cfg.Session
		if dl, ok := ctx.Deadline(); ok {
			sc.Timeout = time.Until(dl)
		}
		s, err := harness.Open(ctx, cfg.Target, v, harness.OpenOptions{Session: sc})
		if err != nil {
			return err
		}
		defer s.Close()
		if s.OpenErr != nil {
			return fmt.Errorf("the %s handshake: %v", v, s.OpenErr)
		}
		if r := Sentinel(ctx, (&Conn{s}).S()); !r.OK() {
			return fmt.Errorf("%s after the %s handshake: %s", SentinelMethod(v), v, r.Describe())
		}
		return nil
	}
}

// neverConnected reports whether err says no connection to the target was
// ever made (refused, no route, a name that does not resolve): then there
// is nothing of the target's to judge or report. Any other failure to
// detect its transport came from the target and is judged.
func neverConnected(err error) bool {
	var dns *net.DNSError
	return errors.Is(err, target.ErrNoConnection) || errors.As(err, &dns)
}
