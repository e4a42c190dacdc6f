package server

import (
	"context"
	"math"
	"runtime"
	"sync"
	"time"
)

// startGate bounds how many target processes a run starts at the same
// time, by what the machine can start: a process start (and, for a
// session of the pool, its handshake, which is when a server does most of
// its start-up work) holds a slot. A run of 16 checks at a time against a
// Node server would otherwise start 16 Node processes at once on two
// cores, each taking seconds of CPU, and every one of them would look
// slow. The number of slots is learned from the starts measured: one per
// core while starting costs the processor most of its time (a runtime
// loading its modules), up to the run's parallelism while it is mostly
// waiting (a wrapper that sleeps, a server waiting on a socket).
// Targets that start no process (HTTP, in-process pipes) pass freely.
type startGate struct {
	mu    sync.Mutex
	cond  *sync.Cond
	open  bool // no gate: the target starts no process
	busy  int
	cores int
	max   int
	// share is the learned share of a start's wall time spent on the
	// processor (an average weighted to the recent), 1 until measured.
	share    float64
	measured int
}

// newStartGate returns the gate of a run: one slot per core (at least
// two) until starts are measured, and at most parallel.
func newStartGate(processes bool, parallel int) *startGate {
	g := &startGate{open: !processes, cores: max(2, runtime.NumCPU()), max: max(1, parallel), share: 1}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// slots is how many starts may run at once now (g.mu held).
func (g *startGate) slots() int {
	n := int(math.Ceil(float64(g.cores) / max(g.share, 0.05)))
	return max(1, min(max(g.cores, n), g.max))
}

// acquire waits for a slot (or ctx) and returns its release, which may be
// called more than once.
func (g *startGate) acquire(ctx context.Context) (func(), error) {
	if g == nil || g.open {
		return func() {}, nil
	}
	stop := context.AfterFunc(ctx, func() {
		g.mu.Lock()
		g.cond.Broadcast()
		g.mu.Unlock()
	})
	defer stop()
	g.mu.Lock()
	for g.busy >= g.slots() {
		if err := ctx.Err(); err != nil {
			g.mu.Unlock()
			return nil, err
		}
		g.cond.Wait()
	}
	g.busy++
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.busy--
			g.cond.Broadcast()
			g.mu.Unlock()
		})
	}, nil
}

// learn takes one start: how long it took to the end of its handshake,
// and how much processor time the process used in that while. Starts
// under 200 ms say nothing of the machine and are left out.
func (g *startGate) learn(wall, cpu time.Duration) {
	if g == nil || g.open || wall < 200*time.Millisecond || cpu < 0 {
		return
	}
	share := min(1, float64(cpu)/float64(wall))
	g.mu.Lock()
	if g.measured == 0 {
		g.share = share
	} else {
		g.share = 0.7*g.share + 0.3*share
	}
	g.measured++
	g.cond.Broadcast() // more slots, maybe
	g.mu.Unlock()
}
