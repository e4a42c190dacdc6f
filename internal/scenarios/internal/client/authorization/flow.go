package authorization

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Authorization checks about the flow itself: registration requests,
// redirect URIs, PKCE, the resource parameter, iss, step-up, and how the
// token is used.

// Requirement IDs the flow checks cite.
const (
	idRedirectURI      = "authorization.redirect-uri.localhost-or-https"
	idNoTrailingSlash  = "authorization.canonical-uri.no-trailing-slash"
	iddcrAppType       = "authorization.dcr.application-type"
	iddcrNative        = "authorization.dcr.native-application-type"
	idRefreshGrant     = "authorization.refresh-token.grant-types"
	idpkceUses         = "authorization.pkce.client-uses"
	idpkces256         = "authorization.pkce.s256"
	idResourceBoth     = "authorization.resource-param.in-auth-and-token-requests"
	idResourceAlways   = "authorization.resource-param.always-send"
	idResourceCanon    = "authorization.resource-param.canonical-uri"
	idResourceServer   = "authorization.resource-param.identifies-server"
	idStepUpResponds   = "authorization.step-up.client-responds"
	idScopeUnion       = "authorization.scope.client-union-on-reauth"
	idStepUpLimit      = "authorization.step-up.retry-limit"
	idStepUpTrack      = "authorization.step-up.track-attempts"
	idIssValidates     = "authorization.iss.client-validates"
	idIssNoNormalizing = "authorization.iss.no-normalization"
	idBearerHeader     = "authorization.token-usage.bearer-header"
	idEveryRequest     = "authorization.token-usage.every-request"
	idNoQueryToken     = "authorization.token-usage.no-query-string"
)

// loopback reports whether host names the local machine.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redirectProblem says what is wrong with a redirect URI ("" when it is a
// localhost URL or an https one).
func redirectProblem(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs():
		return fmt.Sprintf("%q is not an absolute URL", raw)
	case strings.EqualFold(u.Scheme, "https"):
		return ""
	case strings.EqualFold(u.Scheme, "http") && loopback(u.Hostname()):
		return ""
	case strings.EqualFold(u.Scheme, "http"):
		return fmt.Sprintf("%s is plain http on %s, which is not localhost", raw, u.Hostname())
	}
	return fmt.Sprintf("%s has scheme %s, neither https nor a localhost http URL", raw, u.Scheme)
}

// nativeRedirects reports whether every redirect URI is one only a native
// application can receive (localhost, or a private-use scheme).
func nativeRedirects(uris []string) bool {
	if len(uris) == 0 {
		return false
	}
	for _, raw := range uris {
		u, err := url.Parse(raw)
		if err != nil {
			return false
		}
		web := strings.EqualFold(u.Scheme, "https") || strings.EqualFold(u.Scheme, "http")
		if web && !loopback(u.Hostname()) {
			return false
		}
	}
	return true
}

// resourceProblem says why a resource parameter is not a canonical URI
// (RFC 8707: absolute, no fragment).
func resourceProblem(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "":
		return fmt.Sprintf("%q is not an absolute URI with a host", raw)
	case strings.Contains(raw, "#"):
		return fmt.Sprintf("%q carries a fragment", raw)
	}
	return ""
}

// namesServer reports whether a resource parameter names the MCP server of
// the case: its endpoint URL or its origin (scheme and host compared
// without regard to case, a trailing slash ignored).
func (v *caseView) namesServer(resource string) bool {
	r, err := url.Parse(resource)
	if err != nil {
		return false
	}
	b, _ := url.Parse(v.base)
	if b == nil || !strings.EqualFold(r.Scheme, b.Scheme) || !strings.EqualFold(r.Host, b.Host) {
		return false
	}
	p := strings.TrimSuffix(r.Path, "/")
	return p == "" || p == mcpPath
}

// codeChallenges maps the codes the stage issued to the authorization
// requests they answered.
func (v *caseView) codeChallenges() map[string]request {
	out := map[string]request{}
	for _, r := range v.where(isAuthorize) {
		if code := redirectCode(r); code != "" {
			out[code] = r
		}
	}
	return out
}

