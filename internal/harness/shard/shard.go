// Package shard names one part of a run split over N machines, "K/N":
// the notation the suite (scenarios.Shard) and fuzz campaigns
// (fuzz.Shard) share. What a part holds is theirs to say; the type, its
// validity and its spelling are one.
package shard

import (
	"fmt"
	"strconv"
	"strings"
)

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

// MaxN bounds N: more parts than that is a typo, not a CI matrix.
const MaxN = 10000

// Parse reads "K/N" (spaces around it allowed); "" is the zero value, a
// value of spaces only is an error. The error says what a valid value
// looks like.
func Parse(s string) (Part, error) {
	if s == "" {
		return Part{}, nil
	}
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	k, errK := strconv.Atoi(a)
	n, errN := strconv.Atoi(b)
	if !ok || errK != nil || errN != nil || n < 1 || n > MaxN || k < 1 || k > n {
		return Part{}, fmt.Errorf("shard %q: use K/N, part K of N with 1 <= K <= N <= %d (e.g. 1/4 ... 4/4 in four jobs)", s, MaxN)
	}
	return Part{K: k, N: n}, nil
}

// Holds reports whether the i-th item (0-based) of a list split by
// position belongs to the part (every item for the zero value).
func (p Part) Holds(i int) bool { return p.N <= 1 || i%p.N == p.K-1 }
