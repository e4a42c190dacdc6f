package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/fuzz"
)

// TestFuzzShardsMergeIntoTheUnshardedCampaign: a campaign against the
// reference server with four faults, run whole and as shards 1/2 and 2/2
// with the same seed, then merged with fuzz merge: the shards split the
// executions, and the merge has the whole campaign's executions, the same
// inputs per mutator and the same findings (by signature), each with a
// directory of its own under the merge's findings that replays. The
// campaigns do not minimize their findings (runUnminimized): that took
// about 65 starts of the target per finding, seven findings in all, and
// the merge neither makes nor judges minimized inputs (fuzz's TestMinimize*
// and TestFuzzBrokenTargetFailsAndReplayReproduces do).
func TestFuzzShardsMergeIntoTheUnshardedCampaign(t *testing.T) {
	t.Parallel()
	// The target is the built binary (not this test binary, which -race
	// makes slow to start): reproducing findings starts it again.
	ref := shellQuote(mcpcheckBin(t)) + " reference server --stdio --fault unknown-method-wrong-code --fault parse-error-wrong-code --fault invalid-request-result --fault error-without-message"
	dir := t.TempDir()
	const execs = "40"
	type run struct {
		code           int
		stdout, stderr string
	}
	runs := make([]run, 3)
	var wg sync.WaitGroup
	for i, shard := range []string{"", "1/2", "2/2"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []string{"fuzz", "--stdio", ref, "--seed", "5", "--max-execs", execs, "--out", filepath.Join(dir, "c"+string(rune('0'+i))), "--format", "json"}
			if shard != "" {
				args = append(args, "--shard", shard)
			}
			code, stdout, stderr := runUnminimized(args...)
			runs[i] = run{code, stdout, stderr}
		}()
	}
	wg.Wait()
	for i, r := range runs {
		if r.code != exitFailed {
			t.Fatalf("campaign %d: exit %d, want 1 (the faults are MUST-level)\nstdout:\n%s\nstderr:\n%s", i, r.code, r.stdout, r.stderr)
		}
	}
	whole := readCampaign(t, filepath.Join(dir, "c0", fuzz.SummaryFile))
	s1 := readCampaign(t, filepath.Join(dir, "c1", fuzz.SummaryFile))
	s2 := readCampaign(t, filepath.Join(dir, "c2", fuzz.SummaryFile))
	if whole.Execs != 40 || s1.Execs != 20 || s2.Execs != 20 || s1.Shard != "1/2" || s2.Shard != "2/2" {
		t.Errorf("execs: whole %d, shards %d (%s) and %d (%s); want 40 = 20 + 20", whole.Execs, s1.Execs, s1.Shard, s2.Execs, s2.Shard)
	}

	out := filepath.Join(dir, "merged")
	code, stdout, stderr := runFuzzCLI(context.Background(), nil, "fuzz", "merge", filepath.Join(dir, "c2"), filepath.Join(dir, "c1"), "--out", out, "--format", "json,html")
	if code != exitFailed || !strings.Contains(stdout, "merged from") {
		t.Fatalf("fuzz merge: exit %d, want 1 and the parts listed\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	merged := readCampaign(t, filepath.Join(out, fuzz.SummaryFile))
	if merged.Execs != whole.Execs || !reflect.DeepEqual(merged.Mutators, whole.Mutators) || len(merged.Parts) != 2 {
		t.Errorf("merged: %d execs, %d parts, mutators %v; want %d execs as the whole campaign's, mutators %v", merged.Execs, len(merged.Parts), merged.Mutators, whole.Execs, whole.Mutators)
	}
	ids := func(r fuzz.Result) []string {
		var out []string
		for _, f := range r.Findings {
			out = append(out, f.ID)
		}
		sort.Strings(out)
		return out
	}
	if got, want := ids(merged), ids(whole); len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("merged findings %v, want the whole campaign's %v", got, want)
	}
	if len(ids(s1)) == len(ids(whole)) && len(ids(s2)) == len(ids(whole)) {
		t.Logf("each shard found every finding alone (%d); the merge deduplicated them", len(ids(whole)))
	}
	for _, f := range merged.Findings {
		if filepath.Dir(f.Dir) != filepath.Join(out, "findings") || !strings.Contains(f.Reproducer, shellQuote(f.Dir)) {
			t.Errorf("finding %s: dir %s, reproducer %q; want its own directory under the merge and a reproducer replaying it", f.ID, f.Dir, f.Reproducer)
		}
		if _, err := os.Stat(filepath.Join(f.Dir, fuzz.FileReplay)); err != nil {
			t.Errorf("finding %s: %v", f.ID, err)
		}
	}
	if len(merged.Findings) > 0 {
		f := merged.Findings[0]
		argv, err := splitCommand(f.Reproducer)
		if err != nil {
			t.Fatal(err)
		}
		if code, stdout, stderr := runFuzzCLI(context.Background(), nil, argv[1:]...); code != exitFailed || !strings.Contains(stdout, "REPRODUCED") {
			t.Errorf("%s: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", f.Reproducer, code, stdout, stderr)
		}
	}
	t.Logf("whole: %d execs, %d findings; shards: %d+%d execs, %d+%d findings; merged: %d execs, %d findings",
		whole.Execs, len(whole.Findings), s1.Execs, s2.Execs, len(s1.Findings), len(s2.Findings), merged.Execs, len(merged.Findings))

	// A shard given twice, or an unknown directory, is a usage error.
	for _, args := range [][]string{
		{"fuzz", "merge", filepath.Join(dir, "c1"), filepath.Join(dir, "c1"), "--out", filepath.Join(dir, "m2")},
		{"fuzz", "merge", filepath.Join(dir, "nope"), "--out", filepath.Join(dir, "m3")},
		{"fuzz", "merge", filepath.Join(dir, "c1")},
		{"fuzz", "merge", "--out", filepath.Join(dir, "m4")},
	} {
		if code, _, stderr := runFuzzCLI(context.Background(), nil, args...); code != exitUsage {
			t.Errorf("mcpcheck %s: exit %d, want 2; stderr %q", strings.Join(args, " "), code, stderr)
		}
	}
	// One shard alone names the missing one.
	if _, _, stderr := runFuzzCLI(context.Background(), nil, "fuzz", "merge", filepath.Join(dir, "c1"), "--out", filepath.Join(dir, "m5")); !strings.Contains(stderr, "shard 2/2 (seed 5) is missing") {
		t.Errorf("merging shard 1/2 alone does not name 2/2 missing: %q", stderr)
	}
}

