package suite

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// Spec is one check of a suite in one version: a name, its labels and the
// body that judges it. The server suite (scenarios), the client suite
// (internal/scenarios/client) run their checks as Specs, all through RunSpecs.
type Spec struct {
	Name   string
	Labels []string
	Run    func()
	// Phase orders specs: a phase starts once every spec of the earlier phases has ended
	// (with SpecConfig.Overlap: once they have started, exclusive ones
	// included, for specs that do not Wait). Specs are listed in phase
	// order.
	Phase int
	// Exclusive specs run alone: no other spec overlaps them, except
	// Isolated ones. Within its phase an exclusive spec runs after the
	// others have started, one at a time, once no spec that is neither
	// isolated nor exclusive runs.
	Exclusive bool
	// Isolated specs may overlap every other spec, exclusive ones
	// included; they start before the others of their phase.
	Isolated bool
	// Waits keeps a spec from starting before every spec of the earlier
	// phases has ended, also with SpecConfig.Overlap (a spec that judges
	// what those saw).
	Waits bool
	// Late specs start once every other spec of their phase that is
	// neither late nor exclusive has started, and overlap them: what an
	// exclusive spec would do where nothing is shared (by then a target
	// too heavy to be checked side by side is known: SpecConfig.Serial).
	Late bool
	// Group, when set, names specs that never overlap one another (they
	// may overlap specs of other groups).
	Group string
}

// StopCause says why ctx ended: a signal or the run's deadline.
func StopCause(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "the run's deadline passed"
	}
	return "interrupted"
}

// NotRun is the reason of a check the run did not reach because it was
// interrupted (a signal) or ran out of time (its deadline).
func NotRun(ctx context.Context) string { return "not run (" + StopCause(ctx) + ")" }

// Stopped is the reason of a check the run stopped in the middle of.
func Stopped(ctx context.Context) string {
	return "stopped while running (" + StopCause(ctx) + "); what it saw before the stop is no verdict"
}

// SpecConfig says how RunSpecs runs a suite.
type SpecConfig struct {
	// Match is the run's label filter (nil: every spec).
	Match func(labels []string) bool
	// Parallel is how many specs run at the same time (see Spec.Phase,
	// Spec.Exclusive and Spec.Group); 1 (or less) runs them one at a time,
	// in the scheduler's order.
	Parallel int
	// Limit, when set, is asked before each spec starts how many may run
	// at a time now (at most Parallel, at least 1): the run's governor
	// lowers it while the target's answers slow down under the run's own
	// load.
	Limit func() int
	// Serial, when set and true, makes the direct engine start the next
	// spec that is not isolated only once no such spec runs (isolated
	// ones, mostly silence windows on sessions of their own, still run
	// alongside): the runner sets it once the target has sent messages so
	// large that holding several at once would cost too much memory
	// (session.Budget.Large), or flooded.
	Serial func() bool
	// Overlap lets a phase's specs start while the earlier phases still
	// run (all but those that Wait, and exclusive ones), once no earlier
	// phase has exclusive specs left to start: the tail of one phase (its
	// longest specs) is then not waited out alone.
	Overlap bool
}

// RunSpecs runs the specs that match cfg.Match with the one scheduler
// every run uses, whatever its Parallel: up to cfg.Parallel specs at a
// time (at least 1), phase by phase (Spec.Phase), keeping exclusive specs
// and specs of one group apart. With Parallel 1 the specs run one after
// another: each phase's isolated specs first, then the others in the
// order given, the late ones and last the exclusive ones. It returns how
// many specs ran.
//
// Every spec that matches runs, also once the run's context has ended:
// its check then records that it was not run (NotRun), so an interrupted
// run's report still lists every check.
func RunSpecs(specs []Spec, cfg SpecConfig) int {
	var run []Spec
	for _, s := range specs {
		if cfg.Match != nil && !cfg.Match(s.Labels) {
			continue
		}
		run = append(run, s)
	}
	sc := newScheduler(run, max(1, cfg.Parallel), cfg.Serial, cfg.Overlap)
	sc.limit = cfg.Limit
	sc.run()
	return len(run)
}

