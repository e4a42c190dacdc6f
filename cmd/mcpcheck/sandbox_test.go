package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
)

func TestSandboxFlagsAreForStdioServers(t *testing.T) {
	for _, args := range [][]string{
		{"server", "--url", "http://127.0.0.1:1/mcp", "--keep-home"},
		{"server", "--stdio", "x", "--cwd", "/nonexistent/mcpcheck-cwd"},
		{"fuzz", "--url", "http://127.0.0.1:1/mcp", "--cwd", "."},
		{"fuzz", "--client", "x", "--keep-sandbox"},
		{"replay", "some-finding", "--url", "http://127.0.0.1:1/mcp", "--keep-home"},
	} {
		code, _, stderr := runCLI(args...)
		if code != exitUsage || !strings.Contains(stderr, "--") {
			t.Errorf("mcpcheck %s: exit %d, want %d (usage) with an explanation; stderr %q", strings.Join(args, " "), code, exitUsage, stderr)
		}
	}
}

// TestMainJobKeepsItsSandboxWhenAsked: the main job runs its reference
// server in a sandbox, reports the side effects (none), and with
// --keep-sandbox leaves the directory and says where.
func TestMainJobKeepsItsSandboxWhenAsked(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	code, _, stderr := runCLI("--keep-sandbox", "--protocol", "2025-11-25", "--label-filter", "area:ping", "--format", "json", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	m := regexp.MustCompile(`the sandbox is kept at (\S+)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("--keep-sandbox did not say where the sandbox is:\n%s", stderr)
	}
	defer os.RemoveAll(m[1])
	if fi, err := os.Stat(filepath.Join(m[1], "home")); err != nil || !fi.IsDir() {
		t.Errorf("the kept sandbox %s has no home/: %v", m[1], err)
	}
	b, err := os.ReadFile(filepath.Join(out, "mcpcheck-server.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run reports.Run
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	fx := run.SideEffects
	if fx == nil || fx.Sandbox == nil || fx.Sandbox.Dir != m[1] || !fx.Sandbox.Kept || fx.TargetProcesses == 0 {
		t.Fatalf("the report's side effects = %+v, want the kept sandbox %s and the target processes", fx, m[1])
	}
	if len(fx.Processes) > 0 || len(fx.Network) > 0 || len(fx.FilesWritten) > 0 {
		t.Errorf("the reference server did something besides MCP: %q", fx.Lines())
	}
}

// TestServerThatDiesAtStartUpInTheSandboxGetsAHint: a server that ends
// with a failure before it says anything is told it ran in the sandbox
// and how to opt out.
func TestServerThatDiesAtStartUpInTheSandboxGetsAHint(t *testing.T) {
	code, _, stderr := runCLI("server", "--stdio", `sh -c "echo no config in HOME >&2; exit 3"`, "--protocol", "2025-11-25", "--label-filter", "area:lifecycle")
	if code != exitHarness && code != exitFailed {
		t.Errorf("exit %d, want %d or %d (the target never got going)\n%s", code, exitFailed, exitHarness, stderr)
	}
	for _, w := range []string{"sandbox", "--cwd .", "--keep-home"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("the error does not say %q:\n%s", w, tail(stderr, 2000))
		}
	}
}
