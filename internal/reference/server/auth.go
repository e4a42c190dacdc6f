package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/authserver"
)

// Authorization (HTTPOptions.Auth): the HTTP transports act as an OAuth 2.1
// resource server. Every request to the MCP endpoints needs a bearer token
// in the Authorization header, a JWT signed with a key of the trusted
// issuer's JWKS (found through its RFC 8414 or OpenID metadata), issued by
// that issuer, for this resource (aud, RFC 8707), valid now (exp, nbf) and
// with the required scopes. A missing or invalid token gets 401 with a
// Bearer challenge naming the RFC 9728 protected resource metadata (and
// the scope); too little scope gets 403 insufficient_scope. The metadata
// is served at /.well-known/oauth-protected-resource followed by the
// endpoint path, and at the root.

// AuthOptions make the HTTP transports an OAuth 2.1 resource server.
type AuthOptions struct {
	// Issuer is the authorization server whose tokens are trusted.
	Issuer string
	// Resource is the server's canonical URI (the aud tokens must name);
	// default the URL of the request's endpoint (http://Host/Endpoint).
	Resource string
	// Scopes are the scopes every request needs; default ["mcp"].
	Scopes []string
	// HTTPClient fetches the issuer's metadata and JWKS; default a client
	// with a 5 s timeout.
	HTTPClient *http.Client
	// Upstream, when set, is the URL of an upstream API the server calls
	// (GET) while serving each authorized POST, before answering it, with
	// a credential of its own (UpstreamCredential), never the client's
	// token: the fixture of the token passthrough check, where mcpcheck
	// plays the upstream.
	Upstream string
}

// UpstreamCredential is the Authorization value the server presents to
// its upstream API: its own, as the spec wants (a real server would get a
// token for that API from its authorization server).
const UpstreamCredential = "Bearer mcpcheck-reference-server-own-credential"

// The auth fault switches (HTTPOptions.Auth set), each a hook.
const (
	FaultAuthAcceptsExpired     = "auth-accepts-expired"
	FaultAuthIgnoresNotBefore   = "auth-ignores-nbf"
	FaultAuthAcceptsAnyIssuer   = "auth-accepts-any-issuer"
	FaultAuthSkipsSignature     = "auth-skips-signature"
	FaultAuthAcceptsAnyAudience = "auth-accepts-any-audience"
	FaultAuthAudiencePrefix     = "auth-audience-prefix-match"
	// FaultAuthAudienceCaseSensitive compares the token's aud with the
	// server's URI byte for byte: an aud whose scheme or host is in upper
	// case is refused.
	FaultAuthAudienceCaseSensitive = "auth-audience-case-sensitive"
	FaultAuthInsufficientScope401  = "auth-insufficient-scope-401"
	FaultAuthInsufficientNoScope   = "auth-insufficient-scope-unnamed"
	FaultAuthAcceptsQueryToken     = "auth-accepts-query-token"
	FaultAuthNoChallenge           = "auth-401-no-challenge"
	FaultAuthPRMNoServers          = "auth-prm-no-servers"
	FaultAuthPRMWrongResource      = "auth-prm-wrong-resource"
	FaultAuthAcceptsOpaqueToken    = "auth-accepts-opaque-token"
	FaultAuthNoASMetadata          = "auth-no-as-metadata"
	FaultAuthTokenPassthrough      = "auth-token-passthrough"
	// FaultAuthTokenPassthroughTools passes the client's token on only
	// while serving a tools/call, as a server that uses its upstream for
	// tool work alone would: the first request of a session does not show
	// it.
	FaultAuthTokenPassthroughTools = "auth-token-passthrough-tools"
	// FaultAuthTrustsTokenIssuer verifies a token naming another issuer
	// with the keys that issuer publishes, as a server that takes the
	// issuer from the token would: any issuer's token is accepted.
	FaultAuthTrustsTokenIssuer = "auth-trusts-token-issuer"
)

