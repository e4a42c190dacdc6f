package server

import (
	"context"
	"testing"
	"time"
)

// TestStartGateFitsTheMachine: starts hold one slot per core (at least
// two) while nothing is measured or starting costs the processor its
// whole time; starts that are mostly waiting (a wrapper that sleeps)
// open more slots, up to the run's parallelism; a wait for a slot ends
// with its context; a target that starts no process is not gated.
func TestStartGateFitsTheMachine(t *testing.T) {
	g := newStartGate(true, 16)
	g.cores = 2
	var held []func()
	take := func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		rel, err := g.acquire(ctx)
		if err != nil {
			return false
		}
		held = append(held, rel)
		return true
	}
	if !take() || !take() || take() {
		t.Fatalf("slots before any start was measured: want exactly 2 (one per core)")
	}
	g.learn(2*time.Second, 2*time.Second) // all processor time
	if take() {
		t.Errorf("a third slot opened after a start that took the processor its whole time")
	}
	for i := 0; i < 10; i++ {
		g.learn(3*time.Second, 30*time.Millisecond) // a sleeping wrapper
	}
	n := len(held)
	for take() {
	}
	if got := len(held); got != 16 {
		t.Errorf("slots once starts are mostly waiting: %d, want the parallelism, 16 (had %d)", got, n)
	}
	held[0]()
	held[0]() // a second release is nothing
	if !take() || take() {
		t.Errorf("a released slot is not taken again exactly once")
	}
	free := newStartGate(false, 4)
	for i := 0; i < 10; i++ {
		if _, err := free.acquire(context.Background()); err != nil {
			t.Fatalf("a target without processes is gated: %v", err)
		}
	}
}
