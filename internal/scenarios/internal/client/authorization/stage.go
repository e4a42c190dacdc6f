package authorization

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The stage of authorization's scenarios: a protected MCP server, its
// protected resource metadata and its authorization server, played by one
// Middleware in front of the engine on a dedicated case (every path at the
// root of the case's own listener, every request recorded). An play
// says what the scenario serves where.
//
// Dynamic client registration is the exception: a registration request is
// a JSON document the stage would record as a (broken) client message,
// which every message check of the suite would then judge. So, where
// metadata names the registration endpoint, it lives on the registrar, a
// loopback listener of its own that keeps what it was sent per case (see
// registrar). Only the 2025-03-26 default /register (no metadata to
// point elsewhere) is on the case itself.

// Headers the middleware puts on every answer of an authorization case: the
// case's registrar key and its base URL (the recording holds request paths
// only), for the checks.
const (
	keyHeader  = "Mcpcheck-Auth-Key"
	baseHeader = "Mcpcheck-Auth-Base"
)

// Paths of an authorization case.
const (
	mcpPath     = "/mcp"
	prmRoot     = "/.well-known/oauth-protected-resource"
	prmCustom   = "/custom/metadata/location.json"
	asWellKnown = "/.well-known/oauth-authorization-server"
	authOIDC    = "/.well-known/openid-configuration"
	tenant      = "/tenant1"
	// endpoints prefixes the endpoints that metadata names; the
	// 2025-03-26 defaults are at the root, so the two are told apart.
	endpoints = "/oauth"
	// mismatch prefixes the endpoints of a document whose issuer is
	// not the one asked for.
	mismatch = "/mismatch"
)

// The scopes of the scenarios.
const (
	scopeBasic = "mcp:basic"
	scopeWrite = "mcp:write"
)

// prmWhere says where the stage serves the protected resource metadata.
type prmWhere int

const (
	prmPathBased prmWhere = iota // /.well-known/oauth-protected-resource/mcp
	prmAtRoot                    // /.well-known/oauth-protected-resource
	prmAtCustom                  // prmCustom, found only through the challenge
	prmNone                      // nowhere (the 2025-03-26 layout)
)

// doc says which well-known location serves the authorization server
// metadata (for an issuer with a path, the path is inserted or appended as
// the name says).
type doc int

const (
	docRFC8414    doc = iota // /.well-known/oauth-authorization-server[/path]
	docOIDC                  // /.well-known/openid-configuration[/path]
	docOIDCAppend            // /path/.well-known/openid-configuration
	docNone                  // none: the 2025-03-26 default endpoints
)

// iss says what iss the authorization endpoint's redirect carries.
type iss int

const (
	issRight   iss = iota // the issuer
	issWrong              // another issuer
	issMissing            // none, though the metadata advertises it
	issSlash              // the issuer with a trailing slash (a normalization away from it)
)

// play is how the stage plays one authorization scenario.
type play struct {
	// PRM is where the protected resource metadata is (prmNone: the
	// 2025-03-26 layout, whose issuer is the MCP server's origin); InHeader
	// puts its URL in the 401 challenge (resource_metadata).
	PRM      prmWhere
	InHeader bool
	// Scope is the scope parameter of the 401 challenge ("" for none);
	// ScopesSupported the metadata's scopes_supported.
	Scope           string
	ScopesSupported []string
	// OtherResource makes the metadata name another resource than the MCP
	// server.
	OtherResource bool
	// UpperResource makes the metadata name the MCP server with its scheme
	// and host in upper case (HTTP://127.0.0.1:PORT/mcp).
	UpperResource bool
	// Tenant gives the issuer the path /tenant1.
	Tenant bool
	// Doc is where the issuer's metadata is (docNone: nowhere, and the
	// 2025-03-26 default endpoints /authorize, /token and /register answer
	// instead); ForeignIssuer makes the document name another issuer (and
	// endpoints under mismatch).
	Doc           doc
	ForeignIssuer bool
	// ASScopes is the authorization server's scopes_supported.
	ASScopes []string
	// CIMD advertises client ID metadata documents; DCR a registration
	// endpoint (on the registrar).
	CIMD, DCR bool
	// Iss is what the redirect's iss is.
	Iss iss
	// NeedScope is a scope tools/call needs beyond the first grant (403
	// insufficient_scope without it); AlwaysForbid answers every
	// tools/call 403 insufficient_scope.
	NeedScope    string
	AlwaysForbid bool
	// PreRegistered gives the client credentials through
	// MCP_CONFORMANCE_CONTEXT (preClientID).
	PreRegistered bool
}

// The pre-registered credentials of the scenarios that give them.
const (
	preClientID     = "mcpcheck-preregistered-client"
	preClientSecret = "mcpcheck-preregistered-secret"
)

