package suite_test

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/scenarios/suite"
)

// TestChecksAreListedByPlace: a registry lists its checks by the place
// that registered them (file, then line), not in the order the
// registrations ran: Go runs an area package's after its content
// package's, and a var after those it depends on.
func TestChecksAreListedByPlace(t *testing.T) {
	r := suite.NewRegistry[*int](suite.Rules{Name: "test", Root: "suite"})
	def := func(id string) suite.Def[*int] {
		return suite.Def[*int]{ID: id, Title: "t", Area: "ping", Requirements: []string{"r"}, Body: func(*int) {}}
	}
	early := func() { r.Register(def("ping/early")) }
	late := func() { r.Register(def("ping/late")) }
	late()
	early()
	defs := r.Checks()
	if len(defs) != 2 || defs[0].ID != "ping/early" || defs[1].ID != "ping/late" {
		t.Fatalf("Checks = %v, %v; want ping/early (registered from the earlier line) first", defs[0].ID, defs[1].ID)
	}
	if d, ok := r.Lookup("ping/late"); !ok || d.ID != "ping/late" {
		t.Errorf("Lookup after the reorder = %q, %v", d.ID, ok)
	}
}
