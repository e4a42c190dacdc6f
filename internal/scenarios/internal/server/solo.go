package server

import (
	"errors"
	"sync"
)

// Some servers cannot run two instances side by side: they bind a fixed
// port, take a lock file, or end the process that holds what they need
// (browsermcp kills whatever listens on its port). The spec allows it, but
// a run starts a process per pooled session of each version and one per
// isolated check, so such a server's second instance fails at once and
// checks that are no fault of the server's fail or end in errors.
// Config.OneInstance keeps at most one of the target's processes alive
// (soloGate): a check runs alone, and before a process starts the idle
// sessions of every version are closed (their processes stopped) to make
// room. A check that needs two sessions at once is untestable then.

// errSecondInstance is what opening a session returns, under
// Config.OneInstance, while the one instance allowed is in use by the
// check asking.
var errSecondInstance = errors.New("the check needs a second instance of the target while the first is in use, and the run keeps at most one alive (--one-instance); run without it to judge this check")

// soloGate allows one live target process at a time.
type soloGate struct {
	mu   sync.Mutex
	held bool
}

// acquire takes the gate for a process about to start. When another
// process holds it, evict is called to close the sessions waiting idle in
// the pools (each releases the gate as its process ends); a holder still
// there after that is in use, and acquire fails with errSecondInstance.
// The release it returns may be called more than once.
func (g *soloGate) acquire(evict func()) (func(), error) {
	if g.take() {
		return g.releaser(), nil
	}
	evict()
	if g.take() {
		return g.releaser(), nil
	}
	return nil, errSecondInstance
}

func (g *soloGate) take() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held {
		return false
	}
	g.held = true
	return true
}

func (g *soloGate) releaser() func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.held = false
			g.mu.Unlock()
		})
	}
}

// closeIdle closes the sessions waiting for reuse in every version's pool
// (their processes stop before it returns).
func (r *runner) closeIdle() {
	for _, vrs := range [][]*versionRun{r.versions, r.side} {
		for _, vr := range vrs {
			vr.mu.Lock()
			pool := vr.pool
			vr.mu.Unlock()
			if pool != nil {
				_ = pool.CloseIdle()
			}
		}
	}
}
