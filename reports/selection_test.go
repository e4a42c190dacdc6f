package reports

import (
	"bytes"
	"strings"
	"testing"
)

// TestSelectionScopesTheBaseline: a run narrowed by a selection (a go test
// -run pattern, Run.Selection) is held to the baseline entries about the
// checks it ran, and leaves those about other checks out of scope, as a
// label filter does; the reports name the selection.
func TestSelectionScopesTheBaseline(t *testing.T) {
	entries := []BaselineEntry{
		{Check: "tools/names", Requirements: []string{"tools.name.allowed-characters"}, Reason: "known"},
		{Check: "lifecycle/initialize/echoes-supported-version", Requirements: []string{"lifecycle.initialize.version-echo"}, Reason: "known"},
	}
	for _, sel := range []string{"", "go test -run TestMCP/lifecycle/"} {
		run := passingRun("")
		run.Selection = sel
		stale := Apply(run, &Baseline{Source: "b.json", Entries: entries})
		want, out := 2, 0
		if sel != "" {
			want, out = 1, 1
		}
		if len(stale) != want || run.Baseline.OutOfScope != out {
			t.Errorf("selection %q: %d stale %v, %d out of scope; want %d stale, %d out of scope", sel, len(stale), stale, run.Baseline.OutOfScope, want, out)
		}
		var buf bytes.Buffer
		if err := WriteText(&buf, run, testOptions(t)); err != nil {
			t.Fatal(err)
		}
		if sel != "" && !strings.Contains(buf.String(), "selection: "+sel) {
			t.Errorf("the text report does not name the selection:\n%s", buf.String())
		}
	}
}
