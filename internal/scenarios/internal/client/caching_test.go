package client

import (
	"math/rand/v2"
	"testing"
	"time"
)

func ms(v ...float64) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x * float64(time.Millisecond))
	}
	return out
}

// TestCachingRateOfMeasuredGaps: gaps as the stage saw them (client/caching/
// poll-jitter-backoff, caching.ttl.polling-jitter-backoff) get the verdict
// the requirement asks for: a fixed rate whose gaps carry load delays on a
// third of them is fixed; one with delays on more is undecided, never
// varied; growth by a factor is varied; too few gaps are never fixed.
func TestCachingRateOfMeasuredGaps(t *testing.T) {
	for _, tc := range []struct {
		name string
		gaps []time.Duration
		want cachingRate
	}{
		{"fixed 1 s, idle", ms(1001, 1002, 1001, 1003, 1001, 1002, 1001, 1002, 1001, 1002), cachingFixed},
		// Delays of 20-160 ms on three gaps, as seen at load 30-60.
		{"fixed 1 s, three gaps delayed", ms(1003, 1160, 1004, 1012, 1080, 1002, 1009, 1041, 1001, 1006), cachingFixed},
		// Delays on half of them (two busy loops beside the load).
		{"fixed 1 s, half the gaps delayed", ms(1089, 1022, 1007, 1041, 1047, 1010, 1021, 1155, 1017, 1055), cachingUndecided},
		{"fixed 250 ms, five gaps", ms(251, 252, 251, 252, 251), cachingUndecided},
		{"backoff x2, three gaps", ms(1000, 2003, 4001), cachingVaried},
		{"backoff x1.5, six gaps", ms(500, 752, 1126, 1690, 2531, 3800), cachingVaried},
		{"jitter 25%", ms(812, 1190, 947, 1231, 780, 1102, 1020, 893, 1244, 968), cachingVaried},
	} {
		if got := cachingRateOf(tc.gaps); got != tc.want {
			t.Errorf("%s: gaps %v judged %d, want %d (0 varied, 1 fixed, 2 undecided)", tc.name, tc.gaps, got, tc.want)
		}
	}
}

// TestCachingJitterIsNeverFixed: a client that spreads its re-fetches with
// uniform random jitter of +-25% around 250 ms, 1 s or 5 s, seen through
// one-sided delays of up to 200 ms, is never judged a fixed-rate poller
// (no false failure of caching.ttl.polling-jitter-backoff); from 1 s on,
// most of its runs are judged varied (a pass), while at 250 ms jitter of
// +-62 ms is within what delays can do (undecided). At +-10% a run now and then has
// two thirds of its gaps within 2% by chance: that stays under one run in
// 500. The gaps are drawn from a seeded generator, so the test is the
// same every run.
func TestCachingJitterIsNeverFixed(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	delay := func() float64 {
		if rng.IntN(4) == 0 { // a quarter of the gaps carry a load delay
			return rng.Float64() * 200
		}
		return rng.Float64() * 5
	}
	for _, jitter := range []float64{0.25, 0.10} {
		for _, period := range []float64{250, 1000, 5000} {
			const runs = 5000
			varied, fixed := 0, 0
			for i := 0; i < runs; i++ {
				n := cachingFixedMin + rng.IntN(7)
				v := make([]float64, n)
				for j := range v {
					v[j] = period*(1+jitter*(2*rng.Float64()-1)) + delay()
				}
				switch cachingRateOf(ms(v...)) {
				case cachingFixed:
					fixed++
					if jitter == 0.25 {
						t.Errorf("jitter +-25%% around %v ms judged a fixed rate: gaps %v", period, ms(v...))
					}
				case cachingVaried:
					varied++
				}
			}
			if jitter == 0.25 && period >= 1000 && varied < runs/2 {
				t.Errorf("jitter +-25%% around %v ms: %d of %d runs judged varied, want at least half (the rest undecided)", period, varied, runs)
			}
			if fixed > runs/500 {
				t.Errorf("jitter +-%.0f%% around %v ms: %d of %d runs judged a fixed rate, want at most %d", jitter*100, period, fixed, runs, runs/500)
			}
			t.Logf("jitter +-%.0f%% around %v ms: of %d runs %d varied, %d fixed, the rest undecided", jitter*100, period, runs, varied, fixed)
		}
	}
}

// TestTTLPacingToleratesDelays: delays on the way only add to the gaps a
// TTL-paced client leaves, so one gap in three pushed late by a busy
// machine (make test at -p 4 saw the poll-at-ttl proof pass on such a
// run) leaves the run paced; gaps that come earlier than the TTL, or
// later than delays explain on two in three, are not paced; in between
// the run is undecided.
func TestTTLPacingToleratesDelays(t *testing.T) {
	const ttl = 500 * time.Millisecond
	run := func(gaps ...time.Duration) []cachingRefetch {
		var r []cachingRefetch
		for _, g := range gaps {
			r = append(r, cachingRefetch{gap: g, ttl: ttl})
		}
		return r
	}
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for _, tc := range []struct {
		name             string
		run              []cachingRefetch
		paced, undecided bool
	}{
		{"at the TTL", run(ms(510), ms(520), ms(505)), true, false},
		{"one gap in three delayed", run(ms(510), ms(1900), ms(505)), true, false},
		{"one gap earlier than the TTL", run(ms(510), ms(300), ms(505)), false, false},
		{"at twice the TTL", run(ms(1000), ms(1010), ms(990)), false, false},
		{"two in three a little late", run(ms(510), ms(760), ms(770)), false, true},
		{"no TTL", []cachingRefetch{{gap: ms(500), ttl: -1}, {gap: ms(500), ttl: -1}, {gap: ms(500), ttl: -1}}, false, false},
	} {
		if paced, undecided := cachingTTLPaced(tc.run); paced != tc.paced || undecided != tc.undecided {
			t.Errorf("%s: paced %v undecided %v, want %v %v", tc.name, paced, undecided, tc.paced, tc.undecided)
		}
	}
}
