package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// TestFuzzFindingsDecideEveryVerdict: a campaign's report (a run with no
// checks and a fuzz summary) says failed in every format when a finding is
// a crash, a hang or a MUST-level violation, and passed when the findings
// are only SHOULD-level, as the CLI and the campaign summary judge them.
func TestFuzzFindingsDecideEveryVerdict(t *testing.T) {
	for _, tc := range []struct {
		name   string
		f      Finding
		failed bool
	}{
		{"crash", Finding{ID: "crash-1", Kind: FindingCrash, Message: "exited"}, true},
		{"hang", Finding{ID: "hang-1", Kind: FindingHang, Message: "no answer"}, true},
		{"must", Finding{ID: "v-1", Kind: FindingViolation, Level: catalog.Must, Message: "bad"}, true},
		{"should", Finding{ID: "v-2", Kind: FindingViolation, Level: catalog.Should, Message: "meh"}, false},
	} {
		run := &Run{Target: Target{Role: "server", Kind: TargetStdio, Command: "./srv"}, Fuzz: &FuzzSummary{Findings: []Finding{tc.f}}}
		if got := Verdict(run).Failed(false); got != tc.failed {
			t.Errorf("%s: Verdict failed = %v, want %v", tc.name, got, tc.failed)
		}
		var html, md bytes.Buffer
		if err := WriteHTML(&html, run, Options{}); err != nil {
			t.Fatal(err)
		}
		if err := WriteMarkdown(&md, run, Options{}); err != nil {
			t.Fatal(err)
		}
		wantHTML, wantMD := "CI verdict: <strong>pass</strong>", "**Verdict for CI:** pass"
		if tc.failed {
			wantHTML, wantMD = "CI verdict: <strong>fail</strong>", "**Verdict for CI:** fail"
		}
		if !strings.Contains(html.String(), wantHTML) {
			t.Errorf("%s: the HTML report lacks %q", tc.name, wantHTML)
		}
		if !strings.Contains(md.String(), wantMD) {
			t.Errorf("%s: the Markdown report lacks %q", tc.name, wantMD)
		}
		if tc.failed && Summarize(run).Headline != "fail" {
			t.Errorf("%s: headline %q, want fail", tc.name, Summarize(run).Headline)
		}
	}
}