// authGate checks tokens for one handler.
type authGate struct {
	o      AuthOptions
	srv    *Server
	mu     sync.Mutex
	keys   *authserver.KeySet
	jwksAt time.Time
	meta   []byte // the issuer's metadata document, once fetched
}

func newAuthGate(o AuthOptions, srv *Server) *authGate {
	o.Issuer = strings.TrimSuffix(o.Issuer, "/")
	if len(o.Scopes) == 0 {
		o.Scopes = []string{"mcp"}
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 5 * time.Second}
	}
	return &authGate{o: o, srv: srv}
}

// resource is the canonical URI for a request to the endpoint.
func (g *authGate) resource(r *http.Request, endpoint string) string {
	if g.o.Resource != "" {
		return g.o.Resource
	}
	return "http://" + r.Host + endpoint
}

// prmURL is where the protected resource metadata of resource is.
func prmURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.EscapedPath(), "/")
}

// servePRM answers the RFC 9728 metadata document.
func (g *authGate) servePRM(w http.ResponseWriter, r *http.Request, endpoint string) {
	res := g.resource(r, endpoint)
	if g.srv.faults.on(FaultAuthPRMWrongResource) {
		res = strings.TrimSuffix(res, endpoint) + "/elsewhere"
	}
	servers := []string{g.o.Issuer}
	if g.srv.faults.on(FaultAuthPRMNoServers) {
		servers = []string{}
	}
	b, _ := json.Marshal(map[string]any{"resource": res, "authorization_servers": servers, "scopes_supported": g.o.Scopes,
		"bearer_methods_supported": []string{"header"}, "resource_name": "mcpcheck reference server"})
	writeJSON(w, http.StatusOK, b)
}

// serveASMetadata answers the 2025-03-26 discovery at the server's root
// (/.well-known/oauth-authorization-server): in that version a client
// looks for the authorization server's RFC 8414 metadata on the MCP
// server's own base URL, so the trusted issuer's document is served there
// (its endpoints are the issuer's: delegated, third-party authorization).
func (g *authGate) serveASMetadata(w http.ResponseWriter, r *http.Request) {
	if g.srv.faults.on(FaultAuthNoASMetadata) {
		http.NotFound(w, r)
		return
	}
	g.mu.Lock()
	meta := g.meta
	if meta == nil {
		if _, err := g.fetchKeys(r.Context()); err != nil {
			g.mu.Unlock()
			http.Error(w, "the trusted authorization server's metadata is unavailable: "+err.Error(), http.StatusBadGateway)
			return
		}
		meta = g.meta
	}
	g.mu.Unlock()
	writeJSON(w, http.StatusOK, meta)
}

// challenge writes a Bearer challenge and status.
func (g *authGate) challenge(w http.ResponseWriter, r *http.Request, endpoint string, status int, errCode, desc string) {
	if status == http.StatusUnauthorized && g.srv.faults.on(FaultAuthNoChallenge) {
		w.WriteHeader(status)
		return
	}
	ch := `Bearer resource_metadata="` + prmURL(g.resource(r, endpoint)) + `"`
	if !(errCode == "insufficient_scope" && g.srv.faults.on(FaultAuthInsufficientNoScope)) {
		ch += `, scope="` + strings.Join(g.o.Scopes, " ") + `"`
	}
	if errCode != "" {
		ch += `, error="` + errCode + `", error_description="` + strings.ReplaceAll(desc, `"`, "'") + `"`
	}
	w.Header().Set("WWW-Authenticate", ch)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]string{"error": errCode, "error_description": desc})
	if errCode == "" {
		b = []byte(`{"error":"unauthorized","error_description":"a bearer token is required"}`)
	}
	_, _ = w.Write(b)
}

