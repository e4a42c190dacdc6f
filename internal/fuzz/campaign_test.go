package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

func TestCampaignCarefulServerIsClean(t *testing.T) {
	for _, v := range []spec.Version{spec.V20241105, spec.V20250326, spec.V20251125, spec.V20260728} {
		t.Run(string(v), func(t *testing.T) {
			var mu sync.Mutex
			var last Progress
			execs := int64(400)
			if raceEnabled {
				execs = 100
			}
			res, err := Run(context.Background(), Config{Target: inprocHelper(v, ""), Version: v, MaxExecs: execs, Seed: 7, Workers: 2,
				Wait: 10 * time.Second, ProgressEvery: 50 * time.Millisecond, Progress: func(p Progress) { mu.Lock(); last = p; mu.Unlock() }})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Findings {
				t.Errorf("finding on the careful server: %s %s (%s seed %d): %s\n%q", f.Kind, f.Check, f.Mutator, f.Seed, f.Message, trimmed(f.Minimized.Bytes()))
			}
			if res.Execs != execs {
				t.Errorf("%d execs, want exactly %d", res.Execs, execs)
			}
			if res.Verdict.Failed {
				t.Errorf("verdict failed: %s", res.Verdict.Reason)
			}
			if len(res.MethodsCovered) < 2 {
				t.Errorf("methods covered: %v", res.MethodsCovered)
			}
			for m, n := range res.Mutators {
				if n > 0 && res.MutatorTime[m] <= 0 {
					t.Errorf("mutator %s ran %d inputs but has no time on its account", m, n)
				}
			}
			if len(res.Errors) > 0 {
				t.Errorf("campaign errors: %v", res.Errors)
			}
			// The instances' starts are accounted for: the first one's at
			// least, and the workers' waits as a share of their time.
			if res.RestartTime <= 0 || res.RestartWait < 0 || res.RestartShare() < 0 || res.RestartShare() > 1 {
				t.Errorf("restart accounting: %v starting, %v waited for (share %v) for %d restarts", res.RestartTime, res.RestartWait, res.RestartShare(), res.Restarts)
			}
			mu.Lock()
			defer mu.Unlock()
			if last.Execs != execs {
				t.Errorf("final progress says %d execs", last.Execs)
			}
		})
	}
}

