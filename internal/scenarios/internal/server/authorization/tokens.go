package authorization

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Resource-server checks with tokens mcpcheck mints. The target must trust
// an mcpcheck authorization server ("mcpcheck authserver", or the one
// "mcpcheck reference server --auth" embeds): the target's AuthIssuer names
// it, or the target's protected resource metadata lists it among its
// authorization_servers. Its metadata names a mint API
// (mcpcheck_mint_endpoint) that makes a token of a given kind for a
// resource: valid, expired, for another audience, badly signed and so on.
// Every check first presents a valid token and goes on only when the
// target accepts it (otherwise untestable: the target does not trust the
// issuer), then presents the kinds it is about, each different from the
// valid one in one way only, on the era's cheapest first request
// (initialize; server/discover in 2026-07-28).

// minter is the mint API of an issuer the target trusts.
type minter struct {
	endpoint, issuer, resource string
	// scope is what a valid token gets: the challenge's scope, else the
	// metadata's scopes_supported.
	scope string
}

// prm is the protected resource metadata the checks read.
type prm struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// minterFor finds the mint API of an issuer the target trusts; it ends
// the check (n/a for an open target, untestable without such an issuer).
func minterFor(t *server.T) (*minter, bool) {
	bare, ok := probe(t, "")
	if !ok {
		return nil, false
	}
	ch, _ := bearer(bare)
	urls := wellKnown(t)
	if rm, ok := param(ch, "resource_metadata"); ok && rm != "" {
		urls = append([]string{rm}, urls...)
	}
	var prm prm
	for _, u := range urls {
		if d, err := do(t, http.MethodGet, u, nil, http.Header{"Accept": {"application/json"}}); err == nil && d.status == http.StatusOK && json.Unmarshal(d.body, &prm) == nil {
			break
		}
	}
	scope, _ := param(ch, "scope")
	if scope == "" {
		scope = strings.Join(prm.ScopesSupported, " ")
	}
	issuers := prm.AuthorizationServers
	if is := t.Target().AuthIssuer; is != "" {
		issuers = []string{is}
	}
	for _, is := range issuers {
		if ep := mintEndpoint(t, is); ep != "" {
			return &minter{endpoint: ep, issuer: is, resource: t.Target().URL, scope: scope}, true
		}
	}
	t.Untestable(fmt.Sprintf("no mcpcheck authorization server to mint tokens with (the target's metadata names %v): run 'mcpcheck authserver', make the target trust its issuer and name it (protected resource metadata authorization_servers, or the target's authorization issuer)", issuers))
	return nil, false
}

// mintEndpoint reads the issuer's metadata for mcpcheck_mint_endpoint.
func mintEndpoint(t *server.T, issuer string) string {
	u, err := url.Parse(strings.TrimSuffix(issuer, "/"))
	if err != nil || u.Host == "" {
		return ""
	}
	for _, m := range []string{u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + u.EscapedPath(), strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration"} {
		d, err := do(t, http.MethodGet, m, nil, http.Header{"Accept": {"application/json"}})
		if err != nil || d.status != http.StatusOK {
			continue
		}
		var md struct {
			Mint string `json:"mcpcheck_mint_endpoint"`
		}
		if json.Unmarshal(d.body, &md) == nil && md.Mint != "" {
			return md.Mint
		}
	}
	return ""
}

// mint asks the mint API for a token of kind with scope.
func (m *minter) mint(t *server.T, kind, scope string) (string, bool) {
	body, _ := json.Marshal(map[string]string{"kind": kind, "resource": m.resource, "scope": scope})
	r, err := do(t, http.MethodPost, m.endpoint, body, http.Header{"Content-Type": {"application/json"}})
	if err != nil {
		t.Error(fmt.Errorf("minting a %s token at %s: %w", kind, m.endpoint, err))
		return "", false
	}
	var out struct {
		Token string `json:"access_token"`
	}
	if r.status != http.StatusOK || json.Unmarshal(r.body, &out) != nil || out.Token == "" {
		t.Error(fmt.Errorf("minting a %s token at %s: HTTP %d %s", kind, m.endpoint, r.status, r.body))
		return "", false
	}
	// Presented to the target from now on: the upstream mcpcheck plays
	// (if any) watches for it.
	if up, _ := t.RunState(upstreamHook).(*upstream); up != nil {
		up.present(out.Token, fmt.Sprintf("a %s token %s minted in %s", kind, t.ID(), t.Version()))
	}
	return out.Token, true
}

