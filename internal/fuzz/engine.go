package fuzz

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// engine is the part of a campaign that is the same whichever role the
// target plays (a server campaign, Run, or a client campaign, RunClient):
// the shared settings, the counters, the findings, the workers and the
// sampler that watches them, the live view and the result's shared part.
// Each campaign embeds one and brings its own worker, its own target (or
// client) and the fields of the result that are its own.
type engine struct {
	set    settings
	parent context.Context // the caller's context, without the duration bound
	start  time.Time
	// deadline is start plus the campaign's Duration (zero without one).
	deadline time.Time
	// versionNote is Result.VersionNote (NewestSpoken).
	versionNote string

	execs    atomic.Int64
	restarts atomic.Int64  // instances started: the target's restarts, or the client's launches
	slow     atomic.Int64  // probes answered within the confirmation window (conn.HangConfirm)
	heap     atomic.Uint64 // the fuzzer's live heap at the last sample
	peakHeap atomic.Uint64

	mu       sync.Mutex
	findings map[string]*Finding
	order    []*Finding
	methods  map[string]int64
	mutUse   map[string]int64
	mutTime  map[string]time.Duration
	errs     []string
}

// newEngine is the engine of a campaign the caller started with parent,
// set pointing into the campaign's configuration.
func newEngine(parent context.Context, set settings) engine {
	return engine{set: set, parent: parent, start: time.Now(), findings: map[string]*Finding{}, methods: map[string]int64{}, mutUse: map[string]int64{}, mutTime: map[string]time.Duration{}}
}

