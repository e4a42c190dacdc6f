package conn

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// grouped is a Conn whose target runs in a process group of its own
// (stdio targets), which lets a campaign look at what the target does
// while it waits for an answer (BusySampler).
type grouped interface{ processGroup() int }

func (c *execConn) processGroup() int { return c.p.Pid() } // its group is its own

// BusySampler samples, every busyEvery, whether a target's process
// group is running or waiting for a CPU (GroupStat), so that a target
// that is computing, or starved by a busy machine, is told from one that
// is blocked (hung) when its liveness probe is overdue. A nil
// BusySampler (an HTTP target) knows nothing and judges nothing.
type BusySampler struct {
	samples, busy atomic.Int32
	stop          chan struct{}
	once          sync.Once
}

// SampleBusy starts sampling c's process group; nil when c has none.
func SampleBusy(c Conn) *BusySampler {
	g, ok := c.(grouped)
	if !ok {
		return nil
	}
	pg := g.processGroup()
	if pg <= 0 {
		return nil
	}
	b := &BusySampler{stop: make(chan struct{})}
	go func() {
		t := time.NewTicker(busyEvery)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				_, running := GroupStat(pg)
				b.samples.Add(1)
				if running {
					b.busy.Add(1)
				}
			}
		}
	}()
	return b
}

// Stop ends the sampling; safe on nil and more than once.
func (b *BusySampler) Stop() {
	if b != nil {
		b.once.Do(func() { close(b.stop) })
	}
}

// Computing is computing over the samples so far; false for nil (no
// process to look at: judged as before).
func (b *BusySampler) Computing() (bool, int, int) {
	if b == nil {
		return false, 0, 0
	}
	n, k := int(b.samples.Load()), int(b.busy.Load())
	return Computing(n, k), k, n
}

// busyEvery is how often a BusySampler looks: a confirmation window
// (HangConfirm of a wait of at least 100 ms) holds several samples.
const busyEvery = 50 * time.Millisecond

// BusyWhy says why computing held for busy of samples, for the notes.
func BusyWhy(busy, samples int) string {
	if samples < 3 {
		return fmt.Sprintf("mcpcheck could look at it only %d times (its own process starved by a busy machine)", samples)
	}
	return fmt.Sprintf("it was running or waiting for a CPU in %d of %d samples: computing or starved, not blocked", busy, samples)
}

// MaxBusyConfirm bounds how long past the liveness wait a target that is
// computing keeps being waited for: a loop that never ends is still a
// hang, found later.
func MaxBusyConfirm(wait time.Duration) time.Duration { return 4 * HangConfirm(wait) }

// Computing reports whether a peer whose answer is overdue may still be
// working: it was running or waiting for a CPU (busy) in at least half of
// the samples of the confirmation window, or mcpcheck took fewer than
// three samples (its own process starved: it could not look). A blocked
// peer (the hang a probe finds) sleeps in nearly all of three or more.
func Computing(samples, busy int) bool {
	return samples < 3 || 2*busy >= samples
}
