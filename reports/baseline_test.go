package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpcheck/mcpcheck/spec"
)

func TestParseBaseline(t *testing.T) {
	b, err := ParseBaseline("b.json", strings.NewReader(`{
  "$schema": "ignored",
  "entries": [
    {"check": "a/b", "reason": "upstream #1"},
    {"check": "a/b", "version": "2025-11-25", "transport": "stdio", "reason": "only there"}
  ]
}`))
	if err != nil {
		t.Fatal(err)
	}
	want := &Baseline{Source: "b.json", Entries: []BaselineEntry{
		{Check: "a/b", Reason: "upstream #1"},
		{Check: "a/b", Version: "2025-11-25", Transport: "stdio", Reason: "only there"},
	}}
	if diff := cmp.Diff(want, b); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestParseBaselineErrors(t *testing.T) {
	cases := []struct {
		name, doc string
		want      []string // substrings of the error
	}{
		{"empty", "  \n", []string{"b.json", "empty", `{"entries": []}`}},
		{"array", `[{"check":"a","reason":"r"}]`, []string{"b.json:1:1", "JSON object"}},
		{"syntax", "{\n  \"entries\": [\n    {\"check\": \"a\" \"reason\": \"r\"}\n  ]\n}", []string{"b.json:3:", "entry 1", "invalid JSON"}},
		{"no reason", "{\"entries\": [\n  {\"check\": \"a\", \"reason\": \"ok\"},\n  {\"check\": \"b\", \"reason\": \"  \"}\n]}", []string{"b.json:3:3", "entry 2", `"reason" is required`, "why this failure is expected"}},
		{"no check", `{"entries": [{"reason": "r"}]}`, []string{"b.json:1:14", `"check" is required`}},
		{"unknown entry field", "{\"entries\": [\n {\"check\": \"a\", \"reason\": \"r\", \"reson\": \"typo\"}]}", []string{"b.json:2:2", "entry 1", `unknown field "reson"`, "check, version, transport and reason"}},
		{"unknown top field", "{\n \"entry\": []}", []string{"b.json:2:2", `unknown field "entry"`}},
		{"wrong type", `{"entries": [{"check": 5, "reason": "r"}]}`, []string{"b.json:1:", "entry 1", `"check"`, "string"}},
		{"bad version", `{"entries": [{"check": "a", "version": "2025-13-01", "reason": "r"}]}`, []string{"not a released protocol version", "2025-11-25"}},
		{"duplicate", `{"entries": [{"check": "a", "reason": "r"}, {"check": "a", "reason": "s"}]}`, []string{"entry 2", "repeats entry 1"}},
		{"no entries", `{}`, []string{`no "entries" array`}},
		{"truncated", `{"entries": [{"check": "a", "reason": "r"}`, []string{"b.json:1:", "ends inside"}},
		{"trailing", `{"entries": []} {}`, []string{"b.json:1:17", "one JSON object"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseBaseline("b.json", strings.NewReader(c.doc))
			if err == nil {
				t.Fatalf("want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestApplyMarksAndFindsStaleEntries(t *testing.T) {
	run := &Run{Versions: []spec.Version{"2024-11-05", "2025-11-25", "2026-07-28"}, Checks: []Check{
		{ID: "fails", Version: "2025-11-25", Transport: "stdio", Outcome: Fail},
		{ID: "fails", Version: "2026-07-28", Transport: "stdio", Outcome: Pass},
		{ID: "warns", Version: "2025-11-25", Outcome: Warn},
		{ID: "fixed", Version: "2025-11-25", Outcome: Pass},
		{ID: "broke-harness", Version: "2025-11-25", Outcome: Error},
		{ID: "untestable-now", Version: "2025-11-25", Outcome: Untestable},
		{ID: "unexpected", Version: "2025-11-25", Outcome: Fail},
	}}
	b := &Baseline{Source: "b.json", Entries: []BaselineEntry{
		{Check: "fails", Reason: "r1"},                                        // matches a failing and a passing check: in use
		{Check: "warns", Reason: "r2"},                                        // in use
		{Check: "fixed", Reason: "r3"},                                        // stale: passes
		{Check: "gone", Reason: "r4"},                                         // stale: absent
		{Check: "broke-harness", Reason: "r5"},                                // in use
		{Check: "untestable-now", Reason: "r6"},                               // cannot tell: not stale
		{Check: "unexpected", Version: "2024-11-05", Reason: "other version"}, // stale: absent in that version
		{Check: "fails", Version: "2025-06-18", Reason: "a version not run"},  // out of scope: not stale
	}}
	stale := Apply(run, b)
	want := []Stale{
		{Entry: b.Entries[2], Why: StalePasses},
		{Entry: b.Entries[3], Why: StaleAbsent},
		{Entry: b.Entries[6], Why: StaleAbsent},
	}
	if diff := cmp.Diff(want, stale); diff != "" {
		t.Errorf("stale entries (-want +got)\n%s", diff)
	}
	var marked []string
	for _, c := range run.Checks {
		if c.Baselined {
			marked = append(marked, c.ID+":"+c.BaselineReason)
		}
	}
	if diff := cmp.Diff([]string{"fails:r1", "warns:r2", "broke-harness:r5"}, marked); diff != "" {
		t.Errorf("baselined checks (-want +got)\n%s", diff)
	}
	if run.Baseline == nil || run.Baseline.Matched != 3 || run.Baseline.Entries != 8 || len(run.Baseline.Stale) != 3 {
		t.Errorf("run.Baseline = %+v, want 8 entries, 3 matched, 3 stale", run.Baseline)
	}

	j := Verdict(run)
	if diff := cmp.Diff([]CheckKey{{ID: "unexpected", Version: "2025-11-25"}}, j.Failures); diff != "" {
		t.Errorf("unexpected failures (-want +got)\n%s", diff)
	}
	if len(j.Errors) != 0 || len(j.Warnings) != 0 || len(j.Stale) != 3 || !j.Failed(false) {
		t.Errorf("Verdict = %+v; want no errors or warnings, 3 stale, failed", j)
	}
	if !strings.Contains(stale[0].String(), "now passes") || !strings.Contains(stale[1].String(), "matches no check") {
		t.Errorf("stale messages must say which kind: %q, %q", stale[0], stale[1])
	}

	// A run narrowed by a label filter says nothing of the checks it left
	// out: an entry for one of them is not stale.
	narrowed := &Run{Versions: run.Versions, LabelFilter: "area:tools", Checks: []Check{{ID: "tools/x", Version: "2025-11-25", Outcome: Pass}}}
	if st := Apply(narrowed, &Baseline{Entries: []BaselineEntry{{Check: "fails", Reason: "r"}}}); len(st) != 0 {
		t.Errorf("a label-filtered run made an entry for a check it did not select stale: %v", st)
	}

	// Re-applying without a baseline clears every mark.
	Apply(run, nil)
	for _, c := range run.Checks {
		if c.Baselined {
			t.Errorf("%s still baselined after Apply(run, nil)", c.ID)
		}
	}
	if run.Baseline != nil {
		t.Error("run.Baseline not cleared")
	}
}

func TestVerdict(t *testing.T) {
	clean := &Run{Checks: []Check{{ID: "a", Outcome: Pass}, {ID: "b", Outcome: NA}, {ID: "c", Outcome: Untestable}, {ID: "d", Outcome: Warn}}}
	j := Verdict(clean)
	if j.Failed(false) {
		t.Errorf("pass, n/a, untestable and warn must not fail a non-strict run: %+v", j)
	}
	if !j.Failed(true) {
		t.Errorf("a warning must fail a strict run")
	}
	if !Verdict(&Run{Checks: []Check{{ID: "e", Outcome: Error}}}).Failed(false) {
		t.Errorf("a harness error must fail the run")
	}
	if !Verdict(&Run{Checks: []Check{{ID: "u"}}}).Failed(false) {
		t.Errorf("a check without an outcome is a harness error and must fail the run")
	}
}

func TestWriteBaselineRoundTrip(t *testing.T) {
	run := sampleRun(t)
	var buf bytes.Buffer
	if err := WriteBaseline(&buf, run, "adopted on 2026-11-21"); err != nil {
		t.Fatal(err)
	}
	b, err := ParseBaseline("new.json", &buf)
	if err != nil {
		t.Fatalf("WriteBaseline wrote a baseline ParseBaseline refuses: %v", err)
	}
	fresh := sampleRun(t)
	if stale := Apply(fresh, b); len(stale) != 0 {
		t.Errorf("a baseline written from a run is stale against that run: %v", stale)
	}
	// Fuzz findings are bugs to fix, never baselined: only checks count here.
	if j := Verdict(fresh); len(j.Failures)+len(j.Errors)+len(j.Warnings)+len(j.Stale) > 0 {
		t.Errorf("a baseline written from a run must cover all its broken checks: %+v", j)
	}
	if err := WriteBaseline(&buf, run, " "); err == nil {
		t.Error("WriteBaseline without a reason must fail")
	}
}
