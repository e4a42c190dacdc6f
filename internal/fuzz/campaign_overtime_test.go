package fuzz

import (
	"context"
	"testing"
	"time"
)

// TestReproductionOvertimeIsBounded: a finding's reproduction gets its
// MinimizeTime, but never past the campaign's overtime: MinimizeTime or
// the campaign's own duration, whichever is shorter, and at least
// minOvertime.
func TestReproductionOvertimeIsBounded(t *testing.T) {
	now := time.Now()
	cases := []struct {
		name            string
		start, deadline time.Time
		limit, want     time.Duration // want: the context's deadline from now, about
	}{
		{"no deadline", now, time.Time{}, 30 * time.Second, 30 * time.Second},
		{"long campaign, early finding", now.Add(-time.Minute), now.Add(9 * time.Minute), 30 * time.Second, 30 * time.Second},
		{"long campaign, ended", now.Add(-10 * time.Minute), now, 30 * time.Second, 30 * time.Second},
		{"long campaign, ended 20 s ago", now.Add(-10 * time.Minute), now.Add(-20 * time.Second), 30 * time.Second, 10 * time.Second},
		{"5 s campaign, ended", now.Add(-5 * time.Second), now, 30 * time.Second, minOvertime},
		{"20 s campaign, ended", now.Add(-20 * time.Second), now, 30 * time.Second, 20 * time.Second},
	}
	for _, c := range cases {
		ctx, cancel := reproductionContext(context.Background(), c.start, c.deadline, c.limit)
		d, ok := ctx.Deadline()
		cancel()
		if !ok {
			t.Fatalf("%s: no deadline", c.name)
		}
		if got := d.Sub(now); got < c.want-time.Second || got > c.want+time.Second {
			t.Errorf("%s: reproduction may run %v from now, want about %v", c.name, got, c.want)
		}
	}
}
