// Package authserver is mcpcheck's test OAuth 2.1 authorization server:
// the issuer that servers under test are told to trust, the way they would
// trust Auth0 or Keycloak, so that mcpcheck controls every token they see.
//
// It serves RFC 8414 and OpenID Connect discovery metadata, a JWKS, the
// authorization code grant with PKCE S256 and automatic consent (RFC 9207
// iss in every authorization response), client credentials, refresh tokens
// with rotation, dynamic client registration (RFC 7591), client ID
// metadata documents, and resource indicators (RFC 8707) that become the
// aud of ES256-signed JWT access tokens (RFC 9068). Mint makes the tokens
// the resource-server checks need (valid, expired, for another resource,
// badly signed, ...); with Options.MintEndpoint the same is offered over
// HTTP at the path the metadata names in mcpcheck_mint_endpoint, for a
// checker in another process. Fault switches (Faults) each break one named
// requirement of the catalog.
//
// It is a test fixture: it keeps everything in memory, consents to every
// request and mints tokens on demand. Never expose it beyond loopback.
package authserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configure a Server. The zero value is usable but for Issuer.
type Options struct {
	// Issuer is the issuer identifier: the URL the server is reached at
	// (scheme, host, optional path; no query or fragment). Required.
	Issuer string
	// TokenTTL is the lifetime of access tokens; default 5 minutes.
	TokenTTL time.Duration
	// Scopes is scopes_supported; default ["mcp"].
	Scopes []string
	// Clients are pre-registered clients.
	Clients []Client
	// MintEndpoint serves the mint API over HTTP (POST, see MintRequest)
	// and names it in the metadata as mcpcheck_mint_endpoint.
	MintEndpoint bool
	// AllowHTTPMetadataDocuments accepts client ID metadata documents at
	// http:// URLs of loopback hosts (tests); otherwise only https.
	AllowHTTPMetadataDocuments bool
	// Faults names the fault switches to turn on (see Faults).
	Faults []string
	// Now is the clock; default time.Now.
	Now func() time.Time
	// HTTPClient fetches client ID metadata documents; default a client
	// with a 5 s timeout.
	HTTPClient *http.Client
}

// Client is a registered client.
type Client struct {
	ID     string `json:"client_id"`
	Secret string `json:"client_secret,omitempty"`
	// RedirectURIs are matched exactly (loopback IP redirects on any port,
	// RFC 8252 section 7.3).
	RedirectURIs []string `json:"redirect_uris,omitempty"`
	// AuthMethod is none, client_secret_basic or client_secret_post.
	AuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes []string `json:"grant_types,omitempty"`
	Name       string   `json:"client_name,omitempty"`
	Scope      string   `json:"scope,omitempty"`

	metadataDocument bool // resolved from a client ID metadata document
}

// Server is the authorization server.
type Server struct {
	opts   Options
	faults faultSet
	key    signingKey
	rogue  signingKey // same kid, not in the JWKS: bad signatures
	base   *url.URL

	mu      sync.Mutex
	clients map[string]Client
	cimd    map[string]cimdEntry
	codes   map[string]grant
	refresh map[string]grant
	issued  int // access tokens issued through the endpoints
}

type cimdEntry struct {
	c Client
	// until is when the document must be fetched again: as its
	// Cache-Control allows (no-store and no-cache: at once; max-age),
	// 5 minutes when it says nothing.
	until time.Time
}

// grant is what an authorization code or a refresh token stands for.
type grant struct {
	client    string
	redirect  string
	challenge string
	scope     string
	resources []string
	subject   string
	expires   time.Time
}

// New returns a server for o.
func New(o Options) (*Server, error) {
	u, err := url.Parse(o.Issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("authserver: issuer %q is not an http(s) URL without query or fragment", o.Issuer)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	o.Issuer = strings.TrimSuffix(o.Issuer, "/")
	if o.TokenTTL <= 0 {
		o.TokenTTL = 5 * time.Minute
	}
	if len(o.Scopes) == 0 {
		o.Scopes = []string{"mcp"}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	fs, err := newFaultSet(o.Faults)
	if err != nil {
		return nil, err
	}
	kid := "mcpcheck-" + randomString(6)
	k, err := newSigningKey(kid)
	if err != nil {
		return nil, err
	}
	rogue, err := newSigningKey(kid)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: o, faults: fs, key: k, rogue: rogue, base: u,
		clients: map[string]Client{}, cimd: map[string]cimdEntry{}, codes: map[string]grant{}, refresh: map[string]grant{}}
	for _, c := range o.Clients {
		s.clients[c.ID] = c
	}
	return s, nil
}

// Issued returns how many access tokens the token endpoint has issued.
func (s *Server) Issued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issued
}

