package fuzz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	hsession "github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/toolpolicy"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Defaults of a campaign.
const (
	// DefaultWait is how long the liveness probe may take.
	DefaultWait = 5 * time.Second
	// DefaultStartupTimeout is how long a fresh instance may take to say
	// anything at all (Config.StartupTimeout): the allowance the server
	// suite gives a fresh connection, since a server started on a loaded
	// machine (many at once, on two cores) can take many seconds, and
	// only one that stays silent that long is silent.
	DefaultStartupTimeout = hsession.DefaultStartupTimeout
	// DefaultMinimizeBudget is how many reproduction runs minimizing one
	// finding may use.
	DefaultMinimizeBudget = 64
	// DefaultMinimizeTime bounds reproducing and minimizing one finding.
	DefaultMinimizeTime = 30 * time.Second
	// historyLen is how many earlier inputs of a session are kept for
	// reproducing a finding that needs them.
	historyLen = 8
	// maxSamples bounds the throughput samples kept.
	maxSamples = 600
)

// Config describes a campaign.
type Config struct {
	// Target is what is fuzzed.
	Target conn.Target
	// Version is the protocol version spoken (default spec.Latest).
	Version spec.Version
	// NewestSpoken makes a stateless Version (2026-07-28) the newest the
	// target may speak rather than the one it must: a target whose
	// server/discover probe gets a legacy server's answer is fuzzed at
	// LegacyVersion, and Result.VersionNote says why. Without it such a
	// target judges nothing (Result.Unjudged): a legacy server is never
	// judged by a revision it does not claim. The CLI sets it unless
	// --protocol names a version.
	NewestSpoken bool
	// Duration and MaxExecs bound the campaign; at least one must be set.
	Duration time.Duration
	MaxExecs int64
	// Seed makes the campaign reproducible: execution i of worker w uses
	// Mix(Seed, w, i). With one worker the same seed and bound give the
	// same inputs and findings, except that an input that closes stdin
	// runs to its end in the background: a signature it shares with other
	// inputs may be credited to either.
	Seed uint64
	// Workers is the number of target instances fuzzed in parallel
	// (default 1).
	Workers int
	// FindingsDir is where findings are written; empty writes nothing.
	FindingsDir string
	// Wait is the liveness deadline after each input (default DefaultWait).
	Wait time.Duration
	// StartupTimeout is the start-up allowance (default
	// DefaultStartupTimeout): the first wait on each fresh instance (a
	// process, or an HTTP session), its handshake or the first exchange of
	// an input that wants a fresh instance, lasts until the instance has
	// said something or this long (never less than Wait); only then is
	// the instance unreachable, or hung. Later waits are Wait. Instances
	// started ahead, restarts and reproductions get it too; the end of the
	// campaign ends it early, and no finding is made of that.
	StartupTimeout time.Duration
	// Mutators selects mutators by name or family (see SelectMutators);
	// empty uses all.
	Mutators []string
	// MinimizeBudget bounds the reproduction runs spent minimizing one
	// finding (default DefaultMinimizeBudget; negative disables).
	MinimizeBudget int
	// MinimizeTime bounds the time spent reproducing and minimizing one
	// finding (default DefaultMinimizeTime). It comes on top of Duration,
	// once: a finding made near the end is still minimized, and a campaign
	// with a Duration spends at most MinimizeTime past it (or its Duration,
	// when shorter, but at least 10 s), however many findings are still
	// being minimized then (reproductionContext).
	MinimizeTime time.Duration
	// Progress, when set, is called every ProgressEvery (default 1s) from
	// one goroutine, and once at the end.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// OnFinding, when set, is called once per new finding, after it was
	// minimized and written.
	OnFinding func(*Finding)
	// Reproducer formats the command that replays a finding directory; the
	// default is ReproducerFor(Target).
	Reproducer func(f *Finding) string
	// Shard, when set, runs only that shard's part of the input sequence
	// (see Shard); MaxExecs then bounds the whole sequence.
	Shard Shard
	// ToolPolicy says which of the target's tools the tool-call mutator
	// may call (the zero value: those annotated readOnlyHint: true; see
	// toolpolicy). Its generated arguments never consent.
	ToolPolicy toolpolicy.Policy
}

