package scenarios

import (
	"sort"
	"testing"
)

// unprovableChecks are the checks no test proves fire, each with the
// reason. It is empty: every check has a fault or proxy case.
var unprovableChecks = map[string]string{}

// TestEveryCheckIsProvenToFire fails when a registered check has no case
// in any of the fault and proxy tables (so nothing shows it can fail) and
// no written reason in unprovableChecks, unprovableFeatureChecks or
// unprovableTransportChecks.
func TestEveryCheckIsProvenToFire(t *testing.T) {
	proven := map[string]bool{}
	for _, cases := range [][]faultCase{faultCases, featureFaultCases, transportFaultCases, featureProofCases} {
		for _, c := range cases {
			proven[c.check] = true
		}
	}
	for _, c := range httpFaultCases {
		proven[c.check] = true
	}
	for _, c := range proxyFaultCases {
		proven[c.check] = true
	}
	for _, c := range transportProofCases {
		proven[c.check] = true
	}
	for _, c := range ruleFaultCases {
		proven[c.check] = true
	}
	var missing []string
	for _, d := range Checks() {
		if proven[d.ID] {
			continue
		}
		_, a := unprovableChecks[d.ID]
		_, b := unprovableFeatureChecks[d.ID]
		_, c := unprovableTransportChecks[d.ID]
		if !a && !b && !c {
			missing = append(missing, d.ID)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d check(s) have no fault or proxy case proving they can fail, and no reason why not: %v", len(missing), missing)
	}
	for id := range proven {
		if _, ok := lookupCheck(id); !ok {
			t.Errorf("a proof case names %q, which is not a registered check", id)
		}
	}
}

func lookupCheck(id string) (Def, bool) {
	for _, d := range Checks() {
		if d.ID == id {
			return d, true
		}
	}
	return Def{}, false
}