// JWKS returns the public key set document.
func (s *Server) JWKS() []byte {
	b, _ := json.Marshal(map[string]any{"keys": []jwk{s.key.public()}})
	return b
}

// KeySet returns the server's public keys, parsed.
func (s *Server) KeySet() *KeySet {
	ks, _ := ParseJWKS(s.JWKS())
	return ks
}

func (s *Server) endpoint(p string) string { return s.opts.Issuer + p }

// Metadata returns the RFC 8414 metadata document.
func (s *Server) Metadata() map[string]any {
	md := map[string]any{
		"issuer":                                         s.opts.Issuer,
		"authorization_endpoint":                         s.endpoint("/authorize"),
		"token_endpoint":                                 s.endpoint("/token"),
		"jwks_uri":                                       s.endpoint("/jwks"),
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token", "client_credentials"},
		"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_basic", "client_secret_post"},
		"code_challenge_methods_supported":               []string{"S256"},
		"scopes_supported":                               s.opts.Scopes,
		"authorization_response_iss_parameter_supported": true,
		"client_id_metadata_document_supported":          !s.faults.on(FaultNoCIMD),
	}
	if s.faults.on(FaultInsecureEndpoint) {
		md["revocation_endpoint"] = "http://as.mcpcheck.invalid/revoke"
	}
	if !s.faults.on(FaultNoRegistration) {
		md["registration_endpoint"] = s.endpoint("/register")
	}
	if s.faults.on(FaultNoPKCEMethods) {
		delete(md, "code_challenge_methods_supported")
	}
	if s.faults.on(FaultIssNotAdvertised) {
		delete(md, "authorization_response_iss_parameter_supported")
	}
	if s.opts.MintEndpoint {
		md["mcpcheck_mint_endpoint"] = s.endpoint(MintPath)
	}
	return md
}

// MintPath is the path of the HTTP mint API under the issuer.
const MintPath = "/mcpcheck/mint"