// runUnminimized is runFuzzCLI for server campaigns that do not minimize
// their findings (env.fuzzMinimizeBudget -1): each finding is reproduced
// once and kept as found.
func runUnminimized(args ...string) (code int, stdout, stderr string) {
	var out, errw bytes.Buffer
	code = runEnv(&env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errw, getenv: func(string) string { return "" }, fuzzMinimizeBudget: -1}, args)
	return code, out.String(), errw.String()
}

// TestFuzzClientShardsMergeIntoTheUnshardedCampaign: a client campaign
// (mcpcheck playing a hostile server to a planted HTTP client that refuses
// valid SSE framings) run whole and as shards 1/2 and 2/2 with the same
// seed: the shards split the executions, and fuzz merge gives the whole
// campaign's executions, inputs per mutator and findings, still a client
// campaign.
func TestFuzzClientShardsMergeIntoTheUnshardedCampaign(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	client := strictSSEClient(t)
	const execs = "8"
	codes := make([]int, 3)
	var wg sync.WaitGroup
	for i, shard := range []string{"", "1/2", "2/2"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []string{"fuzz", "--client", shellQuote(client) + " {url}", "--protocol", "2025-11-25", "--mutators", "sse/framing,sse/retry",
				"--seed", "7", "--max-execs", execs, "--out", filepath.Join(dir, "c"+string(rune('0'+i))), "--format", "json"}
			if shard != "" {
				args = append(args, "--shard", shard)
			}
			codes[i], _, _ = runFuzzCLI(context.Background(), nil, args...)
		}()
	}
	wg.Wait()
	whole := readCampaign(t, filepath.Join(dir, "c0", fuzz.SummaryFile))
	s1 := readCampaign(t, filepath.Join(dir, "c1", fuzz.SummaryFile))
	s2 := readCampaign(t, filepath.Join(dir, "c2", fuzz.SummaryFile))
	if whole.Execs != 8 || s1.Execs != 4 || s2.Execs != 4 || s1.Shard != "1/2" || s2.Shard != "2/2" || s1.Role != "client" {
		t.Fatalf("execs: whole %d, shards %d (%s, role %q) and %d (%s); want 8 = 4 + 4 (exit codes %v)", whole.Execs, s1.Execs, s1.Shard, s1.Role, s2.Execs, s2.Shard, codes)
	}
	out := filepath.Join(dir, "merged")
	code, stdout, stderr := runFuzzCLI(context.Background(), nil, "fuzz", "merge", filepath.Join(dir, "c1"), filepath.Join(dir, "c2"), "--out", out, "--format", "json")
	if code != codes[0] || !strings.Contains(stdout, "merged from") {
		t.Fatalf("fuzz merge: exit %d, want the whole campaign's %d\nstdout:\n%s\nstderr:\n%s", code, codes[0], stdout, stderr)
	}
	merged := readCampaign(t, filepath.Join(out, fuzz.SummaryFile))
	// Each shard made its own clean run of the client: the merge counts
	// them all; the inputs of the sequence are what must add up.
	if merged.Mutators["clean-run"] != 2 {
		t.Errorf("merged clean runs %d, want one per shard", merged.Mutators["clean-run"])
	}
	delete(merged.Mutators, "clean-run")
	delete(whole.Mutators, "clean-run")
	if merged.Role != "client" || merged.Execs != whole.Execs || !reflect.DeepEqual(merged.Mutators, whole.Mutators) {
		t.Errorf("merged: role %q, %d execs, mutators %v; want a client campaign of %d execs, mutators %v", merged.Role, merged.Execs, merged.Mutators, whole.Execs, whole.Mutators)
	}
	ids := func(r fuzz.Result) []string {
		var out []string
		for _, f := range r.Findings {
			out = append(out, f.ID)
		}
		sort.Strings(out)
		return out
	}
	if got, want := ids(merged), ids(whole); len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("merged findings %v, want the whole campaign's %v", got, want)
	}
}
