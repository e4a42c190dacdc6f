package client

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Authorization checks about the flow itself: registration requests,
// redirect URIs, PKCE, the resource parameter, iss, step-up, and how the
// token is used.

// Requirement IDs the flow checks cite.
const (
	authIDRedirectURI      = "authorization.redirect-uri.localhost-or-https"
	authIDNoTrailingSlash  = "authorization.canonical-uri.no-trailing-slash"
	authIDDCRAppType       = "authorization.dcr.application-type"
	authIDDCRNative        = "authorization.dcr.native-application-type"
	authIDRefreshGrant     = "authorization.refresh-token.grant-types"
	authIDPKCEUses         = "authorization.pkce.client-uses"
	authIDPKCES256         = "authorization.pkce.s256"
	authIDResourceBoth     = "authorization.resource-param.in-auth-and-token-requests"
	authIDResourceAlways   = "authorization.resource-param.always-send"
	authIDResourceCanon    = "authorization.resource-param.canonical-uri"
	authIDResourceServer   = "authorization.resource-param.identifies-server"
	authIDStepUpResponds   = "authorization.step-up.client-responds"
	authIDScopeUnion       = "authorization.scope.client-union-on-reauth"
	authIDStepUpLimit      = "authorization.step-up.retry-limit"
	authIDStepUpTrack      = "authorization.step-up.track-attempts"
	authIDIssValidates     = "authorization.iss.client-validates"
	authIDIssNoNormalizing = "authorization.iss.no-normalization"
	authIDBearerHeader     = "authorization.token-usage.bearer-header"
	authIDEveryRequest     = "authorization.token-usage.every-request"
	authIDNoQueryToken     = "authorization.token-usage.no-query-string"
)

// authLoopback reports whether host names the local machine.
func authLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// authRedirectProblem says what is wrong with a redirect URI ("" when it is a
// localhost URL or an https one).
func authRedirectProblem(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs():
		return fmt.Sprintf("%q is not an absolute URL", raw)
	case strings.EqualFold(u.Scheme, "https"):
		return ""
	case strings.EqualFold(u.Scheme, "http") && authLoopback(u.Hostname()):
		return ""
	case strings.EqualFold(u.Scheme, "http"):
		return fmt.Sprintf("%s is plain http on %s, which is not localhost", raw, u.Hostname())
	}
	return fmt.Sprintf("%s has scheme %s, neither https nor a localhost http URL", raw, u.Scheme)
}

// authNativeRedirects reports whether every redirect URI is one only a native
// application can receive (localhost, or a private-use scheme).
func authNativeRedirects(uris []string) bool {
	if len(uris) == 0 {
		return false
	}
	for _, raw := range uris {
		u, err := url.Parse(raw)
		if err != nil {
			return false
		}
		web := strings.EqualFold(u.Scheme, "https") || strings.EqualFold(u.Scheme, "http")
		if web && !authLoopback(u.Hostname()) {
			return false
		}
	}
	return true
}

