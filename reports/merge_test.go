package reports

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpcheck/mcpcheck/spec"
)

func shardRun(shard string, start time.Time, d time.Duration, checks ...Check) *Run {
	return &Run{Schema: Schema, Tool: Tool{Name: "mcpcheck"}, Target: Target{Kind: TargetStdio, Command: "srv", Role: "server"},
		Started: start, Duration: d, Versions: []spec.Version{spec.V20251125, spec.V20241105}, Transport: "stdio", Shard: shard, Checks: checks}
}

// TestMergeRunsJoinsShards: the checks of two shards are joined in version
// then ID order, a check both shards ran keeps its worst outcome, the
// time spans both runs, and nothing is reported missing.
func TestMergeRunsJoinsShards(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := func(id string, v spec.Version, o Outcome) Check {
		return Check{ID: id, Version: v, Transport: "stdio", Outcome: o}
	}
	a := shardRun("1/2", t0, 2*time.Second, c("b/one", spec.V20251125, Pass), c("z/passive", spec.V20251125, Pass), c("z/passive", spec.V20241105, Untestable))
	b := shardRun("2/2", t0.Add(time.Second), 3*time.Second, c("a/two", spec.V20241105, Fail), c("z/passive", spec.V20251125, Fail), c("z/passive", spec.V20241105, Pass))
	b.Problems = []string{"p"}
	m, missing, err := MergeRuns([]*Run{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) != 0 {
		t.Errorf("missing %v, want none", missing)
	}
	var got []string
	for _, ch := range m.Checks {
		got = append(got, string(ch.Version)+" "+ch.ID+" "+ch.Outcome.String())
	}
	want := []string{"2024-11-05 a/two fail", "2024-11-05 z/passive pass", "2025-11-25 b/one pass", "2025-11-25 z/passive fail"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("merged checks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !m.Started.Equal(t0) || m.Duration != 4*time.Second || m.Shard != "" || len(m.Problems) != 1 {
		t.Errorf("started %s, duration %s, shard %q, problems %v; want %s, 4s, none, [p]", m.Started, m.Duration, m.Shard, m.Problems, t0)
	}
	if m.Versions[0] != spec.V20241105 || len(m.Versions) != 2 {
		t.Errorf("versions %v, want oldest first", m.Versions)
	}
}

// TestMergeRunsRefusesMismatches: shards of other targets, a shard given
// twice or splits of different sizes are refused; a missing shard is
// named.
func TestMergeRunsRefusesMismatches(t *testing.T) {
	t0 := time.Now()
	other := shardRun("2/2", t0, time.Second)
	other.Target.Command = "other"
	for name, runs := range map[string][]*Run{
		"target":    {shardRun("1/2", t0, time.Second), other},
		"twice":     {shardRun("1/2", t0, time.Second), shardRun("1/2", t0, time.Second)},
		"split":     {shardRun("1/2", t0, time.Second), shardRun("2/3", t0, time.Second)},
		"bad label": {shardRun("3/2", t0, time.Second)},
		"none":      nil,
	} {
		if _, _, err := MergeRuns(runs); err == nil {
			t.Errorf("%s: merged, want an error", name)
		}
	}
	_, missing, err := MergeRuns([]*Run{shardRun("2/3", t0, time.Second)})
	if err != nil || strings.Join(missing, ",") != "1/3,3/3" {
		t.Errorf("missing %v (%v), want 1/3 and 3/3", missing, err)
	}
}

// TestMergeRunsKeepsBrokenRequirements: a passive check that two shards
// both found broken keeps every requirement either broke, so a baseline
// expecting one of them still finds the other new; an error kept over a
// failure keeps the failure's requirements.
func TestMergeRunsKeepsBrokenRequirements(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	reqs := []string{"a", "b", "c"}
	c := func(id string, o Outcome, violated ...string) Check {
		return Check{ID: id, Version: spec.V20251125, Transport: "stdio", Outcome: o, Requirements: reqs, Violated: violated}
	}
	one := shardRun("1/2", t0, time.Second, c("z/two-shards", Fail, "a"), c("z/error-wins", Fail, "b"), c("z/all", Warn), c("z/pass", Pass))
	two := shardRun("2/2", t0, time.Second, c("z/two-shards", Warn, "b"), c("z/error-wins", Error), c("z/all", Fail, "a"), c("z/pass", Pass))
	m, _, err := MergeRuns([]*Run{one, two})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ch := range m.Checks {
		got[ch.ID] = ch.Outcome.String() + " " + strings.Join(ch.Violated, ",") + " -> " + strings.Join(ch.BrokenRequirements(), ",")
	}
	want := map[string]string{
		"z/two-shards": "fail a,b -> a,b",
		"z/error-wins": "error b -> b",
		"z/all":        "fail  -> a,b,c",
		"z/pass":       "pass  -> ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged outcome, Violated -> broken requirements (-want +got)\n%s", diff)
	}
	Apply(m, &Baseline{Entries: []BaselineEntry{
		{Check: "z/two-shards", Requirements: []string{"a"}, Reason: "r"},
		{Check: "z/error-wins", Requirements: []string{}, Reason: "crashes"},
	}})
	for _, ch := range m.Checks {
		switch ch.ID {
		case "z/two-shards", "z/error-wins":
			if want := map[string]string{"z/two-shards": "b", "z/error-wins": "b"}[ch.ID]; ch.Baselined || strings.Join(ch.Unexpected, ",") != want {
				t.Errorf("%s: baselined %v, unexpected %v; want %s, broken in the other shard, unexpected", ch.ID, ch.Baselined, ch.Unexpected, want)
			}
		}
	}
}