// Progress is a live view of a campaign.
type Progress struct {
	Elapsed     time.Duration
	Execs       int64
	ExecsPerSec float64 // over the last interval
	Findings    int
	Crashes     int
	Hangs       int
	// MethodsCovered counts the distinct methods the target answered.
	MethodsCovered int
	Restarts       int64
	// HeapBytes is the fuzzer's own live heap (runtime HeapAlloc) at the
	// last sample, to watch memory stay flat over long campaigns.
	HeapBytes uint64
}

// MemorySample is the fuzzer process's memory at Offset into a campaign.
type MemorySample struct {
	Offset time.Duration `json:"offsetNs"`
	// HeapInuse and Sys are runtime.MemStats.HeapInuse and Sys.
	HeapInuse uint64 `json:"heapInuseBytes"`
	Sys       uint64 `json:"sysBytes"`
	// RSS and PeakRSS are VmRSS and VmHWM of /proc/self/status (0 where
	// the system does not say).
	RSS     uint64 `json:"rssBytes,omitempty"`
	PeakRSS uint64 `json:"peakRssBytes,omitempty"`
	// Findings is the number of findings at that time.
	Findings int `json:"findings"`
}

// Verdict says whether the campaign should fail a build.
type Verdict struct {
	// Failed is true when a crash, a hang or a MUST-level violation was
	// found.
	Failed bool `json:"failed"`
	// Unjudged is true when the campaign is no verdict on the target,
	// findings or not (Result.Unjudged says why): never a pass.
	Unjudged bool   `json:"unjudged,omitempty"`
	Reason   string `json:"reason"`
}

// Result is the outcome of a campaign.
type Result struct {
	// Role is "client" for a client campaign (RunClient), where mcpcheck
	// played the server; empty for a server campaign.
	Role    string       `json:"role,omitempty"`
	Version spec.Version `json:"version"`
	// VersionNote, when set, says why Version is not the one asked for
	// (Config.NewestSpoken: the target does not speak it).
	VersionNote string `json:"versionNote,omitempty"`
	Target      string `json:"target"`
	Seed        uint64 `json:"seed"`
	Workers     int    `json:"workers"`
	// Transport is how the target was spoken to: "stdio", "streamable"
	// or "sse".
	Transport string `json:"transport,omitempty"`
	// Shard is "K/N" for shard K of a campaign split N ways (Config.Shard).
	Shard    string        `json:"shard,omitempty"`
	Duration time.Duration `json:"durationNs"`
	Execs    int64         `json:"execs"`
	Restarts int64         `json:"restarts"`
	// RestartTime is the wall time the campaign's instance starts took
	// (process start and handshake, each counted whole; starts made ahead
	// overlap with fuzzing), and RestartWait the part of it the workers
	// spent waiting for an instance instead of fuzzing: RestartShare is
	// that part's share of the campaign's time. Starts for reproducing and
	// minimizing findings are not counted.
	RestartTime time.Duration `json:"restartTimeNs,omitempty"`
	RestartWait time.Duration `json:"restartWaitNs,omitempty"`
	// SlowProbes counts liveness probes answered only after the liveness
	// wait ran out, within the confirmation window (no hang was made of
	// them): a sign that the target is slow or the machine busy, and that
	// a longer --wait would make the campaign's hang verdicts safer.
	SlowProbes int64 `json:"slowProbes,omitempty"`
	// MethodsCovered maps each method the target answered to the number of
	// answers.
	MethodsCovered map[string]int64 `json:"methodsCovered"`
	Mutators       map[string]int64 `json:"mutators"`
	// MutatorTime maps each mutator to the wall time its inputs took, from
	// sending to judging (waiting for a fresh instance included): where a
	// campaign's time goes. Inputs that close stdin run in the background
	// and count their whole run.
	MutatorTime map[string]time.Duration   `json:"mutatorTimeNs,omitempty"`
	Samples     []reports.ThroughputSample `json:"samples,omitempty"`
	// PeakHeapBytes is the largest live heap of the fuzzer seen at a
	// progress sample.
	PeakHeapBytes uint64 `json:"peakHeapBytes"`
	// PeakRSSBytes is the fuzzer process's peak resident set size (VmHWM
	// of /proc/self/status) at the end of the campaign; 0 where the system
	// does not say.
	PeakRSSBytes uint64 `json:"peakRssBytes,omitempty"`
	// Memory samples the fuzzer's own memory at progress ticks (thinned
	// like Samples), to show it stays flat over long campaigns.
	Memory   []MemorySample `json:"memory,omitempty"`
	Findings []*Finding     `json:"findings"`
	Verdict  Verdict        `json:"verdict"`
	// Errors lists problems of the campaign itself (a worker that could not
	// restart the target, a finding that could not be written).
	Errors []string `json:"errors,omitempty"`
	// Unjudged, when set, says why nothing (or not all that was asked)
	// was judged: the target never completed a handshake, so no input was
	// sent (Run), the campaign was interrupted (Interrupted), or a merged
	// campaign lacks shards or holds such a campaign (Merge). The CLI
	// exits 3 on it (5 when interrupted).
	Unjudged string `json:"unjudged,omitempty"`
	// Interrupted, when set, says that the caller cancelled the campaign
	// (Ctrl-C, SIGTERM) before it reached its bounds, and after how many
	// executions: what it judged is in the result, but it is no pass.
	Interrupted string `json:"interrupted,omitempty"`
	// Parts lists the campaigns a merged result was made of (Merge).
	Parts []Part `json:"parts,omitempty"`
	// Client describes a client campaign's clean run and the client's
	// memory (client campaigns only).
	Client *ClientRunInfo `json:"client,omitempty"`
}

