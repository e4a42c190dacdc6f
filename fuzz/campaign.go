package fuzz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Defaults of a campaign.
const (
	// DefaultWait is how long the liveness probe may take.
	DefaultWait = 5 * time.Second
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
	Target Target
	// Version is the protocol version spoken (default spec.Latest).
	Version spec.Version
	// Duration and MaxExecs bound the campaign; at least one must be set.
	Duration time.Duration
	MaxExecs int64
	// Seed makes the campaign reproducible: execution i of worker w uses
	// Mix(Seed, w, i).
	Seed uint64
	// Workers is the number of target instances fuzzed in parallel
	// (default 1).
	Workers int
	// FindingsDir is where findings are written; empty writes nothing.
	FindingsDir string
	// Wait is the liveness deadline after each input (default DefaultWait).
	Wait time.Duration
	// Mutators selects mutators by name or family (see SelectMutators);
	// empty uses all.
	Mutators []string
	// MinimizeBudget bounds the reproduction runs spent minimizing one
	// finding (default DefaultMinimizeBudget; negative disables).
	MinimizeBudget int
	// MinimizeTime bounds the time spent reproducing and minimizing one
	// finding (default DefaultMinimizeTime). It comes on top of Duration:
	// a finding made near the end is still minimized.
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

// Verdict says whether the campaign should fail a build.
type Verdict struct {
	// Failed is true when a crash, a hang or a MUST-level violation was
	// found.
	Failed bool   `json:"failed"`
	Reason string `json:"reason"`
}

// Result is the outcome of a campaign.
type Result struct {
	Version  spec.Version  `json:"version"`
	Target   string        `json:"target"`
	Seed     uint64        `json:"seed"`
	Workers  int           `json:"workers"`
	Duration time.Duration `json:"durationNs"`
	Execs    int64         `json:"execs"`
	Restarts int64         `json:"restarts"`
	// MethodsCovered maps each method the target answered to the number of
	// answers.
	MethodsCovered map[string]int64           `json:"methodsCovered"`
	Mutators       map[string]int64           `json:"mutators"`
	Samples        []reports.ThroughputSample `json:"samples,omitempty"`
	// PeakHeapBytes is the largest live heap of the fuzzer seen at a
	// progress sample.
	PeakHeapBytes uint64     `json:"peakHeapBytes"`
	Findings      []*Finding `json:"findings"`
	Verdict       Verdict    `json:"verdict"`
	// Errors lists problems of the campaign itself (a worker that could not
	// restart the target, a finding that could not be written).
	Errors []string `json:"errors,omitempty"`
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
// HTTPTarget, --stdio with its command line otherwise.
func ReproducerFor(t Target) func(*Finding) string {
	if h, ok := t.(HTTPTarget); ok {
		return func(f *Finding) string {
			return fmt.Sprintf("mcpcheck replay %s --url %s --protocol %s", findingPath(f), h.URL, f.Version)
		}
	}
	return DefaultReproducer(t.Describe())
}

func findingPath(f *Finding) string {
	if f.Dir != "" {
		return f.Dir
	}
	return f.DirName()
}

type campaign struct {
	cfg      Config
	parent   context.Context // the caller's context, without the duration bound
	mutators []Mutator
	start    time.Time
	deadline time.Time
	tools    []Tool

	execs    atomic.Int64
	restarts atomic.Int64
	heap     atomic.Uint64 // at the last sample
	peakHeap atomic.Uint64

	mu       sync.Mutex
	findings map[string]*Finding
	order    []*Finding
	methods  map[string]int64
	mutUse   map[string]int64
	errs     []string
}

// Run fuzzes cfg.Target until the duration or execution bound is reached or
// ctx is cancelled. It returns the result even when some workers failed;
// the error is set only when the campaign could not run at all.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Target == nil {
		return nil, errors.New("fuzz: the campaign has no target; set Config.Target (e.g. CommandTarget)")
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
	if cfg.Wait <= 0 {
		cfg.Wait = DefaultWait
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
		cfg.Reproducer = ReproducerFor(cfg.Target)
	}
	_, isHTTP := cfg.Target.(HTTPTarget)
	muts, err := selectFrom(MutatorsFor(isHTTP), cfg.Mutators)
	if err != nil {
		return nil, err
	}
	if len(cfg.Mutators) == 0 {
		muts = MutatorsFor(isHTTP)
	}
	c := &campaign{cfg: cfg, parent: ctx, mutators: Schedule(muts), start: time.Now(), findings: map[string]*Finding{}, methods: map[string]int64{}, mutUse: map[string]int64{}}
	if cfg.Duration > 0 {
		c.deadline = c.start.Add(cfg.Duration)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, c.deadline)
		defer cancel()
	}

	// Learn the tools once, for the tool-call mutator; a target that cannot
	// even be started fails the campaign here with a useful error.
	s, err := openSession(ctx, cfg.Target, cfg.Version, cfg.Wait, false)
	if err != nil {
		return nil, err
	}
	c.tools = s.listTools()
	s.close()

	var samples []reports.ThroughputSample
	progressDone := make(chan struct{})
	stopProgress := make(chan struct{})
	go func() {
		defer close(progressDone)
		tick := time.NewTicker(cfg.ProgressEvery)
		defer tick.Stop()
		last, lastAt := int64(0), c.start
		for {
			select {
			case <-stopProgress:
				return
			case now := <-tick.C:
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				c.heap.Store(ms.HeapAlloc)
				if ms.HeapAlloc > c.peakHeap.Load() {
					c.peakHeap.Store(ms.HeapAlloc)
				}
				n := c.execs.Load()
				rate := float64(n-last) / now.Sub(lastAt).Seconds()
				last, lastAt = n, now
				samples = append(samples, reports.ThroughputSample{Offset: now.Sub(c.start), ExecsPerSec: rate})
				if len(samples) > maxSamples {
					samples = thin(samples)
				}
				if cfg.Progress != nil {
					cfg.Progress(c.progress(rate))
				}
			}
		}
	}()

	var wg sync.WaitGroup
	for w := 0; w < cfg.Workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c.worker(ctx, w)
		}(w)
	}
	wg.Wait()
	close(stopProgress)
	<-progressDone

	res := c.result(samples)
	if cfg.Progress != nil {
		rate := 0.0
		if res.Duration > 0 {
			rate = float64(res.Execs) / res.Duration.Seconds()
		}
		cfg.Progress(c.progress(rate))
	}
	return res, nil
}

