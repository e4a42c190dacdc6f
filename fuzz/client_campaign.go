package fuzz

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/harness/stage"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Defaults of a client campaign.
const (
	// DefaultClientTimeout bounds a run whose input leaves one of the
	// client's requests unanswered: a client must give up on it by itself
	// within that time. It is longer than the common SDK defaults (30 s
	// for mcp-go, 60 s for the TypeScript SDK).
	DefaultClientTimeout = 65 * time.Second
	// DefaultMaxClientRSS bounds the resident memory of the client's
	// process group.
	DefaultMaxClientRSS = 1 << 30
)

// ClientConfig describes a client campaign: mcpcheck plays a hostile
// server to an MCP client, launching it once per execution.
type ClientConfig struct {
	// Client is what is fuzzed.
	Client ClientTarget
	// Version is the protocol version served (default spec.Latest).
	Version spec.Version
	// NewestSpoken makes a stateless Version (2026-07-28) the newest the
	// client may speak rather than the one it must, as Config.NewestSpoken
	// does for servers: a client whose clean run never gets past an
	// initialize (a legacy client, which a stage serving only the
	// stateless version refuses) is fuzzed at LegacyVersion, and
	// Result.VersionNote says why. Without it such a client judges
	// nothing (Result.Unjudged): every input would go with the refusal of
	// its initialize. The CLI sets it unless --protocol names a version.
	NewestSpoken bool
	// Duration and MaxExecs bound the campaign; at least one must be set.
	Duration time.Duration
	MaxExecs int64
	// Seed makes the campaign reproducible: execution i of worker w uses
	// Mix(Seed, w, i).
	Seed uint64
	// Workers is the number of clients run at once (default 1).
	Workers int
	// Shard, when set, runs only that shard's part of the input sequence,
	// as for server campaigns (see Shard); MaxExecs then bounds the whole
	// sequence.
	Shard Shard
	// FindingsDir is where findings are written; empty writes nothing.
	FindingsDir string
	// Wait bounds the client's answer to the ping sent after each input,
	// and how much longer than its clean run a client may take to finish
	// its task (default DefaultWait).
	Wait time.Duration
	// ClientTimeout bounds a run that leaves one of the client's requests
	// unanswered (default DefaultClientTimeout); it must be longer than
	// the client's own request timeout.
	ClientTimeout time.Duration
	// MaxRSS bounds the client's resident memory (its process group);
	// default DefaultMaxClientRSS.
	MaxRSS uint64
	// Mutators selects mutators by name or family (see ClientMutators);
	// empty uses all that apply to the client's transport.
	Mutators []string
	// MinimizeBudget and MinimizeTime bound reproducing and minimizing one
	// finding, as for server campaigns.
	MinimizeBudget int
	MinimizeTime   time.Duration
	// Progress, OnFinding and Reproducer are as for server campaigns
	// (Config); the default reproducer names ClientReproducer's command.
	Progress      func(Progress)
	ProgressEvery time.Duration
	OnFinding     func(*Finding)
	Reproducer    func(*Finding) string
}

// ClientRunInfo is what the client did in its clean run, the one with no
// input, which every other run is held to.
type ClientRunInfo struct {
	// Requests are the methods of the requests it made, in order: the
	// inputs go with the answers to them.
	Requests []string `json:"requests"`
	// Took is how long the clean run took, Exit how it ended.
	Took time.Duration `json:"tookNs"`
	Exit string        `json:"exit"`
	// Deadline is what each run was given: the clean run's time (twice)
	// plus Wait.
	Deadline time.Duration `json:"deadlineNs"`
	// PeakRSSBytes is the largest resident memory of the client's process
	// group seen over the campaign.
	PeakRSSBytes uint64 `json:"peakRssBytes,omitempty"`
}

// ClientReproducer is the replay command of findings against a client.
func ClientReproducer(t ClientTarget) func(*Finding) string {
	flag := "--client"
	if t.Stdio {
		flag = "--client-stdio"
	}
	return func(f *Finding) string {
		return fmt.Sprintf("mcpcheck replay %s %s %q --protocol %s", findingPath(f), flag, t.Command, f.Version)
	}
}

