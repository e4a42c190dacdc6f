package scenarios

import (
	"context"
	"errors"
	"io"
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
	// 1): a phase starts once every spec of the earlier phases has ended.
	// Specs are listed in phase order.
	Phase int
	// Exclusive specs run alone: no other spec overlaps them, except
	// Isolated ones. Within its phase an exclusive spec runs after the
	// others have started, one at a time, once no spec that is neither
	// isolated nor exclusive runs.
	Exclusive bool
	// Isolated specs may overlap every other spec, exclusive ones
	// included; they start before the others of their phase.
	Isolated bool
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
	// Serial, when set and true, makes the direct engine start the next
	// spec only once none runs: the runner sets it once the target has
	// sent messages so large that holding several at once would cost too
	// much memory (session.Budget.Large).
	Serial func() bool
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
	total := len(run)
	for len(run) > 0 {
		n := 1
		for n < len(run) && run[n].Phase == run[0].Phase {
			n++
		}
		runPhase(run[:n], cfg.Parallel, cfg.Serial)
		run = run[n:]
	}
	return "direct", total
}

// runPhase runs the specs of one phase, at most parallel at a time: the
// isolated ones first, then the others that are not exclusive, each
// starting as soon as a slot is free and no spec of its group runs (the
// earliest such spec in that order goes first), then the exclusive ones,
// one after another, each once every other spec has started and none runs
// but isolated ones. Once serial reports true, a spec starts only when
// none runs.
func runPhase(specs []Spec, parallel int, serial func() bool) {
	var pending, exclusive []Spec
	for _, s := range specs {
		if s.Isolated && !s.Exclusive {
			pending = append(pending, s)
		}
	}
	for _, s := range specs {
		switch {
		case s.Exclusive:
			exclusive = append(exclusive, s)
		case !s.Isolated:
			pending = append(pending, s)
		}
	}
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	busy := map[string]bool{}
	running, shared := 0, 0 // all specs running; those neither isolated nor exclusive
	alone := false          // an exclusive spec runs
	var wg sync.WaitGroup
	mu.Lock()
	for len(pending) > 0 || len(exclusive) > 0 {
		limit := parallel
		if serial != nil && serial() {
			limit = 1
		}
		var s Spec
		found := false
		if running < limit && !alone {
			if len(pending) > 0 {
				for i, p := range pending {
					if p.Group == "" || !busy[p.Group] {
						s, found = p, true
						pending = append(pending[:i:i], pending[i+1:]...)
						break
					}
				}
			} else if shared == 0 {
				s, found = exclusive[0], true
				exclusive = exclusive[1:]
			}
		}
		if !found {
			cond.Wait()
			continue
		}
		running++
		switch {
		case s.Exclusive:
			alone = true
		case !s.Isolated:
			shared++
		}
		if s.Group != "" {
			busy[s.Group] = true
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				mu.Lock()
				running--
				switch {
				case s.Exclusive:
					alone = false
				case !s.Isolated:
					shared--
				}
				if s.Group != "" {
					busy[s.Group] = false
				}
				cond.Broadcast()
				mu.Unlock()
			}()
			s.Run()
		}()
	}
	mu.Unlock()
	wg.Wait()
}

func runGinkgo(specs []Spec, cfg SpecConfig) int {
	ginkgo.Describe(cfg.Title, func() {
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
