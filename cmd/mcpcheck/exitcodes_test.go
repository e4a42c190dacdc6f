package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitCodes is the exit-code table of the README and --help, one row
// per way a run can end, each reproduced against a real target. Each row
// names the phrase of its verdict, which says the path it took: a usage
// error or a target that is not MCP gets its verdict before (or instead
// of) a full run, and says so.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBin(t)
	ref := bin + " reference server --stdio"
	// A web server that is not an MCP server: HTML on every path.
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!DOCTYPE html><html><body>not MCP</body></html>"))
	}))
	defer web.Close()
	file := filepath.Join(t.TempDir(), "plain-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The runs' environment lacks MCPCHECK_TEST_UNSET_HEADER, whatever
	// this one holds.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCPCHECK_TEST_UNSET_HEADER=") {
			env = append(env, kv)
		}
	}

	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string // a phrase the verdict must contain
	}{
		{"clean target", []string{"server", "--stdio", ref, "--protocol", "2025-11-25", "--label-filter", "area:ping"}, exitOK, "PASS:"},
		{"broken MUST", []string{"server", "--stdio", ref + " --fault ping-nonempty-result", "--protocol", "2025-11-25", "--label-filter", "area:ping"}, exitFailed, "unexpected failures"},
		{"broken SHOULD under --strict", []string{"server", "--stdio", ref + " --fault respond-after-cancel", "--protocol", "2025-11-25", "--label-filter", "area:cancellation", "--strict"}, exitFailed, "(--strict)"},
		{"selection matches nothing", []string{"server", "--stdio", ref, "--label-filter", "area:no-such-area"}, exitUsage, "matched no check"},
		{"unset --header-env variable", []string{"server", "--url", web.URL + "/mcp", "--header-env", "X-Token:MCPCHECK_TEST_UNSET_HEADER"}, exitUsage, "MCPCHECK_TEST_UNSET_HEADER is empty or unset"},
		{"unwritable --out", []string{"server", "--stdio", ref, "--out", filepath.Join(file, "reports")}, exitUsage, "--out"},
		{"command that does not exist", []string{"server", "--stdio", "/nonexistent/mcp-server"}, exitHarness, "could not be started"},
		{"target that exits at once", []string{"server", "--stdio", "true", "--protocol", "latest"}, exitHarness, "nothing was judged"},
		{"URL that is not MCP", []string{"server", "--url", web.URL + "/"}, exitHarness, "could not be reached"},
		{"URL that is not MCP over --transport sse", []string{"server", "--url", web.URL + "/", "--transport", "sse"}, exitHarness, "never completed initialization"},
		{"a run ended by --deadline", []string{"server", "--stdio", "sleep 60.5", "--deadline", "1s"}, exitInterrupted, "--deadline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runBinEnv(t, env, tc.args...)
			if code != tc.code || !strings.Contains(stderr+stdout, tc.stderr) {
				t.Errorf("exit %d, want %d with %q\nstderr:\n%s", code, tc.code, tc.stderr, tail(stderr, 1500))
			}
		})
	}
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
