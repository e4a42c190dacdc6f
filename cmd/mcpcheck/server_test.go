package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func runBin(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runBinEnv(t, nil, args...)
}

// runBinEnv runs the mcpcheck binary with args in env (nil: this
// process's environment) and returns its exit code, stdout and stderr.
func runBinEnv(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(mcpcheckBin(t), args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

func TestServerUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"server"},
		{"server", "--stdio", "x", "--url", "http://127.0.0.1:1/mcp"},
		{"server", "--stdio", "x", "--protocol", "1999-01-01"},
		{"server", "--stdio", "x", "--format", "json"},
		{"server", "--stdio", "x", "--format", "pdf", "--out", "d"},
		{"server", "--stdio", "x", "--header", "A:b"},
		{"server", "--url", "http://127.0.0.1:1/mcp", "--transport", "pigeon"},
		{"server", "--url", "http://127.0.0.1:1/mcp", "--header", "novalue"},
		{"server", "--stdio", "'unterminated"},
		{"server", "--stdio", "x", "--label-filter", "area:base &&"},
		{"server", "extra"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitUsage {
			t.Errorf("%q: exit %d, want %d (stderr %q)", args, code, exitUsage, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"server", "--help"}, &out, &errb); code != exitOK || !strings.Contains(out.String(), "--label-filter") {
		t.Errorf("server --help: exit %d, output %q", code, out.String())
	}
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		`node server.js --port 3`:       {"node", "server.js", "--port", "3"},
		`"my server" 'a b' c\ d`:        {"my server", "a b", "c d"},
		`  go run ./cmd/x   --stdio  `:  {"go", "run", "./cmd/x", "--stdio"},
		`python -c "print('hi there')"`: {"python", "-c", "print('hi there')"},
	} {
		got, err := splitCommand(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestServerAgainstReference(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBin(t)
	ref := bin + " reference server --stdio"
	dir := t.TempDir()
	code, stdout, stderr := runBin(t, "server", "--stdio", ref, "--protocol", "2025-11-25", "--format", "text,json,junit,md,html", "--out", dir)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "Protocol 2025-11-25") {
		t.Errorf("the text report is missing from stdout:\n%s", stdout)
	}
	for _, ext := range []string{".txt", ".json", ".xml", ".md", ".html"} {
		matches, _ := filepath.Glob(filepath.Join(dir, "mcpcheck-server*"+ext))
		if len(matches) == 0 {
			files, _ := os.ReadDir(dir)
			t.Errorf("no %s report in --out (have %v)", ext, files)
		}
	}
}

func TestServerFaultFailsAndBaseline(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBin(t)
	ref := bin + " reference server --stdio --fault ping-nonempty-result"
	args := []string{"server", "--stdio", ref, "--protocol", "2025-11-25", "--label-filter", "area:ping"}
	code, stdout, stderr := runBin(t, args...)
	if code != exitFailed {
		t.Fatalf("with a broken ping: exit %d, want %d\n%s\n%s", code, exitFailed, stdout, stderr)
	}
	if !strings.Contains(stdout, "ping.response.prompt-empty-result") {
		t.Errorf("the report does not name the broken requirement:\n%s", stdout)
	}
	bl := filepath.Join(t.TempDir(), "baseline.json")
	os.WriteFile(bl, []byte(`{"entries":[{"check":"ping/empty-result","version":"2025-11-25","reason":"known: the reference runs with a fault"},{"check":"ping/before-initialize","version":"2025-11-25","reason":"known: the same fault"}]}`), 0o644)
	if code, stdout, stderr := runBin(t, append(args, "--baseline", bl)...); code != exitOK {
		t.Errorf("with the failure baselined: exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	// The same baseline against a healthy server is stale: exit 1.
	healthy := []string{"server", "--stdio", bin + " reference server --stdio", "--protocol", "2025-11-25", "--label-filter", "area:ping", "--baseline", bl}
	if code, stdout, stderr := runBin(t, healthy...); code != exitFailed {
		t.Errorf("stale baseline entry: exit %d, want %d\n%s\n%s", code, exitFailed, stdout, stderr)
	}
}

func TestServerUnreachable(t *testing.T) {
	code, stdout, stderr := runBin(t, "server", "--stdio", "/nonexistent/mcp-server", "--protocol", "2025-11-25")
	if code != exitHarness || !strings.Contains(stderr, "could not be started") || strings.Count(stdout+stderr, "\n") > 3 {
		t.Errorf("a command that does not exist: exit %d, want %d at once with one line saying so\n%s\n%s", code, exitHarness, stdout, stderr)
	}
	code, stdout, stderr = runBin(t, "server", "--url", "http://127.0.0.1:1/mcp", "--protocol", "2025-11-25", "--timeout", "2s")
	if code != exitHarness {
		t.Errorf("a URL that refuses connections: exit %d, want %d\n%s\n%s", code, exitHarness, stdout, stderr)
	}
}

// TestNoArgumentsChecksTheReference: mcpcheck without arguments is the
// main job. Run bare, it says it checks the embedded reference server and
// starts doing so (stopped there by SIGINT: exit 5); the main job itself,
// the same run with reports (mainJob, shared with the tests that read
// them, so that make test runs the whole job once), passes with results
// for every version in its text report.
func TestNoArgumentsChecksTheReference(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(mcpcheckBin(t))
	cmd.Stdout = io.Discard
	progress, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, rest := bufio.NewReader(progress), make(chan string, 1)
	line, _ := first.ReadString('\n')
	_ = cmd.Process.Signal(os.Interrupt)
	go func() {
		b, _ := io.ReadAll(first)
		rest <- string(b)
	}()
	var stderr string
	select {
	case stderr = <-rest:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("mcpcheck without arguments did not end within 2 minutes of SIGINT")
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !strings.Contains(line, "no target given, checking the embedded reference server") || !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Errorf("mcpcheck without arguments: first line %q, then %v (want the reference server named, then exit %d on SIGINT)\n%s", line, err, exitInterrupted, stderr)
	}

	_, code := mainJob(t)
	if code != exitOK {
		t.Fatalf("the main job: exit %d\nstdout:\n%s\nstderr:\n%s", code, mainJobStdout, mainJobStderr)
	}
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		if !strings.Contains(mainJobStdout, "Protocol "+v) {
			t.Errorf("no results for %s", v)
		}
	}
}

// TestNothingJudgedIsNoPass: a target that exits at once leaves every
// check n/a or untestable; with the version named (--protocol latest) that
// is a harness verdict (exit 3), never "OK" with exit 0.
func TestNothingJudgedIsNoPass(t *testing.T) {
	code, _, stderr := runBin(t, "server", "--stdio", "true", "--protocol", "latest")
	if code != exitHarness || !strings.Contains(stderr, "nothing was judged") {
		t.Fatalf("exit %d, stderr %q; want %d and 'nothing was judged'", code, stderr, exitHarness)
	}
}

// TestStrictFailsOnWarnings: a broken SHOULD is a warning that passes the
// run, and fails it with --strict.
func TestStrictFailsOnWarnings(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBin(t)
	args := []string{"server", "--stdio", bin + " reference server --stdio --fault respond-after-cancel", "--protocol", "2025-11-25", "--label-filter", "area:cancellation"}
	if code, _, stderr := runBin(t, args...); code != exitOK {
		t.Fatalf("without --strict: exit %d, want 0 (a warning only); stderr %s", code, stderr)
	}
	code, _, stderr := runBin(t, append(args, "--strict")...)
	if code != exitFailed || !strings.Contains(stderr, "unexpected warnings (--strict)") {
		t.Fatalf("with --strict: exit %d, stderr %q; want %d", code, stderr, exitFailed)
	}
}

// TestBaselineWriteRoundTrip: a baseline written from a run's JSON report
// makes the same run pass (its warning expected, even under --strict), and
// the same baseline on a run of another version is not stale.
func TestBaselineWriteRoundTrip(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBin(t)
	dir := t.TempDir()
	srv := bin + " reference server --stdio --fault respond-after-cancel"
	args := []string{"server", "--stdio", srv, "--label-filter", "area:cancellation", "--strict"}
	if code, _, stderr := runBin(t, append(args, "--protocol", "2025-11-25", "--format", "json", "--out", dir)...); code != exitFailed {
		t.Fatalf("the faulty run: exit %d, want %d; stderr %s", code, exitFailed, stderr)
	}
	base := filepath.Join(dir, "base.json")
	if code, _, stderr := runBin(t, "baseline", "write", filepath.Join(dir, "mcpcheck-server.json"), "--reason", "known: answers after cancel", "--out", base); code != exitOK {
		t.Fatalf("baseline write: exit %d; stderr %s", code, stderr)
	}
	if code, _, stderr := runBin(t, append(args, "--protocol", "2025-11-25", "--baseline", base)...); code != exitOK {
		t.Errorf("the same run with its baseline: exit %d, want 0; stderr %s", code, stderr)
	}
	// Another version: the entry is out of scope (not stale), and that
	// version's own warning is not covered by it.
	other := []string{"server", "--stdio", srv, "--label-filter", "area:cancellation", "--protocol", "2025-06-18", "--baseline", base}
	if code, _, stderr := runBin(t, other...); code != exitOK || !strings.Contains(stderr, "0 stale") && strings.Contains(stderr, "stale") {
		t.Errorf("a run of another version with a 2025-11-25 baseline: exit %d, want 0 (not stale); stderr %s", code, stderr)
	}
	if code, _, stderr := runBin(t, append(other, "--strict")...); code != exitFailed || !strings.Contains(stderr, "0 stale baseline entries, 1 unexpected warnings") {
		t.Errorf("the other version's warning under --strict: exit %d, want %d (not covered by a 2025-11-25 entry); stderr %s", code, exitFailed, stderr)
	}
	if code, _, _ := runBin(t, "baseline", "write", filepath.Join(dir, "mcpcheck-server.json")); code != exitUsage {
		t.Errorf("baseline write without --reason: exit %d, want %d", code, exitUsage)
	}
}