// Handler serves every endpoint. Mount it at the root of the issuer's host.
func (s *Server) Handler() http.Handler {
	p := s.base.Path
	mux := http.NewServeMux()
	meta := func(oidc bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if s.faults.on(FaultNoMetadata) {
				http.NotFound(w, r)
				return
			}
			md := s.Metadata()
			if oidc {
				md["subject_types_supported"] = []string{"public"}
				md["id_token_signing_alg_values_supported"] = []string{"ES256"}
			}
			writeJSON(w, http.StatusOK, md)
		}
	}
	mux.HandleFunc("GET /.well-known/oauth-authorization-server"+p, meta(false))
	mux.HandleFunc("GET /.well-known/openid-configuration"+p, meta(true))
	if p != "" {
		mux.HandleFunc("GET "+p+"/.well-known/openid-configuration", meta(true))
	}
	mux.HandleFunc("GET "+p+"/jwks", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.JWKS())
	})
	mux.HandleFunc(p+"/authorize", s.authorize)
	mux.HandleFunc("POST "+p+"/token", s.token)
	if !s.faults.on(FaultNoRegistration) {
		mux.HandleFunc("POST "+p+"/register", s.register)
	}
	if s.opts.MintEndpoint {
		mux.HandleFunc("POST "+p+MintPath, s.mintHTTP)
	}
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// lookupClient finds a registered client, or fetches the client ID
// metadata document a URL client_id names.
func (s *Server) lookupClient(ctx context.Context, id string) (Client, error) {
	s.mu.Lock()
	c, ok := s.clients[id]
	e, cached := s.cimd[id]
	s.mu.Unlock()
	if ok {
		return c, nil
	}
	if cached && s.opts.Now().Before(e.until) {
		return e.c, nil
	}
	u, err := url.Parse(id)
	if err != nil || u.Host == "" || (u.Path == "" || u.Path == "/") || s.faults.on(FaultNoCIMD) {
		return Client{}, fmt.Errorf("unknown client %q", id)
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && s.opts.AllowHTTPMetadataDocuments && isLoopback(u.Hostname())) {
		return Client{}, fmt.Errorf("client %q: a client ID metadata document must be at an https URL", id)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return Client{}, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.opts.HTTPClient.Do(req)
	if err != nil {
		return Client{}, fmt.Errorf("client %q: fetching its metadata document: %v", id, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Client{}, fmt.Errorf("client %q: its metadata document answered HTTP %d", id, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return Client{}, err
	}
	var doc Client
	if err := json.Unmarshal(b, &doc); err != nil {
		return Client{}, fmt.Errorf("client %q: the metadata document is not JSON: %v", id, err)
	}
	switch {
	case doc.ID != id && !s.faults.on(FaultCIMDClientIDMismatch):
		return Client{}, fmt.Errorf("client %q: the metadata document names client_id %q", id, doc.ID)
	case len(doc.RedirectURIs) == 0 && !s.faults.on(FaultCIMDDocumentAnyShape):
		return Client{}, fmt.Errorf("client %q: the metadata document has no redirect_uris", id)
	case doc.Secret != "" || (doc.AuthMethod != "" && doc.AuthMethod != "none"):
		return Client{}, fmt.Errorf("client %q: a metadata-document client is public (token_endpoint_auth_method none, no secret)", id)
	}
	doc.ID, doc.AuthMethod, doc.metadataDocument = id, "none", true
	life := 5 * time.Minute
	if !s.faults.on(FaultCIMDCacheIgnored) {
		life = cacheLifetime(resp.Header.Get("Cache-Control"), life)
	}
	s.mu.Lock()
	s.cimd[id] = cimdEntry{c: doc, until: s.opts.Now().Add(life)}
	s.mu.Unlock()
	return doc, nil
}

// cacheLifetime is how long a response with the Cache-Control value cc may
// be reused (RFC 9111): not at all with no-store or no-cache, max-age
// seconds (at most a day) when given, def otherwise.
func cacheLifetime(cc string, def time.Duration) time.Duration {
	for _, d := range strings.Split(cc, ",") {
		k, v, _ := strings.Cut(strings.ToLower(strings.TrimSpace(d)), "=")
		switch k {
		case "no-store", "no-cache":
			return 0
		case "max-age":
			n, err := strconv.Atoi(strings.Trim(v, `"`))
			if err != nil || n < 0 {
				return 0
			}
			return min(time.Duration(n)*time.Second, 24*time.Hour)
		}
	}
	return def
}

func isLoopback(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// redirectAllowed reports whether u is one of the client's redirect URIs:
// exactly, or a loopback IP literal differing only in port.
func (s *Server) redirectAllowed(c Client, u string) bool {
	if c.metadataDocument && (s.faults.on(FaultCIMDRedirectAnyURI) || (len(c.RedirectURIs) == 0 && s.faults.on(FaultCIMDDocumentAnyShape))) {
		return u != ""
	}
	for _, r := range c.RedirectURIs {
		if r == u || (s.faults.on(FaultRedirectPrefixMatch) && strings.HasPrefix(u, r)) {
			return true
		}
		ru, err1 := url.Parse(r)
		uu, err2 := url.Parse(u)
		if err1 == nil && err2 == nil && ru.Scheme == "http" && uu.Scheme == "http" &&
			net.ParseIP(ru.Hostname()) != nil && ru.Hostname() == uu.Hostname() && isLoopback(ru.Hostname()) &&
			ru.EscapedPath() == uu.EscapedPath() && ru.RawQuery == uu.RawQuery {
			return true
		}
	}
	return false
}

// authorize is the authorization endpoint: automatic consent.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	q := r.Form
	c, err := s.lookupClient(r.Context(), q.Get("client_id"))
	if err != nil {
		http.Error(w, "invalid client: "+err.Error(), http.StatusBadRequest)
		return
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" && len(c.RedirectURIs) == 1 {
		redirect = c.RedirectURIs[0]
	}
	if !s.redirectAllowed(c, redirect) {
		if s.faults.on(FaultErrorToUnregistered) && redirect != "" {
			s.redirect(w, r, redirect, url.Values{"error": {"invalid_request"}, "error_description": {"redirect_uri is not registered"}, "state": {q.Get("state")}})
			return
		}
		http.Error(w, fmt.Sprintf("invalid redirect_uri %q: not registered for client %q (exact match required)", redirect, c.ID), http.StatusBadRequest)
		return
	}
	fail := func(code, desc string) {
		v := url.Values{"error": {code}, "error_description": {desc}}
		if st := q.Get("state"); st != "" {
			v.Set("state", st)
		}
		s.redirect(w, r, redirect, v)
	}
	if q.Get("response_type") != "code" {
		fail("unsupported_response_type", "only response_type=code is supported")
		return
	}
	challenge, method := q.Get("code_challenge"), q.Get("code_challenge_method")
	switch {
	case challenge == "" && !s.faults.on(FaultPKCENotRequired):
		fail("invalid_request", "code_challenge is required (PKCE)")
		return
	case challenge != "" && method != "S256":
		fail("invalid_request", fmt.Sprintf("code_challenge_method %q is not supported: use S256", method))
		return
	}
	resources, err := resourceParams(q["resource"])
	if err != nil {
		fail("invalid_target", err.Error())
		return
	}
	code := randomString(16)
	s.mu.Lock()
	s.codes[code] = grant{client: c.ID, redirect: q.Get("redirect_uri"), challenge: challenge, scope: q.Get("scope"),
		resources: resources, subject: "mcpcheck-user", expires: s.opts.Now().Add(time.Minute)}
	s.mu.Unlock()
	v := url.Values{"code": {code}}
	if st := q.Get("state"); st != "" && !s.faults.on(FaultStateNotReturned) {
		v.Set("state", st)
	}
	s.redirect(w, r, redirect, v)
}

// redirect sends the user agent to u with v added to its query, and the
// issuer (RFC 9207) unless the fault drops it.
func (s *Server) redirect(w http.ResponseWriter, r *http.Request, u string, v url.Values) {
	if !s.faults.on(FaultNoIssInResponse) {
		v.Set("iss", s.opts.Issuer)
	}
	pu, err := url.Parse(u)
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	q := pu.Query()
	for k, vs := range v {
		q[k] = vs
	}
	pu.RawQuery = q.Encode()
	http.Redirect(w, r, pu.String(), http.StatusFound)
}

// resourceParams validates RFC 8707 resource parameters: absolute URIs
// without a fragment.
func resourceParams(rs []string) ([]string, error) {
	for _, r := range rs {
		u, err := url.Parse(r)
		if err != nil || !u.IsAbs() || u.Fragment != "" {
			return nil, fmt.Errorf("resource %q is not an absolute URI without a fragment (RFC 8707)", r)
		}
	}
	return rs, nil
}

// clientAuth authenticates the client of a token request.
func (s *Server) clientAuth(r *http.Request) (Client, error) {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	c, err := s.lookupClient(r.Context(), id)
	if err != nil {
		return Client{}, err
	}
	if c.Secret != "" && subtle.ConstantTimeCompare([]byte(c.Secret), []byte(secret)) != 1 {
		return Client{}, fmt.Errorf("client %q: wrong or missing client secret", id)
	}
	return c, nil
}

// token is the token endpoint.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	f := r.PostForm
	c, err := s.clientAuth(r)
	if err != nil {
		w.Header().Set("WWW-Authenticate", `Basic realm="mcpcheck"`)
		oauthError(w, http.StatusUnauthorized, "invalid_client", err.Error())
		return
	}
	resources, err := resourceParams(f["resource"])
	if err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_target", err.Error())
		return
	}
	now := s.opts.Now()
	var g grant
	keepRefresh := "" // the refresh token to hand back again (FaultRefreshNotRotated)
	switch f.Get("grant_type") {
	case "authorization_code":
		s.mu.Lock()
		g0, ok := s.codes[f.Get("code")]
		delete(s.codes, f.Get("code"))
		s.mu.Unlock()
		switch {
		case !ok || now.After(g0.expires):
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown, used or expired authorization code")
			return
		case g0.client != c.ID:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "the code was issued to another client")
			return
		case g0.redirect != f.Get("redirect_uri"):
			oauthError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the authorization request's")
			return
		case g0.challenge != "" && !pkceMatches(g0.challenge, f.Get("code_verifier")):
			oauthError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge (S256)")
			return
		case g0.challenge == "" && f.Get("code_verifier") != "":
			oauthError(w, http.StatusBadRequest, "invalid_grant", "a code_verifier for a code granted without code_challenge")
			return
		}
		g = g0
	case "refresh_token":
		rt := f.Get("refresh_token")
		s.mu.Lock()
		g0, ok := s.refresh[rt]
		if ok && !s.faults.on(FaultRefreshNotRotated) {
			delete(s.refresh, rt)
		}
		s.mu.Unlock()
		if !ok || g0.client != c.ID {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown, rotated or foreign refresh token")
			return
		}
		if sc := f.Get("scope"); sc != "" {
			for _, x := range strings.Fields(sc) {
				if !(Claims{Scope: g0.scope}).HasScope(x) {
					oauthError(w, http.StatusBadRequest, "invalid_scope", fmt.Sprintf("scope %q was not granted", x))
					return
				}
			}
			g0.scope = sc
		}
		g = g0
		if s.faults.on(FaultRefreshNotRotated) {
			keepRefresh = rt
		}
	case "client_credentials":
		if c.Secret == "" {
			oauthError(w, http.StatusBadRequest, "unauthorized_client", "client_credentials needs a confidential client")
			return
		}
		g = grant{client: c.ID, scope: f.Get("scope"), subject: c.ID}
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", fmt.Sprintf("grant_type %q is not supported", f.Get("grant_type")))
		return
	}
	if len(resources) > 0 {
		if len(g.resources) > 0 {
			for _, x := range resources {
				if !contains(g.resources, x) {
					oauthError(w, http.StatusBadRequest, "invalid_target", fmt.Sprintf("resource %q was not part of the grant", x))
					return
				}
			}
		}
		g.resources = resources
	}
	ttl := s.opts.TokenTTL
	if s.faults.on(FaultLongLivedTokens) {
		ttl = 10 * 365 * 24 * time.Hour
	}
	at, err := s.key.sign(Claims{Issuer: s.opts.Issuer, Subject: g.subject, Audience: Audience(g.resources), ClientID: c.ID,
		Scope: g.scope, IssuedAt: now.Unix(), NotBefore: now.Unix(), Expiry: now.Add(ttl).Unix(), ID: randomString(8)})
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": int(ttl / time.Second)}
	if g.scope != "" {
		resp["scope"] = g.scope
	}
	if f.Get("grant_type") != "client_credentials" {
		rt := keepRefresh
		if rt == "" {
			rt = randomString(16)
		}
		g.expires = time.Time{}
		s.mu.Lock()
		s.refresh[rt] = g
		s.mu.Unlock()
		resp["refresh_token"] = rt
	}
	s.mu.Lock()
	s.issued++
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, resp)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func pkceMatches(challenge, verifier string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(b64.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// register is the RFC 7591 registration endpoint.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var c Client
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&c); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the body is not a JSON object: "+err.Error())
		return
	}
	if len(c.GrantTypes) == 0 {
		c.GrantTypes = []string{"authorization_code", "refresh_token"}
	}
	if contains(c.GrantTypes, "authorization_code") && len(c.RedirectURIs) == 0 {
		oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris is required for the authorization_code grant")
		return
	}
	for _, u := range c.RedirectURIs {
		pu, err := url.Parse(u)
		if err != nil || !pu.IsAbs() || pu.Fragment != "" || (pu.Scheme == "http" && !isLoopback(pu.Hostname())) {
			oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", fmt.Sprintf("redirect URI %q: absolute, no fragment, http only on loopback", u))
			return
		}
	}
	switch c.AuthMethod {
	case "":
		c.AuthMethod = "client_secret_basic"
	case "none", "client_secret_basic", "client_secret_post":
	default:
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", fmt.Sprintf("token_endpoint_auth_method %q is not supported", c.AuthMethod))
		return
	}
	c.ID = "mcpcheck-client-" + randomString(8)
	c.Secret = ""
	if c.AuthMethod != "none" {
		c.Secret = randomString(16)
	}
	s.mu.Lock()
	s.clients[c.ID] = c
	s.mu.Unlock()
	out := map[string]any{"client_id": c.ID, "client_id_issued_at": s.opts.Now().Unix(), "redirect_uris": c.RedirectURIs,
		"token_endpoint_auth_method": c.AuthMethod, "grant_types": c.GrantTypes, "response_types": []string{"code"}}
	if c.Secret != "" {
		out["client_secret"], out["client_secret_expires_at"] = c.Secret, 0
	}
	if c.Name != "" {
		out["client_name"] = c.Name
	}
	if c.Scope != "" {
		out["scope"] = c.Scope
	}
	writeJSON(w, http.StatusCreated, out)
}

// Running is a server listening on a loopback port.
type Running struct {
	*Server
	URL string
	srv *http.Server
	ln  net.Listener
}

// Start listens on addr (host:port; "127.0.0.1:0" for any port), sets the
// issuer to the URL it listens on unless o.Issuer is set, and serves.
func Start(addr string, o Options) (*Running, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	u := "http://" + ln.Addr().String()
	if o.Issuer == "" {
		o.Issuer = u
	}
	s, err := New(o)
	if err != nil {
		ln.Close()
		return nil, err
	}
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return &Running{Server: s, URL: u, srv: hs, ln: ln}, nil
}

// Close stops the server.
func (r *Running) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := r.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return r.srv.Close()
	}
	return err
}
