package fuzz

import "github.com/mcpcheck/mcpcheck/internal/harness/shard"

// Shard selects one part of a campaign split over N machines. A campaign
// draws its inputs from a sequence fixed by the seed (input i of worker w
// is made from Mix(Seed, w, i)); shard K of N (1 <= K <= N) runs only the
// inputs i with i mod N = K-1, so N campaigns with the same seed and flags
// and K = 1..N run every input of the sequence exactly once, and a bound
// of MaxExecs counts the whole sequence: shard K runs its share of the
// first MaxExecs inputs, and the shards' executions add up to MaxExecs.
// With one worker the shards together run exactly the inputs of the
// unsharded campaign; their findings differ from its only where a finding
// needs the inputs before it on the same session. The zero value runs
// every input.
type Shard struct {
	K, N int
}

// Valid reports whether s is the zero value or a shard K of N with
// 1 <= K <= N.
func (s Shard) Valid() bool { return shard.Part(s).Valid() }

// String is "K/N", or "" for the zero value.
func (s Shard) String() string { return shard.Part(s).String() }

// split reports whether the shard runs part of the sequence only.
func (s Shard) split() bool { return s.N > 1 }

// Share is how many of the first m inputs of the sequence belong to the
// shard (m itself for the zero value).
func (s Shard) Share(m int64) int64 {
	if !s.split() {
		return m
	}
	first := int64(s.K - 1)
	if m <= first {
		return 0
	}
	return (m-first-1)/int64(s.N) + 1
}

// start and step are the first input index of a worker's sequence the
// shard runs and the distance between its inputs.
func (s Shard) start() int {
	if !s.split() {
		return 0
	}
	return s.K - 1
}

func (s Shard) step() int {
	if !s.split() {
		return 1
	}
	return s.N
}

// global turns the shard's n-th execution (1-based) into the number the
// same input has in the unsharded campaign (with one worker).
func (s Shard) global(n int64) int64 {
	if !s.split() {
		return n
	}
	return (n-1)*int64(s.N) + int64(s.K)
}