// TestCampaignFindsMinimizesAndReplaysACrash: the test server panics on a
// NUL byte; the campaign must find it, minimize the input to (almost) the
// NUL alone, write the finding, and Replay must reproduce it. The campaign
// and its minimization (up to 200 reproductions) run against the server
// in process; the replays run it as a process, as a user's would.
func TestCampaignFindsMinimizesAndReplaysACrash(t *testing.T) {
	dir := t.TempDir()
	v := spec.V20251125
	target := helperTarget(t, v, "panic-nul")
	res, err := Run(context.Background(), Config{Target: inprocHelper(v, "panic-nul"), Version: v, MaxExecs: 60, Seed: 1, Mutators: []string{"bytes/nul", "protocol/valid"},
		FindingsDir: dir, Wait: 10 * time.Second, MinimizeBudget: 200})
	if err != nil {
		t.Fatal(err)
	}
	var crash *Finding
	for _, f := range res.Findings {
		if f.Kind == reports.FindingCrash {
			crash = f
		}
	}
	if crash == nil {
		t.Fatalf("no crash found in %d execs: %+v", res.Execs, res.Findings)
	}
	if !res.Verdict.Failed {
		t.Error("a crash did not fail the verdict")
	}
	if !crash.Reproduced {
		t.Fatal("the crash did not reproduce on a fresh instance")
	}
	if !strings.Contains(crash.Check, "panic: test server: NUL byte") {
		t.Errorf("check %q does not carry the panic line", crash.Check)
	}
	if !strings.HasSuffix(crash.Check, "[in github.com/mcpcheck/mcpcheck/internal/fuzz.serve]") {
		t.Errorf("check %q does not name the function that panicked (serve)", crash.Check)
	}
	if got := crash.Minimized.Bytes(); bytes.Count(got, []byte{0}) != 1 || len(got) > 2 {
		t.Errorf("minimized to %q, want the NUL byte alone", got)
	}
	for _, name := range []string{FileFinding, FileReplay, FileSeed, FileInput, FileMinimized, FileTranscript, FileStderr} {
		if _, err := os.Stat(filepath.Join(crash.Dir, name)); err != nil {
			t.Errorf("finding file missing: %v", err)
		}
	}
	if stderr, _ := os.ReadFile(filepath.Join(crash.Dir, FileStderr)); !bytes.Contains(stderr, []byte("panic:")) {
		t.Errorf("stderr.txt does not hold the panic: %q", stderr)
	}
	events, err := ReadTranscript(filepath.Join(crash.Dir, FileTranscript))
	if err != nil || len(events) == 0 {
		t.Fatalf("transcript: %d events, %v", len(events), err)
	}
	for i := 0; i < 2; i++ { // deterministic: twice the same answer
		rr, err := Replay(context.Background(), crash.Dir, target, ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !rr.Reproduced {
			t.Fatalf("replay %d did not reproduce: %+v", i, rr.Observations)
		}
	}
	// The careful server does not crash on the same input.
	rr, err := Replay(context.Background(), crash.Dir, inprocHelper(v, ""), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rr.Reproduced {
		t.Error("the replay reproduced a crash on the careful server")
	}
	if !strings.Contains(crash.Reproducer, "mcpcheck replay "+crash.Dir+" --stdio") {
		t.Errorf("reproducer %q", crash.Reproducer)
	}
	sum := res.Summary(DefaultReproducer(target.Describe()), 20)
	if len(sum.Findings) != len(res.Findings) || !strings.Contains(sum.Findings[0].Reproducer, "mcpcheck replay") {
		t.Errorf("summary: %+v", sum.Findings)
	}
}

// TestCampaignOracles runs one fault at a time and expects the oracle that
// catches it, with its requirement.
func TestCampaignOracles(t *testing.T) {
	t.Parallel()
	cases := []struct {
		fault, mutators, kind, req string
		v                          spec.Version
	}{
		{"exit-garbage", "bytes/garbage-line", reports.FindingCrash, "", spec.V20250618},
		{"hang-unknown", "protocol/unknown-method", reports.FindingHang, "", spec.V20250618},
		{"both-on-ping", "protocol/valid", reports.FindingViolation, rules.ReqNotResultAndError, spec.V20241105},
		{"banner", "protocol/unknown-method", reports.FindingViolation, rules.ReqStdoutOnlyMCP, spec.V20260728},
	}
	for _, tc := range cases {
		t.Run(tc.fault, func(t *testing.T) {
			wait := 10 * time.Second
			if tc.kind == reports.FindingHang {
				wait = 300 * time.Millisecond
			}
			res, err := Run(context.Background(), Config{Target: inprocHelper(tc.v, tc.fault), Version: tc.v, MaxExecs: 5, Seed: 3,
				Mutators: []string{tc.mutators}, Wait: wait, MinimizeBudget: 8})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range res.Findings {
				if f.Kind == tc.kind && f.Requirement == tc.req {
					found = true
					if !f.Reproduced {
						t.Errorf("%s did not reproduce", f.Check)
					}
				}
			}
			if !found {
				t.Errorf("want a %s finding citing %q, got %+v", tc.kind, tc.req, res.Findings)
			}
			if !res.Verdict.Failed {
				t.Errorf("verdict passed: %s", res.Verdict.Reason)
			}
		})
	}
}

// TestCampaignJudgesAnswersAfterTheProbe: an answer the target writes
// after the probe's answer is not lost when the instance is closed (here,
// at the end of a one-input campaign): the grace read judges it, credits
// the input that asked, and replays show it again.
func TestCampaignJudgesAnswersAfterTheProbe(t *testing.T) {
	v := spec.V20241105
	target := inprocHelper(v, "late-both")
	res, err := Run(context.Background(), Config{Target: target, Version: v, MaxExecs: 1, Seed: 1,
		Mutators: []string{"protocol/tool-call"}, Wait: 10 * time.Second, MinimizeBudget: -1, FindingsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Check != "jsonrpc/result-and-error" || res.Findings[0].Mutator != "protocol/tool-call" {
		t.Fatalf("want the late answer with both result and error, from protocol/tool-call; got %+v", res.Findings)
	}
	f := res.Findings[0]
	if !f.Reproduced {
		t.Error("the late answer did not reproduce")
	}
	rr, err := Replay(context.Background(), f.Dir, target, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rr.Reproduced {
		t.Errorf("replay did not show the late answer: %+v", rr.Observations)
	}
}

// TestReplayWaitsForAnswersAfterTheProbes: a target that answers a
// request 150ms late, after both probes of a reproduction were answered,
// still has the answer judged: the reproduction waits for the answers
// still owed (lateAnswers).
func TestReplayWaitsForAnswersAfterTheProbes(t *testing.T) {
	v := spec.V20241105
	target := inprocHelper(v, "later-both")
	in, err := mutate.MakeInput(v, "protocol/tool-call", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	run, err := runOnce(context.Background(), target, v, in, 10*time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, o := range run.obs {
		found = found || o.Check == "jsonrpc/result-and-error"
	}
	if !found {
		t.Errorf("the answer that came 150ms late was not judged; observations %+v", run.obs)
	}
}

func TestCampaignRefusesBadConfig(t *testing.T) {
	if _, err := Run(context.Background(), Config{}); err == nil {
		t.Error("no target accepted")
	}
	if _, err := Run(context.Background(), Config{Target: &conn.ExecTarget{Argv: []string{"true"}}}); err == nil {
		t.Error("unbounded campaign accepted")
	}
	if _, err := Run(context.Background(), Config{Target: &conn.ExecTarget{Argv: []string{"/nonexistent/mcp"}}, MaxExecs: 1, Version: spec.V20251125}); err == nil {
		t.Error("a target that cannot start was accepted")
	}
}

// TestCampaignDurationBoundAndSummary: a campaign bounded only by its
// duration ends by itself (not by the test's watchdog context, which
// would mark it interrupted), having run at least that long, and its
// summary is JSON with a failed verdict for its findings.
func TestCampaignDurationBoundAndSummary(t *testing.T) {
	v := spec.V20250618
	dir := t.TempDir()
	// The watchdog: only a campaign that ignores its duration meets it.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// 2 s: under make test's load the helper's first start alone can take
	// most of half a second, and a campaign that ends before its first
	// execution has nothing to summarize.
	res, err := Run(ctx, Config{Target: inprocHelper(v, "both-on-ping"), Version: v, Duration: 2 * time.Second, Seed: 5,
		Mutators: []string{"protocol/valid", "json"}, FindingsDir: dir, Wait: 5 * time.Second, MinimizeBudget: 4, ProgressEvery: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Interrupted != "" || res.Duration < 2*time.Second {
		t.Errorf("the campaign did not end by its 2 s duration: interrupted %q, ran %v", res.Interrupted, res.Duration)
	}
	if res.Execs == 0 || len(res.Findings) == 0 {
		t.Fatalf("%d execs, %d findings", res.Execs, len(res.Findings))
	}
	var b bytes.Buffer
	if err := res.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("summary is not JSON: %v", err)
	}
	if back["verdict"].(map[string]any)["failed"] != true {
		t.Errorf("verdict in the summary: %v", back["verdict"])
	}
	if len(res.Memory) == 0 || res.Memory[0].HeapInuse == 0 || res.Memory[0].Sys == 0 {
		t.Errorf("no memory samples: %+v", res.Memory)
	}
	if runtime.GOOS == "linux" && (res.PeakRSSBytes == 0 || res.Memory[len(res.Memory)-1].PeakRSS == 0) {
		t.Errorf("no peak RSS on Linux: %d, %+v", res.PeakRSSBytes, res.Memory)
	}
	if !bytes.Contains(b.Bytes(), []byte(`"peakRssBytes"`)) || !bytes.Contains(b.Bytes(), []byte(`"heapInuseBytes"`)) {
		t.Errorf("the summary JSON lacks the memory figures")
	}
	meta, err := os.ReadFile(filepath.Join(res.Findings[0].Dir, FileFinding))
	if err != nil || !bytes.Contains(meta, []byte(`"requirement": "`+rules.ReqNotResultAndError+`"`)) {
		t.Errorf("finding.json: %v\n%s", err, meta)
	}
}

// TestCampaignIsDeterministic: one worker, the same seed and bound give the
// same inputs, the same findings and the same minimized inputs.
func TestCampaignIsDeterministic(t *testing.T) {
	v := spec.V20250618
	run := func() *Result {
		// MinimizeTime far over what 30 reproductions take: the
		// minimization is then bounded by its budget of runs alone, which
		// is what makes it deterministic (on a loaded machine the default
		// time bound cut it short at different points; the time bound is
		// held by the overtime tests).
		res, err := Run(context.Background(), Config{Target: inprocHelper(v, "panic-nul"), Version: v, MaxExecs: 40, Seed: 42, Wait: 10 * time.Second, MinimizeBudget: 30,
			MinimizeTime: 10 * time.Minute, Mutators: []string{"bytes", "protocol/valid"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(), run()
	if len(a.Findings) == 0 {
		t.Fatal("the crashing server gave no finding; the test proves nothing")
	}
	if len(a.Findings) != len(b.Findings) {
		t.Fatalf("%d findings, then %d", len(a.Findings), len(b.Findings))
	}
	for i := range a.Findings {
		fa, fb := a.Findings[i], b.Findings[i]
		if fa.ID != fb.ID || fa.Seed != fb.Seed || fa.Mutator != fb.Mutator || !bytes.Equal(fa.Minimized.Bytes(), fb.Minimized.Bytes()) {
			t.Errorf("finding %d differs: %s %s %d %q vs %s %s %d %q", i, fa.ID, fa.Mutator, fa.Seed, fa.Minimized.Bytes(), fb.ID, fb.Mutator, fb.Seed, fb.Minimized.Bytes())
		}
	}
	if fmt.Sprint(a.Mutators) != fmt.Sprint(b.Mutators) {
		t.Errorf("mutator use differs:\n%v\n%v", a.Mutators, b.Mutators)
	}
}

// TestCampaignDeadlineIsNoProblem: when the campaign's time is up while a
// worker waits for a fresh instance, the campaign just ends; that is no
// campaign problem (exit 3 from the CLI).
func TestCampaignDeadlineIsNoProblem(t *testing.T) {
	t.Parallel()
	v := spec.V20251125
	// Short campaigns, so that time runs out while a worker waits for an
	// instance: the careful server in process (inprocTarget), each
	// instance reading nothing for its first 200 ms, as a slow start. In
	// process, since a start of the race-instrumented helper on a loaded
	// machine took longer than all three campaigns (failed: 'no campaign
	// ran a single input'); the first instance can still take longer than
	// the shortest, so only the sum must show executions.
	var execs int64
	for i, d := range []time.Duration{300 * time.Millisecond, time.Second, 3 * time.Second} {
		res, err := Run(context.Background(), Config{Target: &inprocTarget{v: v, delay: 200 * time.Millisecond}, Version: v, Duration: d, Seed: uint64(i),
			Mutators: []string{"protocol/before-initialize", "framing/missing-final-newline"}, Wait: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Errors) > 0 {
			t.Fatalf("campaign of %v: campaign problems: %v", d, res.Errors)
		}
		if len(res.Findings) > 0 {
			t.Fatalf("campaign of %v: findings on the careful server: %+v", d, res.Findings)
		}
		execs += res.Execs
	}
	if execs == 0 {
		t.Fatal("no campaign ran a single input: the test shows nothing")
	}
}

// TestCampaignRestartsGetTheStartupAllowance (issue 33): a stateless
// target whose every process takes 1 s to read anything, and which exits
// on a line that is not JSON, is fuzzed with a 300 ms liveness deadline:
// each instance's first exchange (the first one, those started ahead, the
// restarts after each crash) is a start-up wait, so the crashes are found
// and no hang is made of the slow starts. With an allowance shorter than
// the start, the campaign says the target never answered.
func TestCampaignRestartsGetTheStartupAllowance(t *testing.T) {
	t.Parallel()
	v := spec.V20260728
	target := &inprocTarget{v: v, fault: "exit-garbage", delay: time.Second}
	res, err := Run(context.Background(), Config{Target: target, Version: v, MaxExecs: 12, Seed: 5,
		Mutators: []string{"bytes/garbage-line", "protocol/valid"}, Wait: 300 * time.Millisecond, StartupTimeout: 10 * time.Second, MinimizeBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	crashes := 0
	for _, f := range res.Findings {
		if f.Kind == reports.FindingCrash {
			crashes++
			continue
		}
		t.Errorf("finding %s %s: %s", f.Kind, f.Check, f.Message)
	}
	if crashes == 0 || res.Restarts < 2 || res.Execs != 12 || len(res.Errors) > 0 {
		t.Errorf("%d crash findings, %d restarts, %d execs, problems %q: want the crashes found on restarted instances, 12 execs", crashes, res.Restarts, res.Execs, res.Errors)
	}

	res, err = Run(context.Background(), Config{Target: target, Version: v, MaxExecs: 12, Seed: 5,
		Mutators: []string{"bytes/garbage-line", "protocol/valid"}, Wait: 300 * time.Millisecond, StartupTimeout: 300 * time.Millisecond})
	if !errors.Is(err, ErrUnreachable) || res == nil || !strings.Contains(res.Unjudged, "never said anything") {
		t.Errorf("with a 300ms allowance: %v, %+v; want the target unreachable, never having said anything", err, res)
	}
}

// TestMisnumberedProbeAnswerIsNoHang: a server that answers ping under
// its id cut short ("mcpcheck-probe-1" answered as "mcpcheck-probe-")
// answers the liveness probe, only under the wrong id: that is the
// response/id-unknown violation, and the target is alive. No hang finding:
// before the fix the campaign reported hang/ping after the liveness wait
// and its confirmation window, as it did against the reference server's
// result-id-truncated, whose probe answers from the tenth on lose a digit.
func TestMisnumberedProbeAnswerIsNoHang(t *testing.T) {
	t.Parallel()
	v := spec.V20250618
	res, err := Run(context.Background(), Config{Target: inprocHelper(v, "ping-id-truncated"), Version: v, MaxExecs: 3, Seed: 3,
		Mutators: []string{"protocol/valid"}, Wait: 2 * time.Second, MinimizeBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	unknown := false
	for _, f := range res.Findings {
		switch {
		case f.Kind == reports.FindingHang:
			t.Errorf("a target that answered the probe under a truncated id was called hung: %s: %s", f.Check, f.Message)
		case f.Check == "response/id-unknown":
			unknown = true
		}
	}
	if !unknown {
		t.Errorf("want the response/id-unknown finding of the truncated id, got %+v", res.Findings)
	}
}
