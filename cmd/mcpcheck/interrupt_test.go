package main

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
)

// TestInterruptedRunWritesReports: SIGINT to a run against a server that
// never answers ends it at once with exit 5, a valid JSON and JUnit report
// that list every check (the ones not reached marked not run), and no
// process of the target left behind.
func TestInterruptedRunWritesReports(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBin(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "up")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO on this system: %v", err)
	}
	out := filepath.Join(dir, "out")
	// The target says it started (through the FIFO), then never answers.
	server := "sh -c 'echo up > " + fifo + "; exec sleep 61.25'"
	cmd := exec.Command(bin, "server", "--stdio", server, "--format", "json,junit", "--out", out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	up := make(chan error, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until the target writes
		if err == nil {
			f.Close()
		}
		up <- err
	}()
	select {
	case err := <-up:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the target never started")
	}
	start := time.Now()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("mcpcheck did not end within 30 s of SIGINT; stderr: %s", stderr.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want %d; stderr: %s", err, exitInterrupted, stderr.String())
	}
	t.Logf("ended %v after SIGINT", time.Since(start).Round(time.Millisecond))
	run := interruptedReport(t, out)
	notRun := 0
	for _, c := range run.Checks {
		if c.Outcome == reports.Untestable && strings.HasPrefix(c.Reason, "not run") {
			notRun++
		}
	}
	if run.Interrupted == "" || notRun == 0 || len(run.Checks) < 100 {
		t.Errorf("the report says interrupted=%q, %d checks, %d not run; want the interruption and every check", run.Interrupted, len(run.Checks), notRun)
	}
	raw, err := os.ReadFile(filepath.Join(out, "mcpcheck-server.junit.xml"))
	if err != nil {
		t.Fatalf("no JUnit report: %v", err)
	}
	var doc struct {
		XMLName xml.Name
		Tests   int `xml:"tests,attr"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil || doc.XMLName.Local != "testsuites" || doc.Tests == 0 {
		t.Errorf("the JUnit report is not a testsuites document with tests (%v, %+v)", err, doc)
	}
	if out, _ := exec.Command("pgrep", "-f", "sleep 61.25").Output(); len(out) > 0 {
		t.Errorf("the target's process is left behind: %s", out)
	}
}

// TestStopSignalToGroupBlamesNothing: SIGINT delivered the way timeout(1)
// and CI runners deliver it, to the process and then to its whole group,
// is one stop, not a second Ctrl-C: the main job stops, writes complete
// reports and exits 5, and no check stopped half-way is a fail or a warn
// (a wait cut short by the stop is not the target's silence). It stops
// the run at three points: early, in the middle and late. The run is
// --verbose, so that its progress (not a terminal) is one line per check
// that ended, about 620 in all: without it a clean run writes no line per
// check and never reaches the later points (it ran whole, and skipped).
func TestStopSignalToGroupBlamesNothing(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBin(t)
	for _, after := range []int{1, 150, 400} {
		t.Run(fmt.Sprintf("after %d lines", after), func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			cmd := exec.Command(bin, "--verbose", "--out", out, "--format", "json,junit,text")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			// The live progress goes to stderr, line by line: the point
			// to stop at is a number of its lines.
			progress, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdout = io.Discard
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			lines := bufio.NewScanner(progress)
			n := 0
			for n < after && lines.Scan() {
				stderr.WriteString(lines.Text() + "\n")
				n++
			}
			copied := make(chan struct{})
			go func() {
				defer close(copied)
				for lines.Scan() {
					stderr.WriteString(lines.Text() + "\n")
				}
			}()
			// As timeout(1) does: the child first, then its group.
			_ = cmd.Process.Signal(os.Interrupt)
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
			done := make(chan error, 1)
			go func() {
				<-copied
				done <- cmd.Wait()
			}()
			select {
			case err = <-done:
			case <-time.After(60 * time.Second):
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				t.Fatalf("mcpcheck did not end within 60 s of SIGINT")
			}
			if err == nil {
				t.Skipf("the run ended before the signal (after %d lines)", n)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
				t.Fatalf("exit %v, want %d (one stop, reports written); stderr: %s", err, exitInterrupted, stderr.String())
			}
			if strings.Contains(stderr.String(), "exiting at once") {
				t.Errorf("the signal to the group was taken as a second Ctrl-C: %s", stderr.String())
			}
			run := interruptedReport(t, out)
			if run.Interrupted == "" {
				t.Errorf("the report does not say the run was interrupted")
			}
			for _, c := range run.Checks {
				if c.Outcome == reports.Fail || c.Outcome == reports.Warn || c.Outcome == reports.Error {
					t.Errorf("%s [%s] is %s after a stop: %s %s", c.ID, c.Version, c.Outcome, c.Actual, c.Reason)
				}
			}
			for _, name := range []string{"mcpcheck-server.junit.xml", "mcpcheck-server.txt"} {
				if _, err := os.Stat(filepath.Join(out, name)); err != nil {
					t.Errorf("report %s missing: %v", name, err)
				}
			}
		})
	}
}

// interruptedReport reads the JSON report an interrupted server run wrote
// into out.
func interruptedReport(t *testing.T, out string) *reports.Run {
	t.Helper()
	f, err := os.Open(filepath.Join(out, "mcpcheck-server.json"))
	if err != nil {
		t.Fatalf("no JSON report: %v", err)
	}
	defer f.Close()
	run, err := reports.ReadJSON(f)
	if err != nil {
		t.Fatalf("the JSON report does not read back: %v", err)
	}
	return run
}