// contextFor is MCP_CONFORMANCE_CONTEXT of a scenario with pre-registered
// credentials.
func contextFor(client.Env, *stage.Case) string {
	b, _ := json.Marshal(map[string]string{"client_id": preClientID, "client_secret": preClientSecret})
	return string(b)
}

// testTool is the tool of the official suite's authorization scenarios.
var testTool = server.Tool{
	Def: mcp.Tool{Name: "test-tool", Description: "A tool behind authorization", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
	Run: func(c *server.Call) (any, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text("test")}}, nil
	},
}

// config is the stage configuration of a case of the play.
func (p play) config(client.Env) stage.Config {
	as := &authServer{play: p, key: randomHex(8), codes: map[string]authCode{}, tokens: map[string]string{}, refresh: map[string]string{}}
	return stage.Config{
		Server:     server.Options{NoFixtures: true, Tools: []server.Tool{testTool}},
		Dedicated:  true,
		Middleware: as.middleware,
	}
}

// issuerPath is the path of the play's issuer ("" for the origin).
func (p play) issuerPath() string {
	if p.Tenant {
		return tenant
	}
	return ""
}

// prmPath is the path the protected resource metadata is served at ("" for
// none).
func (p play) prmPath() string {
	switch p.PRM {
	case prmPathBased:
		return prmRoot + mcpPath
	case prmAtRoot:
		return prmRoot
	case prmAtCustom:
		return prmCustom
	}
	return ""
}

// docPath is the path the issuer's metadata is served at ("" for none).
func (p play) docPath() string {
	ip := p.issuerPath()
	switch p.Doc {
	case docRFC8414:
		return asWellKnown + ip
	case docOIDC:
		return authOIDC + ip
	case docOIDCAppend:
		return ip + authOIDC
	}
	return ""
}

// endpoints is the prefix of the authorization and token endpoints.
func (p play) endpoints() string {
	switch {
	case p.Doc == docNone:
		return ""
	case p.ForeignIssuer:
		return mismatch
	}
	return endpoints
}

// authCode is what an authorization code was issued for.
type authCode struct {
	challenge, method, scope string
}

// authServer is the state of one case's authorization server.
type authServer struct {
	play play
	key  string

	mu      sync.Mutex
	codes   map[string]authCode
	tokens  map[string]string // access token -> its scope
	refresh map[string]string // refresh token -> its scope
}

// middleware plays the case: the MCP endpoint behind the token gate, the
// documents and endpoints of the play, 404 for everything else.
func (a *authServer) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := "http://" + r.Host
		w.Header().Set(keyHeader, a.key)
		w.Header().Set(baseHeader, base)
		p := a.play
		ep := p.endpoints()
		switch path := r.URL.Path; {
		case path == mcpPath:
			a.gate(w, r, base, next)
		case path == p.prmPath() && path != "":
			a.writeJSON(w, http.StatusOK, a.resourceMetadata(base))
		case path == p.docPath() && path != "":
			a.writeJSON(w, http.StatusOK, a.serverMetadata(base))
		case path == ep+"/authorize":
			a.authorize(w, r, base)
		case path == ep+"/token":
			a.token(w, r)
		case path == "/register" && p.Doc == docNone:
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			status, answer := registerAnswer(body)
			a.writeJSON(w, status, answer)
		case path == endpoints+"/jwks" || path == mismatch+"/jwks":
			a.writeJSON(w, http.StatusOK, map[string]any{"keys": []any{}})
		default:
			http.Error(w, "mcpcheck: nothing is served here in this scenario", http.StatusNotFound)
		}
	})
}

// issuer is the issuer the protected resource metadata names.
func (a *authServer) issuer(base string) string { return base + a.play.issuerPath() }

// challenge is the WWW-Authenticate value of a 401 (or, with errCode, of a
// 403).
func (a *authServer) challenge(base, errCode, scope string) string {
	parts := []string{`Bearer realm="mcpcheck"`}
	if errCode != "" {
		parts = append(parts, `error="`+errCode+`"`)
	}
	if scope != "" {
		parts = append(parts, `scope="`+scope+`"`)
	}
	if a.play.InHeader {
		parts = append(parts, `resource_metadata="`+base+a.play.prmPath()+`"`)
	}
	return strings.Join(parts, ", ")
}

