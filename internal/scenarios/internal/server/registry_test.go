package server

import (
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/suite"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"

	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// coverageFloor is the committed number of wire-testable server-side
// MUST/SHOULD requirements that have a check or a written exclusion. Raise
// it when coverage grows; the test fails when it shrinks.
const coverageFloor = 247

func TestRegistryCitesKnownServerRequirements(t *testing.T) {
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
			if !catalog.CountsFor(rec.Role, catalog.RoleServer) {
				t.Errorf("check %s cites %q of role %s: server checks cite server-side requirements", d.ID, id, rec.Role)
			}
			if !rec.Level.Mandatory() && !rec.Level.Advisory() {
				t.Errorf("check %s cites %q, a %s: checks enforce MUST or SHOULD requirements", d.ID, id, rec.Level)
			}
		}
	}
}

func TestExclusionsAreRealAndUnchecked(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	checked := CheckedRequirements()
	for id, why := range Exclusions {
		rec, ok := cat.Get(id)
		if !ok {
			t.Errorf("exclusion %q is not in the catalog", id)
			continue
		}
		if !catalog.CoverageCounts(rec, catalog.RoleServer) && !catalog.CoverageCounts(rec, catalog.RoleResourceServer) && !catalog.CoverageCounts(rec, catalog.RoleAuthorizationServer) {
			t.Errorf("exclusion %q is not a requirement server-side coverage counts (wire-testable server-side, or testable resource-server or authorization-server); it needs no exclusion", id)
		}
		if len(why) < 30 {
			t.Errorf("exclusion %q: write why it has no check (%q)", id, why)
		}
		if len(checked[id]) > 0 {
			t.Errorf("exclusion %q has checks %v: drop the exclusion", id, checked[id])
		}
	}
}

func TestCoverageDoesNotRegress(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	var tot, got int
	for _, a := range cat.Coverage(catalog.RoleServer, CheckedRequirements(), Exclusions) {
		tot += a.Total
		got += a.Checked + a.Excluded
	}
	t.Logf("server coverage: %d of %d wire-testable MUST/SHOULD requirements", got, tot)
	if got < coverageFloor {
		t.Fatalf("server coverage regressed: %d < committed floor %d", got, coverageFloor)
	}
}

func TestDuplicateRegistrationPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("registering a check twice did not panic")
		}
	}()
	// A registry of the server suite's rules, holding a copy of a
	// registered check: the real one is frozen by now.
	r := suite.NewRegistry[*T](serverRules)
	d := Checks()[0]
	d.Labels = nil
	r.Register(d)
	r.Register(d)
}

// TestRegistryRefusesBrokenDefs: the server rules refuse what a server
// check may not be, each with an error naming the check.
func TestRegistryRefusesBrokenDefs(t *testing.T) {
	r := suite.NewRegistry[*T](serverRules)
	good := Def{ID: "ping/x", Title: "t", Area: "ping", Requirements: []string{"r"}, Body: func(*T) {}}
	if err := r.Validate(good); err != nil {
		t.Fatalf("a good def: %v", err)
	}
	for name, mod := range map[string]func(*Def){
		"no area in the ID":   func(d *Def) { d.ID = "x" },
		"unknown area":        func(d *Def) { d.Area = "nope" },
		"no body":             func(d *Def) { d.Body = nil },
		"unknown transport":   func(d *Def) { d.Transports = []wire.Transport{"pigeon"} },
		"proof without fault": func(d *Def) { d.Proofs = []Proof{{Version: spec.V20251125, Want: reports.Fail}} },
		"proof without version": func(d *Def) {
			d.Proofs = []Proof{{Fault: "f", Want: reports.Fail}}
		},
		"proof passes": func(d *Def) { d.Proofs = []Proof{{Fault: "f", Version: spec.V20251125, Want: reports.Pass}} },
	} {
		d := good
		mod(&d)
		if err := r.Validate(d); err == nil || !strings.Contains(err.Error(), d.ID) {
			t.Errorf("%s: Validate = %v, want an error naming %s", name, err, d.ID)
		}
	}
}

func TestLabelsRejectUnknownValues(t *testing.T) {
	for name, f := range map[string]func(){
		"area":      func() { Area("nope") },
		"fixture":   func() { Fixture("nope") },
		"transport": func() { Transport("carrier-pigeon") },
		"version":   func() { Version("1999-01-01") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s label accepted an unknown value", name)
				}
			}()
			f()
		}()
	}
}

// TestSchedulingFlagsAgree: an isolated check is never exclusive, and only
// an exclusive check names eras it is isolated in.
func TestSchedulingFlagsAgree(t *testing.T) {
	for _, d := range Checks() {
		if d.Isolated && (d.Exclusive || d.Group != "") {
			t.Errorf("check %s is isolated and also exclusive or in group %q", d.ID, d.Group)
		}
		if len(d.IsolatedIn) > 0 && !d.Exclusive {
			t.Errorf("check %s names eras it is isolated in but is not exclusive", d.ID)
		}
	}
}

// TestOnlySelectsRenamedCheckByOldID: Config.Only naming a check by the ID
// it had before it was renamed (stdio/no-server-requests) runs the
// renamed check, transport-stdio/no-server-requests, and nothing else.
func TestOnlySelectsRenamedCheckByOldID(t *testing.T) {
	v := spec.V20251125
	res := runSuites(t, Config{Target: target.Pipe(quirkServer(censusQuirks{})), Versions: []spec.Version{v},
		Only: []string{"stdio/no-server-requests"}}, time.Minute)
	var ids []string
	for _, c := range res.Report.Checks {
		ids = append(ids, c.ID)
	}
	if len(ids) != 1 || ids[0] != "transport-stdio/no-server-requests" {
		t.Errorf("Only [stdio/no-server-requests] ran %v, want [transport-stdio/no-server-requests]", ids)
	}
}
