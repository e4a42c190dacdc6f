package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// passingRun is a run whose every check passed, with why it is no verdict
// on its target (Run.Unjudged) when unjudged is not empty.
func passingRun(unjudged string) *Run {
	return &Run{Tool: Tool{Name: "mcpcheck"}, Target: Target{Kind: TargetStdio, Role: "server", Command: "srv"}, Started: started,
		Versions: []spec.Version{"2025-11-25"}, Transport: "stdio", Unjudged: unjudged,
		Checks: []Check{{ID: "lifecycle/initialize/echoes-supported-version", Title: "Server echoes a supported protocol version",
			Requirements: []string{"lifecycle.initialize.version-echo"}, Level: catalog.Must, Area: "lifecycle",
			Version: "2025-11-25", Transport: "stdio", Outcome: Pass}}}
}

// TestUnjudgedRunIsNotGreenInJUnitSARIFOrBadge (issue 33): a run whose
// checks all passed but that is no verdict on its target (Run.Unjudged)
// is an erroring testcase in JUnit (so that a CI job reading only the XML
// turns red), an unsuccessful invocation with an error notification in
// SARIF, and "not judged" on the badge, each with the reason; the same
// run judged in full is none of these.
func TestUnjudgedRunIsNotGreenInJUnitSARIFOrBadge(t *testing.T) {
	const why = "the target never completed initialization in 2025-11-25"
	for _, unjudged := range []string{why, ""} {
		run := passingRun(unjudged)

		var buf bytes.Buffer
		if err := WriteJUnit(&buf, run, testOptions(t)); err != nil {
			t.Fatal(err)
		}
		var doc readSuites
		if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatalf("JUnit does not parse: %v\n%s", err, buf.String())
		}
		var notJudged *readCase
		for _, s := range doc.Suites {
			for i, c := range s.Cases {
				if c.Error != nil && c.Error.Type == "not-judged" {
					notJudged = &s.Cases[i]
				}
			}
		}
		switch {
		case unjudged != "" && (doc.Errors != 1 || notJudged == nil || !strings.Contains(notJudged.Error.Message, "not judged: "+why) || !strings.Contains(buf.String(), `name="unjudged"`)):
			t.Errorf("JUnit of an unjudged run: %d errors, not-judged testcase %+v; want one erroring testcase and a property naming why:\n%s", doc.Errors, notJudged, buf.String())
		case unjudged == "" && (doc.Errors != 0 || notJudged != nil):
			t.Errorf("JUnit of a run judged in full has %d errors:\n%s", doc.Errors, buf.String())
		}

		buf.Reset()
		if err := WriteSARIF(&buf, run, testOptions(t)); err != nil {
			t.Fatal(err)
		}
		var log struct {
			Runs []struct {
				Invocations []struct {
					ExecutionSuccessful        bool `json:"executionSuccessful"`
					ToolExecutionNotifications []struct {
						Level   string    `json:"level"`
						Message sarifText `json:"message"`
					} `json:"toolExecutionNotifications"`
				} `json:"invocations"`
				Properties map[string]any `json:"properties"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(buf.Bytes(), &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 {
			t.Fatalf("SARIF: %v\n%s", err, buf.String())
		}
		inv, props := log.Runs[0].Invocations[0], log.Runs[0].Properties
		switch {
		case unjudged != "" && (inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 || inv.ToolExecutionNotifications[0].Level != "error" ||
			inv.ToolExecutionNotifications[0].Message.Text != "not judged: "+why || props["unjudged"] != why):
			t.Errorf("SARIF of an unjudged run: invocation %+v, properties %v; want executionSuccessful false, an error notification and the unjudged property", inv, props)
		case unjudged == "" && (!inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 0 || props["unjudged"] != nil):
			t.Errorf("SARIF of a run judged in full: invocation %+v, properties %v", inv, props)
		}

		buf.Reset()
		if err := WriteBadge(&buf, run, testOptions(t)); err != nil {
			t.Fatal(err)
		}
		badge := buf.String()
		switch {
		case unjudged != "" && (!strings.Contains(badge, "MCP 2025-11-25: not judged") || strings.Contains(badge, "MUST 100%") || !strings.Contains(badge, BadgeColor(Rate{}))):
			t.Errorf("the badge of an unjudged run does not read \"not judged\" in grey:\n%s", badge)
		case unjudged == "" && !strings.Contains(badge, "MUST 100%"):
			t.Errorf("the badge of a run judged in full:\n%s", badge)
		}
	}
}

// TestTextBaselineLineCountsOutOfScope: the text report's baseline line
// counts the entries about checks the run did not select (out of scope),
// next to matched and stale.
func TestTextBaselineLineCountsOutOfScope(t *testing.T) {
	run := passingRun("")
	run.LabelFilter = "area:lifecycle"
	Apply(run, &Baseline{Source: "b.json", Entries: []BaselineEntry{
		{Check: "tools/names", Requirements: []string{"tools.name.allowed-characters"}, Reason: "known"},
		{Check: "ping/empty-result", Version: "2024-11-05", Requirements: []string{}, Reason: "known"},
	}})
	var buf bytes.Buffer
	if err := WriteText(&buf, run, testOptions(t)); err != nil {
		t.Fatal(err)
	}
	if want := "Baseline b.json: 2 entries, 0 matched broken checks, 0 stale, 2 out of scope"; !strings.Contains(buf.String(), want) {
		t.Errorf("the text report does not say %q:\n%s", want, buf.String())
	}
}