// authResourceProblem says why a resource parameter is not a canonical URI
// (RFC 8707: absolute, no fragment).
func authResourceProblem(raw string) string {
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
func (v *authCaseView) namesServer(resource string) bool {
	r, err := url.Parse(resource)
	if err != nil {
		return false
	}
	b, _ := url.Parse(v.base)
	if b == nil || !strings.EqualFold(r.Scheme, b.Scheme) || !strings.EqualFold(r.Host, b.Host) {
		return false
	}
	p := strings.TrimSuffix(r.Path, "/")
	return p == "" || p == authMCPPath
}

// codeChallenges maps the codes the stage issued to the authorization
// requests they answered.
func (v *authCaseView) codeChallenges() map[string]authReq {
	out := map[string]authReq{}
	for _, r := range v.where(authIsAuthorize) {
		if code := authRedirectCode(r); code != "" {
			out[code] = r
		}
	}
	return out
}

var _ = Register(
	Def{
		ID: "client/authorization/redirect-uris", Area: "authorization", Since: spec.V20250326, Transports: authStreamable,
		Scenarios:    []string{scAuthBackcompat, scAuthFallback, scAuthDefault, scAuthCIMD, scAuthPreRegistered},
		Title:        "every redirect URI the client registers or sends is a localhost URL or an https URL",
		Requirements: []string{authIDRedirectURI},
		Proofs:       []Proof{authProof("auth-redirect-http", spec.V20251125, reports.Fail)},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				var uris []string
				for _, g := range v.regs {
					uris = append(uris, authRegStrings(authRegFields(g), "redirect_uris")...)
				}
				for _, r := range v.where(authIsAuthorize) {
					if u := r.Query.Get("redirect_uri"); u != "" {
						uris = append(uris, u)
					}
				}
				for _, r := range v.where(authIsToken) {
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
					if p := authRedirectProblem(u); p != "" {
						bad = p
						break
					}
				}
				if bad != "" {
					j.breach(c, authIDRedirectURI, "redirect URIs are localhost URLs or https URLs", bad)
					continue
				}
				j.ok()
			}
			j.end("%d cases: every redirect URI localhost or https")
		},
	},
	Def{
		ID: "client/authorization/resource-no-trailing-slash", Area: "authorization", Since: spec.V20250618, Transports: authStreamable,
		Scenarios:    []string{scAuthDefault, scAuthPreRegistered},
		Title:        "the resource parameter names the MCP server without a trailing slash (the server's URI has none)",
		Requirements: []string{authIDNoTrailingSlash},
		Proofs:       []Proof{authProof("auth-resource-trailing-slash", spec.V20251125, reports.Warn)},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				var seen []string
				for _, r := range v.reqs {
					switch {
					case authIsAuthorize(r) && r.Query.Has("resource"):
						seen = append(seen, r.Query.Get("resource"))
					case authIsToken(r) && r.Form.Has("resource"):
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
					j.breach(c, authIDNoTrailingSlash, "the resource parameter is written without a trailing slash, as the server's URI "+v.mcpURL()+" is", "the client sent resource="+bad)
					continue
				}
				j.ok()
			}
			j.end("%d cases: resource parameters without a trailing slash")
		},
	},
	Def{
		ID: "client/authorization/dcr-application-type", Area: "authorization", Since: spec.V20260728, Transports: authStreamable,
		Scenarios:    []string{scAuthDefault, scAuthVar1},
		Title:        "a dynamic registration request of the client carries an application_type",
		Requirements: []string{authIDDCRAppType},
		Proofs:       []Proof{authProof("auth-dcr-no-application-type", spec.V20260728, reports.Fail)},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				if len(v.regs) == 0 {
					if v.acted() {
						j.notApplicable(c, "the client made no dynamic registration")
					} else {
						j.untestable(c, authNeedsOAuth)
					}
					continue
				}
				bad := ""
				for _, g := range v.regs {
					if at, _ := authRegFields(g)["application_type"].(string); at == "" {
						bad = fmt.Sprintf("a registration request without application_type: %s", authClip(g.Body))
						break
					}
				}
				if bad != "" {
					j.breach(c, authIDDCRAppType, "every registration request names its application_type (native or web)", bad)
					continue
				}
				j.ok()
			}
			j.end("%d cases: registrations name their application_type")
		},
	},
	Def{
		ID: "client/authorization/dcr-native", Area: "authorization", Since: spec.V20260728, Transports: authStreamable,
		Scenarios:    []string{scAuthDefault, scAuthVar1},
		Title:        "a client whose redirect URIs are all localhost (or private-use schemes), hence a native application, registers with application_type \"native\"",
		Requirements: []string{authIDDCRNative},
		Proofs:       []Proof{authProof("auth-dcr-web-application-type", spec.V20260728, reports.Warn)},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				native, bad := 0, ""
				for _, g := range v.regs {
					m := authRegFields(g)
					uris := authRegStrings(m, "redirect_uris")
					if !authNativeRedirects(uris) {
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
					j.breach(c, authIDDCRNative, "a client registering only localhost or private-use redirect URIs says application_type \"native\"", bad)
				case native > 0:
					j.ok()
				case len(v.regs) == 0 && !v.acted():
					j.untestable(c, authNeedsOAuth)
				case len(v.regs) == 0:
					j.notApplicable(c, "the client made no dynamic registration")
				default:
					j.notApplicable(c, "no registration had only native redirect URIs")
				}
			}
			j.end("%d cases: native clients registered as native")
		},
	},
	Def{
		ID: "client/authorization/refresh-grant-type", Area: "authorization", Since: spec.V20260728, Transports: authStreamable,
		Scenarios:    []string{scAuthOffline},
		Title:        "a client that asks for refresh tokens (offline_access, or a refresh_token grant) lists refresh_token in the grant_types it registers",
		Requirements: []string{authIDRefreshGrant},
		Proofs:       []Proof{authProof("auth-dcr-no-refresh-grant", spec.V20260728, reports.Warn)},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				if !v.acted() {
					j.untestable(c, authNeedsOAuth)
					continue
				}
				wants := v.where(func(r authReq) bool {
					return authIsAuthorize(r) && authHasScope(r.Query.Get("scope"), "offline_access") || authIsToken(r) && r.Form.Get("grant_type") == "refresh_token"
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
					if gt := authRegStrings(authRegFields(g), "grant_types"); authIndex(gt, "refresh_token") < 0 {
						bad = fmt.Sprintf("it asked for offline access (%s) but registered grant_types %v", wants[0].describe(), gt)
						break
					}
				}
				if bad != "" {
					j.breach(c, authIDRefreshGrant, "grant_types lists refresh_token when the client wants refresh tokens", bad)
					continue
				}
				j.ok()
			}
			j.end("%d cases: refresh_token registered by a client that wants refresh tokens")
		},
	},
	Def{
		ID: "client/authorization/pkce", Area: "authorization", Since: spec.V20250326, Transports: authStreamable,
		Scenarios:    []string{scAuthBackcompat, scAuthFallback, scAuthDefault, scAuthCIMD, scAuthPreRegistered},
		Title:        "every authorization request carries a PKCE code_challenge (S256 from 2025-11-25) and the token request the matching code_verifier",
		Requirements: []string{authIDPKCEUses, authIDPKCES256},
		Proofs: []Proof{
			authProof("auth-no-pkce", spec.V20251125, reports.Fail),
			authProof("auth-pkce-plain", spec.V20251125, reports.Fail),
		},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				az := v.where(authIsAuthorize)
				if len(az) == 0 {
					j.untestable(c, "send an authorization request")
					continue
				}
				bad := false
				for _, r := range az {
					ch, m := r.Query.Get("code_challenge"), r.Query.Get("code_challenge_method")
					switch {
					case ch == "":
						j.breach(c, authIDPKCEUses, "the authorization request carries code_challenge", "it carried none: "+r.HTTP.URL)
						bad = true
					case t.InForce(authIDPKCES256) && m != "S256":
						if m == "" {
							m = "absent (meaning plain)"
						}
						j.breach(c, authIDPKCES256, "code_challenge_method=S256", "code_challenge_method was "+m)
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
				for _, r := range v.where(authIsToken) {
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
						j.breach(c, authIDPKCEUses, "the token request carries the code_verifier of the authorization request's challenge", "it carried no code_verifier")
						bad = true
					case want != ch:
						j.breach(c, authIDPKCEUses, "the token request carries the code_verifier of the authorization request's challenge", "the code_verifier does not match code_challenge "+ch+" ("+m+")")
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
	Def{
		ID: "client/authorization/resource-parameter", Area: "authorization", Since: spec.V20250618, Transports: authStreamable,
		Scenarios:    []string{scAuthDefault, scAuthCIMD, scAuthPreRegistered},
		Title:        "the authorization request and every token request carry the resource parameter, an absolute URI without fragment, though the authorization server's metadata says nothing of resource indicators",
		Requirements: []string{authIDResourceBoth, authIDResourceAlways, authIDResourceCanon},
		Proofs:       []Proof{authProof("auth-token-without-resource", spec.V20251125, reports.Fail)},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				reqs := v.where(func(r authReq) bool { return authIsAuthorize(r) || authIsToken(r) })
				if len(reqs) == 0 {
					j.untestable(c, "send an authorization request")
					continue
				}
				bad := ""
				req := authIDResourceBoth
				for _, r := range reqs {
					vals := r.Query
					if authIsToken(r) {
						vals = r.Form
					}
					if !vals.Has("resource") {
						bad = r.describe() + " carried no resource parameter (the stage's metadata gives no sign of resource indicator support; the parameter is due regardless)"
						break
					}
					if p := authResourceProblem(vals.Get("resource")); p != "" {
						bad, req = r.describe()+": "+p, authIDResourceCanon
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
	Def{
		ID: "client/authorization/token-for-this-server", Area: "authorization", Since: spec.V20250618, Transports: authStreamable,
		Scenarios:    []string{scAuthOtherResource, scAuthDefault},
		Title:        "every token the client presents to the MCP server was requested with a resource naming that server (protected resource metadata naming another resource gets no token sent here)",
		Requirements: []string{authIDResourceServer},
		Proofs:       []Proof{authProof("auth-accept-other-resource", spec.V20251125, reports.Fail)},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				issued := v.issued()
				presented := 0
				bad := ""
				for _, r := range v.where(authIsMCP) {
					tr, ok := issued[authBearerToken(r.HTTP.Header)]
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
					j.breach(c, authIDResourceServer, "tokens presented to "+v.mcpURL()+" were requested for that server", bad)
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
	Def{
		ID: "client/authorization/resource-case", Area: "authorization", Since: spec.V20250618, Transports: authStreamable,
		Scenarios:    []string{scAuthUpperResource},
		Title:        "protected resource metadata naming the MCP server with an upper-case scheme and host is taken as the server's: the client goes on to authorize",
		Requirements: []string{"authorization.canonical-uri.accept-uppercase"},
		Proofs:       []Proof{authProof("auth-resource-case-sensitive", spec.V20251125, reports.Warn)},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				prm, ok := v.first(func(r authReq) bool { return authIsPRM(r) && r.Status == http.StatusOK })
				if !ok {
					j.untestable(c, "fetch the protected resource metadata")
					continue
				}
				_, flowed := v.first(func(r authReq) bool { return authIsAuthorize(r) || authIsToken(r) })
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
					fmt.Sprintf("after %s (resource %s) it neither registered nor sent an authorization or token request", prm.describe(), strings.ToUpper(v.base)+authMCPPath))
			}
			j.end("%d cases: metadata naming the server in upper case was accepted")
		},
	},
	Def{
		ID: "client/authorization/step-up", Area: "authorization", Since: spec.V20251125, Transports: authStreamable,
		Scenarios:    []string{scAuthStepUp},
		Title:        "on 403 insufficient_scope the client authorizes again for the challenged scope (from 2026-07-28 keeping the scopes granted before)",
		Requirements: []string{authIDStepUpResponds, authIDScopeUnion},
		Proofs: []Proof{
			authProof("auth-no-step-up", spec.V20260728, reports.Warn),
			authProof("auth-step-up-no-union", spec.V20260728, reports.Warn),
		},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				forbidden, ok := v.first(func(r authReq) bool { return authIsMCP(r) && r.Status == http.StatusForbidden })
				if !ok {
					j.untestable(c, "call test-tool with the first token (the stage then asks for mcp:write)")
					continue
				}
				again := v.where(func(r authReq) bool { return authIsAuthorize(r) && r.Seq > forbidden.Seq })
				var up *authReq
				for i := range again {
					if authHasScope(again[i].Query.Get("scope"), authScopeWrite) {
						up = &again[i]
						break
					}
				}
				switch {
				case up == nil:
					j.breach(c, authIDStepUpResponds, "after 403 insufficient_scope (scope=\""+authScopeWrite+"\") the client authorizes again asking for "+authScopeWrite,
						fmt.Sprintf("%d authorization requests followed, none asking for %s", len(again), authScopeWrite))
				case t.InForce(authIDScopeUnion) && !authHasScope(up.Query.Get("scope"), authScopeBasic):
					j.breach(c, authIDScopeUnion, "the step-up authorization asks for the challenged scope together with those granted before ("+authScopeBasic+")",
						"it asked for scope \""+up.Query.Get("scope")+"\"")
				default:
					j.ok()
				}
			}
			j.end("%d cases: step-up authorization for the challenged scope")
		},
	},
	Def{
		ID: "client/authorization/step-up-limit", Area: "authorization", Since: spec.V20251125, Transports: authStreamable,
		Scenarios:    []string{scAuthRetryLimit},
		Title:        fmt.Sprintf("a client whose step-up authorizations keep being refused with 403 insufficient_scope gives up (the stage stops it after %d rounds)", authRetryCap),
		Requirements: []string{authIDStepUpLimit, authIDStepUpTrack},
		Proofs:       []Proof{authProof("auth-unlimited-step-up", spec.V20260728, reports.Warn)},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				n := len(authForbidden(c))
				if n == 0 {
					j.untestable(c, "call test-tool with a token (the stage answers 403 insufficient_scope)")
					continue
				}
				first, _ := v.first(func(r authReq) bool { return authIsMCP(r) && r.Status == http.StatusForbidden })
				again := len(v.where(func(r authReq) bool { return authIsAuthorize(r) && r.Seq > first.Seq }))
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
	Def{
		ID: "client/authorization/iss", Area: "authorization", Since: spec.V20260728, Transports: authStreamable,
		Scenarios:    []string{scAuthIssWrong, scAuthIssMissing, scAuthIssNormalized},
		Title:        "the client redeems no authorization code whose response has a wrong iss, lacks the advertised iss, or has an iss equal to the issuer only after normalization",
		Requirements: []string{authIDIssValidates, authIDIssNoNormalizing},
		Proofs:       []Proof{authProof("auth-ignore-iss", spec.V20260728, reports.Fail)},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				codes := v.codeChallenges()
				if len(codes) == 0 {
					j.untestable(c, "send an authorization request")
					continue
				}
				var used *authReq
				for _, r := range v.where(authIsToken) {
					if _, ok := codes[r.Form.Get("code")]; ok {
						used = &r
						break
					}
				}
				if used == nil {
					j.ok()
					continue
				}
				req, what := authIDIssValidates, ""
				switch v.play.Iss {
				case authIssWrong:
					what = "the redirect's iss named another issuer (" + v.base + "/another-issuer)"
				case authIssMissing:
					what = "the metadata advertised iss in authorization responses and the redirect carried none"
				case authIssSlash:
					req, what = authIDIssNoNormalizing, "the redirect's iss was the issuer with a trailing slash ("+v.base+"/), equal only after normalization"
				}
				j.breach(c, req, "the code of an authorization response that fails the iss check is not sent to the token endpoint",
					what+"; the client redeemed the code anyway ("+used.describe()+")")
			}
			j.end("%d cases: codes of responses failing the iss check not redeemed")
		},
	},
	Def{
		ID: "client/authorization/token-usage", Area: "authorization", Since: spec.V20250326, Transports: authStreamable,
		Scenarios:    []string{scAuthBackcompat, scAuthDefault},
		Title:        "once it has a token the client sends it as Authorization: Bearer on every request to the MCP server, and never in a query string",
		Requirements: []string{authIDBearerHeader, authIDEveryRequest, authIDNoQueryToken},
		Proofs: []Proof{
			authProof("auth-token-in-query", spec.V20251125, reports.Fail),
			authProof("auth-no-token-on-delete", spec.V20251125, reports.Fail),
		},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				issued := v.issued()
				start, ok := v.first(func(r authReq) bool {
					_, mine := issued[authBearerToken(r.HTTP.Header)]
					return authIsMCP(r) && mine
				})
				if !ok {
					j.untestable(c, "send a request with the token it obtained")
					continue
				}
				bad := false
				for _, r := range v.reqs {
					for tok := range issued {
						if r.Query.Has("access_token") || strings.Contains(r.HTTP.URL, tok) {
							j.breach(c, authIDNoQueryToken, "the access token never travels in a URL", r.HTTP.Method+" "+r.HTTP.URL+" carried it in the query string")
							bad = true
							break
						}
					}
					if bad {
						break
					}
					if !authIsMCP(r) || r.Seq < start.Seq {
						continue
					}
					h := r.HTTP.Header.Get("Authorization")
					switch {
					case h == "":
						j.breach(c, authIDEveryRequest, "every request to the MCP server after the first with a token carries Authorization", r.describe()+" carried none")
						bad = true
					case authBearerToken(r.HTTP.Header) == "":
						scheme, _, _ := strings.Cut(h, " ")
						j.breach(c, authIDBearerHeader, "the token goes as Authorization: Bearer <token>", r.describe()+" carried Authorization: "+scheme+" ...")
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

// authClip shortens a body for a report.
func authClip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

func init() {
	Exclude(map[string]string{
		// The two umbrellas of role "both": each is judged through the
		// particular rules it points to, which have checks of their own.
		"authorization.oauth.implementations-oauth21": "an umbrella (2025-03-26: implement OAuth 2.1 with its security measures): it has no behaviour of its own beyond the particular rules it points to, which are judged one by one (client/authorization/pkce, client/authorization/redirect-uris, client/authorization/token-usage, client/authorization/rfc8414-metadata, client/authorization/legacy-default-endpoints)",
		"authorization.security.follow-security-page": "an umbrella (2026-07-28: meet the security considerations page): it has no behaviour of its own beyond the particular rules it points to, which are judged one by one (mix-up by client/authorization/iss and client/authorization/as-metadata-issuer, audience binding by client/authorization/resource-parameter and client/authorization/token-for-this-server, code protection by client/authorization/pkce, open redirect by client/authorization/redirect-uris)",
		"authorization.security.communication":        "the stage serves every case on a loopback listener without TLS: no certificate a client under test would trust can be offered, so the only OAuth traffic a bounded run can provoke is plain HTTP on 127.0.0.1 by construction; whether a client insists on TLS with non-loopback servers never reaches the stage (redirect URIs, the part of communication security a client writes itself, are judged by client/authorization/redirect-uris)",
		"authorization.dcr.web-application-type":      "whether a client is a remotely hosted browser application cannot be told from the wire: https redirect URIs are registered by web applications and by native applications with claimed https links alike, so no registration request shows that \"web\" was due (the converse, native clients with localhost redirect URIs, is judged by client/authorization/dcr-native)",
	})
}
