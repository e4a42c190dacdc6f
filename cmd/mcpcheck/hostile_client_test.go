package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
)

// TestHostileClientsEndWithReports: clients that flood the server's stdin,
// write garbage or hang end every case (each bounded by 2 s after the
// client's first message); the run ends with a verdict and its JSON
// report, and no process the client started is left behind (the harness
// ends each launch's process group).
func TestHostileClientsEndWithReports(t *testing.T) {
	t.Parallel()
	mcpcheckBin(t) // build it once, before the clock of the first case starts
	for _, tc := range []struct {
		name, script string
		codes        []int
		extra        []string
	}{
		// 8 MiB without a newline on the server's stdin, then more.
		{"flood", `head -c 8388608 /dev/zero | tr '\0' x | "$@"`, []int{exitFailed}, nil},
		{"garbage", `printf 'not json\n{"jsonrpc":"2.0",\n[]\n' | "$@"`, []int{exitFailed}, nil},
		// Starts the server, never writes to it, never exits.
		// A short start-up allowance: the others keep the default, as
		// the flood's first message is its 8 MiB line, complete only when
		// the pipe has carried it all (seconds under load).
		{"hang", `"$@" & sleep 600`, []int{exitHarness}, []string{"--startup-timeout", "3s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each mostly waits out its cases' bounds
			dir := t.TempDir()
			pids := filepath.Join(dir, "pids")
			script := filepath.Join(dir, "client.sh")
			body := "#!/bin/sh\necho $$ >> " + pids + "\n" + tc.script + "\n"
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			args := append([]string{"client", "--stdio", script + " {server}", "--protocol", "2025-11-25",
				"--label-filter", "area:base || area:transport-stdio", "--case-timeout", "2s", "--format", "json", "--out", out}, tc.extra...)
			code, stdout, stderr := runBin(t, args...)
			ok := false
			for _, c := range tc.codes {
				ok = ok || code == c
			}
			if !ok {
				t.Fatalf("exit %d, want one of %v\nstdout: %s\nstderr: %s", code, tc.codes, stdout, stderr)
			}
			f, err := os.Open(filepath.Join(out, "mcpcheck-client.json"))
			if err != nil {
				t.Fatalf("no JSON report: %v\nstderr: %s", err, stderr)
			}
			defer f.Close()
			run, err := reports.ReadJSON(f)
			if err != nil || len(run.Checks) == 0 {
				t.Fatalf("the JSON report is unreadable or empty: %v", err)
			}
			raw, err := os.ReadFile(pids)
			if err != nil {
				t.Fatalf("the client never ran: %v", err)
			}
			for _, l := range strings.Fields(string(raw)) {
				pid, _ := strconv.Atoi(l)
				if pid > 0 && running(pid) {
					t.Errorf("client process %d still runs after mcpcheck ended", pid)
					_ = syscall.Kill(-pid, syscall.SIGKILL)
				}
			}
		})
	}
}

// running reports whether process pid runs: it exists and is no zombie
// waiting for a reaper (in a container the init process may never reap).
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: trust kill
	}
	// The state follows the command name in parentheses.
	if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}
