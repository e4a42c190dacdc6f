package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
)

// binResult is the outcome of one mcpcheck process.
type binResult struct {
	code           int
	stdout, stderr string
	err            error
}

// runBinAll runs the mcpcheck binary once per argument list, concurrently.
func runBinAll(bin string, argss ...[]string) []binResult {
	out := make([]binResult, len(argss))
	var wg sync.WaitGroup
	for i, args := range argss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			r := binResult{stdout: stdout.String(), stderr: stderr.String()}
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				r.code = ee.ExitCode()
			} else {
				r.err = err
			}
			out[i] = r
		}()
	}
	wg.Wait()
	return out
}

// outcomes lists a report's checks as "version id transport outcome", in
// report order.
func outcomes(t *testing.T, path string) []string {
	t.Helper()
	run, err := readRun(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, c := range run.Checks {
		out = append(out, fmt.Sprintf("%s %s %s %s", c.Version, c.ID, c.Transport, c.Outcome))
	}
	return out
}

// shardAreas are the areas TestServerShardsMergeIntoTheUnshardedReport
// runs: about ten checks per version, with failures (ping), warnings
// (prompts, pagination), n/a and untestable ones among them, in every
// version, against faultyTarget. The order and outcomes of checks the
// merge restores do not depend on how many there are; a fifth of the
// whole suite's work per run is what it costs.
const shardAreas = "area:ping || area:pagination || area:prompts"

// TestServerShardsMergeIntoTheUnshardedReport: a run of every version
// against a reference server with faults (the checks of shardAreas), run
// as shards 1/2 and 2/2 and merged with report merge, gives the same
// checks with the same outcomes, in the same order, as the unsharded
// run; the shards split the active checks between them (neither runs
// them all), and the unsharded run, the shard runs and the merge exit 1
// for the faults. The three runs share the machine.
func TestServerShardsMergeIntoTheUnshardedReport(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBin(t)
	dir := t.TempDir()
	args := func(out string, extra ...string) []string {
		return append(append([]string{"server", "--stdio", faultyTarget(bin), "--label-filter", shardAreas}, faultyArgs...), append([]string{"--out", filepath.Join(dir, out), "--format", "json"}, extra...)...)
	}
	res := runBinAll(bin, args("all"), args("s1", "--shard", "1/2"), args("s2", "--shard", "2/2"))
	for i, r := range res {
		if r.err != nil || r.code != exitFailed {
			t.Fatalf("run %d (unsharded, shard 1/2, shard 2/2): exit %d (%v), want %d for the faults\n%s", i, r.code, r.err, exitFailed, tail(r.stderr, 3000))
		}
	}
	all := outcomes(t, filepath.Join(dir, "all", "mcpcheck-server.json"))
	s1 := outcomes(t, filepath.Join(dir, "s1", "mcpcheck-server.json"))
	s2 := outcomes(t, filepath.Join(dir, "s2", "mcpcheck-server.json"))
	if len(s1) >= len(all) || len(s2) >= len(all) || len(s1)+len(s2) < len(all) {
		t.Errorf("shards of %d and %d checks for %d in all: want each a part, together at least all", len(s1), len(s2), len(all))
	}
	merged := filepath.Join(dir, "merged")
	code, stdout, stderr := runBin(t, "report", "merge", filepath.Join(dir, "s2", "mcpcheck-server.json"), filepath.Join(dir, "s1", "mcpcheck-server.json"),
		"--out", merged, "--format", "json,junit")
	if code != exitFailed || !strings.Contains(stdout, "ping.response.prompt-empty-result") {
		t.Fatalf("report merge: exit %d, want %d and the text report naming the fault\nstdout:\n%s\nstderr:\n%s", code, exitFailed, stdout, stderr)
	}
	got := outcomes(t, filepath.Join(merged, "mcpcheck-server.json"))
	if strings.Join(got, "\n") != strings.Join(all, "\n") {
		t.Errorf("merged report differs from the unsharded run (%d checks, %d merged):\n%s", len(all), len(got), lineDiff(all, got))
	}
	if _, err := os.Stat(filepath.Join(merged, "mcpcheck-server.junit.xml")); err != nil {
		t.Errorf("no JUnit report from the merge: %v", err)
	}
	run, err := readRun(filepath.Join(merged, "mcpcheck-server.json"))
	if err != nil || run.Shard != "" {
		t.Errorf("merged run: shard %q (%v), want none", run.Shard, err)
	}
	t.Logf("%d checks unsharded; shards ran %d and %d", len(all), len(s1), len(s2))

	// One shard alone: merged, with the other named missing, and no
	// verdict on the target (exit 3), whatever the shard found.
	code, _, stderr = runBin(t, "report", "merge", filepath.Join(dir, "s1", "mcpcheck-server.json"), "--out", filepath.Join(dir, "half"))
	if code != exitHarness || !strings.Contains(stderr, "shard 2/2 is missing") {
		t.Errorf("merging one shard of two: exit %d, stderr %q; want 3 and the missing shard named", code, stderr)
	}
}

// lineDiff lists the lines only in a or only in b.
func lineDiff(a, b []string) string {
	in := func(s []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range s {
			m[x] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	var out []string
	for _, x := range a {
		if !mb[x] {
			out = append(out, "- "+x)
		}
	}
	for _, x := range b {
		if !ma[x] {
			out = append(out, "+ "+x)
		}
	}
	if len(out) == 0 {
		return "(same lines, other order)"
	}
	if len(out) > 40 {
		out = append(out[:40], "...")
	}
	return strings.Join(out, "\n")
}

// TestShardUsageErrorsExitTwoBeforeAnyTraffic: a --shard that is not K/N
// with 1 <= K <= N, and report merge without reports or --out, are usage
// errors (exit 2) found before the target is started.
func TestShardUsageErrorsExitTwoBeforeAnyTraffic(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	target := "sh -c " + shellQuote("touch "+shellQuote(marker))
	for _, shard := range []string{"3/2", "0/0", "x", "0/2", "1/0", "1/2/3", "-1/2", "1/", "/2", " "} {
		for _, cmd := range []string{"server", "fuzz"} {
			args := []string{cmd, "--stdio", target, "--shard", shard}
			if cmd == "fuzz" {
				args = append(args, "--max-execs", "10")
			}
			code, _, stderr := runCLI(args...)
			if code != exitUsage || !strings.Contains(stderr, "--shard") {
				t.Errorf("mcpcheck %s: exit %d, want 2 naming --shard; stderr %q", strings.Join(args, " "), code, stderr)
			}
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the target was started despite the usage error")
	}
	some := filepath.Join(dir, "mcpcheck-server.json")
	var buf bytes.Buffer
	if err := reports.WriteJSON(&buf, &reports.Run{Target: reports.Target{Kind: reports.TargetStdio, Command: "x"}, Shard: "1/2"}, reports.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(some, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"report", "merge"},
		{"report", "merge", some},
		{"report", "merge", some, some, "--out", filepath.Join(dir, "o")},
		{"report", "merge", some, "--out", filepath.Join(dir, "o"), "--format", "pdf"},
		{"report", "merge", filepath.Join(dir, "missing.json"), "--out", filepath.Join(dir, "o")},
		{"report", "merge", some, "--out", dir}, // would overwrite its input
	} {
		code, _, stderr := runCLI(args...)
		if code != exitUsage || !strings.Contains(stderr, "mcpcheck:") {
			t.Errorf("mcpcheck %s: exit %d, want 2 with an explanation; stderr %q", strings.Join(args, " "), code, stderr)
		}
	}
}
