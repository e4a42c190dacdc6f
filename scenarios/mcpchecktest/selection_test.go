package mcpchecktest

import (
	"reflect"
	"slices"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

func TestSplitPatternAsTestingDoes(t *testing.T) {
	for in, want := range map[string][][]string{
		"TestMCP":                      {{"TestMCP"}},
		"TestMCP/tools/":               {{"TestMCP", "tools", ""}},
		"TestMCP/(tools|ping)/":        {{"TestMCP", "(tools|ping)", ""}},
		"TestMCP/[/]x":                 {{"TestMCP", "[/]x"}},
		`TestMCP/a\/b`:                 {{"TestMCP", `a\/b`}},
		"TestA|TestMCP/tools/list-res": {{"TestA"}, {"TestMCP", "tools", "list-res"}},
	} {
		if got := splitPattern(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitPattern(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSelectionPlansTheChecksAPatternCanSelect(t *testing.T) {
	all, allVersions, narrowed := newSelection("TestMCP", "").plan(nil)
	if narrowed || len(all) < 100 || !slices.Equal(allVersions, spec.Versions) {
		t.Fatalf("no pattern: %d checks in %v (narrowed %v); want every check in every version", len(all), allVersions, narrowed)
	}
	for _, c := range []struct {
		name, pattern string
		wantSome      string // a check the plan must hold
		wantNot       string // a check it must leave out
		versions      []spec.Version
	}{
		{"area", "TestMCP/tools/", "tools/names", "ping/empty-result", spec.Versions},
		{"one check and version", "TestMCP/ping/empty-result/2025-11-25", "ping/empty-result", "ping/before-initialize", []spec.Version{spec.V20251125}},
		{"transport level", "TestMCP/ping/empty-result/2026-07-28/streamable", "ping/empty-result", "tools/names", []spec.Version{spec.V20260728}},
		{"other test first", "TestOther|TestMCP/ping/", "ping/empty-result", "tools/names", spec.Versions},
		{"inside a subtest", "TestServers/mine/tools/", "tools/names", "ping/empty-result", spec.Versions},
	} {
		name := "TestMCP"
		if c.name == "inside a subtest" {
			name = "TestServers/mine"
		}
		ids, vs, narrowed := newSelection(name, c.pattern).plan(nil)
		if !narrowed || !slices.Contains(ids, c.wantSome) || slices.Contains(ids, c.wantNot) || !slices.Equal(vs, c.versions) {
			t.Errorf("%s (%q): narrowed %v, %d checks, versions %v; want %s in, %s out, versions %v", c.name, c.pattern, narrowed, len(ids), vs, c.wantSome, c.wantNot, c.versions)
		}
	}
	if ids, _, narrowed := newSelection("TestMCP", "TestMCP/(unclosed").plan(nil); narrowed || len(ids) != len(all) {
		t.Errorf("a pattern that does not compile must select everything (the testing package reports it), got %d checks", len(ids))
	}
}
