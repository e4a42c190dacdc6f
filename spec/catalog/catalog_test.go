package catalog

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/sharedtest"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/specscan"
)

func TestEmbeddedCatalogIsValid(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatalf("the embedded catalog has problems; fix the data files under spec/catalog/data:\n%v", err)
	}
	for _, v := range spec.Versions {
		t.Logf("%s: %v", v, c.Counts(v))
	}
}

func TestRecordValidationRejectsBadFields(t *testing.T) {
	good := Record{ID: "lifecycle.initialize.first", Level: Must, Role: RoleClient, Area: "lifecycle",
		Since: spec.V20241105, Page: "basic/lifecycle", Section: "Initialization",
		Summary: "The client opens with initialize.", Testability: Wire, Why: "seen on the wire",
		Refs: []string{"basic/lifecycle#0123abcd"}}
	if errs := good.Validate(); len(errs) != 0 {
		t.Fatalf("a well-formed record must validate, got %v", errs)
	}
	cases := map[string]func(*Record){
		"positional id":   func(r *Record) { r.ID = "req-17" },
		"unknown level":   func(r *Record) { r.Level = "MUSTN'T" },
		"unknown role":    func(r *Record) { r.Role = "host" },
		"unknown area":    func(r *Record) { r.Area = "misc" },
		"until < since":   func(r *Record) { r.Since, r.Until = spec.V20251125, spec.V20250326 },
		"unknown version": func(r *Record) { r.Since = "2025-01-01" },
		"empty summary":   func(r *Record) { r.Summary = "" },
		"no testability":  func(r *Record) { r.Testability = "" },
		"no refs":         func(r *Record) { r.Refs = nil },
		"bad ref":         func(r *Record) { r.Refs = []string{"basic/lifecycle#xyz"} },
	}
	for name, mutate := range cases {
		r := good
		mutate(&r)
		if errs := r.Validate(); len(errs) == 0 {
			t.Errorf("%s: want a validation error, got none", name)
		}
	}
}

// TestEveryKeywordIsAccountedFor is the catalog's completeness proof: every
// bold keyword on the basic/, server/ and client/ pages of every released
// version must be covered by a record whose version range includes that
// version, or by a reasoned skip; and every record must point only at
// keywords that exist, with the level and version range they have.
func TestEveryKeywordIsAccountedFor(t *testing.T) {
	if sharedtest.Dir() == "" {
		t.Skip("specification pages not present (set MCPCHECK_SHARED); the accounting test needs them")
	}
	c, err := Default()
	if err != nil {
		t.Fatalf("catalog does not load: %v", err)
	}
	pages := map[spec.Version][]specscan.Occurrence{}
	for _, v := range spec.Versions {
		dir := sharedtest.SpecDir(string(v))
		if dir == "" {
			t.Fatalf("pages of %s missing under %s", v, filepath.Join(sharedtest.Dir(), "mcp-spec"))
		}
		occ, err := specscan.ScanDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		pages[v] = occ
	}
	a := c.Account(pages)
	t.Log("\n" + a.Summary())
	const show = 40
	for i, f := range a.Uncovered {
		if i == show {
			t.Errorf("... and %d more uncovered keywords (go run ./cmd/catalogtool account -spec DIR lists them all)", len(a.Uncovered)-show)
			break
		}
		t.Errorf("uncovered: %s", f)
	}
	for _, s := range a.Dangling {
		t.Errorf("dangling: %s", s)
	}
	for _, s := range a.Mislevelled {
		t.Errorf("level: %s", s)
	}
	for _, s := range a.RangeErrors {
		t.Errorf("range: %s", s)
	}
}

func TestSeedsAreCoveredBySpecPages(t *testing.T) {
	dir := sharedtest.Dir()
	if dir == "" {
		t.Skip("reference material not present")
	}
	seen := map[string]bool{}
	for _, v := range spec.Versions {
		occ, err := specscan.ScanDir(sharedtest.SpecDir(string(v)))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range occ {
			seen[o.Hash] = true
		}
	}
	seeds, _ := filepath.Glob(filepath.Join(dir, "seeds", "*.txt"))
	c, _ := Default()
	extra := map[string]bool{}
	if c != nil {
		for _, r := range c.Records {
			for _, ref := range r.Refs {
				if p, h, _, err := ParseRef(ref); err == nil && filepath.Dir(p) == "seeds" {
					extra[h] = true
				}
			}
		}
		for _, s := range c.Skips {
			if p, h, _, err := ParseRef(s.Ref); err == nil && filepath.Dir(p) == "seeds" {
				extra[h] = true
			}
		}
	}
	missing := 0
	for _, f := range seeds {
		occ := scanFile(t, f)
		for _, o := range occ {
			if !seen[o.Hash] && !extra[o.Hash] {
				missing++
				t.Errorf("seed %s: keyword %s not found on any spec page nor in the catalog (ref seeds/%s#%s): %s",
					filepath.Base(f), o.Keyword, strings.TrimSuffix(filepath.Base(f), ".txt"), o.Hash, o.Sentence)
			}
		}
	}
	t.Logf("%d seed files checked, %d keywords missing", len(seeds), missing)
}
