package reports

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// TestCheckAliasesAreWellFormed: every old ID resolves in one step to an
// ID of the form AREA/name whose AREA is a catalog area, no new ID is
// itself renamed, and no two old IDs name one check. (That each old ID is
// no live check and each new one is lives in the registries' tests, which
// may import the suites.)
func TestCheckAliasesAreWellFormed(t *testing.T) {
	aliases := CheckIDAliases()
	if len(aliases) == 0 {
		t.Fatal("the alias table is empty")
	}
	targets := map[string]string{}
	for old, now := range aliases {
		if old == now || old == "" || now == "" {
			t.Errorf("alias %q -> %q: an alias names two different, non-empty IDs", old, now)
		}
		if _, chained := aliases[now]; chained {
			t.Errorf("alias %q -> %q: the new ID is itself renamed; point the old one at the last name", old, now)
		}
		area, name, ok := strings.Cut(now, "/")
		if !ok || name == "" || !slices.Contains(catalog.Areas, area) {
			t.Errorf("alias %q -> %q: the new ID does not start with a catalog area (%s)", old, now, strings.Join(catalog.Areas, ", "))
		}
		if first, dup := targets[now]; dup {
			t.Errorf("%q and %q both resolve to %q", first, old, now)
		}
		targets[now] = old
		if got := CanonicalCheckID(old); got != now {
			t.Errorf("CanonicalCheckID(%q) = %q, want %q", old, got, now)
		}
		if got := CanonicalCheckID(now); got != now {
			t.Errorf("CanonicalCheckID(%q) = %q, want the ID itself", now, got)
		}
	}
	if got := CanonicalCheckID("no/such-check"); got != "no/such-check" {
		t.Errorf("CanonicalCheckID of an ID that was never renamed = %q, want it unchanged", got)
	}
	aliases["auth/token-expired"] = "changed"
	if CanonicalCheckID("auth/token-expired") != "authorization/token-expired" {
		t.Error("CheckIDAliases hands out the table itself: changing its result changed CanonicalCheckID")
	}
}

// renamedRun is a run with one failing check under its current ID.
func renamedRun(id string) *Run {
	return &Run{Versions: []spec.Version{"2025-11-25"}, Checks: []Check{{
		ID: id, Version: "2025-11-25", Transport: "streamable", Outcome: Fail,
		Requirements: []string{"authorization.token-validation.reject-expired"},
		Violated:     []string{"authorization.token-validation.reject-expired"},
	}}}
}

