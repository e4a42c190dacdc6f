package suite

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRunSpecsConcurrently holds the scheduler to its schedule with
// Parallel 4: up to 4 specs at a time (and 4 do run together), an
// exclusive spec alone, two specs of one group never together, a phase
// only after every spec of the one before has ended, and every spec run
// once; with Parallel 1 the same scheduler runs them one after another
// (exclusive ones last in their phase).
func TestRunSpecsConcurrently(t *testing.T) {
	type kind struct {
		phase     int
		exclusive bool
		group     string
	}
	var kinds []kind
	for i := 0; i < 8; i++ {
		kinds = append(kinds, kind{phase: 0})
	}
	kinds = append(kinds, kind{phase: 0, group: "g"}, kind{phase: 0, exclusive: true}, kind{phase: 0, group: "g"}, kind{phase: 0, exclusive: true})
	for i := 0; i < 3; i++ {
		kinds = append(kinds, kind{phase: 1})
	}
	kinds = append(kinds, kind{phase: 1, exclusive: true})

	run := func(t *testing.T, parallel int) []int {
		var mu sync.Mutex
		running := map[int]bool{}
		ended := map[int]int{} // phase -> specs ended
		perPhase := map[int]int{}
		for _, k := range kinds {
			perPhase[k.phase]++
		}
		var order []int
		most := 0
		together := make(chan struct{}) // closed once parallel specs run at once
		closed := false
		var specs []Spec
		for i, k := range kinds {
			i, k := i, k
			specs = append(specs, Spec{Name: fmt.Sprint(i), Phase: k.phase, Exclusive: k.exclusive, Group: k.group, Run: func() {
				mu.Lock()
				order = append(order, i)
				for j := range running {
					switch {
					case k.exclusive || kinds[j].exclusive:
						t.Errorf("spec %d (exclusive %v) overlaps spec %d (exclusive %v)", i, k.exclusive, j, kinds[j].exclusive)
					case k.group != "" && kinds[j].group == k.group:
						t.Errorf("specs %d and %d of group %s overlap", i, j, k.group)
					}
				}
				for p := 0; p < k.phase; p++ {
					if ended[p] != perPhase[p] {
						t.Errorf("spec %d of phase %d started with %d of %d specs of phase %d ended", i, k.phase, ended[p], perPhase[p], p)
					}
				}
				running[i] = true
				if len(running) > most {
					most = len(running)
				}
				if len(running) > parallel {
					t.Errorf("%d specs run at once, with Parallel %d", len(running), parallel)
				}
				if len(running) == parallel && !closed {
					close(together)
					closed = true
				}
				mu.Unlock()
				if parallel > 1 && i < parallel {
					// The first specs wait for each other: they must be
					// running at the same time.
					select {
					case <-together:
					case <-time.After(10 * time.Second):
						t.Errorf("spec %d: %d specs never ran at the same time", i, parallel)
					}
				}
				mu.Lock()
				delete(running, i)
				ended[k.phase]++
				mu.Unlock()
			}})
		}
		if n := RunSpecs(specs, SpecConfig{Parallel: parallel}); n != len(specs) {
			t.Errorf("ran %d specs, want %d", n, len(specs))
		}
		if len(order) != len(specs) {
			t.Errorf("%d specs ran, want %d", len(order), len(specs))
		}
		if parallel > 1 && most != parallel {
			t.Errorf("at most %d specs ran at once, want %d", most, parallel)
		}
		return order
	}
	run(t, 4)
	// Parallel 1 is the same scheduler with one slot: one spec at a time
	// (run checks that none overlaps), each phase's specs in the order
	// given but its exclusive ones last, and the phases in turn.
	want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 9, 11, 12, 13, 14, 15}
	if d := cmp.Diff(want, run(t, 1)); d != "" {
		t.Errorf("with Parallel 1 the specs ran out of the scheduler's order:\n%s", d)
	}
}

