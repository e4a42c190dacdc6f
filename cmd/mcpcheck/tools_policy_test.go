package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
)

// TestServerToolPolicyFlags: --call-tools and --tool-args reach the run
// and its reports; a policy word, a list or a file that cannot be used is
// a usage error saying what to give; a name the server does not list is a
// usage error after the run, with the reports written.
func TestServerToolPolicyFlags(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBin(t)
	ref := bin + " reference server --stdio"
	dir := t.TempDir()
	args := filepath.Join(dir, "args.json")
	if err := os.WriteFile(args, []byte(`{"ref_structured": [{"a": 1, "b": 2}, {"a": 3, "b": 4}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"ref_structured": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tools := []string{"--protocol", "2025-11-25", "--label-filter", "area:tools"}

	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"empty name", []string{"--call-tools", "a,,b"}, "give a tier (readonly, additive, all), tool names, or a tier and names"},
		{"all with names", []string{"--call-tools", "all,echo"}, "all calls every tool already"},
		{"tier after names", []string{"--call-tools", "echo,readonly"}, "the tier \"readonly\" must come first"},
		{"args file missing", []string{"--tool-args", filepath.Join(dir, "nope.json")}, "give a readable JSON file"},
		{"args file wrong", []string{"--tool-args", bad}, "give an object, or an array of objects"},
	} {
		code, _, stderr := runBin(t, append([]string{"server", "--stdio", ref}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.name, code, stderr, exitUsage, tc.stderr)
		}
	}

	out := filepath.Join(dir, "all")
	code, stdout, stderr := runBin(t, append([]string{"server", "--stdio", ref, "--call-tools", "all", "--tool-args", args, "--out", out, "--format", "text,json"}, tools...)...)
	if code != exitOK {
		t.Fatalf("--call-tools all: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "tool calls: all tools called (--call-tools all); arguments for ref_structured from "+args) {
		t.Errorf("the console summary does not state the policy:\n%s", stdout)
	}
	run := readRunJSON(t, filepath.Join(out, "mcpcheck-server.json"))
	if p := run.ToolPolicy; p == nil || p.Calls != "all" || p.ArgsFile != args || len(p.ArgsFor) != 1 {
		t.Errorf("the JSON report states the policy as %+v", p)
	}
	for _, c := range run.Checks {
		if c.ID == "tools/structured-output" && (c.Outcome != reports.Pass || !strings.Contains(c.Actual, `ref_structured({"a": 3, "b": 4})`)) {
			t.Errorf("tools/structured-output: %s, actual %q; want a pass judging both argument sets given", c.Outcome, c.Actual)
		}
	}

	out = filepath.Join(dir, "typo")
	code, _, stderr = runBin(t, append([]string{"server", "--stdio", ref, "--call-tools", "ref_structured,ref_strucutred", "--out", out, "--format", "json"}, tools...)...)
	if code != exitUsage || !strings.Contains(stderr, `--call-tools names "ref_strucutred"`) || !strings.Contains(stderr, "fix the name") {
		t.Errorf("a name the server does not list: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "mcpcheck-server.json")); err != nil {
		t.Errorf("the run with a misnamed tool wrote no report: %v", err)
	}
}
