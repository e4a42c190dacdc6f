package expect

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

// Health follows how a target answers across a whole run, so a badly
// broken target gets a fast verdict instead of every check waiting out its
// own deadline:
//
//   - While the target answers, waits keep the deadline they ask for.
//   - Once it has left MissesBeforeAdapting waits unanswered, deadlines
//     adapt to its measured answer times: SlowFactor times its slowest
//     answer so far, never less than MinAdapted nor more than asked. A
//     target that is only slow keeps long deadlines; one that answers
//     in milliseconds and then goes silent is waited for a second.
//   - A target that has answered nothing, and left a wait unanswered, is
//     waited for 2*MinAdapted at most.
//   - A target that has answered nothing at all after MissesBeforeMute
//     waits is mute: later waits do not wait; they end Aborted at once,
//     saying so, and checks record that as a harness error, not as the
//     target's failure (what the target did is in the first checks).
//   - A target that answered and then stopped is probed (Probe); when it
//     is dead, later waits end at once too, except the handshake of a
//     fresh session (Handshake): a target that answers only initialize
//     still gets that answer judged, with an adapted deadline.
//   - A target that flooded FloodsBeforeGivingUp waits (each saw
//     Options.MaxFrames frames, none settling it) is flooding: it is
//     treated like a dead one (handshakes still made, nothing else
//     waited for), since every further wait would only read its flood
//     until the frame bound, and its verdict would take minutes.
//
// Wait finds the Health of a run in its context (WithHealth). It is safe
// for concurrent use, and checks that run at the same time share one: the
// streak before a probe counts the waits that went unanswered, in the
// order they ended, since the last answer to any wait; waits that time
// out together each count and make one probe, and an answer to any
// request in flight ends the streak.
type Health struct {
	mu       sync.Mutex
	answers  int
	misses   int
	slowest  time.Duration
	firstBad string // the Expected text of the first unanswered wait
	// stray counts responses that came while a wait went unanswered (they
	// answered nothing waited for); firstStray describes the first.
	stray      int
	firstStray string

	// Probe, when set, asks the target for a sign of life on a fresh
	// connection (connect, handshake, ping) and says why there was none.
	// It runs once ProbeAfter waits in a row went unanswered by a target
	// that had answered before; when it fails too the target is dead: it
	// is not waited for again, like a mute one.
	Probe   func(ctx context.Context) error
	streak  int    // unanswered waits since the last answer
	probing bool   // a probe is under way
	probed  bool   // the probe of the current streak found the target alive
	dead    string // why the target is dead ("" while it is not)
	// floods counts the waits that ended Flooded; firstFlood is the
	// Expected text of the first.
	floods     int
	firstFlood string
	// deadToHandshakes is set when a handshake went unanswered after the
	// target was found dead: then no wait is made any more.
	deadToHandshakes bool
	lastCheck        string // the Expected text of the last answered wait
	// recent holds the latencies of the last answered waits that were not
	// handshakes (a ring of len(recent), next is where the next goes), for
	// Typical.
	recent [64]time.Duration
	nrec   int
	next   int
	// silentStart is set when a start-up wait went unanswered before
	// the target had answered anything: it is mute.
	silentStart bool
	// starts are the answer times of start-up waits (the first on a
	// fresh connection), at most maxStarts of them.
	starts []time.Duration

	// StartupAllowance is how long a fresh connection may take to say
	// anything (session.Config.StartupTimeout); the liveness probe, which
	// opens one, gets at least that long.
	StartupAllowance time.Duration
}

// maxStarts bounds the start-up times a Health keeps.
const maxStarts = 4096

// maxStartupAllowance bounds how far startupAllowance stretches.
const maxStartupAllowance = 5 * time.Minute

// startupAllowance is how long a start-up wait that asked for asked gets:
// at least three times the slowest start of the target so far (a server
// that took 40 s to start on a loaded machine may take 70 s the next
// time), at most maxStartupAllowance, never less than asked.
func (h *Health) startupAllowance(asked time.Duration) time.Duration {
	if h == nil {
		return asked
	}
	h.mu.Lock()
	var slowest time.Duration
	for _, d := range h.starts {
		slowest = max(slowest, d)
	}
	h.mu.Unlock()
	return max(asked, min(3*slowest, maxStartupAllowance))
}

