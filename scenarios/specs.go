package scenarios

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
)

// Spec is one Ginkgo It of a suite: a name, its labels and the body that
// judges it. The server suite and the client suite (scenarios/client) both
// run their checks as Specs.
type Spec struct {
	Name   string
	Labels []string
	Run    func()
	// Phase orders specs that run concurrently (SpecConfig.Parallel above
	// 1): a phase starts once every spec of the earlier phases has ended
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
	// Title names the suite's Describe.
	Title string
	// Direct runs the specs without Ginkgo.
	Direct bool
	// LabelFilter is handed to Ginkgo; Match is the same filter for the
	// direct engine (nil: everything).
	LabelFilter string
	Match       func(labels []string) bool
	// TestingT is handed to ginkgo.RunSpecs (nil: a stand-in).
	TestingT ginkgo.GinkgoTestingT
	// Log receives Ginkgo's own output (nil: discarded).
	Log io.Writer
	// Timeout bounds the suite under Ginkgo.
	Timeout time.Duration
	// Parallel is how many specs run at the same time (see Spec.Phase,
	// Spec.Exclusive and Spec.Group); 1 or less runs them one after
	// another in the order given. Above 1 the direct engine runs them:
	// Ginkgo's in-process runner runs one spec at a time.
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

// ginkgoUsed is set once ginkgo.RunSpecs has run in this process: it may
// run only once, so later runs use the direct engine, which executes the
// same specs (same order, same label filter) without Ginkgo.
var ginkgoUsed atomic.Bool

// ginkgoT is the tiny GinkgoTestingT the binary hands to RunSpecs.
type ginkgoT struct{ failed bool }

func (t *ginkgoT) Helper() {}
func (t *ginkgoT) Fail()   { t.failed = true }

var ginkgoOutputMu sync.Mutex

// RunSpecs runs specs in order: under Ginkgo the first time in a process
// (unless cfg.Direct or cfg.Parallel above 1), directly afterwards
// (ginkgo.RunSpecs runs once per process). With cfg.Parallel above 1 the
// direct engine runs up to that many specs at a time, phase by phase
// (Spec.Phase), keeping exclusive specs and specs of one group apart. It
// returns the engine used ("ginkgo" or "direct") and how many specs ran
// after the label filter.
//
// Every spec that matches the filter runs, also when ctx has ended: its
// check then records that it was not run (NotRun), so an interrupted
// run's report still lists every check. Ginkgo stops a suite on SIGINT;
// the specs it skipped are run here afterwards, directly.
func RunSpecs(ctx context.Context, specs []Spec, cfg SpecConfig) (engine string, ran int) {
	if !cfg.Direct && cfg.Parallel <= 1 && ginkgoUsed.CompareAndSwap(false, true) {
		done := make([]atomic.Bool, len(specs))
		tracked := make([]Spec, len(specs))
		for i, s := range specs {
			i, s := i, s
			tracked[i] = Spec{Name: s.Name, Labels: s.Labels, Run: func() { done[i].Store(true); s.Run() }}
		}
		ran = runGinkgo(tracked, cfg)
		if ctx.Err() != nil {
			for i, s := range specs {
				if !done[i].Load() && (cfg.Match == nil || cfg.Match(s.Labels)) {
					s.Run()
				}
			}
		}
		return "ginkgo", ran
	}
	// Once ctx ends the specs still run, quickly: each records that it was
	// not run, so an interrupted run's report lists every check.
	var run []Spec
	for _, s := range specs {
		if cfg.Match != nil && !cfg.Match(s.Labels) {
			continue
		}
		run = append(run, s)
	}
	if cfg.Parallel <= 1 {
		for _, s := range run {
			s.Run()
		}
		return "direct", len(run)
	}
	sc := newScheduler(run, cfg.Parallel, cfg.Serial, cfg.Overlap)
	sc.limit = cfg.Limit
	sc.run()
	return "direct", len(run)
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

func runGinkgo(specs []Spec, cfg SpecConfig) int {
	// Ordered: the specs run in the order given (a version's passive
	// checks after its active ones, which they judge), as the direct
	// engine runs them; without it Ginkgo orders them by name, and a
	// passive check would judge a version before the checks whose
	// traffic it is about had run. ContinueOnFailure: a spec that fails
	// (none does: verdicts are the harness's) stops nothing.
	ginkgo.Describe(cfg.Title, ginkgo.Ordered, ginkgo.ContinueOnFailure, func() {
		for _, s := range specs {
			s := s
			ginkgo.It(s.Name, ginkgo.Label(s.Labels...), func() { s.Run() })
		}
	})
	var ran atomic.Int64
	ginkgo.ReportAfterSuite("mcpcheck", func(rep ginkgo.Report) {
		n := 0
		for _, s := range rep.SpecReports {
			if s.LeafNodeType == types.NodeTypeIt && s.State != types.SpecStateSkipped && s.State != types.SpecStatePending {
				n++
			}
		}
		ran.Store(int64(n))
	})
	sc, rc := ginkgo.GinkgoConfiguration()
	sc.LabelFilter = cfg.LabelFilter
	sc.RandomSeed = 1
	sc.RandomizeAllSpecs = false
	sc.FailFast = false
	sc.Timeout = cfg.Timeout
	sc.FocusStrings, sc.SkipStrings, sc.FocusFiles, sc.SkipFiles = nil, nil, nil, nil
	rc.NoColor = true
	rc.Succinct = true
	rc.Verbose, rc.VeryVerbose = false, false
	rc.JSONReport, rc.JUnitReport, rc.TeamcityReport, rc.GoJSONReport = "", "", "", ""
	t := cfg.TestingT
	if t == nil {
		t = &ginkgoT{}
	}
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	ginkgoOutputMu.Lock()
	out, errOut := formatter.ColorableStdOut, formatter.ColorableStdErr
	formatter.ColorableStdOut, formatter.ColorableStdErr = log, log
	defer func() {
		formatter.ColorableStdOut, formatter.ColorableStdErr = out, errOut
		ginkgoOutputMu.Unlock()
	}()
	ginkgo.RunSpecs(t, cfg.Title, sc, rc)
	return int(ran.Load())
}