// Summary fills the reports model's FuzzSummary, with each finding's
// reproducer (reproducer(f), or the one the campaign recorded when
// reproducer is nil) and its last maxEvents transcript events.
func (r *Result) Summary(reproducer func(*Finding) string, maxEvents int) reports.FuzzSummary {
	s := reports.FuzzSummary{Duration: r.Duration, Seed: int64(r.Seed), Execs: r.Execs, Samples: r.Samples}
	for _, f := range r.Findings {
		cmd := f.Reproducer
		if reproducer != nil {
			cmd = reproducer(f)
		}
		s.Findings = append(s.Findings, f.Report(cmd, maxEvents))
	}
	return s
}

// DefaultReproducer is the replay command of a finding against a stdio
// target given by its command line.
func DefaultReproducer(target string) func(*Finding) string {
	return func(f *Finding) string {
		return fmt.Sprintf("mcpcheck replay %s --stdio %q --protocol %s", findingPath(f), target, f.Version)
	}
}

// ReproducerFor is the replay command of findings against t: --url for an
// HTTPTarget (with --transport sse for HTTP+SSE), --stdio with its command
// line otherwise.
func ReproducerFor(t conn.Target) func(*Finding) string {
	if h, ok := t.(conn.HTTPTarget); ok {
		transport := ""
		if h.Transport == wire.TransportSSE {
			transport = " --transport sse"
		}
		return func(f *Finding) string {
			return fmt.Sprintf("mcpcheck replay %s --url %s%s --protocol %s", findingPath(f), h.URL, transport, f.Version)
		}
	}
	return DefaultReproducer(t.Describe())
}

// transportOf names how t is spoken to, as Result.Transport does.
func transportOf(t conn.Target) string {
	if h, ok := t.(conn.HTTPTarget); ok {
		if h.Transport == wire.TransportSSE {
			return string(wire.TransportSSE)
		}
		return string(wire.TransportStreamable)
	}
	return "stdio"
}

func findingPath(f *Finding) string {
	if f.Dir != "" {
		return f.Dir
	}
	return f.DirName()
}

type campaign struct {
	cfg      Config
	mutators []mutate.Mutator
	tools    []mutate.Tool
	http     bool // the target is an HTTP server (a fresh session costs no process start)
	engine

	// startNs and waitNs add up the instance starts' wall time and the
	// workers' waits for an instance (Result.RestartTime, RestartWait).
	startNs atomic.Int64
	waitNs  atomic.Int64

	// closing counts instances being ended in the background (see retire).
	closing sync.WaitGroup
}