// drive runs Workers copies of worker until they all return, then waits
// for settle (background work the workers left, when set). Meanwhile it
// samples the campaign every ProgressEvery: throughput, the fuzzer's
// memory, and the live view, handed to Progress when set. It returns the
// samples, thinned to at most maxSamples each.
func (e *engine) drive(ctx context.Context, worker func(context.Context, int), settle func()) ([]reports.ThroughputSample, []MemorySample) {
	workers, every, report := *e.set.workers, *e.set.progressEvery, *e.set.progress
	var samples []reports.ThroughputSample
	var memory []MemorySample
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(every)
		defer tick.Stop()
		last, lastAt := int64(0), e.start
		for {
			select {
			case <-stop:
				return
			case now := <-tick.C:
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				e.heap.Store(ms.HeapAlloc)
				if ms.HeapAlloc > e.peakHeap.Load() {
					e.peakHeap.Store(ms.HeapAlloc)
				}
				n := e.execs.Load()
				rate := float64(n-last) / now.Sub(lastAt).Seconds()
				last, lastAt = n, now
				samples = append(samples, reports.ThroughputSample{Offset: now.Sub(e.start), ExecsPerSec: rate})
				if len(samples) > maxSamples {
					samples = thin(samples)
				}
				rss, hwm := conn.ProcMemory()
				e.mu.Lock()
				nf := len(e.order)
				e.mu.Unlock()
				memory = append(memory, MemorySample{Offset: now.Sub(e.start), HeapInuse: ms.HeapInuse, Sys: ms.Sys, RSS: rss, PeakRSS: hwm, Findings: nf})
				if len(memory) > maxSamples {
					memory = thin(memory)
				}
				if report != nil {
					report(e.progress(rate))
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			worker(ctx, w)
		}(w)
	}
	wg.Wait()
	if settle != nil {
		settle()
	}
	close(stop)
	<-stopped
	return samples, memory
}

// finish completes a result the campaign made from its samples: the
// memory samples, the fuzzer's peak resident memory, whether the caller
// interrupted it (parent ended), and a last live view with the average
// rate, handed to Progress when set.
func (e *engine) finish(res *Result, memory []MemorySample) {
	res.Memory = memory
	_, res.PeakRSSBytes = conn.ProcMemory()
	if e.parent.Err() != nil {
		res.interrupted()
	}
	if report := *e.set.progress; report != nil {
		rate := 0.0
		if res.Duration > 0 {
			rate = float64(res.Execs) / res.Duration.Seconds()
		}
		report(e.progress(rate))
	}
}

// progress is the live view of the campaign, rate its throughput over
// the last interval.
func (e *engine) progress(rate float64) Progress {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := Progress{Elapsed: time.Since(e.start), Execs: e.execs.Load(), ExecsPerSec: rate, Findings: len(e.order), MethodsCovered: len(e.methods), Restarts: e.restarts.Load(), HeapBytes: e.heap.Load()}
	for _, f := range e.order {
		switch f.Kind {
		case reports.FindingCrash:
			p.Crashes++
		case reports.FindingHang:
			p.Hangs++
		}
	}
	return p
}

// result is the campaign's outcome so far, but for what only its role
// knows (Role, Target, Transport, the restarts' time, the client's run),
// which the campaign adds: the settings, the counters, copies of the
// coverage and mutator accounts, the findings in the order of their
// executions and the verdict on them.
func (e *engine) result(samples []reports.ThroughputSample) *Result {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := &Result{Version: *e.set.version, VersionNote: e.versionNote, Seed: *e.set.seed, Workers: *e.set.workers, Shard: e.set.shard.String(),
		Duration: time.Since(e.start), Execs: e.execs.Load(), Restarts: e.restarts.Load(), PeakHeapBytes: e.peakHeap.Load(), SlowProbes: e.slow.Load(),
		MethodsCovered: map[string]int64{}, Mutators: map[string]int64{}, MutatorTime: make(map[string]time.Duration, len(e.mutTime)), Samples: samples,
		Findings: append([]*Finding(nil), e.order...), Errors: e.errs}
	for k, v := range e.methods {
		r.MethodsCovered[k] = v
	}
	for k, v := range e.mutUse {
		r.Mutators[k] = v
	}
	for k, v := range e.mutTime {
		r.MutatorTime[k] = v
	}
	sort.SliceStable(r.Findings, func(i, j int) bool { return r.Findings[i].Exec < r.Findings[j].Exec })
	r.Verdict = verdict(r.Findings)
	return r
}

// nothingSent makes r the result of a campaign that sent no input: why
// is Result.Unjudged, the verdict says nothing was judged, and a caller
// that cancelled the campaign is told so.
func (e *engine) nothingSent(r *Result, why string) {
	r.Unjudged = why
	r.Verdict = Verdict{Unjudged: true, Reason: "nothing judged: " + r.Unjudged + "; no input was sent"}
	_, r.PeakRSSBytes = conn.ProcMemory()
	if e.parent.Err() != nil {
		r.interrupted()
	}
}

// notSpokenAdvice is why, the reason a target does not speak the
// campaign's stateless version, with what to do about it.
func notSpokenAdvice(why any) string {
	return fmt.Sprintf("%s; fuzz it at an initialize-based version (--protocol %s), or leave --protocol out for the newest version it speaks", why, oracle.LegacyVersion)
}

// fallBack makes the campaign's version LegacyVersion, since the target
// does not speak the one asked for (why; NewestSpoken), notes it in the
// result and returns it.
func (e *engine) fallBack(why string) spec.Version {
	*e.set.version = oracle.LegacyVersion
	e.versionNote = fmt.Sprintf("%s; fuzzed %s, the newest initialize-based version, instead", why, oracle.LegacyVersion)
	return oracle.LegacyVersion
}

// bounded is ctx ended at the campaign's deadline, Duration from its
// start, when it has a Duration (e.deadline is set then).
func (e *engine) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if *e.set.duration <= 0 {
		return ctx, func() {}
	}
	e.deadline = e.start.Add(*e.set.duration)
	return context.WithDeadline(ctx, e.deadline)
}

// maxStartFailures is how many starts of its instance in a row may fail
// before a worker stops.
const maxStartFailures = 3

// stopped counts a failed start (err) of worker w's instance in failures,
// the worker's failures in a row: it reports true, and records why as a
// problem of the campaign, when the worker is to stop.
func (e *engine) stopped(w int, err error, failures *int) bool {
	if *failures++; *failures < maxStartFailures {
		return false
	}
	e.fail("worker %d stopped: %v", w, err)
	return true
}

// fail records a problem of the campaign itself (the first 100).
func (e *engine) fail(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.errs) < 100 {
		e.errs = append(e.errs, fmt.Sprintf(format, args...))
	}
}

// claim reserves one execution, or returns false when the bounds are
// reached.
func (e *engine) claim(ctx context.Context) (int64, bool) {
	if ctx.Err() != nil {
		return 0, false
	}
	n := e.execs.Add(1)
	if bound := *e.set.maxExecs; bound > 0 && n > bound {
		e.execs.Add(-1)
		return 0, false
	}
	return n, true
}