// thin halves a sample list, keeping every other sample.
func thin(s []reports.ThroughputSample) []reports.ThroughputSample {
	out := s[:0]
	for i := 0; i < len(s); i += 2 {
		out = append(out, s[i])
	}
	return out
}

func (c *campaign) progress(rate float64) Progress {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := Progress{Elapsed: time.Since(c.start), Execs: c.execs.Load(), ExecsPerSec: rate, Findings: len(c.order), MethodsCovered: len(c.methods), Restarts: c.restarts.Load(), HeapBytes: c.heap.Load()}
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

func (c *campaign) result(samples []reports.ThroughputSample) *Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := &Result{Version: c.cfg.Version, Target: c.cfg.Target.Describe(), Seed: c.cfg.Seed, Workers: c.cfg.Workers,
		Duration: time.Since(c.start), Execs: c.execs.Load(), Restarts: c.restarts.Load(), PeakHeapBytes: c.peakHeap.Load(),
		MethodsCovered: map[string]int64{}, Mutators: map[string]int64{}, Samples: samples, Findings: append([]*Finding(nil), c.order...), Errors: c.errs}
	for k, v := range c.methods {
		r.MethodsCovered[k] = v
	}
	for k, v := range c.mutUse {
		r.Mutators[k] = v
	}
	sort.SliceStable(r.Findings, func(i, j int) bool { return r.Findings[i].Exec < r.Findings[j].Exec })
	r.Verdict = verdict(r.Findings)
	return r
}