// Run fuzzes cfg.Target until the duration or execution bound is reached or
// ctx is cancelled. It returns the result even when some workers failed;
// the error is set only when the campaign could not run at all, and the
// result too when that is because the target never completed a handshake
// (the error wraps ErrUnreachable).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Target == nil {
		return nil, errors.New("fuzz: the campaign has no target; set Config.Target (e.g. CommandTarget)")
	}
	if err := cfg.settings().check(ReproducerFor(cfg.Target)); err != nil {
		return nil, err
	}
	if cfg.StartupTimeout <= 0 {
		cfg.StartupTimeout = DefaultStartupTimeout
	}
	_, isHTTP := cfg.Target.(conn.HTTPTarget)
	muts, err := mutate.SelectFrom(mutate.MutatorsFor(isHTTP), cfg.Mutators)
	if err != nil {
		return nil, err
	}
	if len(cfg.Mutators) == 0 {
		muts = mutate.MutatorsFor(isHTTP)
	}
	c := &campaign{cfg: cfg, mutators: mutate.Schedule(muts, cfg.Version), http: isHTTP}
	c.engine = newEngine(ctx, c.cfg.settings())
	// Learn the tools once, for the tool-call mutator. A target that
	// cannot be started or never completes a handshake judges nothing:
	// the campaign ends here, before any input, with a result that says
	// why (see ErrUnreachable). This first handshake is not the
	// campaign's time: a target that starts slowly on a busy machine
	// gets its whole start-up allowance, and Duration bounds the fuzzing
	// that follows (a 2 s campaign against a server that takes 5 s to
	// start fuzzes it for 2 s, instead of calling it unreachable).
	s, err := c.first(ctx)
	var notSpoken *NotSpokenError
	var silent silentError
	if cfg.NewestSpoken && ctx.Err() == nil && (errors.As(err, &notSpoken) || errors.As(err, &silent)) {
		// The newest version the target speaks may be a legacy one.
		why := strings.TrimPrefix(err.Error(), "fuzz: ")
		cfg.Version = c.fallBack(why)
		c.mutators = mutate.Schedule(muts, cfg.Version)
		if s, err = c.first(ctx); err != nil {
			err = fmt.Errorf("%s; then at %s: %w", why, cfg.Version, err)
		}
	}
	if err != nil {
		r := c.unreachable(err)
		if errors.As(err, &notSpoken) {
			return r, fmt.Errorf("fuzz: %w", notSpoken)
		}
		return r, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	c.tools = CallableTools(cfg.ToolPolicy, s.listTools())
	c.start = time.Now() // the fuzzing starts
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	s.close()

	samples, memory := c.drive(ctx, c.worker, c.closing.Wait)
	res := c.result(samples)
	c.finish(res, memory)
	return res, nil
}

// first opens the campaign's first session at c.cfg.Version: the
// handshake (initialize), or in a stateless version the contact probe,
// which also tells a target that does not speak it (*NotSpokenError; see
// openSession).
func (c *campaign) first(ctx context.Context) (*session, error) {
	return openSession(ctx, c.cfg.Target, c.cfg.Version, c.cfg.Wait, c.cfg.StartupTimeout, false)
}

// ErrUnreachable is wrapped by the error Run returns, with a result, when
// the target never completed a handshake (initialize, or in a stateless
// version an answer to server/discover) or could not even be started:
// no input was sent, nothing was judged, and no finding is made of it
// (Result.Unjudged says why). A target that answered once and stops later
// is fuzzed, and its crashes are findings.
var ErrUnreachable = errors.New("the target never completed a handshake")

// unreachable is the result of a campaign whose target never completed a
// handshake (err says what happened instead).
func (c *campaign) unreachable(err error) *Result {
	r := c.result(nil)
	why := fmt.Sprintf("%s: %s", ErrUnreachable, strings.TrimPrefix(err.Error(), "fuzz: "))
	if ns := (*NotSpokenError)(nil); errors.As(err, &ns) {
		// It answered: not unreachable, but not a target of this version.
		why = notSpokenAdvice(ns)
	}
	c.nothingSent(r, why)
	return r
}