// Answered reports whether the target has answered any wait of the run
// (a run without a Health: true, as nothing says otherwise).
func (h *Health) Answered() bool {
	if h == nil {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.answers > 0
}

// StartupTimes returns the fastest, median and slowest start-up time of
// the target so far (the answer time of the first wait on each fresh
// connection) and how many were measured.
func (h *Health) StartupTimes() (fastest, median, slowest time.Duration, n int) {
	if h == nil {
		return 0, 0, 0, 0
	}
	h.mu.Lock()
	ts := append([]time.Duration(nil), h.starts...)
	h.mu.Unlock()
	if len(ts) == 0 {
		return 0, 0, 0, 0
	}
	slices.Sort(ts)
	return ts[0], ts[len(ts)/2], ts[len(ts)-1], len(ts)
}

// Typical is the target's typical answer time: the 90th percentile of its
// last 64 answered waits (0 before any), handshakes left out. Unlike the
// slowest answer, one wait that was long on purpose (a slow tool, a late
// notification) does not move it. A handshake's answer time includes
// what a fresh session costs the target once (a process start, a
// runtime warming up): counted, it would make a target that starts in
// half a second and answers in a millisecond look slow to every window
// sized on Typical.
func (h *Health) Typical() time.Duration {
	if h == nil {
		return 0
	}
	h.mu.Lock()
	n := h.nrec
	lat := make([]time.Duration, n)
	copy(lat, h.recent[:n])
	h.mu.Unlock()
	if n == 0 {
		return 0
	}
	slices.Sort(lat)
	return lat[(9*n+9)/10-1] // the ceil(0.9 n)-th smallest
}

// The Health thresholds.
const (
	MissesBeforeAdapting = 2
	MissesBeforeMute     = 3
	SlowFactor           = 5
	MinAdapted           = time.Second
	ProbeAfter           = 3
	FloodsBeforeGivingUp = 3
)

// NewHealth returns the Health of a run that has not started.
func NewHealth() *Health { return &Health{} }

type healthKey struct{}

type handshakeKey struct{}

type skipKey struct{}

// OnSkip returns ctx carrying fn: a wait under ctx that is not made
// because the target is mute or dead calls it with why (a check's
// TargetGone), before it ends Aborted.
func OnSkip(ctx context.Context, fn func(why string)) context.Context {
	return context.WithValue(ctx, skipKey{}, fn)
}

func skipped(ctx context.Context, why string) {
	if fn, ok := ctx.Value(skipKey{}).(func(string)); ok {
		fn(why)
	}
}

// Handshake returns ctx marking the waits under it as the handshake of a
// fresh session (initialize, server/discover): a dead target still gets
// them, with an adapted deadline; only a mute one does not.
func Handshake(ctx context.Context) context.Context {
	return context.WithValue(ctx, handshakeKey{}, true)
}

func isHandshake(ctx context.Context) bool {
	b, _ := ctx.Value(handshakeKey{}).(bool)
	return b
}

// WithHealth returns ctx carrying h: every Wait under it reports to h and
// takes its deadlines from it.
func WithHealth(ctx context.Context, h *Health) context.Context {
	return context.WithValue(ctx, healthKey{}, h)
}

// HealthOf returns the Health ctx carries (nil: none).
func HealthOf(ctx context.Context) *Health {
	h, _ := ctx.Value(healthKey{}).(*Health)
	return h
}

// deadline is the timeout a wait that asked for asked gets, and why it is
// shorter when it is ("" when it is not).
func (h *Health) deadline(asked time.Duration) (time.Duration, string) {
	if h == nil {
		return asked, ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.answers == 0 && h.misses > 0 {
		// Nothing answered yet and a wait already went unanswered: a
		// target that answers at all does so in MinAdapted*2.
		if d := 2 * MinAdapted; d < asked {
			return d, fmt.Sprintf(" (the deadline was %v, not %v: the target has answered none of the %d requests so far)", d, asked, h.misses)
		}
		return asked, ""
	}
	if h.misses < MissesBeforeAdapting {
		return asked, ""
	}
	d := SlowFactor * h.slowest
	if d < MinAdapted {
		d = MinAdapted
	}
	if d >= asked {
		return asked, ""
	}
	return d, fmt.Sprintf(" (the deadline was %v, not %v: the target had left %d requests unanswered, and its slowest answer took %v)",
		d, asked, h.misses, h.slowest.Round(time.Millisecond))
}

// Mute reports whether the target is not waited for any more, with a
// sentence saying why: it has answered nothing in all the waits so far
// (at least MissesBeforeMute of them), or it was found dead.
func (h *Health) Mute() (bool, string) {
	return h.skip(false)
}

// skip reports whether a wait is not made: none when the target is mute,
// all but handshakes when it is dead.
func (h *Health) skip(handshake bool) (bool, string) {
	if h == nil {
		return false, ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dead != "" && (!handshake || h.deadToHandshakes) {
		return true, h.dead
	}
	if h.answers > 0 || (h.misses < MissesBeforeMute && !h.silentStart) {
		return false, ""
	}
	why := fmt.Sprintf("the target has answered none of the %d requests of this run (the first was for %s)", h.misses, h.firstBad)
	if h.silentStart {
		why = fmt.Sprintf("the target has answered none of the %d requests of this run, and a fresh connection said nothing in its whole start-up allowance (the first request was for %s)", h.misses, h.firstBad)
	}
	if h.stray > 0 {
		why += fmt.Sprintf("; it sent %d responses meanwhile, none carrying the id of a request it was waited on for (the first: %s)", h.stray, h.firstStray)
	}
	return true, why + ": it is treated as mute and not waited for again"
}

// record notes how a wait ended: answered when a frame of the target
// settled it (its latency is measured), or a timeout no alternative
// accepted; handshake says it was a session's handshake.
func (h *Health) record(r Observed, answered, handshake, startup bool) {
	if h == nil {
		return
	}
	h.mu.Lock()
	probe := false
	defer func() {
		h.mu.Unlock()
		if probe {
			h.probe()
		}
	}()
	switch {
	case answered:
		h.answers++
		h.streak, h.probed = 0, false
		h.lastCheck = r.Expected
		if startup {
			// How long a fresh connection took to say anything: the
			// target's start-up, not its answer time.
			h.starts = append(h.starts[:min(len(h.starts), maxStarts-1)], r.Elapsed)
			break
		}
		if !handshake {
			h.recent[h.next] = r.Elapsed
			h.next = (h.next + 1) % len(h.recent)
			h.nrec = min(h.nrec+1, len(h.recent))
		}
		if r.Elapsed > h.slowest {
			h.slowest = r.Elapsed
		}
	case r.Status == Flooded:
		h.floods++
		if h.firstFlood == "" {
			h.firstFlood = r.Expected
		}
		if h.floods >= FloodsBeforeGivingUp && h.dead == "" {
			h.dead = fmt.Sprintf("the target floods: %d waits each received %d frames or more without the one they waited for (the first waited for %s); it is treated as flooding and not waited for again",
				h.floods, len(r.Others)+r.Dropped, h.firstFlood)
		}
	case r.Status == TimedOut:
		if handshake && h.dead != "" {
			h.deadToHandshakes = true
		}
		if startup && h.answers == 0 {
			// Silent through a whole start-up allowance, and nothing
			// answered before: the target is mute (not waited for
			// another allowance per version).
			h.silentStart = true
		}
		h.misses++
		h.streak++
		if h.Probe != nil && h.answers > 0 && h.streak >= ProbeAfter && !h.probing && !h.probed && h.dead == "" {
			h.probing, probe = true, true
		}
		if h.firstBad == "" {
			h.firstBad = r.Expected
		}
		for _, f := range r.Others {
			if f.Kind == wire.KindMessage && f.Msg.Shape.IsResponse() {
				h.stray++
				if h.firstStray == "" {
					h.firstStray = f.Describe()
				}
			}
		}
	}
}

// probe runs Probe with a deadline fitted to the target's answer times
// and records the verdict: alive (the streak is forgiven until the next
// answer) or dead.
func (h *Health) probe() {
	h.mu.Lock()
	d := SlowFactor * h.slowest
	if d < 2*MinAdapted {
		d = 2 * MinAdapted
	}
	streak, last := h.streak, h.lastCheck
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), max(3*d, h.startupAllowance(h.StartupAllowance)+d))
	err := h.Probe(ctx)
	cancel()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.probing = false
	if err == nil {
		h.probed = true
		return
	}
	h.dead = fmt.Sprintf("the target stopped answering: %d requests in a row went unanswered after its last answer (to %s), and on a fresh connection it gave no sign of life either (%v); it is treated as dead and not waited for again", streak, last, err)
}

type startupKey struct{}

// Startup returns ctx marking the waits under it as start-up waits: the
// first on a fresh connection, before the target has sent anything on it
// (a process still starting). The run's Health does not shorten them, and
// their answer time is the target's start-up time, not its answer time
// (Health.StartupTimes), so neither a slow start nor the fail-fast
// deadline of a target that has answered nothing makes a slow starter
// look mute.
func Startup(ctx context.Context) context.Context {
	return context.WithValue(ctx, startupKey{}, true)
}

func isStartup(ctx context.Context) bool {
	b, _ := ctx.Value(startupKey{}).(bool)
	return b
}

type timeoutKey struct{}

// OnTimeout returns ctx carrying fn: a wait under ctx that ends TimedOut
// (no alternative accepted silence and nothing settled it in time) calls
// it (a check's NoteTimeout).
func OnTimeout(ctx context.Context, fn func()) context.Context {
	return context.WithValue(ctx, timeoutKey{}, fn)
}

func timedOut(ctx context.Context) {
	if fn, ok := ctx.Value(timeoutKey{}).(func()); ok {
		fn()
	}
}

// AcceptsSilence reports whether one of alts is settled by silence until
// the deadline (Alt.OnTimeout): such a wait watches a window, and no
// start-up allowance stretches it.
func AcceptsSilence(alts []Alt) bool {
	for _, a := range alts {
		if a.OnTimeout {
			return true
		}
	}
	return false
}
