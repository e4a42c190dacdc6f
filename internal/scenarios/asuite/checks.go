package asuite

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Requirement IDs the checks cite.
const (
	reqRFC8414        = "authorization.as-metadata.as-provides-rfc8414"
	reqOneMechanism   = "authorization.as-metadata.as-provides-one-mechanism"
	reqOAuth21        = "authorization.oauth.as-implements-oauth21"
	reqOIDCPKCE       = "authorization.pkce.oidc-as-advertises"
	reqHTTPS          = "authorization.https.as-endpoints"
	reqShortLived     = "authorization.token-lifetime.as-short-lived"
	reqRotate         = "authorization.refresh-token.as-rotates-public"
	reqExactMatch     = "authorization.redirect-uri.as-exact-match"
	reqNoUntrusted    = "authorization.redirect-uri.as-no-untrusted-redirect"
	reqAutoTrusted    = "authorization.redirect-uri.as-auto-redirect-trusted"
	reqIssIncludes    = "authorization.iss.as-includes-iss"
	reqIssAdvertises  = "authorization.iss.as-advertises"
	reqDCR            = "authorization.dcr.as-should-support"
	reqCIMDSupport    = "authorization.cimd.as-should-support"
	reqCIMDFetches    = "authorization.cimd.as-fetches"
	reqCIMDClientID   = "authorization.cimd.as-validates-client-id"
	reqCIMDRedirect   = "authorization.cimd.as-validates-redirect"
	reqCIMDDocument   = "authorization.cimd.as-validates-document"
	reqCIMDCaches     = "authorization.cimd.as-caches"
	shortLivedLimit   = 24 * time.Hour
	untrustedRedirect = "https://attacker.mcpcheck.invalid/callback"
)

// nearMisses are redirect URIs that differ from r in a way exact matching
// refuses: a longer path, a path with more after it, another host. The
// port of a loopback redirect is left alone (RFC 8252 section 7.3 lets it
// vary).
func nearMisses(r string) []string {
	u, err := url.Parse(r)
	if err != nil {
		return nil
	}
	a, b, c := *u, *u, *u
	a.Path = strings.TrimSuffix(u.Path, "/") + "/mcpcheck-evil"
	b.Path = u.Path + "mcpcheck-evil"
	c.Host = "attacker.mcpcheck.invalid"
	return []string{a.String(), b.String(), c.String()}
}

