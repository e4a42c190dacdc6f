package suite

import (
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

type fakeT struct{}

func good(id string) Def[*fakeT] {
	return Def[*fakeT]{ID: id, Title: "t", Area: "ping", Requirements: []string{"r"}, Body: func(*fakeT) {}}
}

func panics(f func()) (msg string) {
	defer func() {
		if p := recover(); p != nil {
			msg = strings.TrimSpace(strings.Join(strings.Fields(toString(p)), " "))
			if msg == "" {
				msg = "panic"
			}
		}
	}()
	f()
	return ""
}

func toString(p any) string {
	if e, ok := p.(error); ok {
		return e.Error()
	}
	s, _ := p.(string)
	return s
}

// TestRegistryRegistersListsAndFreezes: checks come back in registration
// order with the area, transport and mode labels added, a duplicate or a
// registration after the first listing panics, Lookup finds by ID and
// CheckedRequirements inverts the citations.
func TestRegistryRegistersListsAndFreezes(t *testing.T) {
	r := NewRegistry[*fakeT](Rules{Name: "test", Transports: []wire.Transport{"stdio", "streamable"}, Modes: true})
	a, b := good("ping/a"), good("ping/b")
	b.Transports, b.Passive, b.Requirements = []wire.Transport{"stdio"}, true, []string{"r", "s"}
	b.Labels = []string{Fixture("test_logging_tool")}
	r.Register(a, b)
	if msg := panics(func() { r.Register(good("ping/a")) }); !strings.Contains(msg, `"ping/a" registered twice`) {
		t.Errorf("a duplicate: panic %q", msg)
	}
	defs := r.Checks()
	if len(defs) != 2 || defs[0].ID != "ping/a" || defs[1].ID != "ping/b" {
		t.Fatalf("Checks = %v", defs)
	}
	if want := []string{"area:ping", "fixture:test_logging_tool", "transport:stdio", "mode:passive"}; !slices.Equal(defs[1].Labels, want) {
		t.Errorf("labels %v, want %v", defs[1].Labels, want)
	}
	if want := []string{"area:ping", "mode:active"}; !slices.Equal(defs[0].Labels, want) {
		t.Errorf("labels %v, want %v", defs[0].Labels, want)
	}
	if msg := panics(func() { r.Register(good("ping/c")) }); !strings.Contains(msg, "frozen") {
		t.Errorf("a late registration: panic %q", msg)
	}
	if d, ok := r.Lookup("ping/b"); !ok || d.ID != "ping/b" {
		t.Errorf("Lookup(ping/b) = %v, %v", d.ID, ok)
	}
	if _, ok := r.Lookup("ping/none"); ok {
		t.Error("Lookup found a check never registered")
	}
	got := r.CheckedRequirements()
	if !slices.Equal(got["r"], []string{"ping/a", "ping/b"}) || !slices.Equal(got["s"], []string{"ping/b"}) || len(got) != 2 {
		t.Errorf("CheckedRequirements = %v", got)
	}
}

// TestRegistryRules: each rule refuses what it is about, with an error
// naming the check, and accepts the good def.
func TestRegistryRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules Rules
		def   func() Def[*fakeT]
		err   string // "" accepts
	}{
		{"good", Rules{}, func() Def[*fakeT] { return good("ping/a") }, ""},
		{"no slash", Rules{}, func() Def[*fakeT] { return good("ping") }, "use AREA/name"},
		{"no title", Rules{}, func() Def[*fakeT] { d := good("ping/a"); d.Title = ""; return d }, "no title"},
		{"no requirement", Rules{}, func() Def[*fakeT] { d := good("ping/a"); d.Requirements = nil; return d }, "cites no requirement"},
		{"no body", Rules{}, func() Def[*fakeT] { d := good("ping/a"); d.Body = nil; return d }, "no body"},
		{"unknown area", Rules{}, func() Def[*fakeT] { d := good("ping/a"); d.Area = "nope"; return d }, "not a catalog area"},
		{"bare label", Rules{}, func() Def[*fakeT] { d := good("ping/a"); d.Labels = []string{"x"}; return d }, "label"},
		{"unknown version", Rules{}, func() Def[*fakeT] { d := good("ping/a"); d.Since = "1999-01-01"; return d }, "unknown version"},
		{"unknown transport", Rules{Transports: []wire.Transport{"stdio"}}, func() Def[*fakeT] { d := good("ping/a"); d.Transports = []wire.Transport{"sse"}; return d }, "unknown transport"},
		{"prefix", Rules{Prefix: "client/"}, func() Def[*fakeT] { return good("ping/a") }, "use client/AREA/name"},
		{"area in ID", Rules{Prefix: "client/", AreaInID: true}, func() Def[*fakeT] { return good("client/base/a") }, "must read client/ping/"},
		{"area in ID good", Rules{Prefix: "client/", AreaInID: true}, func() Def[*fakeT] { return good("client/ping/a") }, ""},
		{"no area", Rules{Prefix: "authserver/", NoArea: true}, func() Def[*fakeT] { return good("authserver/a") }, "files no areas"},
		{"no area good", Rules{Prefix: "authserver/", NoArea: true}, func() Def[*fakeT] { d := good("authserver/a"); d.Area = ""; return d }, ""},
		{"proof without fault", Rules{}, func() Def[*fakeT] {
			d := good("ping/a")
			d.Proofs = []Proof{{Version: spec.V20251125, Want: reports.Fail}}
			return d
		}, "names a fault switch"},
		{"proof with a proxy where none is", Rules{}, func() Def[*fakeT] {
			d := good("ping/a")
			d.Proofs = []Proof{{Fault: "f", Proxy: "p", Version: spec.V20251125, Want: reports.Fail}}
			return d
		}, "no proxy mode"},
		{"proof with fault and proxy", Rules{ProofProxies: true}, func() Def[*fakeT] {
			d := good("ping/a")
			d.Proofs = []Proof{{Fault: "f", Proxy: "p", Version: spec.V20251125, Want: reports.Fail}}
			return d
		}, "a fault switch or a proxy mode"},
		{"proof that passes", Rules{}, func() Def[*fakeT] {
			d := good("ping/a")
			d.Proofs = []Proof{{Fault: "f", Version: spec.V20251125, Want: reports.Pass}}
			return d
		}, "ends fail or warn"},
		{"proof without version", Rules{}, func() Def[*fakeT] {
			d := good("ping/a")
			d.Proofs = []Proof{{Fault: "f", Want: reports.Fail}}
			return d
		}, "proof version"},
		{"proof without version, optional", Rules{ProofVersionOptional: true}, func() Def[*fakeT] {
			d := good("ping/a")
			d.Proofs = []Proof{{Fault: "f", Want: reports.Fail}}
			return d
		}, ""},
		{"proof transport", Rules{ProofTransports: []wire.Transport{"stdio"}}, func() Def[*fakeT] {
			d := good("ping/a")
			d.Proofs = []Proof{{Fault: "f", Version: spec.V20251125, Transport: "sse", Want: reports.Fail}}
			return d
		}, "proof transport"},
	} {
		d := tc.def()
		err := NewRegistry[*fakeT](tc.rules).Validate(d)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.err != "" && err == nil:
			t.Errorf("%s: accepted, want an error saying %q", tc.name, tc.err)
		case tc.err != "" && (!strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), d.ID)):
			t.Errorf("%s: %v, want it to say %q and name %s", tc.name, err, tc.err, d.ID)
		}
	}
}

