package client

import (
	"encoding/json"
	"fmt"
	"github.com/mcpcheck/mcpcheck/harness/wire"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/harness/stage"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Authorization (2025-03-26 onward): the stage plays a protected MCP server
// with its authorization server (authstage.go) and the checks
// (authorization_*.go) judge what the client did about the 401: which
// metadata it fetched in which order, how it registered, the authorization
// and token requests, and how it used the token. Authorization is an HTTP
// matter, so every scenario and check here is for streamable HTTP clients.
// A client without OAuth support gives up on the first 401; the checks
// then say untestable, since implementing authorization is optional.

// The authorization scenarios: the official suite's names where it has the
// scenario, mcpcheck-auth-* otherwise.
const (
	scAuthDefault        = "auth/metadata-default"
	scAuthVar1           = "auth/metadata-var1"
	scAuthVar2           = "auth/metadata-var2"
	scAuthVar3           = "auth/metadata-var3"
	scAuthTenant         = "mcpcheck-auth-tenant-issuer"
	scAuthCIMD           = "auth/basic-cimd"
	scAuthPreRegistered  = "auth/pre-registration"
	scAuthStepUp         = "auth/scope-step-up"
	scAuthRetryLimit     = "auth/scope-retry-limit"
	scAuthBackcompat     = "auth/2025-03-26-oauth-metadata-backcompat"
	scAuthFallback       = "auth/2025-03-26-oauth-endpoint-fallback"
	scAuthOtherResource  = "auth/resource-mismatch"
	scAuthIssuerMismatch = "auth/metadata-issuer-mismatch"
	scAuthIssWrong       = "auth/iss-wrong-issuer"
	scAuthIssMissing     = "auth/iss-supported-missing"
	scAuthIssNormalized  = "auth/iss-normalized"
	scAuthOffline        = "auth/offline-access-scope"
	scAuthUpperResource  = "mcpcheck-auth-resource-uppercase"
)

// authActs is what a scripted client does in the official auth scenarios.
const authActs = "answer the 401 with the OAuth flow (metadata discovery, client registration, the authorization code flow with PKCE; the stage's authorization endpoint redirects at once), list the tools and call test-tool"

// authRetryCap is how many rounds of step-up authorization for the same
// call the stage watches before it stops a client that keeps going.
const authRetryCap = 6

var authStreamable = []wire.Transport{Streamable}

// authMidSessionSince is the first version in which the scenarios that
// refuse a request inside a session (403 insufficient_scope on tools/call)
// run, as in the official suite. An exchange refused at the HTTP level is
// a session of its own (so that the client's replay after authorizing is
// no reused id), which client/lifecycle/initialize-first leaves alone.
const authMidSessionSince = spec.V20251125

// authPlays holds the play of every authorization scenario, for the
// checks.
var authPlays = map[string]authPlay{}

// authScenario registers a scenario played by p.
func authScenario(s Scenario, p authPlay) Scenario {
	authPlays[s.Name] = p
	s.Transports = authStreamable
	if s.Acts == "" && strings.HasPrefix(s.Name, "auth/") {
		s.Acts = authActs
	}
	s.Stage = p.config
	if p.PreRegistered {
		s.Context = authContext
	}
	return s
}

var _ = RegisterScenarios(
	authScenario(Scenario{Name: scAuthDefault, Since: spec.V20250618,
		Title: "protected MCP server: protected resource metadata at the path-based well-known URL, named in the 401 challenge; RFC 8414 metadata of an issuer without a path; dynamic registration"},
		authPlay{PRM: authPRMPathBased, InHeader: true, Doc: authDocRFC8414, DCR: true}),
	authScenario(Scenario{Name: scAuthTenant, RidesOn: []string{rideAuth}, Since: spec.V20250618, Until: spec.V20250618,
		Title: "protected MCP server: protected resource metadata at a custom URL named only in the 401 challenge; RFC 8414 metadata of the issuer /tenant1 (path inserted); dynamic registration"},
		authPlay{PRM: authPRMAtCustom, InHeader: true, Tenant: true, Doc: authDocRFC8414, DCR: true}),
	authScenario(Scenario{Name: scAuthVar1, Since: spec.V20251125,
		Title: "protected MCP server: a challenge without resource_metadata, protected resource metadata at the path-based well-known URL; only OpenID discovery metadata of an issuer without a path"},
		authPlay{PRM: authPRMPathBased, Doc: authDocOIDC, DCR: true}),
	authScenario(Scenario{Name: scAuthVar2, Since: spec.V20251125,
		Title: "protected MCP server: a challenge without resource_metadata, protected resource metadata at the root well-known URL only; RFC 8414 metadata of the issuer /tenant1 (path inserted)"},
		authPlay{PRM: authPRMAtRoot, Tenant: true, Doc: authDocRFC8414, DCR: true}),
	authScenario(Scenario{Name: scAuthVar3, Since: spec.V20251125,
		Title: "protected MCP server: protected resource metadata at a custom URL named only in the 401 challenge; OpenID discovery metadata of the issuer /tenant1 only at the appended location"},
		authPlay{PRM: authPRMAtCustom, InHeader: true, Tenant: true, Doc: authDocOIDCAppend, DCR: true}),
	authScenario(Scenario{Name: scAuthCIMD, Since: spec.V20251125,
		Title: "protected MCP server whose authorization server takes client ID metadata documents and offers no dynamic registration"},
		authPlay{PRM: authPRMPathBased, InHeader: true, Doc: authDocRFC8414, CIMD: true}),
	authScenario(Scenario{Name: scAuthPreRegistered, Since: spec.V20251125,
		Title: "protected MCP server whose authorization server knows the client beforehand (credentials in MCP_CONFORMANCE_CONTEXT) and offers no registration"},
		authPlay{PRM: authPRMPathBased, InHeader: true, Doc: authDocRFC8414, PreRegistered: true}),
	authScenario(Scenario{Name: scAuthStepUp, Since: authMidSessionSince,
		Title: "protected MCP server: the 401 challenge asks for mcp:basic; tools/call is answered 403 insufficient_scope until the token also carries mcp:write"},
		authPlay{PRM: authPRMPathBased, InHeader: true, Scope: authScopeBasic, ScopesSupported: []string{authScopeBasic, authScopeWrite}, Doc: authDocRFC8414, DCR: true, NeedScope: authScopeWrite}),
	authScenario(Scenario{Name: scAuthRetryLimit, Since: authMidSessionSince,
		Title: fmt.Sprintf("protected MCP server that answers every tools/call 403 insufficient_scope, whatever the token (the stage stops a client after %d rounds of step-up)", authRetryCap),
		Done:  func(c *Case) bool { return len(authForbidden(c)) > authRetryCap }},
		authPlay{PRM: authPRMPathBased, InHeader: true, Scope: authScopeBasic, Doc: authDocRFC8414, DCR: true, AlwaysForbid: true}),
	authScenario(Scenario{Name: scAuthBackcompat, Since: spec.V20250326, Until: spec.V20250326,
		Title: "2025-03-26 protected MCP server: no protected resource metadata; RFC 8414 metadata at the MCP server's origin, naming endpoints under /oauth; dynamic registration"},
		authPlay{PRM: authPRMNone, Doc: authDocRFC8414, DCR: true}),
	authScenario(Scenario{Name: scAuthFallback, Since: spec.V20250326, Until: spec.V20250326,
		Title: "2025-03-26 protected MCP server without any metadata: only the default /authorize, /token and /register answer (credentials in MCP_CONFORMANCE_CONTEXT)"},
		authPlay{PRM: authPRMNone, Doc: authDocNone, PreRegistered: true}),
	authScenario(Scenario{Name: scAuthOtherResource, Since: spec.V20250618,
		Title: "protected MCP server whose protected resource metadata names another resource (/another-mcp-server) than the MCP endpoint"},
		authPlay{PRM: authPRMPathBased, InHeader: true, OtherResource: true, Doc: authDocRFC8414, DCR: true}),
	authScenario(Scenario{Name: scAuthUpperResource, RidesOn: []string{rideAuth}, Since: spec.V20250618,
		Title: "protected MCP server whose protected resource metadata names it with an upper-case scheme and host (HTTP://127.0.0.1:PORT/mcp): the same canonical URI"},
		authPlay{PRM: authPRMPathBased, InHeader: true, UpperResource: true, Doc: authDocRFC8414, DCR: true}),
	authScenario(Scenario{Name: scAuthIssuerMismatch, Since: spec.V20260728,
		Title: "protected MCP server whose authorization server metadata names another issuer than the one it was fetched for (and endpoints under /mismatch)"},
		authPlay{PRM: authPRMPathBased, InHeader: true, Doc: authDocRFC8414, ForeignIssuer: true, DCR: true}),
	authScenario(Scenario{Name: scAuthIssWrong, Since: spec.V20260728,
		Title: "the authorization endpoint redirects with the iss of another issuer"},
		authPlay{PRM: authPRMPathBased, InHeader: true, Doc: authDocRFC8414, DCR: true, Iss: authIssWrong}),
	authScenario(Scenario{Name: scAuthIssMissing, Since: spec.V20260728,
		Title: "the authorization server advertises iss in authorization responses, but its redirect carries none"},
		authPlay{PRM: authPRMPathBased, InHeader: true, Doc: authDocRFC8414, DCR: true, Iss: authIssMissing}),
	authScenario(Scenario{Name: scAuthIssNormalized, Since: spec.V20260728,
		Title: "the authorization endpoint redirects with an iss that equals the issuer only after normalization (a trailing slash)"},
		authPlay{PRM: authPRMPathBased, InHeader: true, Doc: authDocRFC8414, DCR: true, Iss: authIssSlash}),
	authScenario(Scenario{Name: scAuthOffline, Since: spec.V20260728,
		Title: "protected MCP server whose authorization server offers offline_access (refresh tokens); dynamic registration"},
		authPlay{PRM: authPRMPathBased, InHeader: true, ScopesSupported: []string{authScopeBasic}, ASScopes: []string{authScopeBasic, "offline_access"}, Doc: authDocRFC8414, DCR: true}),
)

// authReq is one HTTP request of the client in an authorization case, with
// the head of the stage's answer.
type authReq struct {
	stage.Event
	Path  string
	Query url.Values
	// Form is the body of a form-encoded POST (the token endpoint's).
	Form url.Values
	// Status and Answer are the stage's answer (0 and nil when none was
	// recorded).
	Status int
	Answer *stage.Event
}

// is reports whether the request is a GET or POST (method) to path.
func (r authReq) is(method, path string) bool { return r.HTTP.Method == method && r.Path == path }

// describe names the request for a report: "GET /path (answered 404)".
func (r authReq) describe() string {
	s := r.HTTP.Method + " " + r.Path
	if r.Status != 0 {
		s += fmt.Sprintf(" (answered %d)", r.Status)
	}
	return s
}

// authCaseView is what the authorization checks read of one case.
type authCaseView struct {
	c    *Case
	play authPlay
	// base is the case's URL root (http://127.0.0.1:PORT), key its
	// registrar key.
	base, key string
	reqs      []authReq
	regs      []authRegistration
}

// authView reads the authorization traffic of a case.
func authView(c *Case) *authCaseView {
	v := &authCaseView{c: c, play: authPlays[c.Scenario.Name]}
	answers := map[string]*stage.Event{}
	for i := range c.Events {
		e := &c.Events[i]
		if e.From != stage.FromStage || e.HTTP == nil || e.HTTP.Status == 0 {
			continue
		}
		if answers[e.Stream] == nil {
			answers[e.Stream] = e
		}
		if v.key == "" {
			v.key, v.base = e.HTTP.Header.Get(authKeyHeader), e.HTTP.Header.Get(authBaseHeader)
		}
	}
	for _, e := range c.HTTPRequests() {
		u, err := url.Parse(e.HTTP.URL)
		if err != nil {
			continue
		}
		r := authReq{Event: e, Path: u.Path, Query: u.Query()}
		if ct := e.HTTP.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/x-www-form-urlencoded") && e.HTTP.Method == http.MethodPost {
			r.Form, _ = url.ParseQuery(string(e.Raw))
		}
		if a := answers[e.Stream]; a != nil {
			r.Status, r.Answer = a.HTTP.Status, a
		}
		v.reqs = append(v.reqs, r)
		if r.is(http.MethodPost, "/register") && v.play.Doc == authDocNone {
			v.regs = append(v.regs, authRegistration{Time: e.Time, Body: e.Raw})
		}
	}
	if v.key != "" {
		v.regs = append(v.regs, authRegistrarOne.of(v.key)...)
		sort.SliceStable(v.regs, func(i, j int) bool { return v.regs[i].Time.Before(v.regs[j].Time) })
	}
	return v
}

