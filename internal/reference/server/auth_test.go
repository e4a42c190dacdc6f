package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/reference/authserver"
)

// authRef is the reference server in auth mode, trusting an authserver.
type authRef struct {
	t   *testing.T
	as  *authserver.Running
	url string // the MCP endpoint
}

func startAuthRef(t *testing.T, faults ...string) authRef {
	t.Helper()
	return startAuthRefOn(t, newTestServer(t, Options{Faults: faults}))
}

// startAuthRefOn serves s in auth mode, trusting a new authserver.
func startAuthRefOn(t *testing.T, s *Server) authRef {
	t.Helper()
	as, err := authserver.Start("127.0.0.1:0", authserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { as.Close() })
	ts := httptest.NewServer(s.HTTPHandler(HTTPOptions{JSONResponses: true, Auth: &AuthOptions{Issuer: as.URL}}))
	t.Cleanup(ts.Close)
	return authRef{t: t, as: as, url: ts.URL + "/mcp"}
}

// post sends an initialize with the Authorization value (none when "")
// to the endpoint (plus query); it returns the status and the challenge.
func (a authRef) post(authorization, query string) (int, string, []byte) {
	a.t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, a.url+query, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := (&http.Client{Timeout: testTimeout}).Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var b []byte
	b, _ = json.Marshal(resp.Header.Values("WWW-Authenticate"))
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), b
}

func (a authRef) mint(k authserver.Kind, scope string) string {
	m, err := a.as.Mint(authserver.MintRequest{Kind: k, Resource: a.url, Scope: scope})
	if err != nil {
		a.t.Fatal(err)
	}
	return "Bearer " + m.Token
}