var _ = Register(
	Def{
		ID:           "authserver/metadata",
		Title:        "the authorization server publishes RFC 8414 (or, from 2025-11-25, OpenID Connect Discovery) metadata whose issuer is its own URL and which names its endpoints",
		Requirements: []string{reqRFC8414, reqOneMechanism},
		Proofs:       []Proof{{Fault: "no-metadata", Version: spec.V20251125, Want: reports.Fail}, {Fault: "no-metadata", Version: spec.V20250618, Want: reports.Fail}},
		Body: func(t *T) {
			d := t.discover()
			req := reqOneMechanism
			want := "RFC 8414 or OpenID Connect Discovery metadata"
			served := d.served("")
			if t.Version() == spec.V20250618 {
				req, want, served = reqRFC8414, "RFC 8414 metadata", d.served(rfc8414)
			}
			var tried []string
			for _, m := range d.docs {
				tried = append(tried, fmt.Sprintf("%s (%s): %s", m.url, m.kind, orOK(m.err)))
			}
			if len(served) == 0 {
				t.Violation(req, want+" at its well-known URI", strings.Join(tried, "; "))
				return
			}
			for _, m := range served {
				t.Saw("%s metadata at %s", m.kind, m.url)
				if is := str(m.doc, "issuer"); is != t.env.issuer {
					// RFC 8414 section 3.3 and OpenID Connect Discovery
					// section 4.3: identical to the issuer the URL was
					// built from.
					t.Violation(req, fmt.Sprintf("issuer %q, the identifier the metadata URL was built from (RFC 8414 section 3.3)", t.env.issuer), fmt.Sprintf("%s names issuer %q", m.url, is))
				}
				var missing []string
				for _, k := range []string{"authorization_endpoint", "token_endpoint"} {
					if str(m.doc, k) == "" {
						missing = append(missing, k)
					}
				}
				if _, ok := m.doc["response_types_supported"].([]any); !ok {
					missing = append(missing, "response_types_supported")
				}
				if len(missing) > 0 {
					t.Violation(req, "the required members issuer, authorization_endpoint, token_endpoint, response_types_supported", fmt.Sprintf("%s lacks %s", m.url, strings.Join(missing, ", ")))
				} else if !slices.Contains(strs(m.doc, "response_types_supported"), "code") {
					t.Violation(req, "response_types_supported with code (the authorization code grant)", fmt.Sprintf("%s: response_types_supported %v", m.url, strs(m.doc, "response_types_supported")))
				}
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
	Def{
		ID:           "authserver/pkce-advertised",
		Title:        "the metadata lists S256 in code_challenge_methods_supported (MCP clients refuse an authorization server whose metadata does not)",
		Requirements: []string{reqOIDCPKCE},
		Proofs:       []Proof{{Fault: "no-pkce-methods", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			d := t.discover()
			if len(d.served("")) == 0 {
				t.Untestable("the authorization server serves no metadata document (authserver/metadata judges that)")
				return
			}
			for _, m := range d.served("") {
				methods, has := m.doc["code_challenge_methods_supported"]
				list := strs(m.doc, "code_challenge_methods_supported")
				t.Saw("%s: code_challenge_methods_supported %v", m.url, methods)
				ok := has && slices.Contains(list, "S256")
				switch {
				case ok:
				case m.kind == oidc:
					t.Violation(reqOIDCPKCE, "code_challenge_methods_supported with S256 in the OpenID Connect Discovery metadata", fmt.Sprintf("%s: %v", m.url, orAbsent(has, methods)))
				default:
					// RFC 8414 itself leaves the member optional; the MCP page
					// tells clients to refuse to proceed without it.
					t.Interop("code_challenge_methods_supported with S256 in the RFC 8414 metadata (MCP clients must refuse to proceed without it)", fmt.Sprintf("%s: %v", m.url, orAbsent(has, methods)))
				}
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
	Def{
		ID:           "authserver/https-endpoints",
		Title:        "every endpoint the metadata names is an https URL (plain http only on a loopback host, for local test deployments)",
		Requirements: []string{reqHTTPS},
		Proofs:       []Proof{{Fault: "insecure-endpoint", Version: spec.V20250618, Want: reports.Fail}},
		Body: func(t *T) {
			d := t.discover()
			if len(d.served("")) == 0 {
				t.Untestable("the authorization server serves no metadata document (authserver/metadata judges that)")
				return
			}
			for _, m := range d.served("") {
				var keys []string
				for k := range m.doc {
					if k == "issuer" || k == "jwks_uri" || strings.HasSuffix(k, "_endpoint") {
						keys = append(keys, k)
					}
				}
				sort.Strings(keys)
				for _, k := range keys {
					v := str(m.doc, k)
					u, err := url.Parse(v)
					switch {
					case err != nil || v == "":
						continue
					case u.Scheme == "https":
					case u.Scheme == "http" && loopback(u.Hostname()):
						t.Note("%s %s is plain http on a loopback host (a local test deployment)", k, v)
					default:
						t.Violation(reqHTTPS, "authorization server endpoints served over HTTPS", fmt.Sprintf("%s: %s %q", m.url, k, v))
					}
				}
			}
			if t.Open() {
				t.Saw("every endpoint URL of the metadata is https (or http on loopback)")
				t.Pass()
			}
		},
	},
	Def{
		ID:           "authserver/authorization-code",
		Title:        "the authorization code grant works as OAuth 2.1 has it: state comes back unchanged, the code is redeemed once with its code_verifier for a Bearer access token",
		Requirements: []string{reqOAuth21},
		Proofs:       []Proof{{Fault: "state-not-returned", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			c, req, a, ok := t.grant()
			if !ok {
				return
			}
			if st := a.params.Get("state"); st != req.params.Get("state") {
				t.Violation(reqOAuth21, fmt.Sprintf("the request's state %q in the authorization response (OAuth 2.1 section 4.1.2)", req.params.Get("state")), fmt.Sprintf("state %q in %s", st, a.location))
			}
			tr, ok := t.redeem(c, req, a.params.Get("code"), req.verifier)
			if !ok {
				return
			}
			if !tr.issued() {
				t.Violation(reqOAuth21, "an access token for the code redeemed with its code_verifier", tr.String())
				return
			}
			if tt, _ := tr.json["token_type"].(string); !strings.EqualFold(tt, "bearer") {
				t.Violation(reqOAuth21, "token_type Bearer in the token response", fmt.Sprintf("token_type %q", tt))
			}
			t.Saw("the code redeemed with its code_verifier got an access token (token_type %v, expires_in %v)", tr.json["token_type"], tr.json["expires_in"])
			if res := t.env.cfg.Resource; res != "" {
				t.audience(tr, res)
			}
			again, ok := t.redeem(c, req, a.params.Get("code"), req.verifier)
			if !ok {
				return
			}
			if again.issued() {
				t.Violation(reqOAuth21, "a code redeemed a second time refused (OAuth 2.1 section 4.1.3)", "a second access token: "+again.String())
			} else {
				t.Saw("the code redeemed again was refused: %s", again)
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
	Def{
		ID:           "authserver/pkce-required",
		Title:        "an authorization request of a public client without code_challenge is refused, and a code is redeemed only with its code_verifier",
		Requirements: []string{reqOAuth21},
		Proofs:       []Proof{{Fault: "pkce-not-required", Version: spec.V20250618, Want: reports.Fail}},
		Body: func(t *T) {
			c, req, a, ok := t.grant()
			if !ok {
				return
			}
			// The code of the valid request, redeemed without and with a
			// wrong verifier, then rightly (so it was a good code).
			for _, v := range []struct{ verifier, what string }{{"", "without code_verifier"}, {randomString(32), "with another code_verifier"}} {
				tr, ok := t.redeem(c, req, a.params.Get("code"), v.verifier)
				if !ok {
					return
				}
				if tr.issued() {
					t.Violation(reqOAuth21, "a code granted for an S256 code_challenge redeemed only with its code_verifier (OAuth 2.1 section 4.1.3)", "redeemed "+v.what+": "+tr.String())
					return
				}
				t.Saw("the code redeemed %s: %s", v.what, tr)
			}
			bare := t.validRequest(c)
			bare.params.Del("code_challenge")
			bare.params.Del("code_challenge_method")
			b, ok := t.authorize(bare.params)
			if !ok {
				return
			}
			t.Saw("an authorization request without code_challenge: %s", b)
			if b.to(c.redirect) && b.params.Get("code") != "" {
				tr, _ := t.redeem(c, bare, b.params.Get("code"), "")
				t.Violation(reqOAuth21, "an authorization request of a public client without code_challenge refused (OAuth 2.1 section 7.5.1)", fmt.Sprintf("granted: %s; the code redeemed without code_verifier: %s", b, tr))
				return
			}
			plain := t.validRequest(c)
			plain.params.Set("code_challenge", plain.verifier)
			plain.params.Set("code_challenge_method", "plain")
			if p, ok := t.authorize(plain.params); ok {
				if p.to(c.redirect) && p.params.Get("code") != "" {
					t.Note("the plain code_challenge_method was accepted; OAuth 2.1 permits it (clients must use S256 when they can), so it is no violation")
				} else {
					t.Saw("code_challenge_method plain was refused: %s", p)
				}
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
	Def{
		ID:           "authserver/token-lifetime",
		Title:        "access tokens are short-lived (mcpcheck's bound: at most a day)",
		Requirements: []string{reqShortLived},
		Proofs:       []Proof{{Fault: "long-lived-tokens", Version: spec.V20260728, Want: reports.Warn}},
		Body: func(t *T) {
			c, ok := t.publicClient()
			if !ok {
				return
			}
			tr, ok := t.tokens(c)
			if !ok {
				return
			}
			life, how := time.Duration(0), ""
			if n, ok := tr.json["expires_in"].(float64); ok {
				life, how = time.Duration(n)*time.Second, fmt.Sprintf("expires_in %v", n)
			} else if cl, ok := jwtClaims(tr.json["access_token"]); ok {
				exp, _ := cl["exp"].(float64)
				iat, _ := cl["iat"].(float64)
				if exp > 0 && iat > 0 {
					life, how = time.Duration(exp-iat)*time.Second, fmt.Sprintf("the JWT's exp - iat = %v s", exp-iat)
				}
			}
			if how == "" {
				t.Untestable("the token response has no expires_in and the access token is no JWT with exp and iat: its lifetime cannot be seen")
				return
			}
			t.Saw("the access token lives %s (%s)", life, how)
			if life > shortLivedLimit {
				t.Violation(reqShortLived, fmt.Sprintf("a short-lived access token (mcpcheck's bound: %s; the specification names no figure)", shortLivedLimit), fmt.Sprintf("%s (%s)", life, how))
				return
			}
			t.Pass()
		},
	},
	Def{
		ID:           "authserver/refresh-rotation",
		Title:        "a refresh token of a public client is rotated: each refresh issues a new one and the used one is refused afterwards",
		Requirements: []string{reqRotate},
		Proofs:       []Proof{{Fault: "refresh-not-rotated", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			c, ok := t.publicClient()
			if !ok {
				return
			}
			tr, ok := t.tokens(c)
			if !ok {
				return
			}
			rt, _ := tr.json["refresh_token"].(string)
			if rt == "" {
				t.NotApplicable("the public client got no refresh token (issuing one is the authorization server's choice), so there is nothing to rotate")
				return
			}
			f := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {c.id}}
			if r := t.env.cfg.Resource; r != "" {
				f.Set("resource", r)
			}
			first, ok := t.token(f)
			if !ok {
				return
			}
			if !first.issued() {
				t.Untestable("the refresh token, used once, got no access token: " + first.String())
				return
			}
			rt2, _ := first.json["refresh_token"].(string)
			t.Saw("the refresh token used once: a new access token, refresh token %s", map[bool]string{true: "the same", false: "a new one"}[rt2 == rt])
			if rt2 == rt {
				t.Violation(reqRotate, "a new refresh token on each refresh of a public client (OAuth 2.1 section 4.3.1)", "the same refresh token came back")
			}
			again, ok := t.token(f)
			if !ok {
				return
			}
			if again.issued() {
				t.Violation(reqRotate, "the used refresh token refused when presented again", "it was accepted again: "+again.String())
			} else {
				t.Saw("the used refresh token presented again was refused: %s", again)
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
	Def{
		ID:           "authserver/redirect-exact-match",
		Title:        "a redirect_uri that differs from the registered one (longer path, another host) gets no code: redirect URIs are compared exactly",
		Requirements: []string{reqExactMatch},
		Proofs:       []Proof{{Fault: "redirect-prefix-match", Version: spec.V20250618, Want: reports.Fail}},
		Body: func(t *T) {
			c, _, _, ok := t.grant()
			if !ok {
				return
			}
			for _, nm := range nearMisses(c.redirect) {
				req := t.validRequest(c)
				req.params.Set("redirect_uri", nm)
				a, ok := t.authorize(req.params)
				if !ok {
					return
				}
				t.Saw("redirect_uri %s (registered: %s): %s", nm, c.redirect, a)
				if a.to(nm) && a.params.Get("code") != "" {
					t.Violation(reqExactMatch, fmt.Sprintf("redirect_uri %s refused: only %s is registered (exact string match, OAuth 2.1 section 4.1.1)", nm, c.redirect), "a code was sent to it: "+a.String())
				}
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
	Def{
		ID:           "authserver/no-open-redirect",
		Title:        "an authorization request naming an unregistered redirect_uri is never redirected there, not even with an error",
		Requirements: []string{reqNoUntrusted, reqAutoTrusted},
		Proofs:       []Proof{{Fault: "error-to-unregistered-redirect", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			c, _, _, ok := t.grant()
			if !ok {
				return
			}
			valid := t.validRequest(c)
			valid.params.Set("redirect_uri", untrustedRedirect)
			broken := t.validRequest(c)
			broken.params.Set("redirect_uri", untrustedRedirect)
			broken.params.Set("response_type", "mcpcheck_unknown")
			broken.params.Del("code_challenge")
			for _, x := range []struct {
				what string
				p    url.Values
			}{{"an otherwise valid request", valid.params}, {"a request that is also malformed (unknown response_type, no code_challenge)", broken.params}} {
				a, ok := t.authorize(x.p)
				if !ok {
					return
				}
				t.Saw("%s with the unregistered redirect_uri %s: %s", x.what, untrustedRedirect, a)
				if a.toHost(untrustedRedirect) {
					t.Violation(reqNoUntrusted, fmt.Sprintf("no redirect to the unregistered redirect_uri %s (OAuth 2.1 section 4.1.2.1: inform the user, do not redirect)", untrustedRedirect), x.what+" was redirected there: "+a.String())
					t.Violation(reqAutoTrusted, "automatic redirects only to trusted redirect URIs", x.what+" was redirected to "+a.location.String())
				}
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
	Def{
		ID:           "authserver/iss-in-response",
		Title:        "authorization responses, errors included, carry the issuer in iss (RFC 9207)",
		Requirements: []string{reqIssIncludes},
		Proofs:       []Proof{{Fault: "no-iss-in-response", Version: spec.V20260728, Want: reports.Warn}},
		Body: func(t *T) {
			c, _, a, ok := t.grant()
			if !ok {
				return
			}
			t.judgeIss("the authorization response", a)
			bad := t.validRequest(c)
			bad.params.Set("response_type", "mcpcheck_unknown")
			e, ok := t.authorize(bad.params)
			if !ok {
				return
			}
			if e.to(c.redirect) && e.params.Get("error") != "" {
				t.judgeIss("the error response", e)
			} else {
				t.Note("a request with an unknown response_type was answered %s, not an error redirect: no error response to judge", e)
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
	Def{
		ID:           "authserver/iss-advertised",
		Title:        "an authorization server that sends iss says so: authorization_response_iss_parameter_supported is true in its metadata",
		Requirements: []string{reqIssAdvertises},
		Proofs:       []Proof{{Fault: "iss-not-advertised", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			_, _, a, ok := t.grant()
			if !ok {
				return
			}
			if a.params.Get("iss") == "" {
				t.NotApplicable("the authorization response carries no iss (authserver/iss-in-response judges that), so there is nothing to advertise")
				return
			}
			for _, m := range t.discover().served("") {
				v, has := m.doc["authorization_response_iss_parameter_supported"]
				t.Saw("%s: authorization_response_iss_parameter_supported %v", m.url, orAbsent(has, v))
				if v != true {
					t.Violation(reqIssAdvertises, "authorization_response_iss_parameter_supported true, as the responses carry iss", fmt.Sprintf("%s: %v", m.url, orAbsent(has, v)))
				}
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
	Def{
		ID:           "authserver/registration",
		Title:        "in 2025-06-18 the authorization server offers dynamic client registration: a registration_endpoint that registers a public client",
		Requirements: []string{reqDCR},
		Proofs:       []Proof{{Fault: "no-registration", Version: spec.V20250618, Want: reports.Warn}},
		Body: func(t *T) {
			md, ok := t.metadata()
			if !ok {
				return
			}
			reg := str(md, "registration_endpoint")
			if reg == "" {
				t.Violation(reqDCR, "a registration_endpoint in the metadata (RFC 7591)", "the metadata has none")
				return
			}
			id, r, err := t.register(reg, DefaultRedirectURI)
			if err != nil {
				t.Violation(reqDCR, "201 Created with a client_id for a public client's registration (RFC 7591 section 3.2.1)", err.Error())
				return
			}
			var out struct {
				Redirects []string `json:"redirect_uris"`
			}
			_ = json.Unmarshal(r.body, &out)
			t.Saw("registered as %s (HTTP %d, redirect_uris %v)", id, r.status, out.Redirects)
			t.Pass()
		},
	},
)

// judgeIss holds an authorization response to RFC 9207: iss present and
// equal to the issuer.
func (t *T) judgeIss(what string, a authorization) {
	is := a.params.Get("iss")
	t.Saw("%s carries iss %q", what, is)
	switch {
	case !a.params.Has("iss"):
		t.Violation(reqIssIncludes, "iss "+t.env.issuer+" in "+what+" (RFC 9207)", "no iss: "+a.location.String())
	case is != t.env.issuer:
		t.Violation(reqIssIncludes, "iss "+t.env.issuer+", the issuer identifier (RFC 9207 section 2)", fmt.Sprintf("iss %q", is))
	}
}

// audience notes whether a JWT access token names the requested resource
// in aud: the MCP server will refuse it otherwise. Resource indicators
// are optional for an authorization server, so this is interoperability,
// not conformance.
func (t *T) audience(tr tokenResponse, resource string) {
	cl, ok := jwtClaims(tr.json["access_token"])
	if !ok {
		t.Note("the access token is no JWT: whether it is bound to %s cannot be seen", resource)
		return
	}
	var aud []string
	switch v := cl["aud"].(type) {
	case string:
		aud = []string{v}
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				aud = append(aud, s)
			}
		}
	}
	if slices.Contains(aud, resource) {
		t.Saw("the access token's aud %v names the requested resource %s (RFC 8707)", aud, resource)
		return
	}
	t.Interop(fmt.Sprintf("an access token whose aud names the resource %s it was asked for (RFC 8707): MCP servers refuse tokens not issued for them", resource), fmt.Sprintf("aud %v", aud))
}

// jwtClaims decodes the claims of a JWT without verifying it.
func jwtClaims(v any) (map[string]any, bool) {
	s, _ := v.(string)
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, false
	}
	var cl map[string]any
	return cl, json.Unmarshal(b, &cl) == nil && cl != nil
}

func orOK(err string) string {
	if err == "" {
		return "HTTP 200"
	}
	return err
}

func orAbsent(has bool, v any) any {
	if !has {
		return "absent"
	}
	return v
}