// where filters the requests.
func (v *authCaseView) where(f func(authReq) bool) []authReq {
	var out []authReq
	for _, r := range v.reqs {
		if f(r) {
			out = append(out, r)
		}
	}
	return out
}

// first returns the first request f accepts.
func (v *authCaseView) first(f func(authReq) bool) (authReq, bool) {
	for _, r := range v.reqs {
		if f(r) {
			return r, true
		}
	}
	return authReq{}, false
}

// Request kinds: to the MCP endpoint, for protected resource metadata, for
// authorization server metadata (RFC 8414 or OpenID), to an authorization
// or token endpoint.
func authIsMCP(r authReq) bool { return r.Path == authMCPPath }
func authIsPRM(r authReq) bool {
	return r.HTTP.Method == http.MethodGet && (strings.HasPrefix(r.Path, authPRMRoot) || r.Path == authPRMCustom)
}
func authIsASMeta(r authReq) bool {
	return r.HTTP.Method == http.MethodGet && (strings.Contains(r.Path, authASWellKnown) || strings.Contains(r.Path, authOIDC))
}
func authIsRFC8414(r authReq) bool {
	return r.HTTP.Method == http.MethodGet && strings.Contains(r.Path, authASWellKnown)
}
func authIsAuthorize(r authReq) bool { return strings.HasSuffix(r.Path, "/authorize") }
func authIsToken(r authReq) bool {
	return r.HTTP.Method == http.MethodPost && strings.HasSuffix(r.Path, "/token")
}