// send presents authorization (an Authorization value, or none) on
// the era's first request, the endpoint URL extended by query; a session
// the target opened is deleted again.
func send(t *server.T, authorization, query string) (response, error) {
	r, err := sendKeep(t, authorization, query)
	if sid := r.header.Get("Mcp-Session-Id"); err == nil && sid != "" {
		endSession(t, authorization, sid)
	}
	return r, err
}

// endSession deletes the session sid a request with authorization
// opened.
func endSession(t *server.T, authorization, sid string) {
	del := http.Header{"Mcp-Session-Id": {sid}, "Mcp-Protocol-Version": {string(t.Version())}}
	if authorization != "" {
		del.Set("Authorization", authorization)
	}
	_, _ = do(t, http.MethodDelete, t.Target().URL, nil, del)
}

// sendKeep is send leaving the session the target opened, if any,
// open (its Mcp-Session-Id is in the response's header).
func sendKeep(t *server.T, authorization, query string) (response, error) {
	v := t.Version()
	m, params := spec.MethodInitialize, any(map[string]any{"protocolVersion": string(v), "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "mcpcheck-auth", "version": "1"}})
	hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	if v.Era() == spec.Stateless {
		m = spec.MethodServerDiscover
		params = map[string]any{"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    string(v),
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}}
		hdr.Set("Mcp-Protocol-Version", string(v))
		hdr.Set("Mcp-Method", m)
	}
	if authorization != "" {
		hdr.Set("Authorization", authorization)
	}
	body := t.EncodeRequest(jsonrpc.StringID("mcpcheck-auth-token"), m, params)
	u := t.Target().URL + query
	if rec := t.Recorder(); rec != nil {
		rec.Sent(wire.Outgoing{Raw: body, HTTP: &wire.HTTPInfo{Method: http.MethodPost, URL: u, Header: hdr.Clone()}, Time: time.Now()})
	}
	r, err := do(t, http.MethodPost, u, body, hdr)
	if rec := t.Recorder(); rec != nil && err == nil {
		kind := wire.KindMessage
		if len(bytes.TrimSpace(r.body)) == 0 {
			kind = wire.KindStatus
		}
		rec.Received(wire.Frame{Kind: kind, Raw: r.body, HTTP: &wire.HTTPInfo{Method: http.MethodPost, URL: u, Status: r.status, Header: r.header.Clone()}, Time: time.Now()})
	}
	return r, err
}

// served says what a response that got past the token check carried.
func served(r response) string {
	s := fmt.Sprintf("HTTP %d", r.status)
	if bytes.Contains(r.body, []byte(`"result"`)) {
		s += " with a result"
	}
	return s
}

// valid presents a valid token and ends the check untestable when the
// target refuses it: nothing else can be judged then.
func valid(t *server.T, m *minter) bool {
	tok, ok := m.mint(t, "valid", m.scope)
	if !ok {
		return false
	}
	r, err := send(t, "Bearer "+tok, "")
	if err != nil {
		t.Error(err)
		return false
	}
	if r.status == http.StatusUnauthorized || r.status == http.StatusForbidden {
		t.Untestable(fmt.Sprintf("the target refused a valid token of %s for %s with scope %q (HTTP %d, WWW-Authenticate %q): it does not trust that issuer for this resource", m.issuer, m.resource, m.scope, r.status, strings.Join(r.header.Values("WWW-Authenticate"), " | ")))
		return false
	}
	t.Saw("a valid token of %s for %s (scope %q) was accepted: %s", m.issuer, m.resource, m.scope, served(r))
	return true
}

// presentMinted mints a token of kind with scope and presents it on
// the era's first request: the answer and its WWW-Authenticate values,
// joined (false when the check already ended in an error).
func presentMinted(t *server.T, m *minter, kind, scope string) (response, string, bool) {
	tok, ok := m.mint(t, kind, scope)
	if !ok {
		return response{}, "", false
	}
	r, err := send(t, "Bearer "+tok, "")
	if err != nil {
		t.Error(err)
		return response{}, "", false
	}
	return r, strings.Join(r.header.Values("WWW-Authenticate"), " | "), true
}

// tokenKind is a token kind of the mint API and what makes it invalid.
type tokenKind struct{ kind, desc string }

// refuses presents each kind; each must get 401 with a Bearer
// challenge, and no result. req is the requirement a token that gets
// through breaks.
func refuses(t *server.T, req string, kinds ...tokenKind) {
	m, ok := minterFor(t)
	if !ok || !valid(t, m) {
		return
	}
	for _, k := range kinds {
		tok, ok := m.mint(t, k.kind, m.scope)
		if !ok {
			return
		}
		judge401(t, req, "a token "+k.desc, "Bearer "+tok, "")
	}
	if t.Open() {
		t.Pass()
	}
}

// judge401 presents authorization (what says what it is) and judges
// that it got 401 with a Bearer challenge and no result.
func judge401(t *server.T, req, what, authorization, query string) {
	r, err := send(t, authorization, query)
	if err != nil {
		t.Error(err)
		return
	}
	t.Saw("%s was answered %d, WWW-Authenticate %q", what, r.status, strings.Join(r.header.Values("WWW-Authenticate"), " | "))
	if r.status != http.StatusUnauthorized {
		t.Violation(req, "401 for "+what, served(r))
		if bytes.Contains(r.body, []byte(`"result"`)) && t.InForce("authorization.token-validation.before-processing") {
			t.Violation("authorization.token-validation.before-processing", "no processing and no data for "+what, "the answer carries a result: "+string(r.body))
		}
		return
	}
	ch, ok := bearer(r)
	if !ok {
		t.Violation("authorization.token-validation.error-response", "a WWW-Authenticate Bearer challenge with the 401 (OAuth 2.1 section 5.3)", fmt.Sprintf("WWW-Authenticate %q", strings.Join(r.header.Values("WWW-Authenticate"), " | ")))
	} else if e, _ := param(ch, "error"); authorization != "" && e != "invalid_token" {
		t.Note("the challenge names error %q; RFC 6750 section 3.1 gives invalid_token for a token that fails validation", e)
	}
}

// tokenReqs are the requirements every token check cites.
var tokenReqs = []string{"authorization.token-validation.oauth21-section52", "authorization.token-validation.invalid-401",
	"authorization.token-validation.error-response", "authorization.token-validation.before-processing"}

func reqs(extra ...string) []string {
	return append(append([]string{}, tokenReqs...), extra...)
}

var _ = server.Register(
	server.Def{
		ID: "authorization/token-expired", Area: "authorization", Transports: []wire.Transport{"streamable"}, Since: spec.V20250326,
		Title:        "an expired access token gets 401 with a Bearer challenge, and no processing",
		Requirements: reqs(),
		Proofs:       []server.Proof{{Fault: "auth-accepts-expired", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			refuses(t, "authorization.token-validation.invalid-401", tokenKind{"expired", "that expired an hour ago (exp)"})
		},
	},
	server.Def{
		ID: "authorization/token-not-yet-valid", Area: "authorization", Transports: []wire.Transport{"streamable"}, Since: spec.V20250326,
		Title:        "an access token that is not valid yet (nbf an hour ahead) gets 401",
		Requirements: reqs(),
		Proofs:       []server.Proof{{Fault: "auth-ignores-nbf", Version: spec.V20250618, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			refuses(t, "authorization.token-validation.oauth21-section52", tokenKind{"not-yet-valid", "that is not valid for another hour (nbf)"})
		},
	},
	server.Def{
		ID: "authorization/token-wrong-issuer", Area: "authorization", Transports: []wire.Transport{"streamable"}, Since: spec.V20250326,
		Title:        "an access token naming another issuer (iss) gets 401, though its signature verifies",
		Requirements: reqs(),
		Proofs:       []server.Proof{{Fault: "auth-accepts-any-issuer", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			refuses(t, "authorization.token-validation.oauth21-section52", tokenKind{"wrong-issuer", "signed with the trusted issuer's key but naming another issuer (iss https://issuer.mcpcheck.invalid)"})
		},
	},
	server.Def{
		ID: "authorization/token-bad-signature", Area: "authorization", Transports: []wire.Transport{"streamable"}, Since: spec.V20250326,
		Title:        "an access token signed with a key outside the issuer's JWKS, or unsigned (alg none), gets 401",
		Requirements: reqs(),
		Proofs:       []server.Proof{{Fault: "auth-skips-signature", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			refuses(t, "authorization.token-validation.oauth21-section52",
				tokenKind{"bad-signature", "signed with a key that is not in the issuer's JWKS (under its key id)"},
				tokenKind{"unsigned", "with alg none and no signature"})
		},
	},
	server.Def{
		ID: "authorization/token-audience", Area: "authorization", Transports: []wire.Transport{"streamable"}, Since: spec.V20250618,
		Title:        "an access token for another audience, or naming none, gets 401 (RFC 8707 audience validation)",
		Requirements: reqs("authorization.token-validation.audience"),
		Proofs:       []server.Proof{{Fault: "auth-accepts-any-audience", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			refuses(t, "authorization.token-validation.audience",
				tokenKind{"wrong-audience", "issued for another audience (aud https://api.mcpcheck.invalid)"},
				tokenKind{"no-audience", "naming no audience (no aud claim)"})
		},
	},
	server.Def{
		ID: "authorization/token-other-resource", Area: "authorization", Transports: []wire.Transport{"streamable"}, Since: spec.V20250618,
		Title:        "an access token issued for another MCP server, whose URI starts with this one's, gets 401",
		Requirements: reqs("authorization.token-validation.no-foreign-tokens", "authorization.token-validation.audience"),
		Proofs:       []server.Proof{{Fault: "auth-audience-prefix-match", Version: spec.V20250618, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			refuses(t, "authorization.token-validation.no-foreign-tokens",
				tokenKind{"other-resource", fmt.Sprintf("issued by the same issuer for another MCP server (aud %s-other)", t.Target().URL)})
		},
	},
	server.Def{
		ID: "authorization/token-audience-case", Area: "authorization", Transports: []wire.Transport{"streamable"}, Since: spec.V20250618,
		Title:        "a valid access token whose audience names the server's URI with an upper-case scheme and host is served (canonical URIs compare those without regard to case)",
		Requirements: []string{"authorization.canonical-uri.accept-uppercase"},
		Proofs:       []server.Proof{{Fault: "auth-audience-case-sensitive", Version: spec.V20251125, Transport: "streamable", Want: reports.Warn}},
		Body: func(t *server.T) {
			m, ok := minterFor(t)
			if !ok || !valid(t, m) {
				return
			}
			upper := *m
			upper.resource = upperSchemeHost(m.resource)
			r, wa, ok := presentMinted(t, &upper, "valid", m.scope)
			if !ok {
				return
			}
			t.Saw("a valid token for %s (the resource %s with its scheme and host in upper case) was answered %d, WWW-Authenticate %q", upper.resource, m.resource, r.status, wa)
			if r.status == http.StatusUnauthorized || r.status == http.StatusForbidden {
				t.Violation("authorization.canonical-uri.accept-uppercase", fmt.Sprintf("the token served: its audience %s is %s but for the case of scheme and host", upper.resource, m.resource), fmt.Sprintf("HTTP %d, WWW-Authenticate %q", r.status, wa))
				return
			}
			t.Pass()
		},
	},
	server.Def{
		ID: "authorization/token-query-string", Area: "authorization", Transports: []wire.Transport{"streamable"}, Since: spec.V20250326,
		Title:        "a valid access token in the URI query string (access_token) is no credential: the request gets 401",
		Requirements: reqs(),
		Proofs:       []server.Proof{{Fault: "auth-accepts-query-token", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			m, ok := minterFor(t)
			if !ok || !valid(t, m) {
				return
			}
			tok, ok := m.mint(t, "valid", m.scope)
			if !ok {
				return
			}
			sep := "?"
			if strings.Contains(t.Target().URL, "?") {
				sep = "&"
			}
			judge401(t, "authorization.token-validation.oauth21-section52", "a request whose valid token is in the query string (access_token) and not in the Authorization header", "", sep+"access_token="+url.QueryEscape(tok))
			if t.Open() {
				t.Pass()
			}
		},
	},
	server.Def{
		ID: "authorization/insufficient-scope", Area: "authorization", Transports: []wire.Transport{"streamable"}, Since: spec.V20251125,
		Title:        "a valid token without the needed scope gets 403 with a Bearer insufficient_scope challenge naming the scope and the resource metadata",
		Requirements: []string{"authorization.insufficient-scope.response-403", "authorization.insufficient-scope.scope-needed", "authorization.token-validation.before-processing"},
		Proofs: []server.Proof{
			{Fault: "auth-insufficient-scope-401", Version: spec.V20251125, Transport: "streamable", Want: reports.Warn},
			{Fault: "auth-insufficient-scope-unnamed", Version: spec.V20260728, Transport: "streamable", Want: reports.Warn},
		},
		Body: func(t *server.T) {
			m, ok := minterFor(t)
			if !ok {
				return
			}
			if m.scope == "" {
				t.Untestable("the target names no scope (in its challenge or scopes_supported), so no token can lack one")
				return
			}
			if !valid(t, m) {
				return
			}
			r, wa, ok := presentMinted(t, m, "missing-scope", m.scope)
			if !ok {
				return
			}
			t.Saw("a valid token with scope %q instead of %q was answered %d, WWW-Authenticate %q", "mcpcheck:unrelated", m.scope, r.status, wa)
			switch r.status {
			case http.StatusForbidden:
			case http.StatusUnauthorized:
				t.Violation("authorization.insufficient-scope.response-403", "403 Forbidden with error=\"insufficient_scope\" for a valid token that lacks scope "+m.scope, fmt.Sprintf("HTTP 401, WWW-Authenticate %q", wa))
				return
			default:
				t.Untestable(fmt.Sprintf("the target served a token without scope %q (%s): the first request needs no scope, so an insufficient scope could not be provoked", m.scope, served(r)))
				return
			}
			ch, _ := bearer(r)
			if e, _ := param(ch, "error"); e != "insufficient_scope" {
				t.Violation("authorization.insufficient-scope.response-403", "a Bearer challenge with error=\"insufficient_scope\" on the 403", fmt.Sprintf("WWW-Authenticate %q", wa))
			}
			if rm, _ := param(ch, "resource_metadata"); rm == "" {
				t.Violation("authorization.insufficient-scope.response-403", "resource_metadata in the 403's challenge, as on the 401s", fmt.Sprintf("WWW-Authenticate %q", wa))
			}
			if sc, _ := param(ch, "scope"); sc == "" {
				t.Violation("authorization.insufficient-scope.scope-needed", "the scopes the request needs in the challenge's scope parameter", fmt.Sprintf("WWW-Authenticate %q", wa))
			}
			if bytes.Contains(r.body, []byte(`"result"`)) {
				t.Violation("authorization.token-validation.before-processing", "no data for a token that is refused", "the 403 carries a result: "+string(r.body))
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
)

// upperSchemeHost writes resource with its scheme and host in upper
// case (http://127.0.0.1:8080/mcp becomes HTTP://127.0.0.1:8080/mcp).
func upperSchemeHost(resource string) string {
	scheme, rest, ok := strings.Cut(resource, "://")
	if !ok {
		return resource
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	return strings.ToUpper(scheme) + "://" + strings.ToUpper(rest[:end]) + rest[end:]
}

func init() {
	server.Exclude(map[string]string{
		"authorization.scope.server-hierarchies":       "the spec names no hierarchy syntax: which granted scope covers which needed one is the server's own policy, so no token mcpcheck mints can show it is not honoured",
		"authorization.insufficient-scope.all-at-once": "needs an operation needing several scopes, of which a token holds some: the scopes an operation needs are the server's own policy, not visible on the wire",
		// The two umbrellas of role "both": each is judged through the
		// particular rules it points to, which have checks of their own.
		"authorization.oauth.implementations-oauth21": "an umbrella (2025-03-26: implement OAuth 2.1 with its security measures): it has no behaviour of its own beyond the particular rules it points to, which are judged one by one (authorization/token-expired, authorization/token-bad-signature, authorization/token-query-string, authorization/forged-token-401, authorization/authorization-server-2025-03-26)",
		"authorization.security.follow-security-page": "an umbrella (2026-07-28: meet the security considerations page): it has no behaviour of its own beyond the particular rules it points to, which are judged one by one (audience binding by authorization/token-audience and authorization/token-other-resource, the confused deputy by authorization/token-passthrough, token theft by authorization/token-query-string, issuers by authorization/token-wrong-issuer)",
	})
}
