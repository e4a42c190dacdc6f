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
		{"unknown entry field", "{\"entries\": [\n {\"check\": \"a\", \"reason\": \"r\", \"reson\": \"typo\"}]}", []string{"b.json:2:2", "entry 1", `unknown field "reson"`, "check, version, transport, requirements and reason"}},
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

// TestApplySecondRequirementIsNew: a check the baseline expects to break
// one requirement, which now breaks a second one too, is not baselined:
// the second requirement is a new failure that fails the run, and the
// report names it. An entry for the second requirement (even a separate
// one with its own reason) makes the check expected again.
func TestApplySecondRequirementIsNew(t *testing.T) {
	check := func(violated ...string) *Run {
		return &Run{Versions: []spec.Version{"2025-11-25"}, Checks: []Check{{
			ID: "tools/call/result", Version: "2025-11-25", Transport: "stdio", Outcome: Fail,
			Requirements: []string{"tools.result.content-required", "tools.result.content-types", "tools.result.structured"},
			Violated:     violated,
		}}}
	}
	key := CheckKey{ID: "tools/call/result", Version: "2025-11-25", Transport: "stdio"}
	b := &Baseline{Source: "b.json", Entries: []BaselineEntry{
		{Check: "tools/call/result", Requirements: []string{"tools.result.content-required"}, Reason: "upstream #1"},
	}}

	// The failure the baseline was written for: expected.
	first := check("tools.result.content-required")
	if stale := Apply(first, b); len(stale) != 0 {
		t.Fatalf("stale %v, want none", stale)
	}
	if c := first.Checks[0]; !c.Baselined || c.BaselineReason != "upstream #1" || c.Unexpected != nil {
		t.Fatalf("check %+v: want baselined with the entry's reason", c)
	}
	if j := Verdict(first); j.Failed(true) {
		t.Fatalf("the expected failure fails the run: %+v", j)
	}

	// The same check now breaks a second requirement as well.
	second := check("tools.result.content-required", "tools.result.content-types")
	if stale := Apply(second, b); len(stale) != 0 {
		t.Errorf("stale %v, want none: the entry's requirement is still broken", stale)
	}
	c := second.Checks[0]
	if c.Baselined || c.BaselineReason != "" {
		t.Errorf("check baselined (%q) although it breaks a requirement no entry names", c.BaselineReason)
	}
	if diff := cmp.Diff([]string{"tools.result.content-types"}, c.Unexpected); diff != "" {
		t.Errorf("Unexpected (-want +got)\n%s", diff)
	}
	j := Verdict(second)
	if diff := cmp.Diff([]CheckKey{key}, j.Failures); diff != "" {
		t.Errorf("failures (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]RequirementKey{{CheckKey: key, Requirement: "tools.result.content-types"}}, j.Unexpected); diff != "" {
		t.Errorf("unexpected requirements (-want +got)\n%s", diff)
	}
	if !j.Failed(false) {
		t.Error("a new broken requirement in a baselined check must fail the run")
	}
	if s := j.Summary(false); !strings.Contains(s, "1 unexpected failures") || !strings.Contains(s, "tools/call/result [2025-11-25 stdio] requirement tools.result.content-types") {
		t.Errorf("summary %q does not name the new requirement", s)
	}
	if second.Baseline.Matched != 0 {
		t.Errorf("matched %d, want 0", second.Baseline.Matched)
	}
	var text bytes.Buffer
	if err := WriteText(&text, second, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "new: tools.result.content-types broken") {
		t.Errorf("the text report does not say which requirement is new:\n%s", text.String())
	}

	// A check that cannot tell its requirements apart broke all of them.
	all := check()
	Apply(all, b)
	if diff := cmp.Diff([]string{"tools.result.content-types", "tools.result.structured"}, all.Checks[0].Unexpected); diff != "" {
		t.Errorf("a check without Violated: Unexpected (-want +got)\n%s", diff)
	}

	// A second entry for the new requirement, with its own reason.
	b2 := &Baseline{Entries: append(append([]BaselineEntry(nil), b.Entries...),
		BaselineEntry{Check: "tools/call/result", Version: "2025-11-25", Requirements: []string{"tools.result.content-types"}, Reason: "upstream #2"})}
	Apply(second, b2)
	if c := second.Checks[0]; !c.Baselined || c.BaselineReason != "upstream #1; upstream #2" || c.Unexpected != nil {
		t.Errorf("check %+v: want baselined by both entries", c)
	}
	if j := Verdict(second); j.Failed(true) {
		t.Errorf("verdict %+v: want no failure", j)
	}
}

// TestApplyLegacyEntry: an entry without requirements (a baseline written
// before entries named them) still parses and covers whatever its check
// breaks, a second requirement too, as it always did; it is listed as
// legacy, the text report says to rewrite it, and only a strict verdict
// fails on it.
func TestApplyLegacyEntry(t *testing.T) {
	b, err := ParseBaseline("old.json", strings.NewReader(`{"entries": [{"check": "a/b", "reason": "known"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if e := b.Entries[0]; e.Requirements != nil || !e.Legacy() {
		t.Fatalf("entry %+v: want a legacy entry (nil requirements)", e)
	}
	run := &Run{Versions: []spec.Version{"2025-11-25"}, Checks: []Check{
		{ID: "a/b", Version: "2025-11-25", Outcome: Fail, Requirements: []string{"r1", "r2"}, Violated: []string{"r1", "r2"}},
	}}
	if stale := Apply(run, b); len(stale) != 0 {
		t.Errorf("stale %v", stale)
	}
	if c := run.Checks[0]; !c.Baselined || c.Unexpected != nil {
		t.Errorf("check %+v: a legacy entry must cover every requirement the check breaks", c)
	}
	j := Verdict(run)
	if diff := cmp.Diff(b.Entries, j.Legacy); diff != "" {
		t.Errorf("legacy entries (-want +got)\n%s", diff)
	}
	if j.Failed(false) || !j.Failed(true) {
		t.Errorf("a legacy entry in use must fail only a strict verdict: Failed(false)=%v Failed(true)=%v", j.Failed(false), j.Failed(true))
	}
	if s := j.Summary(true); !strings.Contains(s, "1 baseline entries without requirements (--strict; rewrite them") {
		t.Errorf("strict summary %q does not count the legacy entry", s)
	}
	var text bytes.Buffer
	if err := WriteText(&text, run, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "LEGACY") || !strings.Contains(text.String(), "mcpcheck baseline write") {
		t.Errorf("the text report does not point out the legacy entry:\n%s", text.String())
	}
	// An unused legacy entry is not listed: it hides nothing.
	run.Checks[0].Outcome = Pass
	Apply(run, b)
	if len(run.Baseline.Legacy) != 0 {
		t.Errorf("an entry that covered nothing is listed as legacy: %v", run.Baseline.Legacy)
	}
}

// TestApplyErrorsAndStaleRequirements: a check that ended in error broke
// no requirement it could name, so an entry with an empty list (what
// baseline write writes for it) or with requirements covers it, and it
// makes no requirement stale; a requirement no judged check breaks is
// stale, the others are not.
func TestApplyErrorsAndStaleRequirements(t *testing.T) {
	mk := func(o Outcome, violated ...string) *Run {
		return &Run{Versions: []spec.Version{"2025-11-25", "2026-07-28"}, Checks: []Check{
			{ID: "c", Version: "2025-11-25", Outcome: o, Requirements: []string{"a", "b"}, Violated: violated},
			{ID: "c", Version: "2026-07-28", Outcome: NA, Requirements: []string{"a", "b"}},
		}}
	}
	empty := BaselineEntry{Check: "c", Requirements: []string{}, Reason: "crashes"}
	ab := BaselineEntry{Check: "c", Requirements: []string{"a", "b"}, Reason: "both"}
	cases := []struct {
		name       string
		run        *Run
		entry      BaselineEntry
		baselined  bool
		unexpected []string
		stale      []Stale
	}{
		{"error, empty list", mk(Error), empty, true, nil, nil},
		{"error, requirements", mk(Error), ab, true, nil, nil},
		{"error with a merged violation, empty list", mk(Error, "a"), empty, false, []string{"a"}, nil},
		{"empty list, now fails", mk(Fail, "a"), empty, false, []string{"a"}, nil},
		{"one of two fixed", mk(Fail, "a"), ab, true, nil, []Stale{{Entry: ab, Why: StaleFixed, Requirements: []string{"b"}}}},
		{"both still broken", mk(Warn), ab, true, nil, nil},
		{"untestable: cannot tell", mk(Untestable), ab, false, nil, nil},
		{"passes", mk(Pass), ab, false, nil, []Stale{{Entry: ab, Why: StalePasses}}},
		{"passes, empty list", mk(Pass), empty, false, nil, []Stale{{Entry: empty, Why: StalePasses}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stale := Apply(tc.run, &Baseline{Entries: []BaselineEntry{tc.entry}})
			c := tc.run.Checks[0]
			if c.Baselined != tc.baselined {
				t.Errorf("baselined %v, want %v", c.Baselined, tc.baselined)
			}
			if diff := cmp.Diff(tc.unexpected, c.Unexpected); diff != "" {
				t.Errorf("unexpected (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tc.stale, stale); diff != "" {
				t.Errorf("stale (-want +got)\n%s", diff)
			}
		})
	}
	s := Stale{Entry: ab, Why: StaleFixed, Requirements: []string{"b"}}
	if msg := s.String(); !strings.Contains(msg, "expects b broken") || !strings.Contains(msg, "remove it from its requirements") {
		t.Errorf("stale message %q does not name the fixed requirement and what to do", msg)
	}
}

// TestWriteBaselineNamesRequirements: baseline write names, per broken
// check, the requirements it broke ([] for an error) and never writes a
// legacy entry; written, parsed and applied to the same run, it leaves no
// unexpected failure, no stale entry and no legacy entry.
func TestWriteBaselineNamesRequirements(t *testing.T) {
	mk := func() *Run {
		return &Run{Versions: []spec.Version{"2025-11-25"}, Transport: "stdio", Checks: []Check{
			{ID: "told-apart", Version: "2025-11-25", Transport: "stdio", Outcome: Fail, Requirements: []string{"x", "a", "b"}, Violated: []string{"b", "a"}},
			{ID: "all", Version: "2025-11-25", Transport: "stdio", Outcome: Warn, Requirements: []string{"s2", "s1"}},
			{ID: "crashed", Version: "2025-11-25", Transport: "stdio", Outcome: Error, Requirements: []string{"e"}},
			{ID: "fine", Version: "2025-11-25", Transport: "stdio", Outcome: Pass, Requirements: []string{"p"}},
		}}
	}
	var buf bytes.Buffer
	if err := WriteBaseline(&buf, mk(), "adopted <today> & reviewed"); err != nil {
		t.Fatal(err)
	}
	want := `{
  "entries": [
    {
      "check": "told-apart",
      "version": "2025-11-25",
      "transport": "stdio",
      "requirements": [
        "a",
        "b"
      ],
      "reason": "adopted <today> & reviewed"
    },
    {
      "check": "all",
      "version": "2025-11-25",
      "transport": "stdio",
      "requirements": [
        "s1",
        "s2"
      ],
      "reason": "adopted <today> & reviewed"
    },
    {
      "check": "crashed",
      "version": "2025-11-25",
      "transport": "stdio",
      "requirements": [],
      "reason": "adopted <today> & reviewed"
    }
  ]
}
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Fatalf("written baseline (-want +got)\n%s", diff)
	}
	b, err := ParseBaseline("written.json", &buf)
	if err != nil {
		t.Fatalf("WriteBaseline wrote a baseline ParseBaseline refuses: %v", err)
	}
	for _, e := range b.Entries {
		if e.Legacy() {
			t.Errorf("entry %s parsed back without requirements", e.Key())
		}
	}
	run := mk()
	if stale := Apply(run, b); len(stale) != 0 {
		t.Errorf("stale against the run it was written from: %v", stale)
	}
	if j := Verdict(run); j.Failed(true) {
		t.Errorf("the run it was written from fails a strict verdict: %+v", j)
	}
}

// TestParseBaselineRequirements: requirements parse as given, [] stays
// apart from absent, and malformed or overlapping ones are refused with
// their position.
func TestParseBaselineRequirements(t *testing.T) {
	b, err := ParseBaseline("b.json", strings.NewReader(`{"entries": [
  {"check": "a", "requirements": ["r1"], "reason": "one"},
  {"check": "a", "requirements": ["r2", "r3"], "reason": "two"},
  {"check": "a", "version": "2025-11-25", "requirements": ["r1"], "reason": "narrower"},
  {"check": "e", "requirements": [], "reason": "errors"},
  {"check": "old", "reason": "legacy"}
]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []BaselineEntry{
		{Check: "a", Requirements: []string{"r1"}, Reason: "one"},
		{Check: "a", Requirements: []string{"r2", "r3"}, Reason: "two"},
		{Check: "a", Version: "2025-11-25", Requirements: []string{"r1"}, Reason: "narrower"},
		{Check: "e", Requirements: []string{}, Reason: "errors"},
		{Check: "old", Reason: "legacy"},
	}
	if diff := cmp.Diff(want, b.Entries); diff != "" {
		t.Fatalf("(-want +got)\n%s", diff)
	}
	if b.Entries[3].Requirements == nil || b.Entries[3].Legacy() {
		t.Error("[] parsed as absent: an entry for an error would become a legacy entry")
	}
	for _, c := range []struct{ name, doc, want string }{
		{"null", "{\"entries\": [\n  {\"check\": \"a\", \"requirements\": null, \"reason\": \"r\"}]}", `b.json:2:3: entry 1 (a): "requirements" is null`},
		{"not strings", `{"entries": [{"check": "a", "requirements": [1], "reason": "r"}]}`, `field "requirements" must be a string, not a JSON number`},
		{"not a list", `{"entries": [{"check": "a", "requirements": "r1", "reason": "r"}]}`, `field "requirements" must be a []string`},
		{"empty ID", `{"entries": [{"check": "a", "requirements": [" r1"], "reason": "r"}]}`, `requirement 1 is " r1"`},
		{"twice in one", `{"entries": [{"check": "a", "requirements": ["r1", "r1"], "reason": "r"}]}`, "names requirement r1 twice"},
		{"twice in two", `{"entries": [{"check": "a", "requirements": ["r1"], "reason": "r"}, {"check": "a", "requirements": ["r2", "r1"], "reason": "s"}]}`, "entry 2 (a) expects requirement r1, which entry 1 already expects"},
		{"legacy then named", `{"entries": [{"check": "a", "reason": "r"}, {"check": "a", "requirements": ["r1"], "reason": "s"}]}`, "entry 2 (a) overlaps entry 1, which names no requirements"},
		{"named then legacy", `{"entries": [{"check": "a", "requirements": ["r1"], "reason": "r"}, {"check": "a", "reason": "s"}]}`, "entry 2 (a) names no requirements, so it overlaps entry 1"},
		{"legacy twice", `{"entries": [{"check": "a", "reason": "r"}, {"check": "a", "reason": "s"}]}`, "entry 2 (a) repeats entry 1"},
		{"empty twice", `{"entries": [{"check": "a", "requirements": [], "reason": "r"}, {"check": "a", "requirements": [], "reason": "s"}]}`, "entry 2 (a) repeats entry 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseBaseline("b.json", strings.NewReader(c.doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestApplyOutOfScopeInNarrowedRuns (issue 33): in a run that did not
// select every check (a label filter, a shard, a merge with shards
// missing), an entry that matches none of its checks by ID, version and
// transport is out of scope: neither stale nor matched, and counted as
// such. A check the run judged in another version does not make it stale;
// in a shard, neither does a check of an entry without a version passing
// there. A full run still finds an entry for no check stale.
func TestApplyOutOfScopeInNarrowedRuns(t *testing.T) {
	v1, v2 := spec.Version("2025-06-18"), spec.Version("2025-11-25")
	entries := []BaselineEntry{
		{Check: "x", Version: v2, Requirements: []string{"r"}, Reason: "in v2"},
		{Check: "y", Version: v1, Requirements: []string{"r"}, Reason: "not selected"},
		{Check: "x", Requirements: []string{"r"}, Reason: "any version"},
	}
	checks := []Check{{ID: "x", Version: v1, Transport: "stdio", Outcome: Pass}}
	for _, tc := range []struct {
		name       string
		run        *Run
		stale      []Stale
		outOfScope int
	}{
		{"shard", &Run{Versions: []spec.Version{v1, v2}, Shard: "1/2", Checks: checks}, nil, 2},
		{"label filter", &Run{Versions: []spec.Version{v1, v2}, LabelFilter: "area:x", Checks: checks},
			[]Stale{{Entry: entries[2], Why: StalePasses}}, 2},
		{"missing shards", &Run{Versions: []spec.Version{v1, v2}, MissingShards: []string{"2/2"}, Checks: checks},
			[]Stale{{Entry: entries[2], Why: StalePasses}}, 2},
		{"full run", &Run{Versions: []spec.Version{v1, v2}, Checks: checks},
			[]Stale{{Entry: entries[0], Why: StaleAbsent}, {Entry: entries[1], Why: StaleAbsent}, {Entry: entries[2], Why: StalePasses}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stale := Apply(tc.run, &Baseline{Entries: entries})
			if diff := cmp.Diff(tc.stale, stale); diff != "" {
				t.Errorf("stale (-want +got)\n%s", diff)
			}
			if b := tc.run.Baseline; b.OutOfScope != tc.outOfScope || b.Matched != 0 {
				t.Errorf("out of scope %d, matched %d; want %d, 0", b.OutOfScope, b.Matched, tc.outOfScope)
			}
		})
	}
}