// authIsASSide: a request to the authorization server's side (metadata,
// endpoints), as opposed to the MCP server's (its endpoint and protected
// resource metadata).
func authIsASSide(r authReq) bool {
	return authIsASMeta(r) || authIsAuthorize(r) || strings.HasSuffix(r.Path, "/token") || strings.HasSuffix(r.Path, "/register")
}

// authIsDefaultEndpoint: a request to a 2025-03-26 default endpoint.
func authIsDefaultEndpoint(r authReq) bool {
	return r.Path == "/authorize" || r.Path == "/token" || r.Path == "/register"
}

// acted reports whether the client did anything about authorization: a
// request to the metadata or the authorization server, or a registration.
func (v *authCaseView) acted() bool {
	_, ok := v.first(func(r authReq) bool { return authIsPRM(r) || authIsASSide(r) })
	return ok || len(v.regs) > 0
}

// notTrying says why a case in which the client fetched metadata and then
// neither registered nor sent an authorization or token request shows
// nothing about what it could have done next; "" when the client's own
// ending shows it tried to authorize and stopped there (it exited with a
// failure status). A client that ends the launch itself with status 0 did
// not try to authorize in that launch: a command that only lists or probes
// the server ('claude mcp list' fetches both metadata documents to report
// "needs authentication" and exits 0). A client the harness ended may have
// been waiting (for a user, a browser), and our time limit is no verdict on
// it.
func (v *authCaseView) notTrying() string {
	c := v.c
	switch {
	case caStillWaiting(c):
		return "the harness ended the launch before the client registered or went on (it may have been waiting for a user), so whether it would have is not shown"
	case c.ExitCode == 0:
		return "the client did not try to authorize in this launch: it fetched the metadata, sent no registration, authorization or token request and ended by itself with status 0 (a run that only lists or probes the server)"
	case c.ExitCode < 0:
		return "the client " + c.Exit + " after fetching the metadata, without saying whether it tried to authorize"
	}
	return ""
}

