package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestClientCommandOverBothTransports: mcpcheck client judges the
// reference client over HTTP and over stdio, exits 0, and writes reports
// that say they judged a client. Over HTTP that is clientRun's run (every
// version), shared with the tests that read its reports.
func TestClientCommandOverBothTransports(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBin(t)
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		dir, code := clientRun(t)
		checkClientRun(t, dir, code, clientStderr)
	})
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		code, _, stderr := runBin(t, "client", "--stdio", bin+" reference client --timeout 10s conformance --stdio {server-line}", "--protocol", "2025-11-25", "--format", "json", "--out", dir)
		checkClientRun(t, dir, code, stderr)
	})
}

// checkClientRun wants a client run that exited 0 and wrote a JSON report
// in dir of checks of a client.
func checkClientRun(t *testing.T, dir string, code int, stderr string) {
	t.Helper()
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr: %s", code, tail(stderr, 3000))
	}
	run := readRunJSON(t, filepath.Join(dir, "mcpcheck-client.json"))
	if run.Target.Role != "client" || len(run.Checks) == 0 {
		t.Errorf("the report names role %q and holds %d checks", run.Target.Role, len(run.Checks))
	}
}

// TestClientThatNeverConnects: a client that exits at once without a word
// gets a clear verdict and exit 3, not a pass.
func TestClientThatNeverConnects(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runBin(t, "client", "--command", "true", "--protocol", "2025-11-25")
	if code != exitHarness || !strings.Contains(stderr, "never connected") {
		t.Fatalf("exit %d, stderr %q; want %d and 'never connected'\nstdout: %s", code, stderr, exitHarness, stdout)
	}
}
