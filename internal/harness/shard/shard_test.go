package shard

import "testing"

// TestPart: the zero value and K/N with 1 <= K <= N are valid and spelled
// "" and "K/N"; anything else is not valid.
func TestPart(t *testing.T) {
	for _, c := range []struct {
		p     Part
		valid bool
		text  string
	}{
		{Part{}, true, ""},
		{Part{1, 1}, true, "1/1"},
		{Part{3, 4}, true, "3/4"},
		{Part{0, 4}, false, "0/4"},
		{Part{5, 4}, false, "5/4"},
		{Part{1, 0}, false, ""},
	} {
		if c.p.Valid() != c.valid || c.p.String() != c.text {
			t.Errorf("%#v: Valid %v String %q; want %v %q", c.p, c.p.Valid(), c.p.String(), c.valid, c.text)
		}
	}
}
