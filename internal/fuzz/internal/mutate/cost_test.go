package mutate

import (
	"slices"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

// TestMutatorCostIsDeclared holds each mutator's declared cost to the
// inputs it makes, fast: an input that needs an instance of its own (Fresh,
// or CloseAfter over stdio, which ends the instance) must come from a
// mutator that is costly in that version (Cost or FreshIn), and one of a
// mebibyte or more from a mutator that is not Cheap. A FreshIn era in
// which no input needs an instance of its own is a stale declaration.
// Before the costs were fields of Mutator they were name-keyed maps that
// only a slow campaign's timings could show wrong.
func TestMutatorCostIsDeclared(t *testing.T) {
	const seeds = 24
	for _, m := range append(MutatorsFor(false), httpAsMutators()...) {
		if m.Cost != Cheap && len(m.FreshIn) == 0 {
			// Costly in every version, whatever its inputs need: nothing
			// to hold it to (and its inputs are the dear ones to make).
			continue
		}
		for _, v := range spec.Versions {
			fresh := false
			for seed := uint64(1); seed <= seeds; seed++ {
				in, err := MakeInput(v, m.Name, seed, nil)
				if err != nil {
					t.Fatalf("%s in %s: %v", m.Name, v, err)
				}
				size := len(in.Bytes())
				if in.HTTP != nil {
					size += len(in.HTTP.Body)
				}
				if in.Fresh || (in.CloseAfter && m.Over != OverHTTP) {
					fresh = true
					if !m.CostlyIn(v) {
						t.Errorf("%s (seed %d) needs an instance of its own in %s, but declares neither a Cost nor FreshIn for the %v era: set one on the Mutator", m.Name, seed, v, v.Era())
						break
					}
				}
				if size >= 1<<20 && m.Cost == Cheap {
					t.Errorf("%s (seed %d) made an input of %d bytes in %s but is declared Cheap: give it Cost Costly or Slow", m.Name, seed, size, v)
					break
				}
			}
			if slices.Contains(m.FreshIn, v.Era()) && !fresh {
				t.Errorf("%s declares FreshIn %v, but none of %d inputs in %s needed an instance of its own: remove the era", m.Name, v.Era(), seeds, v)
			}
		}
	}
}