var _ = client.Register(
	client.Def{
		ID: "client/authorization/redirect-uris", Area: "authorization", Since: spec.V20250326, Transports: streamable,
		Scenarios:    []string{scAuthBackcompat, scAuthFallback, scAuthDefault, scAuthCIMD, scAuthPreRegistered},
		Title:        "every redirect URI the client registers or sends is a localhost URL or an https URL",
		Requirements: []string{idRedirectURI},
		Proofs:       []client.Proof{proof("auth-redirect-http", spec.V20251125, reports.Fail)},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				var uris []string
				for _, g := range v.regs {
					uris = append(uris, regStrings(regFields(g), "redirect_uris")...)
				}
				for _, r := range v.where(isAuthorize) {
					if u := r.Query.Get("redirect_uri"); u != "" {
						uris = append(uris, u)
					}
				}
				for _, r := range v.where(isToken) {
					if u := r.Form.Get("redirect_uri"); u != "" {
						uris = append(uris, u)
					}
				}
				if len(uris) == 0 {
					j.untestable(c, "register or send a redirect URI")
					continue
				}
				bad := ""
				for _, u := range uris {
					if p := redirectProblem(u); p != "" {
						bad = p
						break
					}
				}
				if bad != "" {
					j.breach(c, idRedirectURI, "redirect URIs are localhost URLs or https URLs", bad)
					continue
				}
				j.ok()
			}
			j.end("%d cases: every redirect URI localhost or https")
		},
	},
	client.Def{
		ID: "client/authorization/resource-no-trailing-slash", Area: "authorization", Since: spec.V20250618, Transports: streamable,
		Scenarios:    []string{scAuthDefault, scAuthPreRegistered},
		Title:        "the resource parameter names the MCP server without a trailing slash (the server's URI has none)",
		Requirements: []string{idNoTrailingSlash},
		Proofs:       []client.Proof{proof("auth-resource-trailing-slash", spec.V20251125, reports.Warn)},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				var seen []string
				for _, r := range v.reqs {
					switch {
					case isAuthorize(r) && r.Query.Has("resource"):
						seen = append(seen, r.Query.Get("resource"))
					case isToken(r) && r.Form.Has("resource"):
						seen = append(seen, r.Form.Get("resource"))
					}
				}
				if len(seen) == 0 {
					j.untestable(c, "send a resource parameter")
					continue
				}
				bad := ""
				for _, s := range seen {
					if strings.HasSuffix(s, "/") {
						bad = s
						break
					}
				}
				if bad != "" {
					j.breach(c, idNoTrailingSlash, "the resource parameter is written without a trailing slash, as the server's URI "+v.mcpURL()+" is", "the client sent resource="+bad)
					continue
				}
				j.ok()
			}
			j.end("%d cases: resource parameters without a trailing slash")
		},
	},
	client.Def{
		ID: "client/authorization/dcr-application-type", Area: "authorization", Since: spec.V20260728, Transports: streamable,
		Scenarios:    []string{scAuthDefault, scAuthVar1},
		Title:        "a dynamic registration request of the client carries an application_type",
		Requirements: []string{iddcrAppType},
		Proofs:       []client.Proof{proof("auth-dcr-no-application-type", spec.V20260728, reports.Fail)},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				if len(v.regs) == 0 {
					if v.acted() {
						j.notApplicable(c, "the client made no dynamic registration")
					} else {
						j.untestable(c, needsOAuth)
					}
					continue
				}
				bad := ""
				for _, g := range v.regs {
					if at, _ := regFields(g)["application_type"].(string); at == "" {
						bad = fmt.Sprintf("a registration request without application_type: %s", clip(g.Body))
						break
					}
				}
				if bad != "" {
					j.breach(c, iddcrAppType, "every registration request names its application_type (native or web)", bad)
					continue
				}
				j.ok()
			}
			j.end("%d cases: registrations name their application_type")
		},
	},
	client.Def{
		ID: "client/authorization/dcr-native", Area: "authorization", Since: spec.V20260728, Transports: streamable,
		Scenarios:    []string{scAuthDefault, scAuthVar1},
		Title:        "a client whose redirect URIs are all localhost (or private-use schemes), hence a native application, registers with application_type \"native\"",
		Requirements: []string{iddcrNative},
		Proofs:       []client.Proof{proof("auth-dcr-web-application-type", spec.V20260728, reports.Warn)},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				native, bad := 0, ""
				for _, g := range v.regs {
					m := regFields(g)
					uris := regStrings(m, "redirect_uris")
					if !nativeRedirects(uris) {
						continue
					}
					native++
					if at, _ := m["application_type"].(string); at != "native" {
						bad = fmt.Sprintf("it registered %v with application_type %q (absent means \"web\" under OpenID registration)", uris, at)
						break
					}
				}
				switch {
				case bad != "":
					j.breach(c, iddcrNative, "a client registering only localhost or private-use redirect URIs says application_type \"native\"", bad)
				case native > 0:
					j.ok()
				case len(v.regs) == 0 && !v.acted():
					j.untestable(c, needsOAuth)
				case len(v.regs) == 0:
					j.notApplicable(c, "the client made no dynamic registration")
				default:
					j.notApplicable(c, "no registration had only native redirect URIs")
				}
			}
			j.end("%d cases: native clients registered as native")
		},
	},
	client.Def{
		ID: "client/authorization/refresh-grant-type", Area: "authorization", Since: spec.V20260728, Transports: streamable,
		Scenarios:    []string{scAuthOffline},
		Title:        "a client that asks for refresh tokens (offline_access, or a refresh_token grant) lists refresh_token in the grant_types it registers",
		Requirements: []string{idRefreshGrant},
		Proofs:       []client.Proof{proof("auth-dcr-no-refresh-grant", spec.V20260728, reports.Warn)},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				if !v.acted() {
					j.untestable(c, needsOAuth)
					continue
				}
				wants := v.where(func(r request) bool {
					return isAuthorize(r) && hasScope(r.Query.Get("scope"), "offline_access") || isToken(r) && r.Form.Get("grant_type") == "refresh_token"
				})
				if len(wants) == 0 {
					j.notApplicable(c, "the client showed no wish for refresh tokens (no offline_access scope, no refresh_token grant)")
					continue
				}
				if len(v.regs) == 0 {
					j.notApplicable(c, "the client made no dynamic registration (a client ID metadata document is not visible to the stage)")
					continue
				}
				bad := ""
				for _, g := range v.regs {
					if gt := regStrings(regFields(g), "grant_types"); index(gt, "refresh_token") < 0 {
						bad = fmt.Sprintf("it asked for offline access (%s) but registered grant_types %v", wants[0].describe(), gt)
						break
					}
				}
				if bad != "" {
					j.breach(c, idRefreshGrant, "grant_types lists refresh_token when the client wants refresh tokens", bad)
					continue
				}
				j.ok()
			}
			j.end("%d cases: refresh_token registered by a client that wants refresh tokens")
		},
	},
	client.Def{
		ID: "client/authorization/pkce", Area: "authorization", Since: spec.V20250326, Transports: streamable,
		Scenarios:    []string{scAuthBackcompat, scAuthFallback, scAuthDefault, scAuthCIMD, scAuthPreRegistered},
		Title:        "every authorization request carries a PKCE code_challenge (S256 from 2025-11-25) and the token request the matching code_verifier",
		Requirements: []string{idpkceUses, idpkces256},
		Proofs: []client.Proof{
			proof("auth-no-pkce", spec.V20251125, reports.Fail),
			proof("auth-pkce-plain", spec.V20251125, reports.Fail),
		},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				az := v.where(isAuthorize)
				if len(az) == 0 {
					j.untestable(c, "send an authorization request")
					continue
				}
				bad := false
				for _, r := range az {
					ch, m := r.Query.Get("code_challenge"), r.Query.Get("code_challenge_method")
					switch {
					case ch == "":
						j.breach(c, idpkceUses, "the authorization request carries code_challenge", "it carried none: "+r.HTTP.URL)
						bad = true
					case t.InForce(idpkces256) && m != "S256":
						if m == "" {
							m = "absent (meaning plain)"
						}
						j.breach(c, idpkces256, "code_challenge_method=S256", "code_challenge_method was "+m)
						bad = true
					}
					if bad {
						break
					}
				}
				if bad {
					continue
				}
				codes := v.codeChallenges()
				for _, r := range v.where(isToken) {
					if r.Form.Get("grant_type") != "authorization_code" {
						continue
					}
					a, ok := codes[r.Form.Get("code")]
					if !ok {
						continue
					}
					ch, m, ver := a.Query.Get("code_challenge"), a.Query.Get("code_challenge_method"), r.Form.Get("code_verifier")
					want := ch
					if m == "S256" {
						sum := sha256.Sum256([]byte(ver))
						want = base64.RawURLEncoding.EncodeToString(sum[:])
					}
					switch {
					case ver == "":
						j.breach(c, idpkceUses, "the token request carries the code_verifier of the authorization request's challenge", "it carried no code_verifier")
						bad = true
					case want != ch:
						j.breach(c, idpkceUses, "the token request carries the code_verifier of the authorization request's challenge", "the code_verifier does not match code_challenge "+ch+" ("+m+")")
						bad = true
					}
					if bad {
						break
					}
				}
				if !bad {
					j.ok()
				}
			}
			j.end("%d cases: PKCE on every authorization request, verifiers matching")
		},
	},
	client.Def{
		ID: "client/authorization/resource-parameter", Area: "authorization", Since: spec.V20250618, Transports: streamable,
		Scenarios:    []string{scAuthDefault, scAuthCIMD, scAuthPreRegistered},
		Title:        "the authorization request and every token request carry the resource parameter, an absolute URI without fragment, though the authorization server's metadata says nothing of resource indicators",
		Requirements: []string{idResourceBoth, idResourceAlways, idResourceCanon},
		Proofs:       []client.Proof{proof("auth-token-without-resource", spec.V20251125, reports.Fail)},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				reqs := v.where(func(r request) bool { return isAuthorize(r) || isToken(r) })
				if len(reqs) == 0 {
					j.untestable(c, "send an authorization request")
					continue
				}
				bad := ""
				req := idResourceBoth
				for _, r := range reqs {
					vals := r.Query
					if isToken(r) {
						vals = r.Form
					}
					if !vals.Has("resource") {
						bad = r.describe() + " carried no resource parameter (the stage's metadata gives no sign of resource indicator support; the parameter is due regardless)"
						break
					}
					if p := resourceProblem(vals.Get("resource")); p != "" {
						bad, req = r.describe()+": "+p, idResourceCanon
						break
					}
				}
				if bad != "" {
					j.breach(c, req, "the authorization request and every token request carry resource, the MCP server's canonical URI", bad)
					continue
				}
				j.ok()
			}
			j.end("%d cases: resource on every authorization and token request")
		},
	},
	client.Def{
		ID: "client/authorization/token-for-this-server", Area: "authorization", Since: spec.V20250618, Transports: streamable,
		Scenarios:    []string{scAuthOtherResource, scAuthDefault},
		Title:        "every token the client presents to the MCP server was requested with a resource naming that server (protected resource metadata naming another resource gets no token sent here)",
		Requirements: []string{idResourceServer},
		Proofs:       []client.Proof{proof("auth-accept-other-resource", spec.V20251125, reports.Fail)},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				issued := v.issued()
				presented := 0
				bad := ""
				for _, r := range v.where(isMCP) {
					tr, ok := issued[bearerToken(r.HTTP.Header)]
					if !ok {
						continue
					}
					res := tr.Form.Get("resource")
					if res == "" {
						if az, ok := v.codeChallenges()[tr.Form.Get("code")]; ok {
							res = az.Query.Get("resource")
						}
					}
					if res == "" {
						continue // no resource at all: client/authorization/resource-parameter's matter
					}
					presented++
					if !v.namesServer(res) {
						bad = fmt.Sprintf("%s carried a token requested for resource %q", r.describe(), res)
						break
					}
				}
				switch {
				case bad != "":
					j.breach(c, idResourceServer, "tokens presented to "+v.mcpURL()+" were requested for that server", bad)
				case presented > 0:
					j.ok()
				case v.play.OtherResource && v.acted():
					j.ok() // it refused the metadata of another resource
				default:
					j.untestable(c, "present a token to the MCP server")
				}
			}
			j.end("%d cases: no token for another resource presented")
		},
	},
	client.Def{
		ID: "client/authorization/resource-case", Area: "authorization", Since: spec.V20250618, Transports: streamable,
		Scenarios:    []string{scAuthUpperResource},
		Title:        "protected resource metadata naming the MCP server with an upper-case scheme and host is taken as the server's: the client goes on to authorize",
		Requirements: []string{"authorization.canonical-uri.accept-uppercase"},
		Proofs:       []client.Proof{proof("auth-resource-case-sensitive", spec.V20251125, reports.Warn)},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				prm, ok := v.first(func(r request) bool { return isPRM(r) && r.Status == http.StatusOK })
				if !ok {
					j.untestable(c, "fetch the protected resource metadata")
					continue
				}
				_, flowed := v.first(func(r request) bool { return isAuthorize(r) || isToken(r) })
				if flowed || len(v.regs) > 0 {
					j.ok()
					continue
				}
				if why := v.notTrying(); why != "" {
					j.unjudged(c, why)
					continue
				}
				j.breach(c, "authorization.canonical-uri.accept-uppercase",
					"the client takes metadata whose resource differs from "+v.mcpURL()+" only in the case of scheme and host for this server's, and goes on to register or authorize",
					fmt.Sprintf("after %s (resource %s) it neither registered nor sent an authorization or token request", prm.describe(), strings.ToUpper(v.base)+mcpPath))
			}
			j.end("%d cases: metadata naming the server in upper case was accepted")
		},
	},
	client.Def{
		ID: "client/authorization/step-up", Area: "authorization", Since: spec.V20251125, Transports: streamable,
		Scenarios:    []string{scAuthStepUp},
		Title:        "on 403 insufficient_scope the client authorizes again for the challenged scope (from 2026-07-28 keeping the scopes granted before)",
		Requirements: []string{idStepUpResponds, idScopeUnion},
		Proofs: []client.Proof{
			proof("auth-no-step-up", spec.V20260728, reports.Warn),
			proof("auth-step-up-no-union", spec.V20260728, reports.Warn),
		},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				forbidden, ok := v.first(func(r request) bool { return isMCP(r) && r.Status == http.StatusForbidden })
				if !ok {
					j.untestable(c, "call test-tool with the first token (the stage then asks for mcp:write)")
					continue
				}
				again := v.where(func(r request) bool { return isAuthorize(r) && r.Seq > forbidden.Seq })
				var up *request
				for i := range again {
					if hasScope(again[i].Query.Get("scope"), scopeWrite) {
						up = &again[i]
						break
					}
				}
				switch {
				case up == nil:
					j.breach(c, idStepUpResponds, "after 403 insufficient_scope (scope=\""+scopeWrite+"\") the client authorizes again asking for "+scopeWrite,
						fmt.Sprintf("%d authorization requests followed, none asking for %s", len(again), scopeWrite))
				case t.InForce(idScopeUnion) && !hasScope(up.Query.Get("scope"), scopeBasic):
					j.breach(c, idScopeUnion, "the step-up authorization asks for the challenged scope together with those granted before ("+scopeBasic+")",
						"it asked for scope \""+up.Query.Get("scope")+"\"")
				default:
					j.ok()
				}
			}
			j.end("%d cases: step-up authorization for the challenged scope")
		},
	},
	client.Def{
		ID: "client/authorization/step-up-limit", Area: "authorization", Since: spec.V20251125, Transports: streamable,
		Scenarios:    []string{scAuthRetryLimit},
		Title:        fmt.Sprintf("a client whose step-up authorizations keep being refused with 403 insufficient_scope gives up (the stage stops it after %d rounds)", retryCap),
		Requirements: []string{idStepUpLimit, idStepUpTrack},
		Proofs:       []client.Proof{proof("auth-unlimited-step-up", spec.V20260728, reports.Warn)},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				n := len(forbidden(c))
				if n == 0 {
					j.untestable(c, "call test-tool with a token (the stage answers 403 insufficient_scope)")
					continue
				}
				first, _ := v.first(func(r request) bool { return isMCP(r) && r.Status == http.StatusForbidden })
				again := len(v.where(func(r request) bool { return isAuthorize(r) && r.Seq > first.Seq }))
				switch {
				case c.Stopped:
					j.breach(c, "", "the client stops re-authorizing after a bounded number of refused step-ups",
						fmt.Sprintf("after %d answers 403 insufficient_scope and %d authorization requests it was still going; the stage stopped it", n, again))
					continue
				case c.TimedOut && again > 1:
					j.untestable(c, fmt.Sprintf("end its step-up attempts before the case's time limit (it made %d authorization requests after the first 403 and was still running)", again))
					continue
				}
				t.Saw("the client gave up after %d answers 403 and %d authorization requests (%s)", n, again, c.Scenario.Name)
				j.ok()
			}
			j.end("%d cases: step-up attempts bounded")
		},
	},
	client.Def{
		ID: "client/authorization/iss", Area: "authorization", Since: spec.V20260728, Transports: streamable,
		Scenarios:    []string{scAuthIssWrong, scAuthIssMissing, scAuthIssNormalized},
		Title:        "the client redeems no authorization code whose response has a wrong iss, lacks the advertised iss, or has an iss equal to the issuer only after normalization",
		Requirements: []string{idIssValidates, idIssNoNormalizing},
		Proofs:       []client.Proof{proof("auth-ignore-iss", spec.V20260728, reports.Fail)},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				codes := v.codeChallenges()
				if len(codes) == 0 {
					j.untestable(c, "send an authorization request")
					continue
				}
				var used *request
				for _, r := range v.where(isToken) {
					if _, ok := codes[r.Form.Get("code")]; ok {
						used = &r
						break
					}
				}
				if used == nil {
					j.ok()
					continue
				}
				req, what := idIssValidates, ""
				switch v.play.Iss {
				case issWrong:
					what = "the redirect's iss named another issuer (" + v.base + "/another-issuer)"
				case issMissing:
					what = "the metadata advertised iss in authorization responses and the redirect carried none"
				case issSlash:
					req, what = idIssNoNormalizing, "the redirect's iss was the issuer with a trailing slash ("+v.base+"/), equal only after normalization"
				}
				j.breach(c, req, "the code of an authorization response that fails the iss check is not sent to the token endpoint",
					what+"; the client redeemed the code anyway ("+used.describe()+")")
			}
			j.end("%d cases: codes of responses failing the iss check not redeemed")
		},
	},
	client.Def{
		ID: "client/authorization/token-usage", Area: "authorization", Since: spec.V20250326, Transports: streamable,
		Scenarios:    []string{scAuthBackcompat, scAuthDefault},
		Title:        "once it has a token the client sends it as Authorization: Bearer on every request to the MCP server, and never in a query string",
		Requirements: []string{idBearerHeader, idEveryRequest, idNoQueryToken},
		Proofs: []client.Proof{
			proof("auth-token-in-query", spec.V20251125, reports.Fail),
			proof("auth-no-token-on-delete", spec.V20251125, reports.Fail),
		},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				issued := v.issued()
				start, ok := v.first(func(r request) bool {
					_, mine := issued[bearerToken(r.HTTP.Header)]
					return isMCP(r) && mine
				})
				if !ok {
					j.untestable(c, "send a request with the token it obtained")
					continue
				}
				bad := false
				for _, r := range v.reqs {
					for tok := range issued {
						if r.Query.Has("access_token") || strings.Contains(r.HTTP.URL, tok) {
							j.breach(c, idNoQueryToken, "the access token never travels in a URL", r.HTTP.Method+" "+r.HTTP.URL+" carried it in the query string")
							bad = true
							break
						}
					}
					if bad {
						break
					}
					if !isMCP(r) || r.Seq < start.Seq {
						continue
					}
					h := r.HTTP.Header.Get("Authorization")
					switch {
					case h == "":
						j.breach(c, idEveryRequest, "every request to the MCP server after the first with a token carries Authorization", r.describe()+" carried none")
						bad = true
					case bearerToken(r.HTTP.Header) == "":
						scheme, _, _ := strings.Cut(h, " ")
						j.breach(c, idBearerHeader, "the token goes as Authorization: Bearer <token>", r.describe()+" carried Authorization: "+scheme+" ...")
						bad = true
					}
					if bad {
						break
					}
				}
				if !bad {
					j.ok()
				}
			}
			j.end("%d cases: the token in the Authorization header of every request, never in a URL")
		},
	},
)