// TestUnknownScenarioPanicsAtFreeze: a check naming a scenario the role
// does not know panics when the registry is first listed, not when it
// registers (scenarios register from package-level vars in any order).
func TestUnknownScenarioPanicsAtFreeze(t *testing.T) {
	known := map[string]bool{"one": true}
	r := NewRegistry[*fakeT](Rules{Name: "test", KnownScenario: func(n string) bool { return known[n] }})
	d := good("ping/a")
	d.Scenarios = []string{"one", "two"}
	r.Register(d)
	if msg := panics(func() { r.Checks() }); !strings.Contains(msg, `names scenario "two"`) {
		t.Errorf("panic %q, want one naming scenario two", msg)
	}
	known["two"] = true
	r2 := NewRegistry[*fakeT](Rules{Name: "test", KnownScenario: func(n string) bool { return known[n] }})
	r2.Register(d)
	if n := len(r2.Checks()); n != 1 {
		t.Errorf("%d checks", n)
	}
}

// TestApplies: the version window, the eras and the transports each gate
// a check, saying why; an unbounded check applies everywhere.
func TestApplies(t *testing.T) {
	d := good("ping/a")
	for _, v := range spec.Versions {
		for _, tr := range []wire.Transport{"stdio", "streamable"} {
			if ok, why := d.Applies(v, tr); !ok {
				t.Errorf("an unbounded check is out in %s over %s: %s", v, tr, why)
			}
		}
	}
	for _, tc := range []struct {
		w       Window
		v       spec.Version
		tr      wire.Transport
		ok      bool
		because string
	}{
		{Window{Since: spec.V20250618}, spec.V20250326, "stdio", false, "applies from 2025-06-18"},
		{Window{Since: spec.V20250618}, spec.V20250618, "stdio", true, ""},
		{Window{Until: spec.V20250326}, spec.V20250618, "stdio", false, "applies up to 2025-03-26"},
		{Window{Until: spec.V20250326}, spec.V20250326, "stdio", true, ""},
		{Window{Eras: []spec.Era{spec.Stateless}}, spec.V20251125, "stdio", false, "era"},
		{Window{Eras: []spec.Era{spec.Stateless}}, spec.V20260728, "stdio", true, ""},
		{Window{Transports: []wire.Transport{"streamable"}}, spec.V20251125, "stdio", false, "transport"},
		{Window{Transports: []wire.Transport{"streamable"}}, spec.V20251125, "streamable", true, ""},
	} {
		d := good("ping/a")
		d.Since, d.Until, d.Eras, d.Transports = tc.w.Since, tc.w.Until, tc.w.Eras, tc.w.Transports
		ok, why := d.Applies(tc.v, tc.tr)
		if ok != tc.ok || !strings.Contains(why, tc.because) {
			t.Errorf("%+v in %s over %s: %v %q, want %v %q", tc.w, tc.v, tc.tr, ok, why, tc.ok, tc.because)
		}
		if wok, wwhy := tc.w.Applies(tc.v, tc.tr); wok != ok || wwhy != why {
			t.Errorf("Window.Applies and Def.Applies disagree: %v %q / %v %q", wok, wwhy, ok, why)
		}
	}
}

