package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
)

// TestClientCommandOverBothTransports: mcpcheck client judges the
// reference client over HTTP and over stdio, exits 0, and writes reports
// that say they judged a client.
func TestClientCommandOverBothTransports(t *testing.T) {
	bin := mcpcheckBin(t)
	for _, tc := range []struct{ name, flag, command string }{
		{"http", "--command", bin + " reference client --timeout 10s conformance"},
		{"stdio", "--stdio", bin + " reference client --timeout 10s conformance --stdio {server-line}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := runBin(t, "client", tc.flag, tc.command, "--protocol", "2025-11-25", "--format", "json", "--out", out)
			if code != exitOK {
				t.Fatalf("exit %d, want 0\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			f, err := os.Open(filepath.Join(out, "mcpcheck-client.json"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			run, err := reports.ReadJSON(f)
			if err != nil {
				t.Fatal(err)
			}
			if run.Target.Role != "client" || len(run.Checks) == 0 {
				t.Errorf("the report names role %q and holds %d checks", run.Target.Role, len(run.Checks))
			}
		})
	}
}

// TestClientThatNeverConnects: a client that exits at once without a word
// gets a clear verdict and exit 3, not a pass.
func TestClientThatNeverConnects(t *testing.T) {
	code, stdout, stderr := runBin(t, "client", "--command", "true", "--protocol", "2025-11-25")
	if code != exitHarness || !strings.Contains(stderr, "never connected") {
		t.Fatalf("exit %d, stderr %q; want %d and 'never connected'\nstdout: %s", code, stderr, exitHarness, stdout)
	}
}
