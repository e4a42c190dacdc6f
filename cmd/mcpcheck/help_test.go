package main

import (
	"strings"
	"testing"
)

// TestEveryCommandHasHelp: --help of every command prints that command's
// usage on stdout and exits 0, never the "unknown subcommand" error.
func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--help"}, {"server", "--help"}, {"fuzz", "--help"}, {"replay", "--help"},
		{"report", "--help"}, {"spec", "--help"}, {"reference", "server", "--help"}, {"reference", "client", "--help"},
		{"client", "--help"}, {"relay", "--help"}, {"fuzz", "merge", "--help"}, {"report", "merge", "--help"},
		{"version", "--help"},
	} {
		code, stdout, stderr := runBin(t, args...)
		if code != 0 || !strings.Contains(stdout, "sage") {
			t.Errorf("mcpcheck %s: exit %d, stdout %q, stderr %q; want exit 0 and a usage text", strings.Join(args, " "), code, clipHelp(stdout), clipHelp(stderr))
		}
	}
}

func clipHelp(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
