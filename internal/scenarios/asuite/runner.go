package asuite

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/suite"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// DefaultRedirectURI is the redirect URI of the clients the checks
// register: a loopback URI nobody listens on (the checks read the
// authorization server's redirects, they never follow them).
const DefaultRedirectURI = "http://127.0.0.1/mcpcheck/callback"

// Config configures a run of the authorization-server checks.
type Config struct {
	// Issuer is the authorization server's issuer identifier (its URL).
	Issuer string
	// Versions are the protocol versions to judge; default those in which
	// the catalog has authorization-server requirements (2025-06-18 on).
	Versions []spec.Version
	// Only, when set, selects checks by ID.
	Only []string
	// ClientID and RedirectURI name a pre-registered public client to use
	// instead of registering one.
	ClientID, RedirectURI string
	// Resource is the RFC 8707 resource the checks ask tokens for (an MCP
	// server's canonical URI); none when empty.
	Resource string
	// Scope is the scope the checks ask for; none when empty.
	Scope string
	// Timeout bounds each HTTP exchange; default 10 s.
	Timeout time.Duration
	// Verbose keeps the transcripts of passing checks.
	Verbose bool
	// Tool names the program in the report.
	Tool reports.Tool
	// Progress, when set, is told each verdict as it is made.
	Progress func(reports.Check)
}

// DefaultVersions are the versions with authorization-server requirements.
var DefaultVersions = []spec.Version{spec.V20250618, spec.V20251125, spec.V20260728}

// Result is a finished run.
type Result struct {
	Report   reports.Run
	Problems []error
}