// interrupted marks a campaign its caller cancelled before its bounds
// (Ctrl-C, SIGTERM): what it judged stands, findings fail it as ever, but
// without them it is no pass (Verdict.Unjudged), since it did not run all
// it set out to.
func (r *Result) interrupted() {
	r.Interrupted = fmt.Sprintf("cancelled after %d execs in %s, before the campaign's bounds", r.Execs, r.Duration.Round(time.Millisecond))
	why := "the campaign was interrupted (" + r.Interrupted + ")"
	if r.Unjudged != "" {
		why = r.Unjudged + "; " + why
	}
	r.Unjudged = why
	r.Verdict.Unjudged = true
	if !r.Verdict.Failed {
		r.Verdict.Reason = fmt.Sprintf("interrupted after %d execs: %s so far, but the campaign did not run to its end", r.Execs, r.Verdict.Reason)
	}
}

// thin halves a sample list, keeping every other sample.
func thin[S any](s []S) []S {
	out := s[:0]
	for i := 0; i < len(s); i += 2 {
		out = append(out, s[i])
	}
	return out
}

// result is the campaign's outcome so far (see engine.result).
func (c *campaign) result(samples []reports.ThroughputSample) *Result {
	r := c.engine.result(samples)
	r.Target, r.Transport = c.cfg.Target.Describe(), transportOf(c.cfg.Target)
	r.RestartTime, r.RestartWait = time.Duration(c.startNs.Load()), time.Duration(c.waitNs.Load())
	return r
}

// RestartShare is the share (0 to 1) of the workers' time spent waiting
// for an instance to start: RestartWait over Duration times Workers.
func (r *Result) RestartShare() float64 {
	if r.Duration <= 0 || r.Workers <= 0 {
		return 0
	}
	return min(1, float64(r.RestartWait)/(float64(r.Duration)*float64(r.Workers)))
}

func verdict(fs []*Finding) Verdict {
	var crash, hang, must, other int
	for _, f := range fs {
		switch {
		case !reports.FailingFinding(reports.Finding{Kind: f.Kind, Level: f.Level}):
			other++ // the one rule every report format judges findings by
		case f.Kind == reports.FindingCrash:
			crash++
		case f.Kind == reports.FindingHang:
			hang++
		default:
			must++
		}
	}
	if crash+hang+must == 0 {
		if other > 0 {
			return Verdict{Reason: fmt.Sprintf("no crash, hang or MUST-level violation; %d lower-level finding(s)", other)}
		}
		return Verdict{Reason: "no findings"}
	}
	return Verdict{Failed: true, Reason: fmt.Sprintf("%d crash(es), %d hang(s), %d MUST-level violation(s), %d other finding(s)", crash, hang, must, other)}
}

// planned is one input made ahead of its execution.
type planned struct {
	in  mutate.Input
	err error
}

// plan makes worker w's inputs in order (execution i uses Mix(Seed, w, i);
// a shard makes only its own, see Shard)
// on a goroutine of its own, ahead of the worker, so that building the next
// inputs overlaps with waiting for the target's answers. It hands them over
// in batches (of planBatch inputs, or fewer that hold planBytes), so that
// the two goroutines meet once per batch rather than once per input. It
// stops when ctx ends.
func (c *campaign) plan(ctx context.Context, w int) <-chan []planned {
	ch := make(chan []planned)
	go func() {
		defer close(ch)
		var batch []planned
		size := 0
		for i := c.cfg.Shard.start(); ; i += c.cfg.Shard.step() {
			seed := mutate.Mix(c.cfg.Seed, w, i)
			m := c.mutators[seed%uint64(len(c.mutators))]
			in, err := mutate.MakeInput(c.cfg.Version, m.Name, seed, c.tools)
			if err != nil {
				in = mutate.Input{Mutator: m.Name, Seed: seed}
			}
			batch = append(batch, planned{in: in, err: err})
			size += in.Size()
			if len(batch) < planBatch && size < planBytes {
				continue
			}
			select {
			case ch <- batch:
			case <-ctx.Done():
				return
			}
			batch, size = nil, 0
		}
	}()
	return ch
}

// Batches of planned inputs.
const (
	planBatch = 16
	planBytes = 1 << 20
)

// maxEnding bounds the instances per worker that run an input of their
// own in the background (one that closes stdin, or one that wants a fresh
// instance over stdio).
const maxEnding = 4

