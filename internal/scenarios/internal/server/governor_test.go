package server

import (
	"testing"
	"time"
)

// TestGovernorBacksOffAndRecovers: once the target's typical answer time
// grows past four times the best one seen (and past 250 ms) the limit is
// halved, not again until the halved number of checks have ended; once
// answers are quick again it grows back one at a time to the maximum. A
// target that is merely slow from the start is not throttled.
func TestGovernorBacksOffAndRecovers(t *testing.T) {
	g := newGovernor(16)
	for i := 0; i < govWarmup; i++ {
		g.observe(20 * time.Millisecond)
	}
	if g.Limit() != 16 {
		t.Fatalf("limit %d after quick answers, want 16", g.Limit())
	}
	g.observe(time.Second)
	if g.Limit() != 8 {
		t.Fatalf("limit %d after the answers slowed 50-fold, want 8", g.Limit())
	}
	for i := 0; i < 8; i++ {
		g.observe(time.Second)
	}
	if g.Limit() != 8 {
		t.Errorf("limit %d during the cooldown, want 8 (one cut per cooldown)", g.Limit())
	}
	g.observe(time.Second)
	if g.Limit() != 4 {
		t.Errorf("limit %d after the cooldown with slow answers still, want 4", g.Limit())
	}
	for i := 0; i < 40; i++ {
		g.observe(25 * time.Millisecond)
	}
	if g.Limit() != 16 {
		t.Errorf("limit %d after quick answers again, want back to 16", g.Limit())
	}
	if cuts, lowest := g.report(); cuts != 2 || lowest != 4 {
		t.Errorf("report: %d cuts, lowest %d; want 2 and 4", cuts, lowest)
	}

	slow := newGovernor(12)
	for i := 0; i < 50; i++ {
		slow.observe(900 * time.Millisecond)
	}
	if slow.Limit() != 12 {
		t.Errorf("a target slow from the start was throttled to %d", slow.Limit())
	}
}
