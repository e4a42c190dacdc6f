package authorization

import (
	"encoding/json"
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client"
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
	scAuthDefault        = client.RideAuth
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

// retryCap is how many rounds of step-up authorization for the same
// call the stage watches before it stops a client that keeps going.
const retryCap = 6

var streamable = []wire.Transport{client.Streamable}

// midSessionSince is the first version in which the scenarios that
// refuse a request inside a session (403 insufficient_scope on tools/call)
// run, as in the official suite. An exchange refused at the HTTP level is
// a session of its own (so that the client's replay after authorizing is
// no reused id), which client/lifecycle/initialize-first leaves alone.
const midSessionSince = spec.V20251125

// plays holds the play of every authorization scenario, for the
// checks.
var plays = map[string]play{}

// scenario registers a scenario played by p.
func scenario(s client.Scenario, p play) client.Scenario {
	plays[s.Name] = p
	s.Transports = streamable
	if s.Acts == "" && strings.HasPrefix(s.Name, "auth/") {
		s.Acts = client.AuthActs
	}
	s.Stage = p.config
	if p.PreRegistered {
		s.Context = contextFor
	}
	return s
}

var _ = client.RegisterScenarios(
	scenario(client.Scenario{Name: scAuthDefault, Since: spec.V20250618,
		Title: "protected MCP server: protected resource metadata at the path-based well-known URL, named in the 401 challenge; RFC 8414 metadata of an issuer without a path; dynamic registration"},
		play{PRM: prmPathBased, InHeader: true, Doc: docRFC8414, DCR: true}),
	scenario(client.Scenario{Name: scAuthTenant, RidesOn: []string{client.RideAuth}, Since: spec.V20250618, Until: spec.V20250618,
		Title: "protected MCP server: protected resource metadata at a custom URL named only in the 401 challenge; RFC 8414 metadata of the issuer /tenant1 (path inserted); dynamic registration"},
		play{PRM: prmAtCustom, InHeader: true, Tenant: true, Doc: docRFC8414, DCR: true}),
	scenario(client.Scenario{Name: scAuthVar1, Since: spec.V20251125,
		Title: "protected MCP server: a challenge without resource_metadata, protected resource metadata at the path-based well-known URL; only OpenID discovery metadata of an issuer without a path"},
		play{PRM: prmPathBased, Doc: docOIDC, DCR: true}),
	scenario(client.Scenario{Name: scAuthVar2, Since: spec.V20251125,
		Title: "protected MCP server: a challenge without resource_metadata, protected resource metadata at the root well-known URL only; RFC 8414 metadata of the issuer /tenant1 (path inserted)"},
		play{PRM: prmAtRoot, Tenant: true, Doc: docRFC8414, DCR: true}),
	scenario(client.Scenario{Name: scAuthVar3, Since: spec.V20251125,
		Title: "protected MCP server: protected resource metadata at a custom URL named only in the 401 challenge; OpenID discovery metadata of the issuer /tenant1 only at the appended location"},
		play{PRM: prmAtCustom, InHeader: true, Tenant: true, Doc: docOIDCAppend, DCR: true}),
	scenario(client.Scenario{Name: scAuthCIMD, Since: spec.V20251125,
		Title: "protected MCP server whose authorization server takes client ID metadata documents and offers no dynamic registration"},
		play{PRM: prmPathBased, InHeader: true, Doc: docRFC8414, CIMD: true}),
	scenario(client.Scenario{Name: scAuthPreRegistered, Since: spec.V20251125,
		Title: "protected MCP server whose authorization server knows the client beforehand (credentials in MCP_CONFORMANCE_CONTEXT) and offers no registration"},
		play{PRM: prmPathBased, InHeader: true, Doc: docRFC8414, PreRegistered: true}),
	scenario(client.Scenario{Name: scAuthStepUp, Since: midSessionSince,
		Title: "protected MCP server: the 401 challenge asks for mcp:basic; tools/call is answered 403 insufficient_scope until the token also carries mcp:write"},
		play{PRM: prmPathBased, InHeader: true, Scope: scopeBasic, ScopesSupported: []string{scopeBasic, scopeWrite}, Doc: docRFC8414, DCR: true, NeedScope: scopeWrite}),
	scenario(client.Scenario{Name: scAuthRetryLimit, Since: midSessionSince,
		Title: fmt.Sprintf("protected MCP server that answers every tools/call 403 insufficient_scope, whatever the token (the stage stops a client after %d rounds of step-up)", retryCap),
		Done:  func(c *client.Case) bool { return len(forbidden(c)) > retryCap }},
		play{PRM: prmPathBased, InHeader: true, Scope: scopeBasic, Doc: docRFC8414, DCR: true, AlwaysForbid: true}),
	scenario(client.Scenario{Name: scAuthBackcompat, Since: spec.V20250326, Until: spec.V20250326,
		Title: "2025-03-26 protected MCP server: no protected resource metadata; RFC 8414 metadata at the MCP server's origin, naming endpoints under /oauth; dynamic registration"},
		play{PRM: prmNone, Doc: docRFC8414, DCR: true}),
	scenario(client.Scenario{Name: scAuthFallback, Since: spec.V20250326, Until: spec.V20250326,
		Title: "2025-03-26 protected MCP server without any metadata: only the default /authorize, /token and /register answer (credentials in MCP_CONFORMANCE_CONTEXT)"},
		play{PRM: prmNone, Doc: docNone, PreRegistered: true}),
	scenario(client.Scenario{Name: scAuthOtherResource, Since: spec.V20250618,
		Title: "protected MCP server whose protected resource metadata names another resource (/another-mcp-server) than the MCP endpoint"},
		play{PRM: prmPathBased, InHeader: true, OtherResource: true, Doc: docRFC8414, DCR: true}),
	scenario(client.Scenario{Name: scAuthUpperResource, RidesOn: []string{client.RideAuth}, Since: spec.V20250618,
		Title: "protected MCP server whose protected resource metadata names it with an upper-case scheme and host (HTTP://127.0.0.1:PORT/mcp): the same canonical URI"},
		play{PRM: prmPathBased, InHeader: true, UpperResource: true, Doc: docRFC8414, DCR: true}),
	scenario(client.Scenario{Name: scAuthIssuerMismatch, Since: spec.V20260728,
		Title: "protected MCP server whose authorization server metadata names another issuer than the one it was fetched for (and endpoints under /mismatch)"},
		play{PRM: prmPathBased, InHeader: true, Doc: docRFC8414, ForeignIssuer: true, DCR: true}),
	scenario(client.Scenario{Name: scAuthIssWrong, Since: spec.V20260728,
		Title: "the authorization endpoint redirects with the iss of another issuer"},
		play{PRM: prmPathBased, InHeader: true, Doc: docRFC8414, DCR: true, Iss: issWrong}),
	scenario(client.Scenario{Name: scAuthIssMissing, Since: spec.V20260728,
		Title: "the authorization server advertises iss in authorization responses, but its redirect carries none"},
		play{PRM: prmPathBased, InHeader: true, Doc: docRFC8414, DCR: true, Iss: issMissing}),
	scenario(client.Scenario{Name: scAuthIssNormalized, Since: spec.V20260728,
		Title: "the authorization endpoint redirects with an iss that equals the issuer only after normalization (a trailing slash)"},
		play{PRM: prmPathBased, InHeader: true, Doc: docRFC8414, DCR: true, Iss: issSlash}),
	scenario(client.Scenario{Name: scAuthOffline, Since: spec.V20260728,
		Title: "protected MCP server whose authorization server offers offline_access (refresh tokens); dynamic registration"},
		play{PRM: prmPathBased, InHeader: true, ScopesSupported: []string{scopeBasic}, ASScopes: []string{scopeBasic, "offline_access"}, Doc: docRFC8414, DCR: true}),
)

// request is one HTTP request of the client in an authorization case, with
// the head of the stage's answer.
type request struct {
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
func (r request) is(method, path string) bool { return r.HTTP.Method == method && r.Path == path }

// describe names the request for a report: "GET /path (answered 404)".
func (r request) describe() string {
	s := r.HTTP.Method + " " + r.Path
	if r.Status != 0 {
		s += fmt.Sprintf(" (answered %d)", r.Status)
	}
	return s
}

// caseView is what the authorization checks read of one case.
type caseView struct {
	c    *client.Case
	play play
	// base is the case's URL root (http://127.0.0.1:PORT), key its
	// registrar key.
	base, key string
	reqs      []request
	regs      []registration
}

// view reads the authorization traffic of a case.
func view(c *client.Case) *caseView {
	v := &caseView{c: c, play: plays[c.Scenario.Name]}
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
			v.key, v.base = e.HTTP.Header.Get(keyHeader), e.HTTP.Header.Get(baseHeader)
		}
	}
	for _, e := range c.HTTPRequests() {
		u, err := url.Parse(e.HTTP.URL)
		if err != nil {
			continue
		}
		r := request{Event: e, Path: u.Path, Query: u.Query()}
		if ct := e.HTTP.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/x-www-form-urlencoded") && e.HTTP.Method == http.MethodPost {
			r.Form, _ = url.ParseQuery(string(e.Raw))
		}
		if a := answers[e.Stream]; a != nil {
			r.Status, r.Answer = a.HTTP.Status, a
		}
		v.reqs = append(v.reqs, r)
		if r.is(http.MethodPost, "/register") && v.play.Doc == docNone {
			v.regs = append(v.regs, registration{Time: e.Time, Body: e.Raw})
		}
	}
	if v.key != "" {
		v.regs = append(v.regs, registrarOne.of(v.key)...)
		sort.SliceStable(v.regs, func(i, j int) bool { return v.regs[i].Time.Before(v.regs[j].Time) })
	}
	return v
}

