package server

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/reference/authserver"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// authRef is a reference server in auth mode: the issuer it trusts, a
// valid Authorization value for it, and the loopback address of the
// upstream API it calls (which the checks play).
type authRef struct{ issuer, bearer, upstream string }

// authReferences maps the MCP URL of every reference server in auth mode
// the tests started to its authRef.
var authReferences sync.Map

// authReference starts an mcpcheck authorization server (with its mint
// API) and the reference server in auth mode trusting it, with faults on;
// it returns the MCP URL, whose valid token runURL presents.
func authReference(t testing.TB, faults ...string) string {
	t.Helper()
	as, err := authserver.Start("127.0.0.1:0", authserver.Options{MintEndpoint: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { as.Close() })
	upstream := freeLoopbackAddr(t)
	u := startReferenceHTTP(t, append([]string{"--auth-issuer", as.URL, "--auth-upstream", "http://" + upstream + "/api"}, faultArgs(faults)...)...)
	m, err := as.Mint(authserver.MintRequest{Kind: authserver.Valid, Resource: u, Scope: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	authReferences.Store(u, authRef{issuer: as.URL, bearer: "Bearer " + m.Token, upstream: upstream})
	t.Cleanup(func() { authReferences.Delete(u) })
	return u
}

// freeLoopbackAddr returns a loopback host:port nothing listens on now.
func freeLoopbackAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// authVersions are the versions with HTTP authorization.
var authVersions = []spec.Version{spec.V20250326, spec.V20250618, spec.V20251125, spec.V20260728}

// TestAuthChecksAgainstReference is the clean side of the authorization
// checks' proofs: against the reference server in auth mode every authorization/*
// check passes in every version it applies to (n/a outside its window),
// the token checks with tokens minted by the issuer the server trusts.
func TestAuthChecksAgainstReference(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	u := authReference(t)
	var only []string
	for _, d := range Checks() {
		if d.Area == "authorization" {
			only = append(only, d.ID)
		}
	}
	res := runURL(t, u, target.Streamable, Config{Only: only, Versions: authVersions})
	judged := map[string]int{}
	for _, c := range res.Report.Checks {
		if !strings.HasPrefix(c.ID, "authorization/") {
			continue
		}
		d, _ := lookupCheck(c.ID)
		inWindow, _ := d.InWindow(c.Version)
		switch {
		case inWindow && c.Outcome != reports.Pass:
			t.Errorf("%s [%s]: %s, want pass\n  expected: %s\n  actual: %s\n  reason: %s", c.ID, c.Version, c.Outcome, c.Expected, c.Actual, c.Reason)
		case !inWindow && c.Outcome != reports.NA:
			t.Errorf("%s [%s]: %s outside its window, want n/a", c.ID, c.Version, c.Outcome)
		case inWindow:
			judged[c.ID]++
		}
	}
	for _, d := range Checks() {
		if d.Area == "authorization" && d.ID != "authorization/authorization-server-2025-03-26" && judged[d.ID] == 0 {
			t.Errorf("%s was judged in no version", d.ID)
		}
	}
	t.Logf("passed: %v", judged)
}

// TestAuthChecksWithoutAnIssuer: a protected target whose authorization
// server has no mint API leaves the token checks untestable, never passed
// (the proxy's protected resource names an issuer that does not exist).
func TestAuthChecksWithoutAnIssuer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	tg := target.URL(proxyReference(t, "auth"))
	tg.Transport = target.Streamable
	tg.Headers = []target.Header{{Name: "Authorization", Value: proxyGoodToken}}
	res := runTarget(t, tg, Config{Only: []string{"authorization/token-expired", "authorization/insufficient-scope"}, Versions: []spec.Version{spec.V20251125}})
	n := 0
	for _, c := range res.Report.Checks {
		n++
		if c.Outcome != reports.Untestable || !strings.Contains(c.Reason, "mcpcheck authorization server") {
			t.Errorf("%s: %s (%s), want untestable for want of an issuer", c.ID, c.Outcome, c.Reason)
		}
	}
	if n != 2 {
		t.Errorf("%d checks ran, want 2", n)
	}
}