// clientCampaign is the state of one RunClient: the stage, the learned
// clean run, counters and the findings so far.
type clientCampaign struct {
	cfg      ClientConfig
	parent   context.Context
	st       *stage.Stage
	mutators []mutate.Mutator
	lim      clientLimits
	requests []string
	// versionNote is Result.VersionNote (ClientConfig.NewestSpoken).
	versionNote string
	engine

	launches atomic.Int64
	peakRSS  atomic.Uint64
}

// RunClient fuzzes an MCP client: after one clean run (no input, which
// learns the client's requests and how long its task takes), every
// execution launches the client against a stage case that plays one input
// (see ClientPlan) and holds the run to the oracles: the client crashes
// (a signal, a crash report with a failure status), hangs (does not answer
// the ping sent after the input, or does not finish its task in time),
// grows past MaxRSS, or breaks a client-side rule of the protocol (each
// observation cites its requirement). Findings are reproduced, minimized
// and written as for server campaigns; the result is the same Result.
func RunClient(ctx context.Context, cfg ClientConfig) (*Result, error) {
	if cfg.Client.Command == "" {
		return nil, errors.New("fuzz: the client campaign has no client; set ClientConfig.Client.Command (mcpcheck fuzz --client or --client-stdio)")
	}
	if cfg.Duration <= 0 && cfg.MaxExecs <= 0 {
		return nil, errors.New("fuzz: the campaign is unbounded; set a duration or a maximum number of executions")
	}
	if cfg.Version == "" {
		cfg.Version = spec.Latest
	}
	if !cfg.Version.Known() {
		return nil, fmt.Errorf("fuzz: unknown protocol version %q; use one of %s", cfg.Version, strings.Join(spec.VersionStrings(), ", "))
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if !cfg.Shard.Valid() {
		return nil, fmt.Errorf("fuzz: shard %d/%d: want K/N with 1 <= K <= N", cfg.Shard.K, cfg.Shard.N)
	}
	if cfg.MaxExecs > 0 {
		if cfg.MaxExecs = cfg.Shard.Share(cfg.MaxExecs); cfg.MaxExecs == 0 {
			return nil, fmt.Errorf("fuzz: shard %s of a campaign bounded to fewer executions than shards runs nothing; raise the bound or use fewer shards", cfg.Shard)
		}
	}
	if cfg.Wait <= 0 {
		cfg.Wait = DefaultWait
	}
	if cfg.ClientTimeout <= 0 {
		cfg.ClientTimeout = DefaultClientTimeout
	}
	if cfg.MaxRSS == 0 {
		cfg.MaxRSS = DefaultMaxClientRSS
	}
	if cfg.MinimizeBudget == 0 {
		cfg.MinimizeBudget = DefaultMinimizeBudget
	}
	if cfg.MinimizeTime <= 0 {
		cfg.MinimizeTime = DefaultMinimizeTime
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = time.Second
	}
	if cfg.Reproducer == nil {
		cfg.Reproducer = ClientReproducer(cfg.Client)
	}
	all := mutate.ClientMutators(!cfg.Client.Stdio)
	muts := all
	if len(cfg.Mutators) > 0 {
		var err error
		if muts, err = mutate.SelectFrom(all, cfg.Mutators); err != nil {
			return nil, fmt.Errorf("%w (for a %s client)", err, cfg.Client.Transport())
		}
	}
	st, err := stage.New()
	if err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	defer st.Close()
	c := &clientCampaign{cfg: cfg, parent: ctx, st: st, mutators: mutate.ScheduleClient(muts), engine: newEngine()}
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, c.start.Add(cfg.Duration))
		defer cancel()
	}

	// The clean run: the client's requests and its pace, with a
	// generous deadline (the client's first start may be slow).
	clean := mutate.Input{Mutator: "clean-run", Client: &mutate.ClientPlan{}}
	first := clientLimits{wait: cfg.Wait, deadline: cfg.ClientTimeout, dropDeadline: cfg.ClientTimeout, maxRSS: cfg.MaxRSS}
	run, err := runClientOnce(ctx, st, cfg.Client, cfg.Version, clean, first)
	c.launches.Add(1)
	if err != nil {
		return nil, err
	}
	if why := notSpokenByClient(cfg.Version, run); why != "" {
		if !cfg.NewestSpoken {
			return c.unspoken(why, run), nil
		}
		// The newest version the client speaks is a legacy one.
		cfg.Version = oracle.LegacyVersion
		c.cfg.Version = cfg.Version
		c.versionNote = fmt.Sprintf("%s; fuzzed %s, the newest initialize-based version, instead", why, cfg.Version)
		run, err = runClientOnce(ctx, st, cfg.Client, cfg.Version, clean, first)
		c.launches.Add(1)
		if err != nil {
			return nil, err
		}
	}
	info := &ClientRunInfo{Requests: run.requests, Took: run.took, Exit: run.exit}
	if len(run.requests) == 0 {
		return nil, fmt.Errorf("fuzz: %w of mcpcheck's stage in its clean run (it %s after %v); check the command line (%s) and that the client speaks %s over %s; its stderr ends: %s",
			errNoRequests, run.exit, run.took.Round(time.Millisecond), cfg.Client.Command, cfg.Version, cfg.Client.Transport(), oracle.QuoteStart(tail(run.stderr, 400)))
	}
	c.requests = run.requests
	c.lim = clientLimits{wait: cfg.Wait, deadline: 2*run.took + cfg.Wait, dropDeadline: cfg.ClientTimeout, maxRSS: cfg.MaxRSS,
		cleanOK: run.code == 0}
	info.Deadline = c.lim.deadline
	c.account(run, clean.Mutator, 0)
	for _, o := range run.obs {
		c.observe(ctx, o, clean, 0, run)
	}

	samples, memory := c.drive(ctx, cfg.Workers, cfg.ProgressEvery, c.worker, nil, c.progress, cfg.Progress)
	res := c.result(samples)
	info.PeakRSSBytes = c.peakRSS.Load()
	res.Client = info
	c.finish(res, memory, c.parent, c.progress, cfg.Progress)
	return res, nil
}

