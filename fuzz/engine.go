package fuzz

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/reports"
)

// engine is the part of a campaign that is the same whichever role the
// target plays (a server campaign, Run, or a client campaign, RunClient):
// the counters, the findings, the workers and the sampler that watches
// them. Each campaign embeds one and brings its own worker, its own
// progress view and its own result.
type engine struct {
	start time.Time

	execs    atomic.Int64
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

func newEngine() engine {
	return engine{start: time.Now(), findings: map[string]*Finding{}, methods: map[string]int64{}, mutUse: map[string]int64{}, mutTime: map[string]time.Duration{}}
}

// drive runs workers copies of worker until they all return, then waits
// for settle (background work the workers left, when set). Meanwhile it
// samples the campaign every interval: throughput, the fuzzer's memory,
// and the live view progress makes, handed to report when set. It
// returns the samples, thinned to at most maxSamples each.
func (e *engine) drive(ctx context.Context, workers int, every time.Duration, worker func(context.Context, int), settle func(), progress func(rate float64) Progress, report func(Progress)) ([]reports.ThroughputSample, []MemorySample) {
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
					report(progress(rate))
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
// rate, handed to report when set.
func (e *engine) finish(res *Result, memory []MemorySample, parent context.Context, progress func(rate float64) Progress, report func(Progress)) {
	res.Memory = memory
	_, res.PeakRSSBytes = conn.ProcMemory()
	if parent.Err() != nil {
		res.interrupted()
	}
	if report != nil {
		rate := 0.0
		if res.Duration > 0 {
			rate = float64(res.Execs) / res.Duration.Seconds()
		}
		report(progress(rate))
	}
}
