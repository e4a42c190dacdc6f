package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
)

// zooSandboxEntry is a zoo mode that does harm outside the MCP wire, and
// what the run's side effects must say about it.
type zooSandboxEntry struct {
	mode string
	// spawned is a word of a command line the side effects must list;
	// escaped says that process must have left its target's session and
	// been ended by mcpcheck.
	spawned string
	escaped bool
	// files are paths the side effects must list in the sandbox.
	files []string
}

// TestZooSandboxLeavesNothingBehind runs the server suite (in the zoo's
// tier: one version under make test, about 120 process starts of the
// target, every version under make zoo) and a fuzz campaign against two
// zoo servers that do harm outside MCP: one
// starts a daemon (a double fork into a session of its own) per process,
// one writes files into its working directory, HOME, TMPDIR and XDG
// configuration and runs a short child. mcpcheck runs with HOME, TMPDIR
// and its working directory set to fresh directories; after each run no
// process of the target may be left, nothing may have been created in
// those directories, the sandbox must be gone, the JSON report's side
// effects must list what the target did, and the peak RSS must stay under
// the zoo's bound.
//
// MCPCHECK_ZOO_BIN runs another mcpcheck build instead (an older one,
// which had no sandbox, fails this test: the daemons outlive the run and
// the files land in HOME, TMPDIR and the working directory).
func TestZooSandboxLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBin(t)
	if b := os.Getenv("MCPCHECK_ZOO_BIN"); b != "" {
		bin = b
	}
	if runtime.GOOS != "linux" {
		t.Skip("the zoo reads peak RSS and process states the Linux way")
	}
	zoo := zooProgram(t)
	tier := zooTierFromEnv()
	for _, e := range []zooSandboxEntry{
		{mode: "daemon", spawned: "daemon-live", escaped: true},
		{mode: "write-files", spawned: "short-child", files: []string{"work/zoo-cwd.txt", "home/zoo-home.txt", "tmp/zoo-tmp.txt", "home/.config/zoo/config.json"}},
	} {
		t.Run(e.mode, func(t *testing.T) {
			home, tmp, cwd, keep := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
			pidFile := filepath.Join(keep, "pids")
			env := []string{"HOME=" + home, "TMPDIR=" + tmp}
			for _, kv := range os.Environ() {
				k, _, _ := strings.Cut(kv, "=")
				if k != "HOME" && k != "TMPDIR" && k != "GOMEMLIMIT" && k != "GOGC" && !strings.HasPrefix(k, "XDG_") {
					env = append(env, kv)
				}
			}
			stdio := []string{"--stdio", shellQuote(zoo) + " " + e.mode + " " + shellQuote(pidFile)}
			out := filepath.Join(keep, "suite")
			suite := runZooIn(t, bin, cwd, env, zooSuiteBoundShared, append(append([]string{"server"}, stdio...),
				"--protocol", tier.protocol, "--format", "json,junit", "--out", out)...)
			if suite.exit != exitOK && suite.exit != exitFailed {
				t.Errorf("the suite exited %d\n%s", suite.exit, tail(suite.stderr, 2000))
			}
			report := checkZooReports(t, reportSchema(t), out)
			var run reports.Run
			if err := json.Unmarshal([]byte(report), &run); err != nil {
				t.Fatal(err)
			}
			checkZooSideEffects(t, "suite", run.SideEffects, e)
			left := len(zooLeftovers(t, pidFile))

			fout := filepath.Join(keep, "fuzz")
			fz := runZooIn(t, bin, cwd, env, 5*time.Second+zooFuzzSlack, append(append([]string{"fuzz"}, stdio...),
				"--duration", "5s", "--wait", "2s", "--seed", "1", "--out", fout, "--format", "json")...)
			if fz.exit != exitOK && fz.exit != exitFailed && fz.exit != exitHarness {
				t.Errorf("the campaign exited %d\n%s", fz.exit, tail(fz.stderr, 2000))
			}
			var summary struct {
				Execs       int                  `json:"execs"`
				SideEffects *reports.SideEffects `json:"sideEffects"`
			}
			if b, err := os.ReadFile(filepath.Join(fout, "mcpcheck-fuzz.json")); err != nil || json.Unmarshal(b, &summary) != nil {
				t.Errorf("the campaign wrote no readable summary: %v", err)
			}
			checkZooSideEffects(t, "campaign", summary.SideEffects, e)
			left += len(zooLeftovers(t, pidFile))

			if left > 0 {
				t.Errorf("%d processes of the target were left running", left)
			}
			for name, dir := range map[string]string{"HOME": home, "TMPDIR": tmp, "the working directory": cwd} {
				if made := filesIn(dir); len(made) > 0 {
					t.Errorf("the runs created %d entries in %s (%s): %q", len(made), name, dir, made)
				}
			}
			for what, r := range map[string]zooRun{"suite": suite, "campaign": fz} {
				if r.rss > zooRSSBound {
					t.Errorf("the %s's peak RSS was %d MiB, over the %d MiB bound", what, r.rss>>20, zooRSSBound>>20)
				}
			}
			t.Logf("%s: suite %.1f s, %d MiB; campaign %.1f s, %d MiB, %d execs", e.mode, suite.wall.Seconds(), suite.rss>>20, fz.wall.Seconds(), fz.rss>>20, summary.Execs)
		})
	}
}