// TestRunSpecsSerialOnceLarge holds the scheduler to SpecConfig.Serial:
// with Parallel 4, once Serial reports true (here: when the third spec
// starts, as a runner's does once the target sent a large frame), no spec
// starts while another runs; before, specs do run side by side. The
// fourth may already be on its way when the switch flips, so from the
// fifth on each spec must run alone.
func TestRunSpecsSerialOnceLarge(t *testing.T) {
	var mu sync.Mutex
	running, started, most, mostAfter := 0, 0, 0, 0
	var large bool
	release := make(chan struct{})
	var specs []Spec
	for i := 0; i < 12; i++ {
		specs = append(specs, Spec{Name: fmt.Sprint(i), Run: func() {
			mu.Lock()
			running++
			started++
			if started == 3 {
				large = true
				close(release)
			}
			if started > 4 {
				mostAfter = max(mostAfter, running)
			}
			most = max(most, running)
			mu.Unlock()
			<-release // the first specs wait until the third is running
			mu.Lock()
			running--
			mu.Unlock()
		}})
	}
	serial := func() bool { mu.Lock(); defer mu.Unlock(); return large }
	ran := RunSpecs(specs, SpecConfig{Parallel: 4, Serial: serial})
	if ran != len(specs) {
		t.Fatalf("%d of %d specs ran", ran, len(specs))
	}
	if most < 3 {
		t.Errorf("at most %d specs ran at once before Serial said so; want 3", most)
	}
	if mostAfter != 1 {
		t.Errorf("after Serial reported true, up to %d specs ran at once; want 1", mostAfter)
	}
}

// TestRunSpecsIsolatedAlongsideExclusive holds the scheduler to
// Spec.Isolated: an isolated spec runs on while the
// exclusive specs run (here it waits for one to start), while exclusive
// specs still overlap neither each other nor any spec that is not
// isolated.
func TestRunSpecsIsolatedAlongsideExclusive(t *testing.T) {
	type kind struct{ exclusive, isolated bool }
	kinds := []kind{{}, {}, {exclusive: true}, {isolated: true}, {}, {exclusive: true}, {}}
	var mu sync.Mutex
	running := map[int]bool{}
	var order []int
	exclusiveStarted, seen := make(chan struct{}), make(chan struct{})
	var once sync.Once
	overlapped := false
	var specs []Spec
	for i, k := range kinds {
		specs = append(specs, Spec{Name: fmt.Sprint(i), Exclusive: k.exclusive, Isolated: k.isolated, Run: func() {
			mu.Lock()
			order = append(order, i)
			for j := range running {
				if (k.exclusive && !kinds[j].isolated) || (kinds[j].exclusive && !k.isolated) {
					t.Errorf("spec %d (%+v) overlaps spec %d (%+v)", i, k, j, kinds[j])
				}
			}
			running[i] = true
			mu.Unlock()
			if k.exclusive {
				first := false
				once.Do(func() { close(exclusiveStarted); first = true })
				if first {
					select { // until the isolated spec has seen it run
					case <-seen:
					case <-time.After(10 * time.Second):
					}
				}
			}
			if k.isolated {
				select {
				case <-exclusiveStarted:
					mu.Lock()
					for j := range running {
						overlapped = overlapped || kinds[j].exclusive
					}
					mu.Unlock()
					close(seen)
				case <-time.After(10 * time.Second):
					t.Errorf("isolated spec %d: no exclusive spec started while it ran", i)
				}
			}
			mu.Lock()
			delete(running, i)
			mu.Unlock()
		}})
	}
	if n := RunSpecs(specs, SpecConfig{Parallel: 4}); n != len(specs) {
		t.Fatalf("%d of %d specs ran", n, len(specs))
	}
	if len(order) != len(specs) {
		t.Errorf("order %v: want every spec once", order)
	}
	if !overlapped {
		t.Error("the isolated spec never ran alongside an exclusive one")
	}
}