// allow judges the request's token; when it fails, the answer is written
// and allow returns false.
func (g *authGate) allow(w http.ResponseWriter, r *http.Request, endpoint string) bool {
	authz := r.Header.Get("Authorization")
	if authz == "" && g.srv.faults.on(FaultAuthAcceptsQueryToken) {
		if q := r.URL.Query().Get("access_token"); q != "" {
			authz = "Bearer " + q
		}
	}
	if authz == "" {
		g.challenge(w, r, endpoint, http.StatusUnauthorized, "", "")
		return false
	}
	scheme, tok, _ := strings.Cut(authz, " ")
	tok = strings.TrimSpace(tok)
	if !strings.EqualFold(scheme, "Bearer") || tok == "" {
		g.challenge(w, r, endpoint, http.StatusUnauthorized, "invalid_request", "use the Bearer scheme")
		return false
	}
	if g.srv.faults.on(FaultAuthAcceptsOpaqueToken) && strings.Count(tok, ".") != 2 {
		// The defect: a token that is no JWT is taken as it comes, as by a
		// server that only checks that there is one.
		return true
	}
	c, err := g.validate(r.Context(), tok, g.resource(r, endpoint))
	if err != nil {
		g.challenge(w, r, endpoint, http.StatusUnauthorized, "invalid_token", err.Error())
		return false
	}
	for _, s := range g.o.Scopes {
		if !c.HasScope(s) {
			status := http.StatusForbidden
			code := "insufficient_scope"
			if g.srv.faults.on(FaultAuthInsufficientScope401) {
				status, code = http.StatusUnauthorized, "invalid_token"
			}
			g.challenge(w, r, endpoint, status, code, fmt.Sprintf("the token lacks scope %q", s))
			return false
		}
	}
	if g.o.Upstream != "" && r.Method == http.MethodPost {
		cred := UpstreamCredential
		if g.srv.faults.on(FaultAuthTokenPassthrough) || (g.srv.faults.on(FaultAuthTokenPassthroughTools) && postsToolCall(r)) {
			cred = authz
		}
		g.callUpstream(r.Context(), cred)
	}
	return true
}

// postsToolCall reports whether the POST's body is a tools/call request
// (or a batch holding one); the body stays readable.
func postsToolCall(r *http.Request) bool {
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
	if err != nil {
		return false
	}
	var one struct{ Method string }
	if json.Unmarshal(b, &one) == nil {
		return one.Method == "tools/call"
	}
	var batch []struct{ Method string }
	if json.Unmarshal(b, &batch) == nil {
		for _, m := range batch {
			if m.Method == "tools/call" {
				return true
			}
		}
	}
	return false
}

