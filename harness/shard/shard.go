// Package shard names one part of a run split over N machines, "K/N":
// the notation the suite (scenarios.Shard) and fuzz campaigns
// (fuzz.Shard) share. What a part holds is theirs to say; the type, its
// validity and its spelling are one.
package shard

import "fmt"

// Part is shard K of N (1 <= K <= N); the zero value is the whole run.
type Part struct {
	K, N int
}

// Valid reports whether p is the zero value or a shard K of N with
// 1 <= K <= N.
func (p Part) Valid() bool {
	return p == Part{} || (p.N >= 1 && p.K >= 1 && p.K <= p.N)
}

// String is "K/N", or "" for the zero value.
func (p Part) String() string {
	if p.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", p.K, p.N)
}