// clip shortens a body for a report.
func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

func init() {
	client.Exclude(map[string]string{
		// The two umbrellas of role "both": each is judged through the
		// particular rules it points to, which have checks of their own.
		"authorization.oauth.implementations-oauth21": "an umbrella (2025-03-26: implement OAuth 2.1 with its security measures): it has no behaviour of its own beyond the particular rules it points to, which are judged one by one (client/authorization/pkce, client/authorization/redirect-uris, client/authorization/token-usage, client/authorization/rfc8414-metadata, client/authorization/legacy-default-endpoints)",
		"authorization.security.follow-security-page": "an umbrella (2026-07-28: meet the security considerations page): it has no behaviour of its own beyond the particular rules it points to, which are judged one by one (mix-up by client/authorization/iss and client/authorization/as-metadata-issuer, audience binding by client/authorization/resource-parameter and client/authorization/token-for-this-server, code protection by client/authorization/pkce, open redirect by client/authorization/redirect-uris)",
		"authorization.security.communication":        "the stage serves every case on a loopback listener without TLS: no certificate a client under test would trust can be offered, so the only OAuth traffic a bounded run can provoke is plain HTTP on 127.0.0.1 by construction; whether a client insists on TLS with non-loopback servers never reaches the stage (redirect URIs, the part of communication security a client writes itself, are judged by client/authorization/redirect-uris)",
		"authorization.dcr.web-application-type":      "whether a client is a remotely hosted browser application cannot be told from the wire: https redirect URIs are registered by web applications and by native applications with claimed https links alike, so no registration request shows that \"web\" was due (the converse, native clients with localhost redirect URIs, is judged by client/authorization/dcr-native)",
	})
}
