package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpcheck/mcpcheck/spec"
)

func TestCompare(t *testing.T) {
	before := &Run{Checks: []Check{
		{ID: "stays", Version: "v", Outcome: Pass},
		{ID: "breaks", Version: "v", Outcome: Pass},
		{ID: "fixed", Version: "v", Outcome: Fail},
		{ID: "softens", Version: "v", Outcome: Fail},
		{ID: "now-na", Version: "v", Outcome: Untestable},
		{ID: "removed", Version: "v", Outcome: Fail},
		{ID: "per-version", Version: "a", Outcome: Pass},
		{ID: "pass-to-na", Version: "v", Outcome: Pass},
		{ID: "fail-to-na", Version: "v", Outcome: Fail},
		{ID: "warn-to-untestable", Version: "v", Outcome: Warn},
	}}
	after := &Run{Checks: []Check{
		{ID: "stays", Version: "v", Outcome: Pass},
		{ID: "breaks", Version: "v", Outcome: Error},
		{ID: "fixed", Version: "v", Outcome: Pass},
		{ID: "softens", Version: "v", Outcome: Warn},
		{ID: "now-na", Version: "v", Outcome: NA},
		{ID: "added-broken", Version: "v", Outcome: Fail},
		{ID: "per-version", Version: "b", Outcome: Pass},
		{ID: "pass-to-na", Version: "v", Outcome: NA},
		{ID: "fail-to-na", Version: "v", Outcome: NA},
		{ID: "warn-to-untestable", Version: "v", Outcome: Untestable},
	}}
	k := func(id, v string) CheckKey { return CheckKey{ID: id, Version: spec.Version(v)} }
	want := Diff{
		NewFailures: []Change{{Key: k("added-broken", "v"), After: Fail}, {Key: k("breaks", "v"), Before: Pass, After: Error}},
		Fixed:       []Change{{Key: k("fixed", "v"), Before: Fail, After: Pass}},
		Lost: []Change{{Key: k("fail-to-na", "v"), Before: Fail, After: NA}, {Key: k("pass-to-na", "v"), Before: Pass, After: NA},
			{Key: k("per-version", "a"), Before: Pass}, {Key: k("removed", "v"), Before: Fail}, {Key: k("warn-to-untestable", "v"), Before: Warn, After: Untestable}},
		LostVersions: []spec.Version{"a"},
		Changed:      []Change{{Key: k("now-na", "v"), Before: Untestable, After: NA}, {Key: k("softens", "v"), Before: Fail, After: Warn}},
		Added:        []Change{{Key: k("added-broken", "v"), After: Fail}, {Key: k("per-version", "b"), After: Pass}},
		Removed:      []Change{{Key: k("per-version", "a"), Before: Pass}, {Key: k("removed", "v"), Before: Fail}},
	}
	if diff := cmp.Diff(want, Compare(before, after)); diff != "" {
		t.Errorf("Compare (-want +got)\n%s", diff)
	}
	if !Compare(before, before).Empty() {
		t.Error("a run compared with itself must have no changes")
	}
	if d := Compare(nil, after); len(d.Added) != len(after.Checks) {
		t.Errorf("Compare(nil, run) must list every check as added")
	}
}

// TestCompareByRequirement: a check that fails in both runs but breaks a
// requirement now that it did not before is a new failure keyed by that
// requirement (and one it no longer breaks is fixed), whether or not its
// outcome changed; a check that cannot tell its requirements apart broke
// all of them; an error judged nothing, so it is lost coverage, never a
// requirement fixed.
func TestCompareByRequirement(t *testing.T) {
	reqs := []string{"a", "b", "c"}
	before := &Run{Checks: []Check{
		{ID: "second", Version: "v", Outcome: Fail, Requirements: reqs, Violated: []string{"a"}},
		{ID: "swapped", Version: "v", Outcome: Fail, Requirements: reqs, Violated: []string{"a"}},
		{ID: "softens", Version: "v", Outcome: Fail, Requirements: reqs, Violated: []string{"a", "b"}},
		{ID: "all-then-one", Version: "v", Outcome: Warn, Requirements: reqs},
		{ID: "errors", Version: "v", Outcome: Fail, Requirements: reqs, Violated: []string{"a"}},
		{ID: "same", Version: "v", Outcome: Fail, Requirements: reqs, Violated: []string{"b", "a"}},
		{ID: "breaks", Version: "v", Outcome: Pass, Requirements: reqs},
	}}
	after := &Run{Checks: []Check{
		{ID: "second", Version: "v", Outcome: Fail, Requirements: reqs, Violated: []string{"a", "b"}},
		{ID: "swapped", Version: "v", Outcome: Fail, Requirements: reqs, Violated: []string{"c"}},
		{ID: "softens", Version: "v", Outcome: Warn, Requirements: reqs, Violated: []string{"b"}},
		{ID: "all-then-one", Version: "v", Outcome: Warn, Requirements: reqs, Violated: []string{"c"}},
		{ID: "errors", Version: "v", Outcome: Error, Requirements: reqs},
		{ID: "same", Version: "v", Outcome: Fail, Requirements: reqs, Violated: []string{"a", "b"}},
		{ID: "breaks", Version: "v", Outcome: Fail, Requirements: reqs, Violated: []string{"c", "b"}},
	}}
	k := func(id string) CheckKey { return CheckKey{ID: id, Version: "v"} }
	r := func(id, req string, b, a Outcome) Change {
		return Change{Key: k(id), Requirement: req, Before: b, After: a}
	}
	want := Diff{
		NewFailures: []Change{
			{Key: k("breaks"), Before: Pass, After: Fail, Violated: []string{"b", "c"}},
			r("second", "b", Fail, Fail),
			r("swapped", "c", Fail, Fail),
		},
		Fixed: []Change{
			r("all-then-one", "a", Warn, Warn),
			r("all-then-one", "b", Warn, Warn),
			r("softens", "a", Fail, Warn),
			r("swapped", "a", Fail, Fail),
		},
		Lost:    []Change{{Key: k("errors"), Before: Fail, After: Error}},
		Changed: []Change{{Key: k("softens"), Before: Fail, After: Warn}},
	}
	d := Compare(before, after)
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("Compare (-want +got)\n%s", diff)
	}
	var txt bytes.Buffer
	if err := d.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), "second [v]: fail -> fail  requirement b newly broken") {
		t.Errorf("the text diff does not name the new requirement:\n%s", txt.String())
	}
	js, err := json.Marshal(d.NewFailures[1])
	if err != nil {
		t.Fatal(err)
	}
	if got := string(js); got != `{"key":{"id":"second","version":"v"},"requirement":"b","before":"fail","after":"fail"}` {
		t.Errorf("JSON of a per-requirement change: %s", got)
	}
	if !Compare(after, after).Empty() {
		t.Error("a run compared with itself must have no changes")
	}
}