// TestBaselineOldIDCoversRenamedCheck: a baseline written before the
// rename (it names auth/token-expired) still covers the check now called
// authorization/token-expired, is not stale, and the reports ask once,
// however many entries name the old ID, to write the new one.
func TestBaselineOldIDCoversRenamedCheck(t *testing.T) {
	b, err := ParseBaseline("old.json", strings.NewReader(`{"entries": [
  {"check": "auth/token-expired", "version": "2025-11-25", "requirements": ["authorization.token-validation.reject-expired"], "reason": "upstream #7"},
  {"check": "auth/token-expired", "version": "2025-06-18", "requirements": ["authorization.token-validation.reject-expired"], "reason": "upstream #7"}
]}`))
	if err != nil {
		t.Fatal(err)
	}
	run := renamedRun("authorization/token-expired")
	run.Versions = append(run.Versions, "2025-06-18")
	run.Checks = append(run.Checks, run.Checks[0])
	run.Checks[1].Version = "2025-06-18"
	if stale := Apply(run, b); len(stale) != 0 {
		t.Errorf("stale %v: an entry naming the old ID of a failing check is not stale", stale)
	}
	for _, c := range run.Checks {
		if !c.Baselined || c.BaselineReason != "upstream #7" {
			t.Errorf("%s: baselined %v (%q), want covered by the entry naming its old ID", c.Key(), c.Baselined, c.BaselineReason)
		}
	}
	if j := Verdict(run); j.Failed(true) {
		t.Errorf("verdict %+v: the baselined failures fail the run", j)
	}
	want := []RenamedCheck{{Old: "auth/token-expired", New: "authorization/token-expired"}}
	if diff := cmp.Diff(want, run.Baseline.Renamed); diff != "" {
		t.Errorf("BaselineInfo.Renamed (-want +got)\n%s", diff)
	}
	var text bytes.Buffer
	if err := WriteText(&text, run, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text.String(), "RENAMED"); n != 1 || !strings.Contains(text.String(), "auth/token-expired was renamed authorization/token-expired") {
		t.Errorf("the text report warns %d times (want once, naming both IDs):\n%s", n, text.String())
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, run, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "renamed authorization/token-expired") {
		t.Errorf("the Markdown report does not ask for the new ID:\n%s", md.String())
	}

	// Under its new name the baseline warns of nothing.
	b.Entries[0].Check, b.Entries[1].Check = "authorization/token-expired", "authorization/token-expired"
	Apply(run, b)
	if run.Baseline.Renamed != nil || !run.Checks[0].Baselined {
		t.Errorf("a baseline naming the current ID: renamed %v, baselined %v", run.Baseline.Renamed, run.Checks[0].Baselined)
	}

	// An old entry and a new one expecting the same requirement of the
	// same check repeat one another.
	_, err = ParseBaseline("both.json", strings.NewReader(`{"entries": [
  {"check": "auth/token-expired", "requirements": ["authorization.token-validation.reject-expired"], "reason": "r"},
  {"check": "authorization/token-expired", "requirements": ["authorization.token-validation.reject-expired"], "reason": "r"}
]}`))
	if err == nil || !strings.Contains(err.Error(), "entry 2") || !strings.Contains(err.Error(), "entry 1 already expects") {
		t.Errorf("an old and a new entry for one requirement: error %v, want entry 2 repeats entry 1", err)
	}
}

// TestWriteBaselineWritesCurrentIDs: a baseline written from a run
// recorded before the rename names the checks' current IDs.
func TestWriteBaselineWritesCurrentIDs(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBaseline(&buf, renamedRun("auth/token-expired"), "accepted"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"check": "authorization/token-expired"`) || strings.Contains(buf.String(), `"auth/`) {
		t.Errorf("the baseline does not name the current ID:\n%s", buf.String())
	}
}

// TestCompareAcrossTheRename: a run recorded before the rename compares
// cleanly with one after it; a real change still shows, under the new ID.
func TestCompareAcrossTheRename(t *testing.T) {
	before, after := renamedRun("auth/token-expired"), renamedRun("authorization/token-expired")
	if d := Compare(before, after); !d.Empty() {
		t.Errorf("the same failure under the old and the new ID differs: %+v", d)
	}
	if d := Compare(after, before); !d.Empty() {
		t.Errorf("the same failure under the new and the old ID differs: %+v", d)
	}
	after.Checks[0].Outcome, after.Checks[0].Violated = Pass, nil
	d := Compare(before, after)
	if len(d.Fixed) != 1 || d.Fixed[0].Key.ID != "authorization/token-expired" || len(d.Removed)+len(d.Added) != 0 {
		t.Errorf("a fix across the rename: %+v, want one fixed check under the new ID, nothing added or removed", d)
	}
}

// TestMatrixMergesOldAndNewIDs: a matrix built from a run recorded
// before the rename and one after shows the check once, by its new ID.
func TestMatrixMergesOldAndNewIDs(t *testing.T) {
	m, err := BuildMatrix("", []MatrixInput{
		{Name: "old", Run: renamedRun("auth/token-expired")},
		{Name: "new", Run: renamedRun("authorization/token-expired")},
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Servers {
		if len(s.Violations) != 1 || s.Violations[0].ID != "authorization/token-expired" {
			t.Errorf("%s: violations %+v, want one, of authorization/token-expired", s.Name, s.Violations)
		}
	}
	if len(m.Rows) != 1 {
		t.Fatalf("%d rows, want 1", len(m.Rows))
	}
	for i, c := range m.Rows[0].Cells {
		if len(c.Checks) != 1 || c.Checks[0].ID != "authorization/token-expired" || c.Outcome() != Fail {
			t.Errorf("cell %d: %+v, want the failing check under its new ID", i, c.Checks)
		}
	}
}