// where filters the requests.
func (v *caseView) where(f func(request) bool) []request {
	var out []request
	for _, r := range v.reqs {
		if f(r) {
			out = append(out, r)
		}
	}
	return out
}

// first returns the first request f accepts.
func (v *caseView) first(f func(request) bool) (request, bool) {
	for _, r := range v.reqs {
		if f(r) {
			return r, true
		}
	}
	return request{}, false
}

// isMCP and the predicates after it sort requests by kind: to the MCP
// endpoint, for protected resource metadata, for authorization server
// metadata (RFC 8414 or OpenID), to an authorization or token endpoint.
func isMCP(r request) bool { return r.Path == mcpPath }
func isPRM(r request) bool {
	return r.HTTP.Method == http.MethodGet && (strings.HasPrefix(r.Path, prmRoot) || r.Path == prmCustom)
}
func isASMeta(r request) bool {
	return r.HTTP.Method == http.MethodGet && (strings.Contains(r.Path, asWellKnown) || strings.Contains(r.Path, authOIDC))
}
func isRFC8414(r request) bool {
	return r.HTTP.Method == http.MethodGet && strings.Contains(r.Path, asWellKnown)
}
func isAuthorize(r request) bool { return strings.HasSuffix(r.Path, "/authorize") }
func isToken(r request) bool {
	return r.HTTP.Method == http.MethodPost && strings.HasSuffix(r.Path, "/token")
}

