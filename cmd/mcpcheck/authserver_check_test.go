package main

import (
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/reference/authserver"
)

// TestAuthserverCheckCommand: authserver-check passes mcpcheck's clean
// authserver (exit 0), fails one with a fault (exit 1, naming the check),
// keeps tokens out of its report, and refuses a bad command line (exit 2).
func TestAuthserverCheckCommand(t *testing.T) {
	clean, err := authserver.Start("127.0.0.1:0", authserver.Options{AllowHTTPMetadataDocuments: true})
	if err != nil {
		t.Fatal(err)
	}
	defer clean.Close()
	if code, out, stderr := runCLI("authserver-check", "--url", clean.URL, "--resource", "http://127.0.0.1:1/mcp"); code != exitOK {
		t.Errorf("clean authserver: exit %d\n%s\n%s", code, out, stderr)
	}
	faulty, err := authserver.Start("127.0.0.1:0", authserver.Options{AllowHTTPMetadataDocuments: true, Faults: []string{authserver.FaultRefreshNotRotated}})
	if err != nil {
		t.Fatal(err)
	}
	defer faulty.Close()
	code, out, stderr := runCLI("authserver-check", "--url", faulty.URL, "--protocol", "2025-11-25", "--verbose")
	if code != exitFailed || !strings.Contains(out, "authserver/refresh-rotation") {
		t.Errorf("refresh-not-rotated: exit %d, want %d naming authserver/refresh-rotation\n%s\n%s", code, exitFailed, out, stderr)
	}
	if strings.Contains(out, "eyJ") {
		t.Errorf("the report shows a JWT:\n%s", out)
	}
	for _, args := range [][]string{{"authserver-check"}, {"authserver-check", "--url", clean.URL, "--check", "authserver/nope"}, {"authserver-check", "--url", clean.URL, "--client-id", "x"}} {
		if code, _, _ := runCLI(args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