// tail is the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// notSpokenByClient says why a clean run at a stateless version v shows
// a client that does not speak v: it asked for an initialize-based session
// (which a stage serving only v refuses) and made no request of v's own
// beyond server/discover, so it never reached its task. "" otherwise.
func notSpokenByClient(v spec.Version, run clientRun) string {
	if v.Era() != spec.Stateless {
		return ""
	}
	initialize := false
	for _, m := range run.requests {
		switch m {
		case spec.MethodInitialize:
			initialize = true
		case spec.MethodServerDiscover:
		default:
			return ""
		}
	}
	if !initialize {
		return ""
	}
	return fmt.Sprintf("the client asked for an initialize-based session in its clean run at %s and made no other request (it %s): it does not speak %s", v, run.exit, v)
}

// unspoken is the result of a campaign whose client does not speak its
// version (see notSpokenByClient): nothing judged, no input sent.
func (c *clientCampaign) unspoken(why string, run clientRun) *Result {
	r := c.result(nil)
	r.Client = &ClientRunInfo{Requests: run.requests, Took: run.took, Exit: run.exit, PeakRSSBytes: run.peakRSS}
	r.Unjudged = fmt.Sprintf("%s; fuzz it at an initialize-based version (--protocol %s), or leave --protocol out for the newest version it speaks", why, oracle.LegacyVersion)
	r.Verdict = Verdict{Unjudged: true, Reason: "nothing judged: " + r.Unjudged + "; no input was sent"}
	_, r.PeakRSSBytes = conn.ProcMemory()
	if c.parent.Err() != nil {
		r.interrupted()
	}
	return r
}

// claim reserves one execution, or returns false when the bounds are
// reached.
func (c *clientCampaign) claim(ctx context.Context) (int64, bool) {
	if ctx.Err() != nil {
		return 0, false
	}
	n := c.execs.Add(1)
	if c.cfg.MaxExecs > 0 && n > c.cfg.MaxExecs {
		c.execs.Add(-1)
		return 0, false
	}
	return n, true
}

// fail records a problem of the campaign itself (bounded).
func (c *clientCampaign) fail(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.errs) < 100 {
		c.errs = append(c.errs, fmt.Sprintf(format, args...))
	}
}

