package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/reference/authserver"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/reports"
)

// protectedReference serves the reference server in process as a resource
// server trusting a fresh mcpcheck authserver (with its mint API), with
// the faults on; it returns the MCP URL and the authserver.
func protectedReference(t *testing.T, faults ...string) (string, *authserver.Running) {
	t.Helper()
	return protectedReferenceCalling(t, "", faults...)
}

// protectedReferenceCalling is protectedReference whose server calls the
// upstream API at upstream ("": none) while serving each request.
func protectedReferenceCalling(t *testing.T, upstream string, faults ...string) (string, *authserver.Running) {
	t.Helper()
	as, err := authserver.Start("127.0.0.1:0", authserver.Options{MintEndpoint: true, AllowHTTPMetadataDocuments: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { as.Close() })
	srv, err := server.New(server.Options{Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.HTTPHandler(server.HTTPOptions{Auth: &server.AuthOptions{Issuer: as.URL, Upstream: upstream}}))
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return hs.URL + "/mcp", as
}

// readmeAuthPair sets up the README's authorization examples: their
// server and issuer become a protected reference server and the
// authserver it trusts.
func readmeAuthPair(t *testing.T, _ string) []string {
	u, as := protectedReference(t)
	return []string{"http://127.0.0.1:3000/mcp", u, "http://127.0.0.1:9000", as.URL}
}

// readmeAuthUpstream sets up the README's token passthrough example: a
// protected reference server calling an upstream API at a free loopback
// address, which the example's mcpcheck plays.
func readmeAuthUpstream(t *testing.T, _ string) []string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	u, as := protectedReferenceCalling(t, "http://"+addr+"/api")
	return []string{"http://127.0.0.1:3000/mcp", u, "http://127.0.0.1:9000", as.URL, "127.0.0.1:9100", addr}
}

// authRunChecks runs "mcpcheck server" with args and the JSON report, and
// returns its exit code, stderr, the report's outcomes by check ID and
// every report file's text.
func authRunChecks(t *testing.T, args ...string) (int, string, map[string]reports.Outcome, string) {
	t.Helper()
	out := t.TempDir()
	code, _, stderr := runCLI(append(append([]string{"server"}, args...), "--format", "json,text", "--out", out)...)
	got := map[string]reports.Outcome{}
	var all strings.Builder
	for _, c := range readRunJSON(t, filepath.Join(out, "mcpcheck-server.json")).Checks {
		got[c.ID] = c.Outcome
	}
	for _, name := range []string{"mcpcheck-server.json", "mcpcheck-server.txt"} {
		b, _ := os.ReadFile(filepath.Join(out, name))
		all.Write(b)
	}
	return code, stderr, got, all.String()
}

// TestServerAuthIssuer: --auth-issuer names the issuer the token checks
// mint at, even when the target's protected resource metadata names none
// (fault auth-prm-no-servers: with a valid token but without the flag they
// are untestable), and a run without an Authorization header presents a
// valid token of it, so the checks that are not about authorization are
// judged instead of meeting 401s; the token is in no report. An issuer
// without a mint API, or one given with --stdio, is refused.
func TestServerAuthIssuer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the server suite")
	}
	u, as := protectedReference(t, server.FaultAuthPRMNoServers)
	issuer := as.URL
	common := []string{"--url", u, "--transport", "streamable", "--protocol", "2025-11-25", "--label-filter", "area:authorization || area:tools"}
	tokenChecks := []string{"authorization/token-expired", "authorization/token-audience", "authorization/token-other-resource", "authorization/insufficient-scope"}

	code, stderr, got, text := authRunChecks(t, append(common, "--auth-issuer", issuer)...)
	if !strings.Contains(stderr, "the run presents a valid token of "+issuer) {
		t.Errorf("stderr does not say the run presents a token of the issuer: %q", stderr)
	}
	for _, id := range tokenChecks {
		if got[id] != reports.Pass {
			t.Errorf("with --auth-issuer: %s %q, want pass", id, got[id])
		}
	}
	if got["authorization/protected-resource-metadata"] != reports.Fail {
		t.Errorf("with --auth-issuer: authorization/protected-resource-metadata %q, want fail (the fault leaves authorization_servers empty)", got["authorization/protected-resource-metadata"])
	}
	if got["tools/names"] != reports.Pass {
		t.Errorf("with --auth-issuer: tools/names %q, want pass (judged with the run's token)", got["tools/names"])
	}
	if code != 1 {
		t.Errorf("with --auth-issuer: exit %d, want 1 (the metadata fault)", code)
	}
	if strings.Contains(text, "Bearer eyJ") {
		t.Error("a report holds the run's bearer token")
	}

	// A valid token, but without the flag: the token checks find no
	// issuer to mint at (the metadata names none), the rest is judged.
	m, err := as.Mint(authserver.MintRequest{Kind: authserver.Valid, Resource: u, Scope: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	setenvOwn(t, "MCPCHECK_TEST_AUTHORIZATION", "Bearer "+m.Token)
	_, _, got, _ = authRunChecks(t, append(common, "--header-env", "Authorization:MCPCHECK_TEST_AUTHORIZATION")...)
	for _, id := range tokenChecks {
		if got[id] != reports.Untestable {
			t.Errorf("without --auth-issuer: %s %q, want untestable", id, got[id])
		}
	}
	if got["tools/names"] != reports.Pass {
		t.Errorf("with a token of --header-env: tools/names %q, want pass", got["tools/names"])
	}

	notAS := httptest.NewServer(http.NotFoundHandler())
	defer notAS.Close()
	if code, _, stderr := runCLI("server", "--url", u, "--auth-issuer", notAS.URL, "--protocol", "2025-11-25"); code != 3 || !strings.Contains(stderr, "no mcpcheck authserver") {
		t.Errorf("an issuer without a mint API: exit %d (%q), want 3 saying it is no mcpcheck authserver", code, stderr)
	}
	if code, _, stderr := runCLI("server", "--stdio", "true", "--auth-issuer", issuer); code != 2 || !strings.Contains(stderr, "authorization issuer") {
		t.Errorf("--auth-issuer with --stdio: exit %d (%q), want 2", code, stderr)
	}
}

// TestServerAuthUpstream: with --auth-upstream, mcpcheck plays the upstream
// API the target calls; authorization/token-passthrough passes when the target
// calls it with a credential of its own, fails when it passes the
// client's token on (fault auth-token-passthrough), and is untestable
// without the flag. A non-loopback address is a usage error.
func TestServerAuthUpstream(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the server suite")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	const id = "authorization/token-passthrough"
	for _, c := range []struct {
		faults []string
		flag   bool
		want   reports.Outcome
	}{
		{nil, true, reports.Pass},
		{[]string{server.FaultAuthTokenPassthrough}, true, reports.Fail},
		{[]string{server.FaultAuthTokenPassthrough}, false, reports.Untestable},
	} {
		u, as := protectedReferenceCalling(t, "http://"+addr+"/api", c.faults...)
		args := []string{"--url", u, "--auth-issuer", as.URL, "--protocol", "2025-11-25", "--label-filter", "area:authorization"}
		if c.flag {
			args = append(args, "--auth-upstream", addr)
		}
		if _, stderr, got, _ := authRunChecks(t, args...); got[id] != c.want {
			t.Errorf("faults %v, --auth-upstream %v: %s %q, want %s (%s)", c.faults, c.flag, id, got[id], c.want, stderr)
		}
	}
	if code, _, stderr := runCLI("server", "--url", "http://127.0.0.1:9/mcp", "--auth-upstream", "10.1.2.3:80"); code != 2 || !strings.Contains(stderr, "loopback") {
		t.Errorf("a non-loopback upstream: exit %d (%q), want 2", code, stderr)
	}
}