func (c *campaign) worker(ctx context.Context, w int) {
	wctx, cancel := context.WithCancel(ctx)
	inputs := c.plan(wctx, w)
	pool := newWarm(wctx, c.cfg.Target, c.cfg.Version, c.cfg.Wait, c.cfg.StartupTimeout, warmDepth(c.cfg.Workers))
	pool.started = &c.startNs
	defer func() {
		cancel()
		pool.close()
	}()
	var s *session
	var history []mutate.Input
	var seqs []int // the judge's input number of each history entry
	var last int64 // the number of the last execution on s
	defer func() {
		if s != nil {
			c.drained(ctx, s, history, seqs, last)
			s.close()
		}
	}()
	var ending sync.WaitGroup
	defer ending.Wait()
	endSlots := make(chan struct{}, maxEnding)
	var queued []planned // inputs made ahead
	failures := 0
	for {
		if s == nil {
			var err error
			began := time.Now()
			s, err = pool.get(ctx, false)
			c.waitNs.Add(int64(time.Since(began)))
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				if c.stopped(w, err, &failures) {
					return
				}
				continue
			}
			failures = 0
			history, seqs = history[:0], seqs[:0]
		}
		if len(queued) == 0 {
			select {
			case batch, ok := <-inputs:
				if !ok || len(batch) == 0 {
					return // the planner stopped: the campaign is over
				}
				queued = batch
			case <-ctx.Done():
				return
			}
		}
		p := queued[0]
		queued[0] = planned{}
		queued = queued[1:]
		n, ok := c.claim(ctx)
		if !ok {
			return
		}
		in := p.in
		if p.err != nil {
			c.fail("exec %d: %v", n, p.err)
			continue
		}
		c.mu.Lock()
		c.mutUse[in.Mutator]++
		c.mu.Unlock()
		began := time.Now()

		run := s
		if in.CloseAfter || (in.Fresh && !c.http) {
			// The input gets an instance of its own and runs to its end on
			// a goroutine while the worker goes on with the shared session;
			// its observations are judged all the same, and it touches no
			// session the worker's inputs run on, so its order among them
			// changes nothing they see.
			//   - An input that closes stdin ends its session, and the
			//     target may take its time to finish what is in flight
			//     and exit (seconds, for a server that drains long
			//     requests at EOF).
			//   - An input that wants a fresh instance costs a process
			//     start over stdio (tens of milliseconds of CPU for a Go
			//     server, hundreds for a Node one), which the shared
			//     session need not wait for: on a machine with a core to
			//     spare, starts and fuzzing overlap.
			endSlots <- struct{}{}
			ending.Add(1)
			go func() {
				defer ending.Done()
				defer func() { <-endSlots }()
				run, _ := c.own(ctx, pool, in.Fresh, n)
				if run == nil {
					return // the time is up, or the start failed (recorded)
				}
				run.reset()
				out := run.exec(in)
				c.judged(ctx, in, nil, nil, n, run, out)
				run.close()
				c.spent(in.Mutator, began)
			}()
			continue
		}
		if in.Fresh {
			var over bool
			run, over = c.own(ctx, pool, true, n)
			c.waitNs.Add(int64(time.Since(began)))
			if over {
				return
			} else if run == nil {
				continue
			}
		}
		run.reset()
		out := run.exec(in)
		c.judged(ctx, in, history, seqs, n, run, out)
		c.spent(in.Mutator, began)
		if in.Fresh {
			c.retire(run)
		} else {
			last = n
			history = append(history, in)
			seqs = append(seqs, run.judge.Seq)
			if len(history) > historyLen {
				history, seqs = history[1:], seqs[1:]
			}
		}
		if (out.dead || out.recycle) && !in.Fresh {
			if out.recycle {
				c.drained(ctx, s, history, seqs, n)
			}
			c.retire(s)
			s = nil
			c.restarts.Add(1)
		}
	}
}