// gate lets requests with a token the case issued through to the engine
// and answers the others 401 (or 403 for a tools/call that needs more
// scope).
func (a *authServer) gate(w http.ResponseWriter, r *http.Request, base string, next http.Handler) {
	tok := bearerToken(r.Header)
	a.mu.Lock()
	scope, ok := a.tokens[tok]
	a.mu.Unlock()
	if !ok || tok == "" {
		w.Header().Set("WWW-Authenticate", a.challenge(base, "", a.play.Scope))
		http.Error(w, "mcpcheck: authorization required", http.StatusUnauthorized)
		return
	}
	if (a.play.AlwaysForbid || a.play.NeedScope != "" && !hasScope(scope, a.play.NeedScope)) && isToolCall(r) {
		need := a.play.NeedScope
		if need == "" {
			need = scopeWrite
		}
		w.Header().Set("WWW-Authenticate", a.challenge(base, "insufficient_scope", need))
		http.Error(w, "mcpcheck: insufficient scope", http.StatusForbidden)
		return
	}
	next.ServeHTTP(w, r)
}

// isToolCall reports whether r POSTs a tools/call request (its body is
// left for the engine to read).
func isToolCall(r *http.Request) bool {
	if r.Method != http.MethodPost || r.Body == nil {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	r.Body = io.NopCloser(bytes.NewReader(b))
	if err != nil {
		return false
	}
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(b, &m) == nil && m.Method == spec.MethodToolsCall
}

func hasScope(granted, want string) bool {
	for _, s := range strings.Fields(granted) {
		if s == want {
			return true
		}
	}
	return false
}

func (a *authServer) resourceMetadata(base string) map[string]any {
	resource := base + mcpPath
	if a.play.PRM == prmAtRoot {
		// Metadata at the root well-known URL describes the resource the
		// origin names (RFC 9728 section 3.3: the resource is the URL the
		// well-known path was inserted into), as in the official suite.
		resource = base
	}
	if a.play.OtherResource {
		resource = base + "/another-mcp-server"
	}
	if a.play.UpperResource {
		resource = strings.ToUpper(base) + mcpPath
	}
	md := map[string]any{
		"resource":                 resource,
		"authorization_servers":    []string{a.issuer(base)},
		"bearer_methods_supported": []string{"header"},
	}
	if len(a.play.ScopesSupported) > 0 {
		md["scopes_supported"] = a.play.ScopesSupported
	}
	return md
}

func (a *authServer) serverMetadata(base string) map[string]any {
	p := a.play
	issuer := a.issuer(base)
	if p.ForeignIssuer {
		issuer = base + "/another-issuer"
	}
	ep := base + p.endpoints()
	md := map[string]any{
		"issuer":                                         issuer,
		"authorization_endpoint":                         ep + "/authorize",
		"token_endpoint":                                 ep + "/token",
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_basic", "client_secret_post"},
		"authorization_response_iss_parameter_supported": true,
	}
	if p.PreRegistered {
		md["token_endpoint_auth_methods_supported"] = []string{"client_secret_basic"}
	}
	if p.DCR {
		suffix := ""
		if p.ForeignIssuer {
			suffix = mismatch
		}
		md["registration_endpoint"] = registrarOne.endpoint(a.key + suffix)
	}
	if p.CIMD {
		md["client_id_metadata_document_supported"] = true
	}
	if len(p.ASScopes) > 0 {
		md["scopes_supported"] = p.ASScopes
	}
	if p.Doc == docOIDC || p.Doc == docOIDCAppend {
		md["jwks_uri"] = ep + "/jwks"
		md["subject_types_supported"] = []string{"public"}
		md["id_token_signing_alg_values_supported"] = []string{"RS256"}
	}
	return md
}

// authorize issues a code at once and redirects to the client's
// redirect_uri: no person is asked.
func (a *authServer) authorize(w http.ResponseWriter, r *http.Request, base string) {
	q := r.URL.Query()
	ru, err := url.Parse(q.Get("redirect_uri"))
	if q.Get("redirect_uri") == "" || err != nil || !ru.IsAbs() {
		http.Error(w, "mcpcheck: the authorization request has no usable redirect_uri", http.StatusBadRequest)
		return
	}
	code := "mcpcheck-code-" + randomHex(8)
	a.mu.Lock()
	a.codes[code] = authCode{challenge: q.Get("code_challenge"), method: q.Get("code_challenge_method"), scope: q.Get("scope")}
	a.mu.Unlock()
	v := ru.Query()
	v.Set("code", code)
	if s := q.Get("state"); s != "" {
		v.Set("state", s)
	}
	if a.play.Doc != docNone {
		switch issuer := a.issuer(base); a.play.Iss {
		case issRight:
			v.Set("iss", issuer)
		case issWrong:
			v.Set("iss", base+"/another-issuer")
		case issSlash:
			v.Set("iss", issuer+"/")
		}
	}
	ru.RawQuery = v.Encode()
	w.Header().Set("Location", ru.String())
	w.WriteHeader(http.StatusFound)
}

// token redeems a code (checking PKCE when the authorization request had a
// challenge) or a refresh token.
func (a *authServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.Method != http.MethodPost {
		a.writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var scope string
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		c, ok := a.codes[r.PostForm.Get("code")]
		if !ok {
			a.writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "unknown or used code"})
			return
		}
		delete(a.codes, r.PostForm.Get("code"))
		if c.challenge != "" && !pkceMatches(c.challenge, c.method, r.PostForm.Get("code_verifier")) {
			a.writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "code_verifier does not match code_challenge"})
			return
		}
		scope = c.scope
	case "refresh_token":
		s, ok := a.refresh[r.PostForm.Get("refresh_token")]
		if !ok {
			a.writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		scope = s
	default:
		a.writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	tok := "mcpcheck-token-" + randomHex(12)
	a.tokens[tok] = scope
	answer := map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600}
	if scope != "" {
		answer["scope"] = scope
	}
	if hasScope(scope, "offline_access") {
		rt := "mcpcheck-refresh-" + randomHex(12)
		a.refresh[rt] = scope
		answer["refresh_token"] = rt
	}
	a.writeJSON(w, http.StatusOK, answer)
}

