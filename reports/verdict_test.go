package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// verdictRuns are runs of each verdict, and the word each must get.
func verdictRuns(t *testing.T) []struct {
	name   string
	run    *Run
	strict bool
	want   RunVerdict
} {
	pass := func() *Run { return passingRun("") }
	withCheck := func(c Check) *Run {
		r := pass()
		c.Requirements, c.Level, c.Area, c.Version, c.Transport = []string{"lifecycle.initialize.result-shape"}, catalog.Must, "lifecycle", "2025-11-25", "stdio"
		r.Checks = append(r.Checks, c)
		return r
	}
	fail := withCheck(Check{ID: "lifecycle/initialize/result-shape", Outcome: Fail, Expected: "serverInfo", Actual: "none"})
	warn := withCheck(Check{ID: "base/meta/server-info", Outcome: Warn, Expected: "_meta", Actual: "none"})
	warn.Checks[1].Level = catalog.Should
	untestable := withCheck(Check{ID: "tools/call/unknown-tool-error", Outcome: Untestable, Reason: "no fixture"})
	stale := pass()
	stale.Baseline = &BaselineInfo{Source: "b.json", Entries: 1, Stale: []Stale{{Entry: BaselineEntry{Check: "x/y"}, Why: "now passes"}}}
	interrupted := withCheck(Check{ID: "tools/call/unknown-tool-error", Outcome: Untestable, Reason: "not run: interrupted"})
	interrupted.Interrupted = "interrupted by a signal"
	notJudged := withCheck(Check{ID: "lifecycle/initialize/result-shape", Outcome: Fail, Expected: "serverInfo", Actual: "none"})
	notJudged.Unjudged = "the target never completed initialization in any version"
	return []struct {
		name   string
		run    *Run
		strict bool
		want   RunVerdict
	}{
		{"pass", pass(), false, VerdictPass},
		{"fail", fail, false, VerdictFail},
		{"warnings pass", warn, false, VerdictPass},
		{"warnings fail with strict", warn, true, VerdictFail},
		{"incomplete", untestable, false, VerdictIncomplete},
		{"stale baseline entry", stale, false, VerdictFail},
		{"interrupted", interrupted, false, VerdictInterrupted},
		{"not judged, with failures", notJudged, false, VerdictNotJudged},
		{"harness problems", func() *Run { r := pass(); r.Problems = []string{"a check cited no requirement"}; return r }(), false, VerdictNotJudged},
		{"nothing at all", &Run{Versions: []spec.Version{"2025-11-25"}, Unjudged: "nothing was judged"}, false, VerdictNotJudged},
	}
}

// TestOneVerdictInEveryFormat (issue 27): text (at its top and its end),
// Markdown, HTML, JSON, JUnit, SARIF and the Judgement the CLI exits on
// give a run the same verdict, for each of pass, fail, incomplete, not
// judged and interrupted: no report of a run that exits 3 says "failed"
// or "8 unexpected failures" as its verdict, none of a run with stale
// baseline entries reads green.
func TestOneVerdictInEveryFormat(t *testing.T) {
	for _, tc := range verdictRuns(t) {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOptions(t)
			opts.Strict = tc.strict
			if got := Verdict(tc.run).Word(tc.strict); got != tc.want {
				t.Fatalf("Verdict(run).Word = %q, want %q", got, tc.want)
			}
			out := map[string]string{}
			for _, f := range Formats() {
				var b bytes.Buffer
				if err := f.Write(&b, tc.run, opts); err != nil {
					t.Fatalf("%s: %v", f.Name, err)
				}
				out[f.Name] = b.String()
			}
			label := tc.want.Label() + ": "
			lines := strings.Split(strings.TrimRight(out["text"], "\n"), "\n")
			top := -1
			for i, l := range lines {
				if strings.HasPrefix(l, label) {
					top = i
					break
				}
			}
			if top < 0 || top > 10 || !strings.HasPrefix(lines[len(lines)-1], label) {
				t.Errorf("the text report does not open (within 10 lines) and end with %q:\n%s", label, out["text"])
			}
			for _, other := range []RunVerdict{VerdictPass, VerdictFail, VerdictIncomplete, VerdictNotJudged, VerdictInterrupted} {
				if other != tc.want && regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(other.Label())+`: `).MatchString(out["text"]) {
					t.Errorf("the text report also says %s", other.Label())
				}
			}
			if want := "**Verdict for CI:** " + string(tc.want) + " — "; !strings.Contains(out["md"], want) {
				t.Errorf("the Markdown report lacks %q", want)
			}
			if want := `CI verdict: <strong>` + string(tc.want) + `</strong>`; !strings.Contains(out["html"], want) || !strings.Contains(out["html"], `class="badge o-`+tc.want.Class()+`" id="verdict"`) {
				t.Errorf("the HTML report lacks %q or its headline badge", want)
			}
			var doc struct {
				Verdict struct{ Outcome, Sentence string } `json:"verdict"`
			}
			if err := json.Unmarshal([]byte(out["json"]), &doc); err != nil || doc.Verdict.Outcome != string(tc.want) || !strings.HasPrefix(doc.Verdict.Sentence, label) {
				t.Errorf("the JSON verdict is %+v (%v), want %q", doc.Verdict, err, tc.want)
			}
			var junit readSuites
			if err := xml.Unmarshal([]byte(out["junit"]), &junit); err != nil || len(junit.Suites) == 0 || len(junit.Suites[0].Cases) != 1 {
				t.Fatalf("JUnit: %v", err)
			}
			vc := junit.Suites[0].Cases[0]
			switch {
			case vc.prop("verdict") != string(tc.want):
				t.Errorf("the JUnit verdict testcase says %q, want %q", vc.prop("verdict"), tc.want)
			case tc.want == VerdictFail && (vc.Failure == nil || junit.Failures == 0):
				t.Errorf("JUnit of a failing run: the verdict testcase does not fail")
			case (tc.want == VerdictNotJudged || tc.want == VerdictInterrupted) && (vc.Error == nil || junit.Errors == 0):
				t.Errorf("JUnit of a run %s: the verdict testcase is not in error", tc.want)
			case tc.want.OK() && (vc.Failure != nil || vc.Error != nil || junit.Failures+junit.Errors != 0):
				t.Errorf("JUnit of a run that passes CI has %d failures and %d errors", junit.Failures, junit.Errors)
			}
			var sarif struct {
				Runs []struct {
					Properties  map[string]any `json:"properties"`
					Invocations []struct {
						ExecutionSuccessful bool `json:"executionSuccessful"`
					} `json:"invocations"`
				} `json:"runs"`
			}
			if err := json.Unmarshal([]byte(out["sarif"]), &sarif); err != nil || len(sarif.Runs) != 1 {
				t.Fatalf("SARIF: %v", err)
			}
			if got := sarif.Runs[0].Properties["verdict"]; got != string(tc.want) {
				t.Errorf("the SARIF run's verdict property is %v, want %q", got, tc.want)
			}
			if judged := tc.want != VerdictNotJudged && tc.want != VerdictInterrupted; sarif.Runs[0].Invocations[0].ExecutionSuccessful != judged && !strings.Contains(tc.name, "harness") {
				t.Errorf("SARIF executionSuccessful = %v for a run %s", sarif.Runs[0].Invocations[0].ExecutionSuccessful, tc.want)
			}
			if strings.Contains(out["badge"], "MUST ") == (tc.want == VerdictNotJudged || tc.want == VerdictInterrupted) {
				t.Errorf("the badge of a run %s:\n%s", tc.want, out["badge"])
			}
		})
	}
}