// own starts (takes from the pool) an instance of its own for execution
// n: bare for an input that wants a fresh one. over is true when the
// campaign's time ran out first (the execution is given back); a nil
// instance with over false could not be started, which is recorded as a
// campaign problem.
func (c *campaign) own(ctx context.Context, pool *warm, bare bool, n int64) (s *session, over bool) {
	s, err := pool.get(ctx, bare)
	switch {
	case err == nil:
		c.restarts.Add(1)
		return s, false
	case ctx.Err() != nil:
		c.execs.Add(-1) // the time is up before the input could run
		return nil, true
	}
	c.fail("exec %d: %v", n, err)
	return nil, false
}

// spent adds the time since began to mutator's account.
func (c *campaign) spent(mutator string, began time.Time) {
	d := time.Since(began)
	c.mu.Lock()
	c.mutTime[mutator] += d
	c.mu.Unlock()
}

// drained judges what a live instance the worker is about to close wrote
// after the last probe's answer (session.drain, the grace read), so that
// answers to slower requests are judged too; they are credited to the last
// input run on it (history's last entry, number n) or to the one whose
// request they answer.
func (c *campaign) drained(ctx context.Context, s *session, history []mutate.Input, seqs []int, n int64) {
	if len(history) == 0 {
		return
	}
	s.reset()
	out := s.drain()
	k := len(history) - 1
	c.judged(ctx, history[k], history[:k], seqs[:k], n, s, out)
}

// retire ends an instance the worker is done with on a goroutine of its
// own: killing a process group and reaping it takes milliseconds the
// worker need not wait for. Run waits for them before it returns.
func (c *campaign) retire(s *session) {
	c.closing.Add(1)
	go func() {
		defer c.closing.Done()
		s.close()
	}()
}

// judged records what one execution showed: the methods answered and its
// observations. history and seqs are the session's earlier inputs and
// their judge numbers.
func (c *campaign) judged(ctx context.Context, in mutate.Input, history []mutate.Input, seqs []int, n int64, run *session, out execOutcome) {
	if out.slow {
		c.slow.Add(1)
	}
	if len(out.answered) > 0 {
		c.mu.Lock()
		for _, m := range out.answered {
			if info, known := spec.LookupMethod(c.cfg.Version, m); known && !info.Carrier && info.Direction.Allows(spec.ClientToServer) {
				c.methods[m]++
			}
		}
		c.mu.Unlock()
	}
	for _, o := range out.obs {
		cur, before := in, history
		if o.Origin != 0 && !in.Fresh {
			// A late answer to a request of an earlier input: that input
			// (with the ones before it) is the one to reproduce.
			if i := indexOfSeq(seqs, o.Origin); i >= 0 {
				cur, before = history[i], history[:i]
			}
		}
		c.observe(ctx, o, cur, before, n, run)
	}
}

// warm starts target instances ahead of need, depth of each kind (with
// the handshake, for a worker's session and inputs that close stdin; bare,
// for inputs that want a fresh instance) once the worker has asked for
// that kind, so that a restart or a fresh input does not wait for the
// target to start.
type warm struct {
	ctx  context.Context
	t    conn.Target
	v    spec.Version
	wait time.Duration
	// startup is the start-up allowance of each instance (see
	// openSession), those started ahead too.
	startup time.Duration
	depth   int            // instances of each kind kept started ahead
	slots   [2]chan warmed // 0: handshaken, 1: bare; depth in flight or ready each
	mu      sync.Mutex     // guards used: instances are taken concurrently
	used    [2]bool
	wg      sync.WaitGroup
	// started, when set, adds up the wall time of the starts.
	started *atomic.Int64
}

// open starts one instance, bare or with the handshake, adding the time
// it took to w.started.
func (w *warm) open(ctx context.Context, bare bool) (*session, error) {
	began := time.Now()
	s, err := openSession(ctx, w.t, w.v, w.wait, w.startup, bare)
	if w.started != nil {
		w.started.Add(int64(time.Since(began)))
	}
	return s, err
}

type warmed struct {
	s   *session
	err error
}

func newWarm(ctx context.Context, t conn.Target, v spec.Version, wait, startup time.Duration, depth int) *warm {
	depth = max(depth, 1)
	return &warm{ctx: ctx, t: t, v: v, wait: wait, startup: startup, depth: depth, slots: [2]chan warmed{make(chan warmed, depth), make(chan warmed, depth)}}
}

