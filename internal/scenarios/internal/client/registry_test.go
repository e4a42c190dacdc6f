package client

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// coverageFloors are the committed numbers of client-side MUST/SHOULD
// requirements client coverage counts (catalog.CoverageCounts) per area that have a check or a written
// exclusion. Raise an area's floor when its coverage grows; the test fails
// when any area shrinks, so a check lost in a refactor cannot go unseen.
var coverageFloors = map[string]int{
	"authorization":   28,
	"base":            29,
	"caching":         2,
	"cancellation":    11,
	"discovery":       1,
	"elicitation":     5,
	"extensions":      1,
	"lifecycle":       11,
	"mrtr":            6,
	"pagination":      4,
	"ping":            4,
	"progress":        4,
	"prompts":         2,
	"roots":           3,
	"sampling":        5,
	"security":        6,
	"subscriptions":   1,
	"tasks":           42,
	"tools":           1,
	"transport-http":  23,
	"transport-sse":   1,
	"transport-stdio": 7,
	"versioning":      5,
}

func TestClientCoverageDoesNotRegress(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	var tot, got int
	for _, a := range cat.Coverage(catalog.RoleClient, CheckedRequirements(), Exclusions) {
		tot += a.Total
		got += a.Checked + a.Excluded
		if len(a.Missing) > 0 {
			t.Errorf("client area %s has requirements with neither a check nor a written exclusion: %v (every wire-testable client requirement has one; add a check or an exclusion)", a.Area, a.Missing)
		}
		if a.Checked+a.Excluded < coverageFloors[a.Area] {
			t.Errorf("client coverage of %s regressed: %d requirements checked or excluded, committed floor %d (missing: %v)",
				a.Area, a.Checked+a.Excluded, coverageFloors[a.Area], a.Missing)
		}
	}
	t.Logf("client coverage: %d of %d wire-testable MUST/SHOULD requirements", got, tot)
}

// TestClientRegistryCitesClientRequirements: every check cites catalog
// requirements a client must keep, at MUST or SHOULD level, and every
// exclusion names a wire-testable client requirement no check cites.
func TestClientRegistryCitesClientRequirements(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Checks() {
		for _, id := range d.Requirements {
			rec, ok := cat.Get(id)
			if !ok {
				t.Errorf("check %s cites %q, which is not in the catalog", d.ID, id)
				continue
			}
			if !catalog.CountsFor(rec.Role, catalog.RoleClient) {
				t.Errorf("check %s cites %q of role %s: client checks cite client-side requirements", d.ID, id, rec.Role)
			}
			if !rec.Level.Mandatory() && !rec.Level.Advisory() {
				t.Errorf("check %s cites %q, a %s: checks enforce MUST or SHOULD requirements", d.ID, id, rec.Level)
			}
		}
	}
	checked := CheckedRequirements()
	for id, why := range Exclusions {
		rec, ok := cat.Get(id)
		switch {
		case !ok:
			t.Errorf("exclusion %q names no catalog requirement", id)
		case !catalog.CoverageCounts(rec, catalog.RoleClient):
			t.Errorf("exclusion %q is not a requirement client coverage counts (role %s, %s): nothing to exclude", id, rec.Role, rec.Testability)
		case len(checked[id]) > 0:
			t.Errorf("exclusion %q is also cited by %v: drop the exclusion or the citation", id, checked[id])
		case len(why) < 40:
			t.Errorf("exclusion %q says only %q: write why the wire cannot show it", id, why)
		}
	}
}
