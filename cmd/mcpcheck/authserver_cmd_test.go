package main

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/authserver"
)

// TestAuthserverCommand: --list-faults lists every switch; mint prints a
// token of the kind asked for that the issuer's keys verify; usage errors
// exit 2.
func TestAuthserverCommand(t *testing.T) {
	code, out, stderr := runCLI("authserver", "--list-faults")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != len(authserver.Faults())+1 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("--list-faults: exit %d, %q %q", code, out, stderr)
	}
	as, err := authserver.Start("127.0.0.1:0", authserver.Options{MintEndpoint: true})
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	const res = "http://127.0.0.1:9/mcp"
	for kind, valid := range map[string]bool{"valid": true, "expired": false} {
		code, out, stderr = runCLI("authserver", "mint", "--issuer", as.URL, "--resource", res, "--kind", kind)
		if code != 0 {
			t.Fatalf("mint %s: exit %d, %q", kind, code, stderr)
		}
		c, err := as.KeySet().Verify(strings.TrimSpace(out))
		if err != nil {
			t.Fatalf("mint %s: %v", kind, err)
		}
		if err := c.Validate(authserver.Expectation{Issuer: as.URL, Resource: res, Now: time.Now()}); (err == nil) != valid {
			t.Errorf("mint %s: validation %v", kind, err)
		}
	}
	for _, args := range [][]string{{"authserver", "mint"}, {"authserver", "--fault", "no-such-fault"}, {"authserver", "extra"}} {
		if code, _, stderr := runCLI(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%q)", args, code, stderr)
		}
	}
}
