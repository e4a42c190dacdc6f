package server

import (
	"hash/fnv"

	"github.com/mcpcheck/mcpcheck/internal/harness/shard"

	"github.com/mcpcheck/mcpcheck/spec"
)

// Shard selects one part of a suite run split over N machines: shard K of
// N (1 <= K <= N) runs the active checks whose identity (version and check
// ID) hashes to K-1 modulo N, so N runs with the same flags and K = 1..N
// run every active check exactly once, whatever the order of registration.
// Passive checks (Def.Passive) judge everything the target sent during a
// version, so every shard runs them on its own traffic; merging the shard
// reports (reports.MergeRuns) keeps their worst outcome. The zero value
// runs everything.
type Shard struct {
	K, N int
}

// Valid reports whether s is the zero value or a shard K of N with
// 1 <= K <= N.
func (s Shard) Valid() bool { return shard.Part(s).Valid() }

// String is "K/N", or "" for the zero value.
func (s Shard) String() string { return shard.Part(s).String() }

// Includes reports whether the active check id of version v belongs to
// the shard.
func (s Shard) Includes(v spec.Version, id string) bool {
	if s.N <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(v))
	h.Write([]byte{0})
	h.Write([]byte(id))
	return int(h.Sum32()%uint32(s.N)) == s.K-1
}