// startUpstreamRef serves s in auth mode calling an upstream API the test
// plays; upstreamGot posts body (initialize when "") with the Authorization
// value tok and returns the Authorization the upstream got while it was
// served.
func startUpstreamRef(t *testing.T, s *Server) (authRef, func(tok, body string) string) {
	t.Helper()
	got := make(chan string, 16)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.Header.Get("Authorization") }))
	t.Cleanup(up.Close)
	as, err := authserver.Start("127.0.0.1:0", authserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { as.Close() })
	ts := httptest.NewServer(s.HTTPHandler(HTTPOptions{JSONResponses: true, Auth: &AuthOptions{Issuer: as.URL, Upstream: up.URL}}))
	t.Cleanup(ts.Close)
	a := authRef{t: t, as: as, url: ts.URL + "/mcp"}
	return a, func(tok, body string) string {
		t.Helper()
		if body == "" {
			if st, _, _ := a.post(tok, ""); st != http.StatusOK {
				t.Fatalf("a valid token: HTTP %d", st)
			}
		} else {
			req, _ := http.NewRequest(http.MethodPost, a.url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", tok)
			resp, err := (&http.Client{Timeout: testTimeout}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		// The server calls its upstream before it answers.
		select {
		case h := <-got:
			return h
		default:
			t.Fatal("the server answered without calling its upstream")
			return ""
		}
	}
}

// TestAuthMode: the reference server in auth mode serves a valid token and
// refuses every other kind with the answer the spec asks for; each auth
// fault switch lets exactly its kind through (or changes the answer).
func TestAuthMode(t *testing.T) {
	a := startAuthRef(t)
	if st, ch, _ := a.post("", ""); st != 401 || !strings.Contains(ch, `resource_metadata="`+strings.TrimSuffix(a.url, "/mcp")+`/.well-known/oauth-protected-resource/mcp"`) || !strings.Contains(ch, `scope="mcp"`) {
		t.Fatalf("no token: %d %q", st, ch)
	}
	if st, _, _ := a.post(a.mint(authserver.Valid, "mcp"), ""); st != 200 {
		t.Fatalf("a valid token: %d", st)
	}
	bad := map[authserver.Kind]string{
		authserver.Expired: FaultAuthAcceptsExpired, authserver.NotYetValid: FaultAuthIgnoresNotBefore,
		authserver.WrongIssuer: FaultAuthAcceptsAnyIssuer, authserver.BadSignature: FaultAuthSkipsSignature,
		authserver.Unsigned: FaultAuthSkipsSignature, authserver.WrongAudience: FaultAuthAcceptsAnyAudience,
		authserver.NoAudience: FaultAuthAcceptsAnyAudience, authserver.OtherResource: FaultAuthAudiencePrefix,
	}
	for k, fault := range bad {
		if st, ch, _ := a.post(a.mint(k, "mcp"), ""); st != 401 || !strings.Contains(ch, `error="invalid_token"`) {
			t.Errorf("%s token: %d %q", k, st, ch)
		}
		f := startAuthRef(t, fault)
		if st, _, _ := f.post(f.mint(k, "mcp"), ""); st != 200 {
			t.Errorf("fault %s: a %s token got %d", fault, k, st)
		}
		if st, _, _ := f.post(f.mint(authserver.MissingScope, "mcp"), ""); st != 403 {
			t.Errorf("fault %s changed the scope answer: %d", fault, st)
		}
	}
	if st, ch, _ := a.post(a.mint(authserver.MissingScope, ""), ""); st != 403 || !strings.Contains(ch, `error="insufficient_scope"`) || !strings.Contains(ch, `scope="mcp"`) {
		t.Errorf("missing scope: %d %q", st, ch)
	}
	valid := strings.TrimPrefix(a.mint(authserver.Valid, "mcp"), "Bearer ")
	if st, _, _ := a.post("", "?access_token="+valid); st != 401 {
		t.Errorf("a token in the query string: %d", st)
	}

	f := startAuthRef(t, FaultAuthAcceptsQueryToken)
	if st, _, _ := f.post("", "?access_token="+strings.TrimPrefix(f.mint(authserver.Valid, "mcp"), "Bearer ")); st != 200 {
		t.Errorf("fault %s: %d", FaultAuthAcceptsQueryToken, st)
	}
	f = startAuthRef(t, FaultAuthInsufficientScope401)
	if st, _, _ := f.post(f.mint(authserver.MissingScope, ""), ""); st != 401 {
		t.Errorf("fault %s: %d", FaultAuthInsufficientScope401, st)
	}
	f = startAuthRef(t, FaultAuthInsufficientNoScope)
	if st, ch, _ := f.post(f.mint(authserver.MissingScope, ""), ""); st != 403 || strings.Contains(ch, "scope=") {
		t.Errorf("fault %s: %d %q", FaultAuthInsufficientNoScope, st, ch)
	}
	f = startAuthRef(t, FaultAuthNoChallenge)
	if st, _, hdrs := f.post("", ""); st != 401 || string(hdrs) != "null" {
		t.Errorf("fault %s: %d %s", FaultAuthNoChallenge, st, hdrs)
	}
}

// prm fetches the protected resource metadata at the endpoint's
// well-known URI.
func (a authRef) prm() (resource string, servers []string) {
	a.t.Helper()
	resp, err := http.Get(strings.TrimSuffix(a.url, "/mcp") + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Resource string   `json:"resource"`
		Servers  []string `json:"authorization_servers"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&doc)
	return doc.Resource, doc.Servers
}

// The auth fault switches' probes (TestFaultsBreakTheirRequirement): each
// is true when the defect shows.
func init() {
	accepts := func(k authserver.Kind) func(t *testing.T, s *Server) bool {
		return func(t *testing.T, s *Server) bool {
			a := startAuthRefOn(t, s)
			st, _, _ := a.post(a.mint(k, "mcp"), "")
			return st == http.StatusOK
		}
	}
	faultProbes[FaultAuthAcceptsExpired] = accepts(authserver.Expired)
	faultProbes[FaultAuthIgnoresNotBefore] = accepts(authserver.NotYetValid)
	faultProbes[FaultAuthAcceptsAnyIssuer] = accepts(authserver.WrongIssuer)
	faultProbes[FaultAuthSkipsSignature] = accepts(authserver.BadSignature)
	faultProbes[FaultAuthAcceptsAnyAudience] = accepts(authserver.WrongAudience)
	faultProbes[FaultAuthAudiencePrefix] = accepts(authserver.OtherResource)
	faultProbes[FaultAuthAudienceCaseSensitive] = func(t *testing.T, s *Server) bool {
		a := startAuthRefOn(t, s)
		// The token names http://127.0.0.1:PORT/mcp as HTTP://127.0.0.1:PORT/mcp.
		m, err := a.as.Mint(authserver.MintRequest{Kind: authserver.Valid, Resource: "HTTP" + strings.TrimPrefix(a.url, "http"), Scope: "mcp"})
		if err != nil {
			t.Fatal(err)
		}
		st, _, _ := a.post("Bearer "+m.Token, "")
		return st == http.StatusUnauthorized
	}
	faultProbes[FaultAuthInsufficientScope401] = func(t *testing.T, s *Server) bool {
		a := startAuthRefOn(t, s)
		st, _, _ := a.post(a.mint(authserver.MissingScope, ""), "")
		return st == http.StatusUnauthorized
	}
	faultProbes[FaultAuthInsufficientNoScope] = func(t *testing.T, s *Server) bool {
		a := startAuthRefOn(t, s)
		st, ch, _ := a.post(a.mint(authserver.MissingScope, ""), "")
		return st == http.StatusForbidden && !strings.Contains(ch, "scope=")
	}
	faultProbes[FaultAuthAcceptsQueryToken] = func(t *testing.T, s *Server) bool {
		a := startAuthRefOn(t, s)
		st, _, _ := a.post("", "?access_token="+strings.TrimPrefix(a.mint(authserver.Valid, "mcp"), "Bearer "))
		return st == http.StatusOK
	}
	faultProbes[FaultAuthNoChallenge] = func(t *testing.T, s *Server) bool {
		a := startAuthRefOn(t, s)
		st, _, hdrs := a.post("", "")
		return st == http.StatusUnauthorized && string(hdrs) == "null"
	}
	faultProbes[FaultAuthAcceptsOpaqueToken] = func(t *testing.T, s *Server) bool {
		a := startAuthRefOn(t, s)
		st, _, _ := a.post("Bearer not-a-jwt", "")
		return st == http.StatusOK
	}
	faultProbes[FaultAuthNoASMetadata] = func(t *testing.T, s *Server) bool {
		base := strings.TrimSuffix(startAuthRefOn(t, s).url, "/mcp")
		for _, p := range []string{"/.well-known/oauth-authorization-server", "/authorize", "/token", "/register"} {
			resp, err := http.Get(base + p)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				return false
			}
		}
		return true
	}
	faultProbes[FaultAuthTokenPassthrough] = func(t *testing.T, s *Server) bool {
		a, upstreamGot := startUpstreamRef(t, s)
		tok := a.mint(authserver.Valid, "mcp")
		h := upstreamGot(tok, "")
		if h != tok && h != UpstreamCredential {
			t.Errorf("the upstream got Authorization %q", h)
		}
		return h == tok
	}
	faultProbes[FaultAuthTokenPassthroughTools] = func(t *testing.T, s *Server) bool {
		a, upstreamGot := startUpstreamRef(t, s)
		tok := a.mint(authserver.Valid, "mcp")
		// The first request of a session shows nothing; a tools/call does.
		first := upstreamGot(tok, "")
		call := upstreamGot(tok, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}`)
		return first == UpstreamCredential && call == tok
	}
	faultProbes[FaultAuthTrustsTokenIssuer] = func(t *testing.T, s *Server) bool {
		a := startAuthRefOn(t, s)
		other, err := authserver.Start("127.0.0.1:0", authserver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { other.Close() })
		m, err := other.Mint(authserver.MintRequest{Kind: authserver.Valid, Resource: a.url, Scope: "mcp"})
		if err != nil {
			t.Fatal(err)
		}
		st, _, _ := a.post("Bearer "+m.Token, "")
		return st == http.StatusOK
	}
	faultProbes[FaultAuthPRMNoServers] = func(t *testing.T, s *Server) bool {
		_, servers := startAuthRefOn(t, s).prm()
		return len(servers) == 0
	}
	faultProbes[FaultAuthPRMWrongResource] = func(t *testing.T, s *Server) bool {
		a := startAuthRefOn(t, s)
		res, _ := a.prm()
		return res != a.url
	}
}

// TestAuthProtectedResourceMetadata: the RFC 9728 document at both
// well-known paths names the endpoint and the trusted issuer.
func TestAuthProtectedResourceMetadata(t *testing.T) {
	for _, fault := range []string{"", FaultAuthPRMNoServers, FaultAuthPRMWrongResource} {
		var faults []string
		if fault != "" {
			faults = append(faults, fault)
		}
		a := startAuthRef(t, faults...)
		root := strings.TrimSuffix(a.url, "/mcp")
		for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
			resp, err := http.Get(root + p)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Resource string   `json:"resource"`
				Servers  []string `json:"authorization_servers"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&doc)
			resp.Body.Close()
			okRes, okServers := doc.Resource == a.url, len(doc.Servers) == 1 && doc.Servers[0] == a.as.URL
			if resp.StatusCode != 200 || okRes != (fault != FaultAuthPRMWrongResource) || okServers != (fault != FaultAuthPRMNoServers) {
				t.Errorf("fault %q, %s: %d %+v", fault, p, resp.StatusCode, doc)
			}
		}
		// 2025-03-26 discovery: the issuer's RFC 8414 document at the root.
		resp, err := http.Get(root + "/.well-known/oauth-authorization-server")
		if err != nil {
			t.Fatal(err)
		}
		var md map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if resp.StatusCode != 200 || md["issuer"] != a.as.URL || md["token_endpoint"] != a.as.URL+"/token" {
			t.Errorf("authorization server metadata at the root: %d %v", resp.StatusCode, md)
		}
	}
}

// TestAuthSameResource: an audience names the server's URI when only the
// case of its scheme or host differs, and not when anything else does.
func TestAuthSameResource(t *testing.T) {
	const res = "http://localhost:8080/mcp"
	for aud, want := range map[string]bool{
		res:                               true,
		"HTTP://LOCALHOST:8080/mcp":       true,
		"Http://LocalHost:8080/mcp":       true,
		"http://localhost:8080/MCP":       false,
		"http://localhost:8080/mcp/":      false,
		"http://localhost:8080/mcp-other": false,
		"https://localhost:8080/mcp":      false,
		"http://localhost:8081/mcp":       false,
		"http://localhost:8080/mcp?x=1":   false,
		"http://localhost:8080/mcp#frag":  false,
		"http://user@localhost:8080/mcp":  false,
		"http://localhost:8080/%6Dcp":     false,
		"":                                false,
	} {
		if got := authSameResource(aud, res, false); got != want {
			t.Errorf("authSameResource(%q, %q) = %v, want %v", aud, res, got, want)
		}
		if got := authSameResource(aud, res, true); got != (aud == res) {
			t.Errorf("authSameResource(%q, %q) byte for byte = %v, want %v", aud, res, got, aud == res)
		}
	}
}