// checkZooSideEffects holds a run's side effects to what the zoo entry did.
func checkZooSideEffects(t *testing.T, what string, fx *reports.SideEffects, e zooSandboxEntry) {
	t.Helper()
	if fx == nil || !fx.Observed || fx.Sandbox == nil {
		t.Errorf("the %s's report has no observed side effects: %+v", what, fx)
		return
	}
	if _, err := os.Stat(fx.Sandbox.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the %s's sandbox %s was not removed: %v", what, fx.Sandbox.Dir, err)
	}
	found := false
	for _, p := range fx.Processes {
		if !strings.Contains(p.Command, e.spawned) {
			continue
		}
		found = true
		if e.escaped && (p.LeftSession == 0 || p.EndedByUs == 0 || p.OutlivedParent == 0) {
			t.Errorf("the %s's side effects do not say the daemon escaped and was ended: %s", what, p)
		}
	}
	if !found {
		t.Errorf("the %s's side effects do not list the %s processes: %q", what, e.spawned, fx.Lines())
	}
	var paths []string
	if fx.SandboxFiles != nil {
		paths = fx.SandboxFiles.Paths
	}
	for _, f := range e.files {
		if !strings.Contains(strings.Join(paths, "\n"), f) {
			t.Errorf("the %s's side effects do not list %s in the sandbox: %q", what, f, paths)
		}
	}
}

// filesIn lists what a directory holds (bounded).
func filesIn(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if p != dir && len(out) < 20 {
			out = append(out, strings.TrimPrefix(p, dir+"/"))
		}
		return nil
	})
	return out
}

// runZooIn is runZoo with the working directory and environment of the
// mcpcheck process given.
func runZooIn(t *testing.T, bin, dir string, env []string, limit time.Duration, args ...string) zooRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env, cmd.WaitDelay = dir, env, 10*time.Second
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("mcpcheck %s: %v", strings.Join(args, " "), err)
	}
	stop, peak := make(chan struct{}), make(chan int64)
	go func() {
		var hwm int64
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			hwm = max(hwm, vmHWM(cmd.Process.Pid))
			select {
			case <-stop:
				peak <- hwm
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	close(stop)
	r := zooRun{wall: time.Since(start), stderr: stderr.String(), rss: <-peak}
	if ctx.Err() != nil {
		t.Errorf("mcpcheck %s did not end within %v (killed)\n%s", strings.Join(args, " "), limit, tail(r.stderr, 2000))
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("mcpcheck %s: %v", strings.Join(args, " "), err)
	}
	return r
}