func verdict(fs []*Finding) Verdict {
	var crash, hang, must, other int
	for _, f := range fs {
		switch {
		case f.Kind == reports.FindingCrash:
			crash++
		case f.Kind == reports.FindingHang:
			hang++
		case f.Level.Mandatory():
			must++
		default:
			other++
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

func (c *campaign) fail(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.errs) < 100 {
		c.errs = append(c.errs, fmt.Sprintf(format, args...))
	}
}

// claim reserves one execution, or returns false when the bounds are
// reached.
func (c *campaign) claim(ctx context.Context) (int64, bool) {
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

func (c *campaign) worker(ctx context.Context, w int) {
	var s *session
	defer func() {
		if s != nil {
			s.close()
		}
	}()
	var history []Input
	var seqs []int // the judge's input number of each history entry
	failures := 0
	for i := 0; ; i++ {
		if s == nil {
			var err error
			s, err = openSession(ctx, c.cfg.Target, c.cfg.Version, c.cfg.Wait, false)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				failures++
				if failures >= 3 {
					c.fail("worker %d stopped: %v", w, err)
					return
				}
				continue
			}
			failures = 0
			history, seqs = history[:0], seqs[:0]
		}
		n, ok := c.claim(ctx)
		if !ok {
			return
		}
		seed := Mix(c.cfg.Seed, w, i)
		m := c.mutators[seed%uint64(len(c.mutators))]
		in, err := MakeInput(c.cfg.Version, m.Name, seed, c.tools)
		if err != nil {
			c.fail("exec %d: %v", n, err)
			continue
		}
		c.mu.Lock()
		c.mutUse[m.Name]++
		c.mu.Unlock()

		run := s
		if in.Fresh {
			run, err = openSession(ctx, c.cfg.Target, c.cfg.Version, c.cfg.Wait, true)
			if err != nil {
				c.fail("exec %d: %v", n, err)
				continue
			}
			c.restarts.Add(1)
		}
		run.events = run.events[:0]
		out := run.exec(in)
		c.mu.Lock()
		for _, m := range out.answered {
			if info, known := spec.LookupMethod(c.cfg.Version, m); known && !info.Carrier && info.Direction.Allows(spec.ClientToServer) {
				c.methods[m]++
			}
		}
		c.mu.Unlock()
		for _, o := range out.obs {
			cur, before := in, history
			if o.origin != 0 && !in.Fresh {
				// A late answer to a request of an earlier input: that input
				// (with the ones before it) is the one to reproduce.
				if i := indexOfSeq(seqs, o.origin); i >= 0 {
					cur, before = history[i], history[:i]
				}
			}
			c.observe(ctx, o, cur, before, n, run)
		}
		if in.Fresh {
			run.close()
		} else {
			history = append(history, in)
			seqs = append(seqs, run.judge.seq)
			if len(history) > historyLen {
				history, seqs = history[1:], seqs[1:]
			}
		}
		if out.dead && !in.Fresh {
			s.close()
			s = nil
			c.restarts.Add(1)
		}
	}
}

// observe records an observation: a new signature becomes a finding
// (reproduced, minimized and written), a known one only counts a hit.
func (c *campaign) observe(ctx context.Context, o Observation, in Input, history []Input, exec int64, s *session) {
	sig := o.Signature()
	c.mu.Lock()
	if f, ok := c.findings[sig]; ok {
		f.Hits++
		c.mu.Unlock()
		return
	}
	f := &Finding{Observation: o, ID: sig, Version: c.cfg.Version, Target: c.cfg.Target.Describe(), Mutator: in.Mutator, Seed: in.Seed,
		Exec: exec, At: time.Since(c.start), Hits: 1, Input: in, Minimized: in, Wait: c.cfg.Wait,
		Transcript: append([]reports.WireEvent(nil), s.events...), StderrTail: s.conn.StderrTail()}
	c.findings[sig] = f
	c.order = append(c.order, f)
	c.mu.Unlock()

	c.reproduce(ctx, f, history)
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

// reproduce replays the finding's input on fresh instances (with the
// session's earlier inputs when it does not reproduce alone), then
// minimizes it and keeps the transcript of the minimized run.
func (c *campaign) reproduce(ctx context.Context, f *Finding, history []Input) {
	// Reproduction and minimization get their own time (MinimizeTime), so
	// that a finding near the end of a campaign is still minimized; the
	// caller's context still cancels them.
	rctx, cancel := context.WithTimeout(c.parent, c.cfg.MinimizeTime)
	defer cancel()
	test := func(in Input) bool {
		if rctx.Err() != nil {
			return false
		}
		run, err := runOnce(rctx, c.cfg.Target, c.cfg.Version, in, c.cfg.Wait)
		c.restarts.Add(1)
		if err != nil {
			return false
		}
		for _, o := range run.obs {
			if o.Signature() == f.ID {
				return true
			}
		}
		return false
	}
	cand := f.Input
	if !test(cand) {
		if len(history) == 0 || f.Input.Fresh {
			return
		}
		cand = Input{Mutator: f.Input.Mutator, Seed: f.Input.Seed, CloseAfter: f.Input.CloseAfter}
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
	f.Reproduced = true
	f.Minimized = cand
	if c.cfg.MinimizeBudget > 0 {
		f.Minimized = Minimize(cand, test, c.cfg.MinimizeBudget)
	}
	if run, err := runOnce(context.WithoutCancel(rctx), c.cfg.Target, c.cfg.Version, f.Minimized, c.cfg.Wait); err == nil {
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
