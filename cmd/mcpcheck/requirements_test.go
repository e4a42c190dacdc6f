package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
)

// requirementRun is a run whose tools check fails, breaking the given
// requirements of the three it holds the target to, with a check that
// ended in error and one that passed.
func requirementRun(violated ...string) *reports.Run {
	run := fixtureRun(reports.Pass, reports.Error)
	run.Checks = append(run.Checks, reports.Check{
		ID: "tools/call/result", Title: "tool results", Level: "MUST", Area: "tools", Version: "2025-11-25", Transport: "stdio",
		Requirements: []string{"tools.result.content-required", "tools.result.content-types", "tools.result.structured"},
		Violated:     violated, Outcome: reports.Fail, Actual: "a result without content",
	})
	return run
}

// TestBaselineKeysOnRequirements: baseline write names each broken check's
// requirements, and the baseline holds the run it was written from; the
// same check breaking a second requirement fails the judged run (report
// merge, the CLI's judge of a written report) and says which requirement
// is new, and report diff lists it as a new failure. A baseline without
// requirements (an older mcpcheck's) still holds the run, and --strict
// fails on it.
func TestBaselineKeysOnRequirements(t *testing.T) {
	dir := t.TempDir()
	first := writeRunFile(t, dir, "first.json", requirementRun("tools.result.content-required"))
	second := writeRunFile(t, dir, "second.json", requirementRun("tools.result.content-required", "tools.result.content-types"))

	bl := filepath.Join(dir, "baseline.json")
	if code, _, stderr := runCmd("baseline", "write", first, "--reason", "known: #7", "--out", bl); code != exitOK {
		t.Fatalf("baseline write: exit %d: %s", code, stderr)
	}
	raw, err := os.ReadFile(bl)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Entries []map[string]any `json:"entries"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, e := range file.Entries {
		got[e["check"].(string)] = e["requirements"]
	}
	want := map[string]any{"ping/check-1": []any{}, "tools/call/result": []any{"tools.result.content-required"}}
	if js, _ := json.Marshal(got); string(js) != mustJSON(t, want) {
		t.Errorf("baseline write: requirements per check %s, want %s\n%s", js, mustJSON(t, want), raw)
	}

	judge := func(name, report, baseline string, more ...string) (int, string) {
		t.Helper()
		code, stdout, stderr := runCmd(append([]string{"report", "merge", report, "--out", filepath.Join(dir, name), "--format", "json", "--baseline", baseline}, more...)...)
		return code, stdout + stderr
	}
	if code, out := judge("same", first, bl, "--strict"); code != exitOK {
		t.Errorf("the run the baseline was written from: exit %d, want 0 (even --strict)\n%s", code, out)
	}
	code, out := judge("second", second, bl)
	if code != exitFailed {
		t.Errorf("a second broken requirement in a baselined check: exit %d, want %d\n%s", code, exitFailed, out)
	}
	for _, w := range []string{
		"1 unexpected failures (new broken requirements of checks the baseline lists: tools/call/result [2025-11-25 stdio] requirement tools.result.content-types)",
		"new: tools.result.content-types broken",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("the judged run does not say %q:\n%s", w, out)
		}
	}
	merged := readRunJSON(t, filepath.Join(dir, "second", "mcpcheck-server.json"))
	for _, c := range merged.Checks {
		if c.ID == "tools/call/result" && (c.Baselined || strings.Join(c.Unexpected, ",") != "tools.result.content-types") {
			t.Errorf("the JSON report's check: baselined %v, unexpected %v; want not baselined, the second requirement unexpected", c.Baselined, c.Unexpected)
		}
	}

	code, stdout, stderr := runCmd("report", "diff", first, second)
	if code != exitFailed || !strings.Contains(stdout, "tools/call/result [2025-11-25 stdio]: fail -> fail  requirement tools.result.content-types newly broken") {
		t.Errorf("report diff: exit %d, want %d and the new requirement\n%s\n%s", code, exitFailed, stdout, stderr)
	}
	if _, stdout, _ := runCmd("report", "diff", first, second, "--format", "json"); !strings.Contains(stdout, `"requirement": "tools.result.content-types"`) {
		t.Errorf("report diff --format json does not key the new failure by requirement:\n%s", stdout)
	}
	if _, stdout, _ := runCmd("report", "diff", first, second, "--format", "md"); !strings.Contains(stdout, "**`tools.result.content-types` newly broken**") {
		t.Errorf("report diff --format md does not show the requirement:\n%s", stdout)
	}
	if code, stdout, _ := runCmd("report", "diff", second, first); code != exitOK || !strings.Contains(stdout, "requirement tools.result.content-types no longer broken") {
		t.Errorf("report diff of the fix: exit %d, want 0 and the fixed requirement\n%s", code, stdout)
	}

	legacy := filepath.Join(dir, "legacy.json")
	if err := os.WriteFile(legacy, []byte(`{"entries": [
  {"check": "tools/call/result", "reason": "written by an older mcpcheck"},
  {"check": "ping/check-1", "version": "2025-11-25", "reason": "harness"}
]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := judge("legacy", second, legacy); code != exitOK || !strings.Contains(out, "LEGACY") {
		t.Errorf("a legacy baseline: exit %d, want 0 with a LEGACY hint\n%s", code, out)
	}
	if code, out := judge("legacy-strict", second, legacy, "--strict"); code != exitFailed || !strings.Contains(out, "2 baseline entries without requirements (--strict") {
		t.Errorf("a legacy baseline under --strict: exit %d, want %d naming the entries\n%s", code, exitFailed, out)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
