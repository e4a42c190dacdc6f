package fuzz

import (
	"context"
	"path/filepath"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
)

// observe records an observation of execution exec, whose input was in:
// a signature seen before only counts a hit; a new one becomes a finding,
// which evidence completes while it is recorded (the target, and the
// transcript and stderr of the run that showed it), reproduce then
// reproduces and minimizes, and publish writes and hands on.
func (e *engine) observe(o oracle.Observation, in mutate.Input, exec int64, evidence func(*Finding), reproduce func(*Finding)) {
	sig := o.Signature()
	e.mu.Lock()
	if f, ok := e.findings[sig]; ok {
		f.Hits++
		e.mu.Unlock()
		return
	}
	f := &Finding{Observation: o, ID: sig, Version: *e.set.version, Mutator: in.Mutator, Seed: in.Seed,
		Exec: e.set.shard.global(exec), At: time.Since(e.start), Hits: 1, Input: in, Minimized: in, Wait: *e.set.wait}
	evidence(f)
	e.findings[sig] = f
	e.order = append(e.order, f)
	e.mu.Unlock()

	reproduce(f)
	e.publish(f)
}

// publish completes a new finding once reproduced: its directory in
// FindingsDir and its replay command (Reproducer); it is written there
// (a failure is a problem of the campaign) and handed to OnFinding.
func (e *engine) publish(f *Finding) {
	dir := *e.set.findingsDir
	if dir != "" {
		f.Dir = filepath.Join(dir, f.DirName())
	}
	f.Reproducer = (*e.set.reproducer)(f)
	if dir != "" {
		if err := f.Write(dir); err != nil {
			e.fail("%v", err)
		}
	}
	if on := *e.set.onFinding; on != nil {
		on(f)
	}
}

// reproduction bounds reproducing and minimizing one finding: limit from
// now, and no later than the campaign's overtime past its deadline (see
// reproductionContext). The caller's context still cancels it.
func (e *engine) reproduction(limit time.Duration) (context.Context, context.CancelFunc) {
	return reproductionContext(e.parent, e.start, e.deadline, limit)
}

// reproduces is the test that reproducing and minimizing f put inputs
// to: run runs one on a fresh instance (a restart, counted) and returns
// what the oracles saw, which must show f's bug again. Once ctx ends no
// input is run and none reproduces.
func (e *engine) reproduces(ctx context.Context, f *Finding, run func(context.Context, mutate.Input) ([]oracle.Observation, error)) func(mutate.Input) bool {
	return func(in mutate.Input) bool {
		if ctx.Err() != nil {
			return false
		}
		obs, err := run(ctx, in)
		e.restarts.Add(1)
		if err != nil {
			return false
		}
		return sameBug(obs, f.Observation)
	}
}

// reproduced marks f reproduced by cand and, with a budget of
// reproduction runs, minimizes cand with test: f.Minimized is the
// smallest input found that still passes it. It reports whether it
// minimized.
func reproduced(f *Finding, cand mutate.Input, test func(mutate.Input) bool, budget int) bool {
	f.Reproduced = true
	f.Minimized = cand
	if budget <= 0 {
		return false
	}
	f.Minimized = Minimize(cand, test, budget)
	return true
}

// sameBug reports whether one of obs shows the bug want does (see
// oracle.SameBug).
func sameBug(obs []oracle.Observation, want oracle.Observation) bool {
	for _, o := range obs {
		if oracle.SameBug(o, want) {
			return true
		}
	}
	return false
}

// minOvertime is the least time a campaign with a Duration may spend past
// it reproducing and minimizing findings (see reproductionContext).
const minOvertime = 10 * time.Second

// reproductionContext bounds reproducing and minimizing one finding: limit
// from now, and, for a campaign with a deadline, never later than its
// overtime past it: limit, or the campaign's own duration when that is
// shorter (but at least minOvertime). Findings made together near the end
// then do not each add limit to the wall time, and a 5 s campaign does not
// spend 30 s minimizing. The caller's context still cancels it.
func reproductionContext(parent context.Context, start, deadline time.Time, limit time.Duration) (context.Context, context.CancelFunc) {
	until := time.Now().Add(limit)
	if !deadline.IsZero() {
		over := min(limit, max(deadline.Sub(start), minOvertime))
		if deadline.Add(over).Before(until) {
			until = deadline.Add(over)
		}
	}
	return context.WithDeadline(parent, until)
}
