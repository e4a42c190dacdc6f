package server

import (
	"sync"
	"time"
)

// governor fits how many checks run at once to what the target bears: the
// target's typical answer time (expect.Health.Typical) is watched after
// every check, and when it has grown to several times the best seen in
// the run the limit is halved, to grow back one check at a time once the
// answers are quick again (additive increase, multiplicative decrease, as
// TCP paces itself). A target that slows down under the run's own load is
// then not judged while it is overloaded, whatever --parallel says.
type governor struct {
	mu       sync.Mutex
	max      int
	limit    int
	best     time.Duration // the lowest typical answer time seen
	seen     int           // checks observed
	cooldown int           // checks to end before the next decrease
	cuts     int           // decreases so far
	lowest   int           // the lowest limit reached
}

// The governor's thresholds: a typical answer time over slowFactor times
// the best one seen, and over slowFloor, is the target slowing down; at
// or under fastFactor times the best it has recovered. warmup checks end
// before the best answer time is trusted.
const (
	govSlowFactor = 4
	govFastFactor = 2
	govSlowFloor  = 250 * time.Millisecond
	govWarmup     = 8
)

func newGovernor(max int) *governor {
	return &governor{max: max, limit: max, lowest: max}
}

// Limit is SpecConfig.Limit.
func (g *governor) Limit() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.limit
}

// observe takes the target's typical answer time after a check ended.
func (g *governor) observe(typical time.Duration) {
	if typical <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seen++
	if g.best == 0 || typical < g.best {
		g.best = typical
	}
	if g.cooldown > 0 {
		g.cooldown--
	}
	if g.seen < govWarmup {
		return
	}
	switch {
	case typical > govSlowFactor*g.best && typical > govSlowFloor:
		if g.cooldown == 0 && g.limit > 1 {
			g.limit = max(1, g.limit/2)
			g.cooldown = g.limit + 1
			g.cuts++
			g.lowest = min(g.lowest, g.limit)
		}
	case typical <= govFastFactor*g.best && g.limit < g.max && g.cooldown == 0:
		g.limit++
	}
}

// report says what the governor did ("" when it never cut).
func (g *governor) report() (cuts, lowest int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cuts, g.lowest
}
