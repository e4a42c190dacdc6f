package fuzz

import "testing"

// TestShardsPartitionTheSequence: for any split, the shards' inputs (from
// start by step) are disjoint and together the whole sequence; the first
// m inputs are shared out as Share says; and global numbers a shard's
// executions as the unsharded campaign numbers the same inputs.
func TestShardsPartitionTheSequence(t *testing.T) {
	for n := 1; n <= 5; n++ {
		for m := int64(0); m <= 23; m++ {
			owner := map[int64]int{}
			var total int64
			for k := 1; k <= n; k++ {
				s := Shard{K: k, N: n}
				if !s.Valid() {
					t.Fatalf("%s is not valid", s)
				}
				share := s.Share(m)
				total += share
				for e := int64(1); e <= share; e++ {
					g := s.global(e)
					if g < 1 || g > m {
						t.Fatalf("shard %s: execution %d is number %d, outside 1..%d", s, e, g, m)
					}
					if prev, ok := owner[g]; ok {
						t.Fatalf("input %d belongs to shards %d and %d of %d", g, prev, k, n)
					}
					owner[g] = k
					if i := s.start() + int(e-1)*s.step(); int64(i)+1 != g {
						t.Fatalf("shard %s: execution %d runs input %d but is numbered %d", s, e, i, g)
					}
				}
			}
			if total != m || int64(len(owner)) != m {
				t.Fatalf("%d shards of %d inputs: %d executions covering %d inputs", n, m, total, len(owner))
			}
		}
	}
	for _, s := range []Shard{{0, 2}, {3, 2}, {1, 0}, {-1, 1}} {
		if s.Valid() {
			t.Errorf("%+v is valid", s)
		}
	}
	if (Shard{}).Share(7) != 7 || (Shard{}).String() != "" || !(Shard{}).Valid() {
		t.Error("the zero Shard does not run everything")
	}
}
