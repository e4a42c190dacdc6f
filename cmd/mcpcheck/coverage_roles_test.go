package main

import (
	"encoding/json"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// TestSpecCoverageAllRoles: --role all measures the four roles, each
// counting the catalog's records of its role (the OAuth roles wire- and
// fixture-testable ones), and every count adds up.
func TestSpecCoverageAllRoles(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI("spec", "coverage", "--role", "all", "--json")
	if code != exitOK {
		t.Fatalf("spec coverage --role all: exit %d %q", code, stderr)
	}
	var all map[catalog.Role][]catalog.AreaCoverage
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatal(err)
	}
	if len(all) != len(catalog.CoverageRoles) {
		t.Fatalf("roles %v, want %v", all, catalog.CoverageRoles)
	}
	for _, role := range catalog.CoverageRoles {
		total := 0
		for _, a := range all[role] {
			total += a.Total
			if a.Checked+a.Excluded+len(a.Missing) != a.Total {
				t.Errorf("%s, area %s: checked %d + excluded %d + missing %d != total %d", role, a.Area, a.Checked, a.Excluded, len(a.Missing), a.Total)
			}
		}
		want := 0
		for _, r := range cat.Records {
			if r.Level != catalog.May && catalog.CoverageCounts(r, role) {
				want++
			}
		}
		if total != want || total == 0 {
			t.Errorf("%s: coverage counts %d requirements, the catalog has %d", role, total, want)
		}
	}
	if code, _, _ := runCLI("spec", "coverage", "--role", "both"); code != exitUsage {
		t.Errorf("--role both: exit %d, want %d", code, exitUsage)
	}
}
