package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
)

// TestTSOAuthExamplePeer: the TypeScript SDK 1.32.2's own OAuth example
// server (examples/server/simpleStreamableHttp.js --oauth --oauth-strict,
// started by internal/reference/authserver/testdata/ts-oauth-example/start.mjs,
// which gets a token by the example's own OAuth flow) trusts only its demo
// authorization server, whose opaque tokens mcpcheck cannot mint. So the
// checks that need a token it accepts are untestable, each saying so;
// those about discovery and refusing tokens are judged: the 401 challenge
// passes (in 2025-11-25 it warns: no scope parameter, as the example
// requires no scope), the protected resource metadata passes, and a
// forged token, and a token of an issuer it does not trust, fail: the
// example's verifier throws a plain Error when introspection refuses the
// token, which requireBearerAuth (server/auth/middleware/bearerAuth.js)
// answers 500, not 401.
func TestTSOAuthExamplePeer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the lab's TypeScript SDK example and the authorization checks")
	}
	nodeDir, sdk := labSDK(t)
	port := freePort(t)
	tokFile := filepath.Join(t.TempDir(), "token")
	startUntilReady(t, []string{"MCP_SDK_DIR=" + sdk}, []string{filepath.Join(nodeDir, "node"),
		filepath.Join("..", "..", "internal", "reference", "authserver", "testdata", "ts-oauth-example", "start.mjs"),
		"--port", port, "--token-out", tokFile, "--preload", loopbackPreload(t)}, regexp.MustCompile(`^ts-oauth-example: (http\S+)`))
	tok, err := os.ReadFile(tokFile)
	if err != nil || len(tok) == 0 {
		t.Fatalf("no token from the example's own flow: %v", err)
	}
	setenvOwn(t, "MCPCHECK_TS_OAUTH_EXAMPLE", string(tok))
	u := fmt.Sprintf("http://localhost:%s/mcp", port)
	out := t.TempDir()
	_, _, stderrText := runCLI("server", "--url", u, "--header-env", "Authorization:MCPCHECK_TS_OAUTH_EXAMPLE",
		"--protocol", "2025-06-18,2025-11-25", "--label-filter", "area:authorization", "--format", "json", "--out", out)
	got := map[string]reports.Outcome{}
	for _, c := range readRunJSON(t, filepath.Join(out, "mcpcheck-server.json")).Checks {
		got[authCheckName(c.ID)+" "+string(c.Version)] = c.Outcome
	}
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		for name, want := range map[string]reports.Outcome{
			"protected-resource-metadata": reports.Pass,
			"forged-token-401":            reports.Fail,
			"token-foreign-issuer":        reports.Fail,
			"token-expired":               reports.Untestable,
			"token-audience":              reports.Untestable,
			"token-passthrough":           reports.Untestable,
		} {
			if got[name+" "+v] != want {
				t.Errorf("%s in %s: %q, want %s (%s)", name, v, got[name+" "+v], want, tail(stderrText, 2000))
			}
		}
	}
	for key, want := range map[string]reports.Outcome{
		"unauthorized-challenge 2025-06-18": reports.Pass,
		"unauthorized-challenge 2025-11-25": reports.Warn, // no scope in the challenge
		"insufficient-scope 2025-11-25":     reports.Untestable,
	} {
		if got[key] != want {
			t.Errorf("%s: %q, want %s", key, got[key], want)
		}
	}
}

// loopbackPreload returns the lab's Node preload that binds every listen()
// without a host to 127.0.0.1, or skips.
func loopbackPreload(t *testing.T) string {
	t.Helper()
	_, sdk := labSDK(t)
	p := filepath.Join(sdk, "..", "..", "..", "..", "bind-localhost.cjs")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("the lab has no bind-localhost.cjs: %v", err)
	}
	return p
}