// Run runs the checks against cfg.Issuer, one verdict per check and
// version.
func Run(ctx context.Context, cfg Config) (Result, error) {
	is := strings.TrimSuffix(cfg.Issuer, "/")
	if u, err := url.Parse(is); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return Result{}, fmt.Errorf("asuite: the issuer %q is not an http(s) URL without query or fragment", cfg.Issuer)
	}
	if len(cfg.Versions) == 0 {
		cfg.Versions = DefaultVersions
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if (cfg.ClientID == "") != (cfg.RedirectURI == "") {
		return Result{}, errors.New("asuite: a pre-registered client needs both its client ID and its redirect URI")
	}
	defs := Checks()
	if len(cfg.Only) > 0 {
		defs = slices.DeleteFunc(defs, func(d Def) bool { return !slices.Contains(cfg.Only, d.ID) })
		if len(defs) == 0 {
			return Result{}, fmt.Errorf("asuite: no check is named %v", cfg.Only)
		}
	}
	cat, err := catalog.Default()
	if err != nil {
		return Result{}, err
	}
	run, err := harness.NewRun(harness.RunOptions{Catalog: cat, Verbose: cfg.Verbose})
	if err != nil {
		return Result{}, err
	}
	host, err := startDocHost()
	if err != nil {
		return Result{}, err
	}
	defer host.close()
	e := &env{ctx: ctx, cfg: cfg, issuer: is, host: host,
		http: &http.Client{Timeout: cfg.Timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	// The checks run with the one scheduler of the suites, one at a time
	// (they share the run's public client and what it was granted), in
	// the order given: per version, in registration order.
	var specs []suite.Spec
	for _, v := range cfg.Versions {
		scope := run.Scope(v, "http")
		for _, d := range defs {
			specs = append(specs, suite.Spec{Name: d.SpecName(v), Run: func() {
				rc := scope.Do(d.ID, d.Title, d.Requirements, func(c *harness.Check) {
					if ctx.Err() != nil {
						c.Untestable(suite.NotRun(ctx))
						return
					}
					defer func() {
						if ctx.Err() != nil {
							c.Interrupted(suite.Stopped(ctx))
						}
					}()
					if ok, why := d.Applies(v, "http"); !ok {
						c.NotApplicable(why)
						return
					}
					d.Body(&T{Check: c, env: e})
				})
				if cfg.Progress != nil {
					cfg.Progress(rc)
				}
			}})
		}
	}
	suite.RunSpecs(specs, suite.SpecConfig{Parallel: 1})
	rep := run.Report(cfg.Tool, reports.Target{Kind: reports.TargetHTTP, URL: is, Role: "authorization-server"})
	if ctx.Err() != nil {
		rep.Interrupted = suite.StopCause(ctx)
	}
	return Result{Report: rep, Problems: run.Problems()}, ctx.Err()
}

// env is what the checks of a run share.
type env struct {
	ctx    context.Context
	cfg    Config
	issuer string
	http   *http.Client
	host   *docHost

	mu     sync.Mutex
	disc   *discovery
	client *client
}

// T is one check in progress: the harness check plus the run's
// authorization server.
type T struct {
	*harness.Check
	env *env
}

// response is one HTTP exchange.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request.
func (t *T) do(method, u string, body []byte, hdr http.Header) (response, error) {
	req, err := http.NewRequestWithContext(t.env.ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return response{}, err
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	resp, err := t.env.http.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	t.Note("%s %s: HTTP %d %s", method, u, resp.StatusCode, clip(redact(string(b)), 300))
	return response{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// metadataDoc is one metadata document the discovery fetched.
type metadataDoc struct {
	url, kind string // kind: RFC 8414 or OpenID Connect Discovery
	status    int
	err       string // fetch or parse error
	doc       map[string]any
}

// discovery is every metadata document of the issuer.
type discovery struct{ docs []metadataDoc }

// rfc8414 and oidc are the document kinds.
const (
	rfc8414 = "RFC 8414"
	oidc    = "OpenID Connect Discovery"
)

// served returns the documents that answered 200 with JSON, of kind (any
// when "").
func (d *discovery) served(kind string) []metadataDoc {
	var out []metadataDoc
	for _, m := range d.docs {
		if m.doc != nil && (kind == "" || m.kind == kind) {
			out = append(out, m)
		}
	}
	return out
}

// discover fetches the issuer's metadata at every well-known URI (RFC 8414
// section 3.1 path insertion; OpenID Connect Discovery appended to the
// issuer and, for an issuer with a path, inserted too), once per run.
func (t *T) discover() *discovery {
	t.env.mu.Lock()
	defer t.env.mu.Unlock()
	if t.env.disc != nil {
		return t.env.disc
	}
	u, _ := url.Parse(t.env.issuer)
	origin, path := u.Scheme+"://"+u.Host, strings.TrimSuffix(u.EscapedPath(), "/")
	cands := []struct{ url, kind string }{
		{origin + "/.well-known/oauth-authorization-server" + path, rfc8414},
		{t.env.issuer + "/.well-known/openid-configuration", oidc},
	}
	if path != "" {
		cands = append(cands, struct{ url, kind string }{origin + "/.well-known/openid-configuration" + path, oidc})
	}
	d := &discovery{}
	for _, c := range cands {
		m := metadataDoc{url: c.url, kind: c.kind}
		r, err := t.do(http.MethodGet, c.url, nil, http.Header{"Accept": {"application/json"}})
		switch {
		case err != nil:
			m.err = err.Error()
		case r.status != http.StatusOK:
			m.status, m.err = r.status, fmt.Sprintf("HTTP %d", r.status)
		default:
			m.status = r.status
			if err := json.Unmarshal(r.body, &m.doc); err != nil || m.doc == nil {
				m.doc, m.err = nil, fmt.Sprintf("HTTP 200 but not a JSON object: %s", clip(string(r.body), 120))
			}
		}
		d.docs = append(d.docs, m)
	}
	t.env.disc = d
	return d
}

// metadata returns the first metadata document served (RFC 8414 first),
// or ends the check untestable.
func (t *T) metadata() (map[string]any, bool) {
	d := t.discover()
	if s := d.served(rfc8414); len(s) > 0 {
		return s[0].doc, true
	}
	if s := d.served(oidc); len(s) > 0 {
		return s[0].doc, true
	}
	t.Untestable("the authorization server serves no metadata document (authserver/metadata judges that), so its endpoints are unknown")
	return nil, false
}

// str is a string member of a metadata document.
func str(doc map[string]any, k string) string {
	s, _ := doc[k].(string)
	return s
}

// strs is a string array member of a metadata document.
func strs(doc map[string]any, k string) []string {
	a, _ := doc[k].([]any)
	var out []string
	for _, x := range a {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// client is a public client of the authorization server.
type client struct {
	id, redirect string
	how          string // how it came to be
}

// publicClient returns the public client the checks use: the configured
// one, one registered dynamically (RFC 7591), or one whose client ID
// metadata document mcpcheck hosts; it ends the check untestable when
// there is no way to have one.
func (t *T) publicClient() (*client, bool) {
	if t.env.cfg.ClientID != "" {
		return &client{id: t.env.cfg.ClientID, redirect: t.env.cfg.RedirectURI, how: "the pre-registered client " + t.env.cfg.ClientID}, true
	}
	t.env.mu.Lock()
	c := t.env.client
	t.env.mu.Unlock()
	if c != nil {
		return c, true
	}
	md, ok := t.metadata()
	if !ok {
		return nil, false
	}
	if reg := str(md, "registration_endpoint"); reg != "" {
		id, r, err := t.register(reg, DefaultRedirectURI)
		if err == nil {
			c = &client{id: id, redirect: DefaultRedirectURI, how: "a public client registered at " + reg}
		} else {
			t.Note("registering a public client at %s: %v (HTTP %d)", reg, err, r.status)
		}
	}
	if c == nil && md["client_id_metadata_document_supported"] == true {
		id := t.env.host.add(docSpec{redirect: DefaultRedirectURI})
		c = &client{id: id, redirect: DefaultRedirectURI, how: "a client ID metadata document mcpcheck hosts at " + id}
	}
	if c == nil {
		t.Untestable("no public client: the authorization server offers no dynamic client registration that accepted one and no client ID metadata documents; name a pre-registered public client (--client-id, --redirect-uri)")
		return nil, false
	}
	t.env.mu.Lock()
	t.env.client = c
	t.env.mu.Unlock()
	return c, true
}

// register registers a public client with redirect at reg (RFC 7591).
func (t *T) register(reg, redirect string) (string, response, error) {
	body, _ := json.Marshal(map[string]any{"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none",
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}, "client_name": "mcpcheck authserver-check"})
	r, err := t.do(http.MethodPost, reg, body, http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}})
	if err != nil {
		return "", r, err
	}
	var out struct {
		ID string `json:"client_id"`
	}
	if (r.status != http.StatusCreated && r.status != http.StatusOK) || json.Unmarshal(r.body, &out) != nil || out.ID == "" {
		return "", r, fmt.Errorf("HTTP %d without a client_id: %s", r.status, clip(string(r.body), 200))
	}
	return out.ID, r, nil
}

// authorization is the answer of the authorization endpoint.
type authorization struct {
	status   int
	location *url.URL   // the redirect target, if any
	params   url.Values // its query parameters
	body     string
}

// to reports whether the answer redirects to redirect (compared without
// its query; the parameters were added to it).
func (a authorization) to(redirect string) bool {
	if a.location == nil {
		return false
	}
	r, err := url.Parse(redirect)
	if err != nil {
		return false
	}
	return strings.EqualFold(a.location.Scheme, r.Scheme) && strings.EqualFold(a.location.Host, r.Host) && a.location.EscapedPath() == r.EscapedPath()
}

// toHost reports whether the answer redirects to the host of u.
func (a authorization) toHost(u string) bool {
	r, err := url.Parse(u)
	return err == nil && a.location != nil && strings.EqualFold(a.location.Host, r.Host)
}

// String says what the answer was.
func (a authorization) String() string {
	if a.location != nil {
		return fmt.Sprintf("HTTP %d to %s", a.status, a.location)
	}
	return fmt.Sprintf("HTTP %d %s", a.status, clip(a.body, 160))
}

// request is an authorization request being built.
type request struct {
	params   url.Values
	verifier string
}

// validRequest is an authorization request of c that the server should
// grant: response_type code, S256 PKCE, a fresh state, and the configured
// scope and resource.
func (t *T) validRequest(c *client) request {
	verifier := randomString(32)
	sum := sha256.Sum256([]byte(verifier))
	p := url.Values{"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {c.redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"state": {"mcpcheck-" + randomString(8)}}
	if s := t.env.cfg.Scope; s != "" {
		p.Set("scope", s)
	}
	if r := t.env.cfg.Resource; r != "" {
		p.Set("resource", r)
	}
	return request{params: p, verifier: verifier}
}

// authorize sends an authorization request (GET, its parameters in the
// query).
func (t *T) authorize(p url.Values) (authorization, bool) {
	md, ok := t.metadata()
	if !ok {
		return authorization{}, false
	}
	ep := str(md, "authorization_endpoint")
	if ep == "" {
		t.Untestable("the metadata names no authorization_endpoint")
		return authorization{}, false
	}
	u, err := url.Parse(ep)
	if err != nil {
		t.Untestable(fmt.Sprintf("authorization_endpoint %q is no URL", ep))
		return authorization{}, false
	}
	q := u.Query()
	for k, vs := range p {
		q[k] = vs
	}
	u.RawQuery = q.Encode()
	r, err := t.do(http.MethodGet, u.String(), nil, nil)
	if err != nil {
		t.Error(err)
		return authorization{}, false
	}
	a := authorization{status: r.status, body: string(r.body)}
	if loc := r.header.Get("Location"); loc != "" && r.status >= 300 && r.status < 400 {
		if lu, err := u.Parse(loc); err == nil {
			a.location, a.params = lu, lu.Query()
		}
	}
	return a, true
}

// granted sends the valid request of c and returns the code it got; a
// server that does not grant it at once ends the check untestable.
func (t *T) granted(c *client, req request) (authorization, bool) {
	a, ok := t.authorize(req.params)
	if !ok {
		return a, false
	}
	if !a.to(c.redirect) || a.params.Get("code") == "" {
		t.Untestable(fmt.Sprintf("a valid authorization request of %s (S256 PKCE, registered redirect_uri) was answered %s, not a redirect with a code: the authorization endpoint does not consent without a person, so nothing can be compared with a granted request", c.how, a))
		return a, false
	}
	t.Saw("a valid authorization request of %s was granted: redirected to %s with a code", c.how, c.redirect)
	return a, true
}

// grant has a valid request of the run's public client granted: the
// client, the request and the answer with its code. It is false when the
// check has ended (no public client, or no grant at once: untestable),
// and the check then returns.
func (t *T) grant() (*client, request, authorization, bool) {
	c, ok := t.publicClient()
	if !ok {
		return nil, request{}, authorization{}, false
	}
	req := t.validRequest(c)
	a, ok := t.granted(c, req)
	return c, req, a, ok
}

// tokenResponse is the answer of the token endpoint.
type tokenResponse struct {
	status int
	json   map[string]any
	raw    string
}

// String says what the answer was.
func (r tokenResponse) String() string {
	return fmt.Sprintf("HTTP %d %s", r.status, clip(redact(r.raw), 200))
}

// secretMember matches the token members of a JSON answer.
var secretMember = regexp.MustCompile(`("(?:access_token|refresh_token|id_token|client_secret)"\s*:\s*)"[^"]*"`)

// redact hides the tokens and secrets of a JSON answer: reports keep no
// credentials.
func redact(s string) string { return secretMember.ReplaceAllString(s, `$1"[redacted]"`) }

// token posts a token request.
func (t *T) token(form url.Values) (tokenResponse, bool) {
	md, ok := t.metadata()
	if !ok {
		return tokenResponse{}, false
	}
	ep := str(md, "token_endpoint")
	if ep == "" {
		t.Untestable("the metadata names no token_endpoint")
		return tokenResponse{}, false
	}
	r, err := t.do(http.MethodPost, ep, []byte(form.Encode()), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {"application/json"}})
	if err != nil {
		t.Error(err)
		return tokenResponse{}, false
	}
	out := tokenResponse{status: r.status, raw: string(r.body)}
	_ = json.Unmarshal(r.body, &out.json)
	return out, true
}

// redeem exchanges a code of req for tokens.
func (t *T) redeem(c *client, req request, code, verifier string) (tokenResponse, bool) {
	f := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {req.params.Get("redirect_uri")}, "client_id": {c.id}}
	if verifier != "" {
		f.Set("code_verifier", verifier)
	}
	if r := t.env.cfg.Resource; r != "" {
		f.Set("resource", r)
	}
	return t.token(f)
}

// issued reports whether a token response issued an access token.
func (r tokenResponse) issued() bool {
	s, _ := r.json["access_token"].(string)
	return r.status == http.StatusOK && s != ""
}

// tokens runs a whole flow for c: a granted request and its code redeemed.
func (t *T) tokens(c *client) (tokenResponse, bool) {
	req := t.validRequest(c)
	a, ok := t.granted(c, req)
	if !ok {
		return tokenResponse{}, false
	}
	tr, ok := t.redeem(c, req, a.params.Get("code"), req.verifier)
	if !ok {
		return tr, false
	}
	if !tr.issued() {
		t.Untestable(fmt.Sprintf("the granted code, redeemed with its code_verifier, got no access token: %s", tr))
		return tr, false
	}
	return tr, true
}

// loopback reports a loopback host name.
func loopback(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
