package reports

import (
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
		Lost:        []Change{{Key: k("fail-to-na", "v"), Before: Fail, After: NA}, {Key: k("pass-to-na", "v"), Before: Pass, After: NA}, {Key: k("warn-to-untestable", "v"), Before: Warn, After: Untestable}},
		Changed:     []Change{{Key: k("now-na", "v"), Before: Untestable, After: NA}, {Key: k("softens", "v"), Before: Fail, After: Warn}},
		Added:       []Change{{Key: k("added-broken", "v"), After: Fail}, {Key: k("per-version", "b"), After: Pass}},
		Removed:     []Change{{Key: k("per-version", "a"), Before: Pass}, {Key: k("removed", "v"), Before: Fail}},
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