// TestRunSpecsOverlap holds the scheduler to SpecConfig.Overlap: a
// spec of the next phase starts while the phase before still runs (here
// the first spec waits until it has), one that Waits only once every spec
// of the earlier phases has ended; without Overlap the next phase waits.
func TestRunSpecsOverlap(t *testing.T) {
	for _, overlap := range []bool{true, false} {
		var mu sync.Mutex
		ended := map[string]bool{}
		nextStarted := make(chan struct{})
		overlapped := false
		done := func(name string) {
			mu.Lock()
			ended[name] = true
			mu.Unlock()
		}
		specs := []Spec{
			{Name: "slow", Phase: 0, Run: func() {
				if overlap {
					select {
					case <-nextStarted:
					case <-time.After(10 * time.Second):
						t.Errorf("the next phase's spec did not start while the first phase ran")
					}
				}
				done("slow")
			}},
			{Name: "quick", Phase: 0, Run: func() { done("quick") }},
			{Name: "next", Phase: 1, Run: func() {
				mu.Lock()
				overlapped = !ended["slow"]
				mu.Unlock()
				close(nextStarted)
				done("next")
			}},
			{Name: "judge", Phase: 1, Waits: true, Run: func() {
				mu.Lock()
				if !ended["slow"] || !ended["quick"] {
					t.Errorf("overlap=%v: the spec that Waits started before phase 0 ended (%v)", overlap, ended)
				}
				mu.Unlock()
				done("judge")
			}},
		}
		if n := RunSpecs(specs, SpecConfig{Parallel: 4, Overlap: overlap}); n != len(specs) {
			t.Fatalf("%d of %d specs ran", n, len(specs))
		}
		if overlapped != overlap {
			t.Errorf("overlap=%v: the next phase's spec started while the first phase ran: %v, want %v", overlap, overlapped, overlap)
		}
	}
}

// stepper drives a scheduler by hand, as its run loop would.
type stepper struct {
	t       *testing.T
	s       *scheduler
	running map[string]Spec
	queues  map[string]*phaseQueue
}

func newStepper(t *testing.T, s *scheduler) *stepper {
	return &stepper{t: t, s: s, running: map[string]Spec{}, queues: map[string]*phaseQueue{}}
}

// start takes the next spec, which must be want.
func (st *stepper) start(want string) {
	st.t.Helper()
	p, q, ok := st.s.next()
	if !ok || p.Name != want {
		st.t.Fatalf("next: %q (%v), want %q", p.Name, ok, want)
	}
	st.s.account(p, +1)
	st.running[p.Name], st.queues[p.Name] = p, q
}

// none wants no spec startable, for the reason why.
func (st *stepper) none(why string) {
	st.t.Helper()
	if p, _, ok := st.s.next(); ok {
		st.t.Fatalf("next: %q started, but %s", p.Name, why)
	}
}

// end ends the running specs named.
func (st *stepper) end(names ...string) {
	for _, n := range names {
		st.s.account(st.running[n], -1)
		st.queues[n].open--
		delete(st.running, n)
	}
}

// TestSchedulerOverlapAfterExclusive steps the scheduler by hand: with
// SpecConfig.Overlap a phase's specs start only once the exclusive specs
// of the phase before have run (they change what every session shares,
// which a spec started meanwhile would see), late specs only once the
// phase's other specs have started, and nothing starts while an exclusive
// spec runs.
func TestSchedulerOverlapAfterExclusive(t *testing.T) {
	st := newStepper(t, newScheduler([]Spec{
		{Name: "late", Phase: 0, Late: true},
		{Name: "first", Phase: 0},
		{Name: "exclusive", Phase: 0, Exclusive: true},
		{Name: "next", Phase: 1},
	}, 4, nil, true))
	st.start("first")
	st.start("late")
	st.none("the exclusive spec waits for the others to end, and the next phase for the exclusive spec")
	st.end("first", "late")
	st.start("exclusive")
	st.none("an exclusive spec runs")
	st.end("exclusive")
	st.start("next")
}

// TestSchedulerSerialLetsIsolatedRun steps the scheduler by hand with
// Serial on: the isolated specs start alongside, but of the others only
// one runs at a time.
func TestSchedulerSerialLetsIsolatedRun(t *testing.T) {
	st := newStepper(t, newScheduler([]Spec{{Name: "a"}, {Name: "iso1", Isolated: true}, {Name: "b"}, {Name: "iso2", Isolated: true}},
		4, func() bool { return true }, true))
	st.start("iso1")
	st.start("iso2")
	st.start("a")
	st.none("a, which is not isolated, runs with Serial on")
	st.end("a")
	st.start("b")
}