// pkceMatches checks a code_verifier against the challenge (RFC 7636).
func pkceMatches(challenge, method, verifier string) bool {
	if verifier == "" {
		return false
	}
	if method == "" || method == "plain" {
		return verifier == challenge
	}
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:]) == challenge
}

func (a *authServer) writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// registerAnswer answers a dynamic registration request (RFC 7591): a
// client id for any JSON object, its metadata echoed.
func registerAnswer(body []byte) (int, map[string]any) {
	var req map[string]any
	if json.Unmarshal(body, &req) != nil || req == nil {
		return http.StatusBadRequest, map[string]any{"error": "invalid_client_metadata", "error_description": "the body is not a JSON object"}
	}
	answer := map[string]any{}
	for k, v := range req {
		answer[k] = v
	}
	answer["client_id"] = "mcpcheck-client-" + randomHex(6)
	answer["client_id_issued_at"] = time.Now().Unix()
	if m, _ := req["token_endpoint_auth_method"].(string); m != "" && m != "none" {
		answer["client_secret"] = "mcpcheck-secret-" + randomHex(6)
	} else {
		answer["token_endpoint_auth_method"] = "none"
	}
	return http.StatusCreated, answer
}

// registration is a dynamic registration request the registrar (or, for
// the 2025-03-26 default /register, the stage) received.
type registration struct {
	Time time.Time
	// Suffix is mismatch for the endpoint of a document with a
	// foreign issuer, "" otherwise.
	Suffix string
	Body   []byte
}

// registrar is the loopback listener dynamic registration requests go to,
// one for the process, started on first use; it keeps what each case's
// requests were (registrarKeep cases at most, the oldest dropped).
type registrar struct {
	once sync.Once
	base string
	err  error

	mu    sync.Mutex
	byKey map[string][]registration
	order []string
}

// registrarKeep bounds how many cases' registrations the registrar keeps.
const registrarKeep = 512

var registrarOne = &registrar{byKey: map[string][]registration{}}

// endpoint is the registration endpoint for key (a key with a suffix for
// the endpoint of a document with a foreign issuer).
func (g *registrar) endpoint(key string) string {
	g.once.Do(g.start)
	if g.err != nil {
		// Metadata naming an endpoint that refuses connections: the
		// client's registration fails and the checks say so.
		return "http://127.0.0.1:1/register/" + key
	}
	return g.base + "/register/" + key
}

func (g *registrar) start() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		g.err = fmt.Errorf("client: the registrar cannot listen on 127.0.0.1: %w", err)
		return
	}
	g.base = "http://" + ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(g.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
}

func (g *registrar) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/register/")
	if !ok || r.Method != http.MethodPost {
		http.Error(w, "mcpcheck registrar: POST /register/KEY", http.StatusNotFound)
		return
	}
	key, suffix, _ := strings.Cut(rest, "/")
	if suffix != "" {
		suffix = "/" + suffix
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	g.mu.Lock()
	if _, seen := g.byKey[key]; !seen {
		g.order = append(g.order, key)
		if len(g.order) > registrarKeep {
			delete(g.byKey, g.order[0])
			g.order = g.order[1:]
		}
	}
	g.byKey[key] = append(g.byKey[key], registration{Time: time.Now(), Suffix: suffix, Body: body})
	g.mu.Unlock()
	status, answer := registerAnswer(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(answer)
}

// of returns the registrations of a case's key.
func (g *registrar) of(key string) []registration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]registration(nil), g.byKey[key]...)
}
