package fuzz

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
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
	st       *stage.Stage
	mutators []mutate.Mutator
	lim      clientLimits
	requests []string
	engine

	peakRSS atomic.Uint64
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
	if err := cfg.settings().check(ClientReproducer(cfg.Client)); err != nil {
		return nil, err
	}
	if cfg.ClientTimeout <= 0 {
		cfg.ClientTimeout = DefaultClientTimeout
	}
	if cfg.MaxRSS == 0 {
		cfg.MaxRSS = DefaultMaxClientRSS
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
	c := &clientCampaign{cfg: cfg, st: st, mutators: mutate.ScheduleClient(muts)}
	c.engine = newEngine(ctx, c.cfg.settings())
	ctx, cancel := c.bounded(ctx)
	defer cancel()

	// The clean run: the client's requests and its pace, with a
	// generous deadline (the client's first start may be slow).
	clean := mutate.Input{Mutator: "clean-run", Client: &mutate.ClientPlan{}}
	first := clientLimits{wait: cfg.Wait, deadline: cfg.ClientTimeout, dropDeadline: cfg.ClientTimeout, maxRSS: cfg.MaxRSS}
	run, err := runClientOnce(ctx, st, cfg.Client, cfg.Version, clean, first)
	c.restarts.Add(1)
	if err != nil {
		return nil, err
	}
	if why := notSpokenByClient(cfg.Version, run); why != "" {
		if !cfg.NewestSpoken {
			return c.unspoken(why, run), nil
		}
		// The newest version the client speaks is a legacy one.
		cfg.Version = c.fallBack(why)
		run, err = runClientOnce(ctx, st, cfg.Client, cfg.Version, clean, first)
		c.restarts.Add(1)
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
		c.observe(o, clean, 0, run)
	}

	samples, memory := c.drive(ctx, c.worker, nil)
	res := c.result(samples)
	info.PeakRSSBytes = c.peakRSS.Load()
	res.Client = info
	c.finish(res, memory)
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
	c.nothingSent(r, notSpokenAdvice(why))
	return r
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
		c.restarts.Add(1)
		if err != nil {
			if ctx.Err() != nil {
				c.execs.Add(-1) // the time ran out during the run: it does not count
				return
			}
			if c.stopped(w, err, &failures) {
				return
			}
			continue
		}
		failures = 0
		c.account(run, in.Mutator, time.Since(began))
		for _, o := range run.obs {
			c.observe(o, in, n, run)
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

// result is the campaign's outcome so far (see engine.result).
func (c *clientCampaign) result(samples []reports.ThroughputSample) *Result {
	r := c.engine.result(samples)
	r.Role, r.Target, r.Transport = "client", c.cfg.Client.Describe(), c.cfg.Client.Transport()
	return r
}

// observe records an observation of execution n, made by in in run (see
// engine.observe).
func (c *clientCampaign) observe(o oracle.Observation, in mutate.Input, n int64, run clientRun) {
	c.engine.observe(o, in, n, func(f *Finding) {
		f.Target, f.Transcript, f.StderrTail = c.cfg.Client.Describe(), run.events, run.stderr
	}, c.reproduce)
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
	rctx, cancel := c.reproduction(limit)
	defer cancel()
	test := c.reproduces(rctx, f, func(ctx context.Context, in mutate.Input) ([]oracle.Observation, error) {
		run, err := runClientOnce(ctx, c.st, c.cfg.Client, c.cfg.Version, in, c.lim)
		return run.obs, err
	})
	if !test(f.Input) {
		return
	}
	if reproduced(f, f.Input, test, budget) {
		if run, err := runClientOnce(context.WithoutCancel(rctx), c.st, c.cfg.Client, c.cfg.Version, f.Minimized, c.lim); err == nil {
			c.restarts.Add(1)
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
	v, wait, in := opts.replayed(rf)
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
	return replayResult(rf, run.obs, run.events, run.stderr), nil
}