// worker runs executions until the campaign's bounds: worker w's
// execution i plays the input of seed Mix(Seed, w, i) (a shard makes only
// its own, see Shard).
func (c *clientCampaign) worker(ctx context.Context, w int) {
	failures := 0
	for i := c.cfg.Shard.start(); ; i += c.cfg.Shard.step() {
		n, ok := c.claim(ctx)
		if !ok {
			return
		}
		seed := mutate.Mix(c.cfg.Seed, w, i)
		m := c.mutators[seed%uint64(len(c.mutators))]
		in, err := mutate.MakeClientInput(c.cfg.Version, m.Name, seed, c.requests)
		if err != nil {
			c.fail("exec %d: %v", n, err)
			continue
		}
		began := time.Now()
		run, err := runClientOnce(ctx, c.st, c.cfg.Client, c.cfg.Version, in, c.lim)
		c.launches.Add(1)
		if err != nil {
			if ctx.Err() != nil {
				c.execs.Add(-1) // the time ran out during the run: it does not count
				return
			}
			if failures++; failures >= 3 {
				c.fail("worker %d stopped: %v", w, err)
				return
			}
			continue
		}
		failures = 0
		c.account(run, in.Mutator, time.Since(began))
		for _, o := range run.obs {
			c.observe(ctx, o, in, n, run)
		}
	}
}

