package reports

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

// TestMarkdownStaysUnderBudgetFailuresFirst: a run with hundreds of broken
// checks and long transcripts still gives a Markdown summary that fits a
// PR comment, with the failures before the warnings and before the area
// tables, and a note where something was left out.
func TestMarkdownStaysUnderBudgetFailuresFirst(t *testing.T) {
	run := &Run{Versions: []spec.Version{spec.V20251125}, Target: Target{Role: "server", Kind: TargetStdio, Command: "./srv"}}
	long := strings.Repeat("a long message line ", 200)
	for i := 0; i < 400; i++ {
		o := Warn
		if i%3 == 0 {
			o = Fail
		}
		c := Check{ID: fmt.Sprintf("area%d/check-%d", i%7, i), Title: "a check", Version: spec.V20251125, Transport: "stdio",
			Outcome: o, Area: fmt.Sprintf("area%d", i%7), Expected: long, Actual: long}
		for k := 0; k < 20; k++ {
			c.Transcript = append(c.Transcript, WireEvent{Direction: Note, Note: long})
		}
		run.Checks = append(run.Checks, c)
	}
	for i := 0; i < 600; i++ {
		run.Checks = append(run.Checks, Check{ID: fmt.Sprintf("ok/check-%d", i), Version: spec.V20251125, Transport: "stdio", Outcome: Pass, Area: "ok", Reason: long})
	}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, run, Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if buf.Len() > 64<<10 {
		t.Errorf("the Markdown report is %d bytes; it must stay under 64 KiB", buf.Len())
	}
	firstFail, firstWarn := strings.Index(out, "FAIL `"), strings.Index(out, "WARN `")
	if firstFail < 0 || (firstWarn >= 0 && firstFail > firstWarn) {
		t.Errorf("failures must come before warnings (first FAIL at %d, first WARN at %d)", firstFail, firstWarn)
	}
	if i := strings.Index(out, "by area and level"); i >= 0 && i < firstFail {
		t.Error("the area tables come before the failures")
	}
	if !strings.Contains(out, "the JSON and HTML reports list them all") || !strings.Contains(out, "the JSON and HTML reports") {
		t.Error("nothing says where the left-out details are")
	}
}
