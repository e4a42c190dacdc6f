package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz"
	"github.com/mcpcheck/mcpcheck/internal/scenarios"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// okLine matches a verdict line that calls an outcome OK (a campaign's
// "OK", a run's "PASS:" or "INCOMPLETE:", which exit 0); passedVerdict
// the CI verdict of the HTML and Markdown reports calling a run passed.
var (
	okLine        = regexp.MustCompile(`(?m)^\s*(OK\b|PASS:|INCOMPLETE:)`)
	passedVerdict = regexp.MustCompile(`CI verdict: <strong>(pass|incomplete)<|Verdict for CI:\*\* (pass|incomplete) `)
)

// TestFuzzNeverHandshakenIsNotJudged (issue 33): a campaign against a
// target that never completed a handshake — a plain HTTP server that is
// not MCP, a port nothing listens on, a stdio command that never answers
// initialize (or, in a stateless version, server/discover) — judged
// nothing. It exits 3 and says so, prints no OK, reports no finding (a
// refused connection is no crash of the target), and still writes its
// summary, which says why nothing was judged.
func TestFuzzNeverHandshakenIsNotJudged(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the silent target is sleep(1)")
	}
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<html><body>a web page, not an MCP server</body></html>")
	}))
	t.Cleanup(plain.Close) // after the parallel subtests
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	cases := []struct {
		name string
		args []string
	}{
		{"plain-http", []string{"--url", plain.URL + "/mcp"}},
		{"refused-port", []string{"--url", refused}},
		// A silent command is silent for its start-up allowance: 3 s
		// here, not the default minute, which would be all this test
		// waits for (a start within the default is TestFuzzSlowStartingTargetIsNotBlamed's).
		{"stdio-silent-stateless", []string{"--stdio", "sleep 60", "--startup-timeout", "3s"}},
		{"stdio-silent-2025-11-25", []string{"--stdio", "sleep 60", "--startup-timeout", "3s", "--protocol", "2025-11-25"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			args := append(append([]string{"fuzz"}, tc.args...), "--duration", "3s", "--seed", "1", "--out", out, "--format", "text,json,md,html")
			code, stdout, stderr := runFuzzCLI(context.Background(), nil, args...)
			if code != exitHarness {
				t.Errorf("exit %d, want 3 (nothing judged)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if okLine.MatchString(stdout) || okLine.MatchString(stderr) {
				t.Errorf("a campaign that judged nothing printed OK\nstdout:\n%s", stdout)
			}
			if !strings.Contains(stdout+stderr, "never completed a handshake") {
				t.Errorf("the output does not say the target never completed a handshake\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
			res := readCampaign(t, filepath.Join(out, "mcpcheck-fuzz.json"))
			if len(res.Findings) != 0 || res.Execs != 0 {
				t.Errorf("an unreachable target got %d execs and %d findings (%+v)", res.Execs, len(res.Findings), res.Findings)
			}
			if res.Unjudged == "" || !res.Verdict.Unjudged || res.Verdict.Failed {
				t.Errorf("the summary does not say nothing was judged: unjudged %q, verdict %+v", res.Unjudged, res.Verdict)
			}
			for _, f := range []string{"mcpcheck-fuzz.md", "mcpcheck-fuzz.html"} {
				b, err := os.ReadFile(filepath.Join(out, f))
				if err != nil {
					t.Fatal(err)
				}
				if s := string(b); passedVerdict.MatchString(s) || !strings.Contains(s, "never completed a handshake") {
					t.Errorf("%s calls the campaign passed or does not say why nothing was judged:\n%s", f, tail(s, 3000))
				}
			}
		})
	}
}

// writeRunJSON writes run as a JSON report at path.
func writeRunJSON(t *testing.T, path string, run *reports.Run) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(path, func(w io.Writer) error { return reports.WriteJSON(w, run, reports.Options{}) }); err != nil {
		t.Fatal(err)
	}
	return path
}

// passingRun is a clean run of the given checks (ID@version), all passed.
func passingRun(shard string, checks ...string) *reports.Run {
	run := &reports.Run{Tool: reports.Tool{Name: "mcpcheck"}, Target: reports.Target{Kind: reports.TargetStdio, Command: "srv", Role: "server"},
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Duration: time.Second, Transport: "stdio", Shard: shard}
	for _, c := range checks {
		id, v, _ := strings.Cut(c, "@")
		run.Checks = append(run.Checks, reports.Check{ID: id, Title: id, Version: spec.Version(v), Transport: "stdio", Outcome: reports.Pass})
		if !containsVersion(run.Versions, spec.Version(v)) {
			run.Versions = append(run.Versions, spec.Version(v))
		}
	}
	return run
}

func containsVersion(vs []spec.Version, v spec.Version) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// TestReportMergeOfIncompleteShardsIsNotGreen (issue 33): merging one
// shard of two, however clean, is no pass: the merged report names the
// missing shard (missingShards, and why it is not judged), no format calls
// it passed, the text prints no OK, and the command exits 3. With every
// shard it is green.
func TestReportMergeOfIncompleteShardsIsNotGreen(t *testing.T) {
	dir := t.TempDir()
	s1 := writeRunJSON(t, filepath.Join(dir, "s1", "mcpcheck-server.json"), passingRun("1/2", "ping/a@2025-11-25", "tools/b@2025-11-25"))
	s2 := writeRunJSON(t, filepath.Join(dir, "s2", "mcpcheck-server.json"), passingRun("2/2", "ping/c@2025-11-25"))
	out := filepath.Join(dir, "half")
	code, stdout, stderr := runFuzzCLI(context.Background(), nil, "report", "merge", s1, "--out", out, "--format", "json,md,html")
	if code != exitHarness {
		t.Errorf("merging shard 1/2 alone: exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if okLine.MatchString(stdout) {
		t.Errorf("an incomplete merge printed OK:\n%s", stdout)
	}
	if !strings.Contains(stdout, "2/2") || !strings.Contains(stderr, "2/2") {
		t.Errorf("the missing shard 2/2 is not named in the report and the exit message\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	merged := readRunJSON(t, filepath.Join(out, "mcpcheck-server.json"))
	if strings.Join(merged.MissingShards, ",") != "2/2" || !strings.Contains(merged.Unjudged, "2/2") {
		t.Errorf("the merged JSON report: missingShards %v, unjudged %q; want 2/2 named", merged.MissingShards, merged.Unjudged)
	}
	for _, f := range []string{"mcpcheck-server.md", "mcpcheck-server.html"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if s := string(b); passedVerdict.MatchString(s) || !strings.Contains(s, "2/2") {
			t.Errorf("%s calls an incomplete merge passed or does not name the missing shard", f)
		}
	}
	code, stdout, stderr = runFuzzCLI(context.Background(), nil, "report", "merge", s1, s2, "--out", filepath.Join(dir, "whole"))
	if code != exitOK || !okLine.MatchString(stdout) {
		t.Errorf("merging both shards: exit %d, want 0 and PASS\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestFuzzMergeOfIncompleteShardsIsNotGreen (issue 33): fuzz merge of one
// shard of two, without findings, is no pass either: it exits 3, prints
// no OK and its summary says the shard's inputs were not run.
func TestFuzzMergeOfIncompleteShardsIsNotGreen(t *testing.T) {
	dir := t.TempDir()
	part := filepath.Join(dir, "c1")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	res := &fuzz.Result{Version: spec.V20251125, Target: "srv", Seed: 5, Workers: 1, Transport: "stdio", Shard: "1/2", Duration: time.Second, Execs: 4,
		MethodsCovered: map[string]int64{}, Mutators: map[string]int64{}, Verdict: fuzz.Verdict{Reason: "no findings"}}
	if err := writeFile(filepath.Join(part, fuzz.SummaryFile), res.WriteJSON); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "merged")
	code, stdout, stderr := runFuzzCLI(context.Background(), nil, "fuzz", "merge", part, "--out", out, "--format", "text,json")
	if code != exitHarness || okLine.MatchString(stdout) {
		t.Errorf("fuzz merge of shard 1/2 alone: exit %d, want 3 and no OK\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	merged := readCampaign(t, filepath.Join(out, fuzz.SummaryFile))
	if !merged.Verdict.Unjudged || !strings.Contains(merged.Unjudged, "2/2") {
		t.Errorf("the merged summary does not say shard 2/2 is missing: unjudged %q, verdict %+v", merged.Unjudged, merged.Verdict)
	}
}

// TestReportDiffLostVersionOrCheckIsARegression (issue 33): a new report
// that lost a whole protocol version the old one judged, or a check it
// judged, is a regression: report diff exits 1 and names what was lost, in
// every format. A check only the old run had that it never judged (n/a)
// is merely removed.
func TestReportDiffLostVersionOrCheckIsARegression(t *testing.T) {
	dir := t.TempDir()
	old := passingRun("", "ping/a@2025-06-18", "ping/a@2025-11-25", "tools/b@2025-11-25", "tools/na@2025-11-25")
	old.Checks[3].Outcome = reports.NA
	oldPath := writeRunJSON(t, filepath.Join(dir, "old.json"), old)
	cases := []struct {
		name string
		new  *reports.Run
		want []string // in the text diff
	}{
		{"lost version", passingRun("", "ping/a@2025-11-25", "tools/b@2025-11-25", "tools/na@2025-11-25"), []string{"2025-06-18", "Lost"}},
		{"lost check", passingRun("", "ping/a@2025-06-18", "ping/a@2025-11-25", "tools/na@2025-11-25"), []string{"tools/b [2025-11-25 stdio]: pass -> —", "Lost"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			newPath := writeRunJSON(t, filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json"), tc.new)
			for _, format := range []string{"text", "md", "json"} {
				code, stdout, stderr := runFuzzCLI(context.Background(), nil, "report", "diff", oldPath, newPath, "--format", format)
				if code != exitFailed {
					t.Errorf("--format %s: exit %d, want 1 (a regression)\nstdout:\n%s\nstderr:\n%s", format, code, stdout, stderr)
				}
				if format == "text" {
					for _, w := range tc.want {
						if !strings.Contains(stdout, w) {
							t.Errorf("the diff does not say %q:\n%s", w, stdout)
						}
					}
				}
			}
		})
	}
	// Removing a check that was n/a before loses nothing.
	same := passingRun("", "ping/a@2025-06-18", "ping/a@2025-11-25", "tools/b@2025-11-25")
	if code, stdout, stderr := runFuzzCLI(context.Background(), nil, "report", "diff", oldPath, writeRunJSON(t, filepath.Join(dir, "same.json"), same)); code != exitOK {
		t.Errorf("removing a check that was n/a: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestBaselineEntriesOutsideTheRunAreOutOfScope (issue 33): a baseline
// written from a full run, used on a run narrowed by --label-filter or
// --shard, leaves alone the entries about checks the run did not select:
// neither stale nor matched (the report counts them out of scope). The
// server run records its label filter, and with --shard an entry is
// matched with its version: a check the shard ran in another version does
// not make it stale.
func TestBaselineEntriesOutsideTheRunAreOutOfScope(t *testing.T) {
	ref := referenceCommand(t)
	dir := t.TempDir()
	half := scenarios.Shard{K: 1, N: 2}
	split := "" // an active check shard 1/2 runs in 2025-11-25, not in 2024-11-05
	for _, d := range scenarios.Checks() {
		if !d.Passive && half.Includes(spec.V20251125, d.ID) && !half.Includes(spec.V20241105, d.ID) {
			split = d.ID
			break
		}
	}
	if split == "" {
		t.Fatal("no active check splits between the versions in shard 1/2")
	}
	entry := func(check string, v spec.Version) string {
		return `{"check": "` + check + `", "version": "` + string(v) + `", "transport": "stdio", "requirements": ["lifecycle.initialize.first-interaction"], "reason": "known"}`
	}
	writeBaseline := func(name string, entries ...string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(`{"entries": [`+strings.Join(entries, ",")+`]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cases := []struct {
		name, baseline string
		args           []string
		outOfScope     int
	}{
		{"label-filter", writeBaseline("lf.json", entry("lifecycle/initialize-result", spec.V20251125), entry(split, spec.V20251125)),
			[]string{"--protocol", "2025-11-25", "--label-filter", "area:ping"}, 2},
		{"shard", writeBaseline("shard.json", entry(split, spec.V20241105)),
			[]string{"--protocol", "2024-11-05,2025-11-25", "--shard", "1/2"}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(dir, tc.name)
			args := append(append([]string{"server", "--stdio", ref}, tc.args...), "--baseline", tc.baseline, "--out", out, "--format", "json")
			code, stdout, stderr := runFuzzCLI(context.Background(), nil, args...)
			if code != exitOK {
				t.Errorf("exit %d, want 0 (the entries are about checks the run did not select)\nstdout:\n%s\nstderr:\n%s", code, tail(stdout, 3000), tail(stderr, 2000))
			}
			run := readRunJSON(t, filepath.Join(out, "mcpcheck-server.json"))
			if b := run.Baseline; b == nil || len(b.Stale) != 0 || b.Matched != 0 || b.OutOfScope != tc.outOfScope {
				t.Errorf("baseline %+v: want no stale, none matched, %d out of scope", b, tc.outOfScope)
			}
			if tc.name == "label-filter" && run.LabelFilter != "area:ping" {
				t.Errorf("the report does not record the label filter: %q", run.LabelFilter)
			}
		})
	}
}