// callUpstream calls the upstream API with cred (the server's own
// credential, or with a passthrough fault the client's Authorization
// value); its answer does not matter.
func (g *authGate) callUpstream(ctx context.Context, cred string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.o.Upstream, nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", cred)
	resp, err := g.o.HTTPClient.Do(req)
	if err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// authSameResource reports whether the audience aud names resource: the
// same URI, its scheme and host compared without regard to case, as
// canonical server URIs are compared (byte for byte when exact).
func authSameResource(aud, resource string, exact bool) bool {
	if aud == resource || exact {
		return aud == resource
	}
	a, err := url.Parse(aud)
	r, err2 := url.Parse(resource)
	if err != nil || err2 != nil {
		return false
	}
	return strings.EqualFold(a.Scheme, r.Scheme) && strings.EqualFold(a.Host, r.Host) && a.Opaque == r.Opaque && a.User.String() == r.User.String() &&
		a.EscapedPath() == r.EscapedPath() && a.RawQuery == r.RawQuery && a.ForceQuery == r.ForceQuery && a.EscapedFragment() == r.EscapedFragment()
}

// validate verifies the token's signature and claims.
func (g *authGate) validate(ctx context.Context, tok, resource string) (authserver.Claims, error) {
	issuer := g.o.Issuer
	var keys *authserver.KeySet
	if g.srv.faults.on(FaultAuthTrustsTokenIssuer) {
		if uc, err := authserver.UnverifiedClaims(tok); err == nil && uc.Issuer != "" && uc.Issuer != g.o.Issuer {
			// The defect: the token says whom to trust.
			issuer = uc.Issuer
			if keys, _, err = g.issuerKeys(ctx, issuer); err != nil {
				return uc, err
			}
		}
	}
	if keys == nil {
		var err error
		if keys, err = g.keySet(ctx, tok); err != nil {
			return authserver.Claims{}, err
		}
	}
	c, err := keys.Verify(tok)
	if err != nil && g.srv.faults.on(FaultAuthSkipsSignature) {
		c, err = authserver.UnverifiedClaims(tok)
	}
	if err != nil {
		return c, err
	}
	now := g.srv.opts.Now().Unix()
	audOK := g.srv.faults.on(FaultAuthAcceptsAnyAudience)
	for _, a := range c.Audience {
		if authSameResource(a, resource, g.srv.faults.on(FaultAuthAudienceCaseSensitive)) || (g.srv.faults.on(FaultAuthAudiencePrefix) && strings.HasPrefix(a, resource)) {
			audOK = true
		}
	}
	switch {
	case c.Issuer != issuer && !g.srv.faults.on(FaultAuthAcceptsAnyIssuer):
		return c, fmt.Errorf("the token was issued by %q, not by %q", c.Issuer, g.o.Issuer)
	case !audOK:
		return c, fmt.Errorf("the token's audience %v does not name this resource %q", []string(c.Audience), resource)
	case c.Expiry == 0:
		return c, fmt.Errorf("the token has no expiry")
	case now > c.Expiry && !g.srv.faults.on(FaultAuthAcceptsExpired):
		return c, fmt.Errorf("the token expired at %s", time.Unix(c.Expiry, 0).UTC().Format(time.RFC3339))
	case c.NotBefore != 0 && now < c.NotBefore && !g.srv.faults.on(FaultAuthIgnoresNotBefore):
		return c, fmt.Errorf("the token is not valid before %s", time.Unix(c.NotBefore, 0).UTC().Format(time.RFC3339))
	}
	return c, nil
}

// keySet returns the issuer's keys, fetched once and again (at most every
// 10 s) when a token names a key id the set lacks.
func (g *authGate) keySet(ctx context.Context, tok string) (*authserver.KeySet, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	kid := authserver.KeyID(tok)
	if g.keys != nil && (g.keys.Has(kid) || time.Since(g.jwksAt) < 10*time.Second) {
		return g.keys, nil
	}
	ks, err := g.fetchKeys(ctx)
	if err != nil {
		if g.keys != nil {
			return g.keys, nil
		}
		return nil, err
	}
	g.keys, g.jwksAt = ks, time.Now()
	return ks, nil
}

func (g *authGate) fetchKeys(ctx context.Context) (*authserver.KeySet, error) {
	ks, meta, err := g.issuerKeys(ctx, g.o.Issuer)
	if err == nil {
		g.meta = meta
	}
	return ks, err
}

// issuerKeys fetches the keys of issuer through its metadata, which it
// also returns.
func (g *authGate) issuerKeys(ctx context.Context, issuer string) (*authserver.KeySet, []byte, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil, nil, err
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	root := u.Scheme + "://" + u.Host
	var jwksURI string
	var meta []byte
	for _, m := range []string{root + "/.well-known/oauth-authorization-server" + path, issuer + "/.well-known/openid-configuration"} {
		b, err := g.get(ctx, m)
		if err != nil {
			continue
		}
		var md struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if json.Unmarshal(b, &md) == nil && md.JWKSURI != "" && strings.TrimSuffix(md.Issuer, "/") == issuer {
			jwksURI, meta = md.JWKSURI, b
			break
		}
	}
	if jwksURI == "" {
		return nil, nil, fmt.Errorf("the issuer %s publishes no metadata with a jwks_uri", issuer)
	}
	b, err := g.get(ctx, jwksURI)
	if err != nil {
		return nil, nil, err
	}
	ks, err := authserver.ParseJWKS(b)
	return ks, meta, err
}

func (g *authGate) get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := g.o.HTTPClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered HTTP %d", u, resp.StatusCode)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 1<<20))
}