// scheduler runs the specs of a suite, at most parallel at a time. Within
// a phase the isolated specs go first, then the others that are neither
// late nor exclusive, then the late ones (once every such other spec of
// the phase has started), each as soon as a slot is free and no spec of
// its group runs (the earliest such spec in that order goes first); then
// the exclusive ones, one after another, each once every other spec of
// its phase has started and no spec runs but isolated ones. A phase's
// specs start once every spec of the earlier phases has ended, or, with
// SpecConfig.Overlap, as soon as slots are free once no earlier phase has
// exclusive specs left to start, except those that Wait (and exclusive
// ones). Once serial reports true, a spec that is not isolated starts only
// when no such spec runs, and only from the earliest phase not yet ended.
type scheduler struct {
	parallel int
	serial   func() bool
	overlap  bool
	limit    func() int

	mu      sync.Mutex
	cond    *sync.Cond
	phases  []*phaseQueue
	left    int // specs not started
	busy    map[string]bool
	running int  // all specs running
	shared  int  // those neither isolated nor exclusive
	alone   bool // an exclusive spec runs
}

// phaseQueue is what of one phase has not started yet, and how many of
// its specs have not ended.
type phaseQueue struct {
	pending, late, exclusive []Spec
	isolated                 []Spec // only while the queue is built
	open                     int
}

func newScheduler(specs []Spec, parallel int, serial func() bool, overlap bool) *scheduler {
	s := &scheduler{parallel: parallel, serial: serial, overlap: overlap, busy: map[string]bool{}, left: len(specs)}
	s.cond = sync.NewCond(&s.mu)
	var q *phaseQueue
	for i, sp := range specs {
		if i == 0 || sp.Phase != specs[i-1].Phase {
			q = &phaseQueue{}
			s.phases = append(s.phases, q)
		}
		q.open++
		switch {
		case sp.Exclusive:
			q.exclusive = append(q.exclusive, sp)
		case sp.Isolated:
			q.isolated = append(q.isolated, sp)
		case sp.Late:
			q.late = append(q.late, sp)
		default:
			q.pending = append(q.pending, sp)
		}
	}
	for _, q := range s.phases {
		// Isolated specs start first, in the order given.
		q.pending, q.isolated = append(q.isolated, q.pending...), nil
	}
	return s
}

// next takes the spec to start now and its phase, with s.mu held (false:
// none may start).
func (s *scheduler) next() (Spec, *phaseQueue, bool) {
	if s.running >= s.parallel || s.alone {
		return Spec{}, nil, false
	}
	if s.limit != nil && s.running >= max(1, s.limit()) {
		return Spec{}, nil, false
	}
	// Serial: a spec that is not isolated starts only when no such spec
	// runs (isolated ones hold no listing of their own: they share the
	// version's, listed once).
	serial := s.serial != nil && s.serial()
	one := serial && s.shared > 0
	earliest := true // every earlier phase has ended
	for _, q := range s.phases {
		if q.open == 0 {
			continue
		}
		if len(q.pending) == 0 && len(q.late) > 0 {
			q.pending, q.late = q.late, nil
		}
		for i, p := range q.pending {
			if (p.Group != "" && s.busy[p.Group]) || (!earliest && p.Waits) || (one && !p.Isolated) {
				continue
			}
			q.pending = slices.Delete(q.pending, i, i+1)
			return p, q, true
		}
		if earliest && len(q.pending) == 0 && len(q.late) == 0 && len(q.exclusive) > 0 && s.shared == 0 {
			p := q.exclusive[0]
			q.exclusive = q.exclusive[1:]
			return p, q, true
		}
		if serial || !s.overlap || len(q.exclusive) > 0 {
			// An exclusive spec changes what every session shares: no
			// later phase starts before those of this one have run (a
			// spec starting meanwhile would see the change).
			break
		}
		earliest = false
	}
	return Spec{}, nil, false
}

// account notes that p started (d = 1) or ended (d = -1), with s.mu held.
func (s *scheduler) account(p Spec, d int) {
	s.running += d
	switch {
	case p.Exclusive:
		s.alone = d > 0
	case !p.Isolated:
		s.shared += d
	}
	if p.Group != "" {
		s.busy[p.Group] = d > 0
	}
}

// run runs every spec and returns once all have ended.
func (s *scheduler) run() {
	var wg sync.WaitGroup
	s.mu.Lock()
	for s.left > 0 {
		p, q, ok := s.next()
		if !ok {
			s.cond.Wait()
			continue
		}
		s.left--
		s.account(p, +1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				s.mu.Lock()
				s.account(p, -1)
				q.open--
				s.cond.Broadcast()
				s.mu.Unlock()
			}()
			p.Run()
		}()
	}
	s.mu.Unlock()
	wg.Wait()
}