// isASSide: a request to the authorization server's side (metadata,
// endpoints), as opposed to the MCP server's (its endpoint and protected
// resource metadata).
func isASSide(r request) bool {
	return isASMeta(r) || isAuthorize(r) || strings.HasSuffix(r.Path, "/token") || strings.HasSuffix(r.Path, "/register")
}

// isDefaultEndpoint: a request to a 2025-03-26 default endpoint.
func isDefaultEndpoint(r request) bool {
	return r.Path == "/authorize" || r.Path == "/token" || r.Path == "/register"
}

// acted reports whether the client did anything about authorization: a
// request to the metadata or the authorization server, or a registration.
func (v *caseView) acted() bool {
	_, ok := v.first(func(r request) bool { return isPRM(r) || isASSide(r) })
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
func (v *caseView) notTrying() string {
	c := v.c
	switch {
	case client.StillWaiting(c):
		return "the harness ended the launch before the client registered or went on (it may have been waiting for a user), so whether it would have is not shown"
	case c.ExitCode == 0:
		return "the client did not try to authorize in this launch: it fetched the metadata, sent no registration, authorization or token request and ended by itself with status 0 (a run that only lists or probes the server)"
	case c.ExitCode < 0:
		return "the client " + c.Exit + " after fetching the metadata, without saying whether it tried to authorize"
	}
	return ""
}

// challenged returns the stage's first 401 to the MCP endpoint.
func (v *caseView) challenged() (request, bool) {
	return v.first(func(r request) bool { return isMCP(r) && r.Status == http.StatusUnauthorized })
}

// challengeURL is the resource_metadata URL of the first 401 challenge
// ("" when it named none).
func (v *caseView) challengeURL() string {
	r, ok := v.challenged()
	if !ok {
		return ""
	}
	return bearerParam(r.Answer.HTTP.Header.Get("WWW-Authenticate"), "resource_metadata")
}

// bearerParam returns one parameter of a Bearer challenge the stage wrote
// (name="value", comma separated).
func bearerParam(h, name string) string {
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
func (v *caseView) pathOf(raw string) string {
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
func (v *caseView) mcpURL() string { return v.base + mcpPath }

// issued maps the access tokens the stage issued to the token requests
// that got them.
func (v *caseView) issued() map[string]request {
	out := map[string]request{}
	for _, r := range v.reqs {
		if !isToken(r) || r.Status != http.StatusOK || r.Answer == nil {
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

// bearerToken returns the token of a request's Authorization: Bearer
// header ("" when it has none of that scheme).
func bearerToken(h http.Header) string {
	f := strings.Fields(h.Get("Authorization"))
	if len(f) == 2 && strings.EqualFold(f[0], "Bearer") {
		return f[1]
	}
	return ""
}

// redirectCode returns the code the stage's redirect answer to an
// authorization request carried ("" when none).
func redirectCode(r request) string {
	if r.Answer == nil || r.Status != http.StatusFound {
		return ""
	}
	u, err := url.Parse(r.Answer.HTTP.Header.Get("Location"))
	if err != nil {
		return ""
	}
	return u.Query().Get("code")
}

// regFields decodes a registration request ("" keys when not an object).
func regFields(g registration) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(g.Body, &m)
	return m
}

// regStrings returns a string-array member of a registration request.
func regStrings(m map[string]any, key string) []string {
	var out []string
	list, _ := m[key].([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// forbidden returns the stage's 403 answers to the MCP endpoint.
func forbidden(c *client.Case) []stage.Event {
	var out []stage.Event
	for _, e := range c.Events {
		if e.From == stage.FromStage && e.HTTP != nil && e.HTTP.Status == http.StatusForbidden {
			if u, err := url.Parse(e.HTTP.URL); err == nil && u.Path == mcpPath {
				out = append(out, e)
			}
		}
	}
	return out
}

// needsOAuth is the NeedAction text of the checks.
const needsOAuth = "answer the 401 with MCP's OAuth flow (a client without authorization support is not judged by this check)"