// TestSpecLabels: a spec carries its version, role, the check's labels
// and the strongest level in force in the version (else of any version).
func TestSpecLabels(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	var must, should string
	for _, rec := range cat.Select(catalog.Filter{}) {
		if must == "" && rec.Level == catalog.Must && rec.In(spec.V20251125) {
			must = rec.ID
		}
		if should == "" && rec.Level == catalog.Should && rec.In(spec.V20251125) {
			should = rec.ID
		}
	}
	d := good("ping/a")
	d.Requirements = []string{should, must}
	d.Labels = []string{Area("ping")}
	got := d.SpecLabels(cat, spec.V20251125, catalog.RoleServer)
	want := []string{"version:2025-11-25", "role:server", "area:ping", "level:must"}
	if !slices.Equal(got, want) {
		t.Errorf("SpecLabels = %v, want %v", got, want)
	}
	if n := d.SpecName(spec.V20251125); n != "[2025-11-25] ping/a: t" {
		t.Errorf("SpecName = %q", n)
	}
}

// TestPlaceNamesAreaFilesAsBeforeTheSplit: an area package's file reads
// DIR_FILE and an area's own DIR/DIR.go reads DIR.go, the names the files
// had in the content package, so the split kept the listing order.
func TestPlaceNamesAreaFilesAsBeforeTheSplit(t *testing.T) {
	for file, want := range map[string]string{
		"/m/scenarios/internal/server/lifecycle.go":           "lifecycle.go",
		"/m/scenarios/internal/server/transport/http.go":      "transport_http.go",
		"/m/scenarios/internal/server/tasks/tasks.go":         "tasks.go",
		"/m/scenarios/internal/client/authorization/stage.go": "authorization_stage.go",
	} {
		root := "server"
		if strings.Contains(file, "client") {
			root = "client"
		}
		if got := placeOfFile(file, 7, root); got.File != want || got.Line != 7 {
			t.Errorf("placeOfFile(%q) = %+v, want %s:7", file, got, want)
		}
	}
}