// warmDepth sizes a worker's pool to the machine: starts made ahead use
// the cores the fuzzing leaves idle (about half of them, shared by the
// workers), one of each kind at least, and no more than the inputs a
// worker runs in the background at once (maxEnding).
func warmDepth(workers int) int {
	return min(max(runtime.NumCPU()/(2*max(workers, 1)), 1), maxEnding)
}

// get returns a started instance of the kind asked for.
func (w *warm) get(ctx context.Context, bare bool) (*session, error) {
	k := 0
	if bare {
		k = 1
	}
	w.mu.Lock()
	first := !w.used[k]
	w.used[k] = true
	w.mu.Unlock()
	if first {
		for range w.depth {
			w.refill(k)
		}
		return w.open(ctx, bare)
	}
	select {
	case r := <-w.slots[k]:
		w.refill(k)
		return r.s, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (w *warm) refill(k int) {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		s, err := w.open(w.ctx, k == 1)
		w.slots[k] <- warmed{s, err} // never blocks: depth in flight or ready, depth buffered
	}()
}

// close ends the instances started ahead; ctx must be done (or ending)
// so that no more are started.
func (w *warm) close() {
	w.wg.Wait()
	for _, ch := range w.slots {
		for len(ch) > 0 {
			if r := <-ch; r.s != nil {
				r.s.close()
			}
		}
	}
}

// observe records an observation of execution n, made on s by in (with
// history before it on the same session), see engine.observe.
func (c *campaign) observe(ctx context.Context, o oracle.Observation, in mutate.Input, history []mutate.Input, n int64, s *session) {
	c.engine.observe(o, in, n, func(f *Finding) {
		f.Target, f.Transcript, f.StderrTail = c.cfg.Target.Describe(), s.transcript(), s.conn.StderrTail()
	}, func(f *Finding) { c.reproduce(ctx, f, history) })
}

// reproduce replays the finding's input on fresh instances (with the
// session's earlier inputs when it does not reproduce alone), then
// minimizes it and keeps the transcript of the minimized run.
func (c *campaign) reproduce(ctx context.Context, f *Finding, history []mutate.Input) {
	// Reproduction and minimization get their own time (MinimizeTime), so
	// that a finding near the end of a campaign is still minimized; the
	// caller's context still cancels them.
	rctx, cancel := c.reproduction(c.cfg.MinimizeTime)
	defer cancel()
	test := c.reproduces(rctx, f, func(ctx context.Context, in mutate.Input) ([]oracle.Observation, error) {
		run, err := runOnce(ctx, c.cfg.Target, c.cfg.Version, in, c.cfg.Wait, c.cfg.StartupTimeout)
		return run.obs, err
	})
	cand := f.Input
	if !test(cand) {
		if len(history) == 0 || f.Input.Fresh {
			return
		}
		cand = mutate.Input{Mutator: f.Input.Mutator, Seed: f.Input.Seed, CloseAfter: f.Input.CloseAfter}
		for _, h := range history {
			cand.Chunks = append(cand.Chunks, h.Chunks...)
			cand.Methods = append(cand.Methods, h.Methods...)
		}
		cand.Chunks = append(cand.Chunks, f.Input.Chunks...)
		if !test(cand) {
			return
		}
		f.Input = cand
	}
	reproduced(f, cand, test, c.cfg.MinimizeBudget)
	// The transcript's run is made even when the reproduction's time is
	// up, within a bound of its own: its start-up wait ends with it.
	fctx, fcancel := context.WithTimeout(context.WithoutCancel(rctx), c.cfg.MinimizeTime)
	defer fcancel()
	if run, err := runOnce(fctx, c.cfg.Target, c.cfg.Version, f.Minimized, c.cfg.Wait, c.cfg.StartupTimeout); err == nil {
		f.Transcript, f.StderrTail = run.events, run.stderr
	}
}

// WriteJSON writes the campaign summary as indented JSON: the result with
// every finding's metadata (inputs are in the finding directories).
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("fuzz: cannot encode the campaign summary: %w", err)
	}
	return nil
}

func indexOfSeq(seqs []int, seq int) int {
	for i, s := range seqs {
		if s == seq {
			return i
		}
	}
	return -1
}