// account records a run's coverage and cost.
func (c *clientCampaign) account(run clientRun, mutator string, took time.Duration) {
	if run.slow {
		c.slow.Add(1)
	}
	for {
		p := c.peakRSS.Load()
		if run.peakRSS <= p || c.peakRSS.CompareAndSwap(p, run.peakRSS) {
			break
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mutUse[mutator]++
	c.mutTime[mutator] += took
	for _, m := range append(run.requests, run.answered...) {
		if _, known := spec.LookupMethod(c.cfg.Version, m); known {
			c.methods[m]++ // not the made-up methods of hostile requests
		}
	}
}

// progress is the live view of the campaign.
func (c *clientCampaign) progress(rate float64) Progress {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := Progress{Elapsed: time.Since(c.start), Execs: c.execs.Load(), ExecsPerSec: rate, Findings: len(c.order), MethodsCovered: len(c.methods), Restarts: c.launches.Load(), HeapBytes: c.heap.Load()}
	for _, f := range c.order {
		switch f.Kind {
		case reports.FindingCrash:
			p.Crashes++
		case reports.FindingHang:
			p.Hangs++
		}
	}
	return p
}

// result is the campaign's outcome so far.
func (c *clientCampaign) result(samples []reports.ThroughputSample) *Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := &Result{Role: "client", Version: c.cfg.Version, VersionNote: c.versionNote, Target: c.cfg.Client.Describe(), Seed: c.cfg.Seed, Workers: c.cfg.Workers, Transport: c.cfg.Client.Transport(), Shard: c.cfg.Shard.String(),
		Duration: time.Since(c.start), Execs: c.execs.Load(), Restarts: c.launches.Load(), PeakHeapBytes: c.peakHeap.Load(), SlowProbes: c.slow.Load(),
		MethodsCovered: map[string]int64{}, Mutators: map[string]int64{}, MutatorTime: map[string]time.Duration{}, Samples: samples,
		Findings: append([]*Finding(nil), c.order...), Errors: c.errs}
	for k, v := range c.methods {
		r.MethodsCovered[k] = v
	}
	for k, v := range c.mutUse {
		r.Mutators[k] = v
	}
	for k, v := range c.mutTime {
		r.MutatorTime[k] = v
	}
	sort.SliceStable(r.Findings, func(i, j int) bool { return r.Findings[i].Exec < r.Findings[j].Exec })
	r.Verdict = verdict(r.Findings)
	return r
}

// observe records an observation: a new signature becomes a finding
// (reproduced, minimized and written), a known one counts a hit.
func (c *clientCampaign) observe(ctx context.Context, o oracle.Observation, in mutate.Input, exec int64, run clientRun) {
	sig := o.Signature()
	c.mu.Lock()
	if f, ok := c.findings[sig]; ok {
		f.Hits++
		c.mu.Unlock()
		return
	}
	f := &Finding{Observation: o, ID: sig, Version: c.cfg.Version, Target: c.cfg.Client.Describe(), Mutator: in.Mutator, Seed: in.Seed,
		Exec: c.cfg.Shard.global(exec), At: time.Since(c.start), Hits: 1, Input: in, Minimized: in, Wait: c.cfg.Wait,
		Transcript: run.events, StderrTail: run.stderr}
	c.findings[sig] = f
	c.order = append(c.order, f)
	c.mu.Unlock()

	c.reproduce(f)
	if c.cfg.FindingsDir != "" {
		f.Dir = filepath.Join(c.cfg.FindingsDir, f.DirName())
	}
	f.Reproducer = c.cfg.Reproducer(f)
	if c.cfg.FindingsDir != "" {
		if err := f.Write(c.cfg.FindingsDir); err != nil {
			c.fail("%v", err)
		}
	}
	if c.cfg.OnFinding != nil {
		c.cfg.OnFinding(f)
	}
}

// reproduce runs the finding's input on fresh client launches, then
// minimizes it and keeps the transcript of the minimized run.
func (c *clientCampaign) reproduce(f *Finding) {
	budget, limit := c.cfg.MinimizeBudget, c.cfg.MinimizeTime
	if f.Input.Client != nil && f.Input.Client.MayLoseAnswer() {
		// Each run may last the client timeout: reproduce once, do not
		// minimize (the input is small: one bent answer).
		budget, limit = 0, limit+c.cfg.ClientTimeout
	}
	var deadline time.Time
	if c.cfg.Duration > 0 {
		deadline = c.start.Add(c.cfg.Duration)
	}
	rctx, cancel := reproductionContext(c.parent, c.start, deadline, limit)
	defer cancel()
	test := func(in mutate.Input) bool {
		if rctx.Err() != nil {
			return false
		}
		run, err := runClientOnce(rctx, c.st, c.cfg.Client, c.cfg.Version, in, c.lim)
		c.launches.Add(1)
		if err != nil {
			return false
		}
		for _, o := range run.obs {
			if oracle.SameBug(o, f.Observation) {
				return true
			}
		}
		return false
	}
	if !test(f.Input) {
		return
	}
	f.Reproduced = true
	f.Minimized = f.Input
	if budget > 0 {
		f.Minimized = Minimize(f.Input, test, budget)
		if run, err := runClientOnce(context.WithoutCancel(rctx), c.st, c.cfg.Client, c.cfg.Version, f.Minimized, c.lim); err == nil {
			c.launches.Add(1)
			f.Transcript, f.StderrTail = run.events, run.stderr
		}
	}
}

// ReplayClient runs a client campaign's finding again: the client is
// launched against a stage that plays the finding's input, and the result
// says whether the same problem showed. The clean run is not repeated: the
// run's deadline is ReplayOptions.Wait (or the finding's) plus
// DefaultClientTimeout for an input that leaves a request unanswered.
func ReplayClient(ctx context.Context, findingPath string, t ClientTarget, opts ReplayOptions) (*ReplayResult, error) {
	rf, err := LoadReplay(findingPath)
	if err != nil {
		return nil, err
	}
	if rf.Input.Client == nil {
		return nil, fmt.Errorf("fuzz: %s comes from a server campaign; replay it with --stdio or --url", findingPath)
	}
	v, wait, in := rf.Version, rf.Wait, rf.Input
	if opts.Version != "" {
		v = opts.Version
	}
	if opts.Wait > 0 {
		wait = opts.Wait
	}
	if wait <= 0 {
		wait = DefaultWait
	}
	if opts.Original {
		in = rf.Original
	}
	st, err := stage.New()
	if err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	defer st.Close()
	lim := clientLimits{wait: wait, deadline: 2 * wait, dropDeadline: DefaultClientTimeout, maxRSS: DefaultMaxClientRSS, cleanOK: true}
	if opts.ClientTimeout > 0 {
		lim.dropDeadline = opts.ClientTimeout
	}
	run, err := runClientOnce(ctx, st, t, v, in, lim)
	if err != nil {
		return nil, err
	}
	res := &ReplayResult{Expect: rf.Expect, Observations: run.obs, Transcript: run.events, StderrTail: run.stderr}
	for _, o := range run.obs {
		if oracle.SameBug(o, rf.Expect) {
			res.Reproduced = true
		}
	}
	return res, nil
}