// challenged returns the stage's first 401 to the MCP endpoint.
func (v *authCaseView) challenged() (authReq, bool) {
	return v.first(func(r authReq) bool { return authIsMCP(r) && r.Status == http.StatusUnauthorized })
}

// challengeURL is the resource_metadata URL of the first 401 challenge
// ("" when it named none).
func (v *authCaseView) challengeURL() string {
	r, ok := v.challenged()
	if !ok {
		return ""
	}
	return authBearerParam(r.Answer.HTTP.Header.Get("WWW-Authenticate"), "resource_metadata")
}

// authBearerParam returns one parameter of a Bearer challenge the stage wrote
// (name="value", comma separated).
func authBearerParam(h, name string) string {
	for _, part := range strings.Split(h, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(part), "Bearer ")), "=")
		if ok && k == name {
			return strings.Trim(val, `"`)
		}
	}
	return ""
}

// pathOf is the path of an absolute URL on the case ("" when it is not
// one).
func (v *authCaseView) pathOf(raw string) string {
	if v.base == "" || !strings.HasPrefix(raw, v.base) {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Path
}

// mcpURL is the case's MCP endpoint, as the client was given it.
func (v *authCaseView) mcpURL() string { return v.base + authMCPPath }

// issued maps the access tokens the stage issued to the token requests
// that got them.
func (v *authCaseView) issued() map[string]authReq {
	out := map[string]authReq{}
	for _, r := range v.reqs {
		if !authIsToken(r) || r.Status != http.StatusOK || r.Answer == nil {
			continue
		}
		var a struct {
			AccessToken string `json:"access_token"`
		}
		if json.Unmarshal(r.Answer.Raw, &a) == nil && a.AccessToken != "" {
			out[a.AccessToken] = r
		}
	}
	return out
}

// authBearerToken returns the token of a request's Authorization: Bearer
// header ("" when it has none of that scheme).
func authBearerToken(h http.Header) string {
	f := strings.Fields(h.Get("Authorization"))
	if len(f) == 2 && strings.EqualFold(f[0], "Bearer") {
		return f[1]
	}
	return ""
}

// authRedirectCode returns the code the stage's redirect answer to an
// authorization request carried ("" when none).
func authRedirectCode(r authReq) string {
	if r.Answer == nil || r.Status != http.StatusFound {
		return ""
	}
	u, err := url.Parse(r.Answer.HTTP.Header.Get("Location"))
	if err != nil {
		return ""
	}
	return u.Query().Get("code")
}

// authRegFields decodes a registration request ("" keys when not an object).
func authRegFields(g authRegistration) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(g.Body, &m)
	return m
}

// authRegStrings returns a string-array member of a registration request.
func authRegStrings(m map[string]any, key string) []string {
	var out []string
	list, _ := m[key].([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// authForbidden returns the stage's 403 answers to the MCP endpoint.
func authForbidden(c *Case) []stage.Event {
	var out []stage.Event
	for _, e := range c.Events {
		if e.From == stage.FromStage && e.HTTP != nil && e.HTTP.Status == http.StatusForbidden {
			if u, err := url.Parse(e.HTTP.URL); err == nil && u.Path == authMCPPath {
				out = append(out, e)
			}
		}
	}
	return out
}

// authNeedsOAuth is the NeedAction text of the checks.
const authNeedsOAuth = "answer the 401 with MCP's OAuth flow (a client without authorization support is not judged by this check)"
