// Package authorization holds the server suite's checks of area
// authorization (the MCP server as an OAuth 2.1 resource server: 401
// challenges, protected resource metadata, token validation, token
// passthrough) and the helpers only they use; initialising it registers
// them into the suite's registry (internal/scenarios/internal/server).
package authorization

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Authorization, resource-server side: only for targets that require it
// (a request without credentials gets 401); open servers make every check
// n/a. The checks use a plain HTTP client, not the MCP connection, since
// the metadata documents are not MCP messages.

// response is one plain HTTP exchange.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request to u with the target's configured headers
// except Authorization, then hdr.
func do(t *server.T, method, u string, body []byte, hdr http.Header) (response, error) {
	var r response
	err := t.PlainDo(method, u, body, hdr, false, func(resp *http.Response) {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		r = response{status: resp.StatusCode, header: resp.Header, body: b}
	})
	if err != nil {
		return response{}, err
	}
	return r, nil
}

// probe posts the era's cheapest request without credentials (or with
// the given Authorization) and ends the check n/a unless the target
// answers 401 to a request without any.
func probe(t *server.T, authorization string) (response, bool) {
	if t.Stdio() || t.Target().URL == "" {
		t.NotApplicable("authorization applies to HTTP transports")
		return response{}, false
	}
	m := server.SentinelMethod(t.Version())
	var params any
	if t.Version().Era() == spec.Stateless {
		params = map[string]any{"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    string(t.Version()),
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}}
	}
	body := t.EncodeRequest(jsonrpc.StringID("mcpcheck-auth-probe"), m, params)
	hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	if t.Version().Era() == spec.Stateless {
		hdr.Set("Mcp-Protocol-Version", string(t.Version()))
		hdr.Set("Mcp-Method", m)
	}
	bare, err := do(t, http.MethodPost, t.Target().URL, body, hdr)
	if err != nil {
		t.Error(err)
		return response{}, false
	}
	if bare.status != http.StatusUnauthorized {
		t.NotApplicable(fmt.Sprintf("the target does not require authorization: a request without credentials was answered %d", bare.status))
		return response{}, false
	}
	if authorization == "" {
		return bare, true
	}
	hdr.Set("Authorization", authorization)
	r, err := do(t, http.MethodPost, t.Target().URL, body, hdr)
	if err != nil {
		t.Error(err)
		return response{}, false
	}
	return r, true
}

// param returns a parameter of a Bearer challenge.
func param(challenge, name string) (string, bool) {
	for _, part := range strings.Split(challenge, ",") {
		part = strings.TrimSpace(part)
		if i := strings.IndexByte(part, ' '); i >= 0 && strings.EqualFold(part[:i], "bearer") {
			part = strings.TrimSpace(part[i+1:])
		}
		k, v, ok := strings.Cut(part, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.Trim(strings.TrimSpace(v), `"`), true
		}
	}
	return "", false
}

// bearer returns the Bearer challenge of a response.
func bearer(r response) (string, bool) {
	for _, v := range r.header.Values("WWW-Authenticate") {
		if len(v) >= 6 && strings.EqualFold(v[:6], "bearer") {
			return v, true
		}
	}
	return "", false
}

// wellKnown lists where RFC 9728 puts the metadata of the target URL.
func wellKnown(t *server.T) []string {
	u, err := url.Parse(t.Target().URL)
	if err != nil {
		return nil
	}
	root := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	out := []string{}
	if path != "" {
		out = append(out, root+"/.well-known/oauth-protected-resource"+path)
	}
	return append(out, root+"/.well-known/oauth-protected-resource")
}

var _ = server.Register(
	server.Def{
		ID: "authorization/unauthorized-challenge", Area: "authorization", Transports: []wire.Transport{"streamable", "sse"},
		Title: "a request without credentials gets 401 with a Bearer challenge naming the protected resource metadata",
		Requirements: []string{"authorization.unauthorized.respond-401", "authorization.prm.www-authenticate-on-401",
			"authorization.prm.discovery-mechanism", "authorization.errors.status-codes",
			"authorization.scope.challenge-includes-scope", "authorization.refresh-token.server-no-offline-access"},
		Proofs: []server.Proof{{Proxy: "auth-no-challenge", Good: "auth", Version: spec.V20250618, Transport: "streamable", Want: reports.Fail},
			{Fault: "auth-401-no-challenge", Version: spec.V20250618, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			r, ok := probe(t, "")
			if !ok {
				return
			}
			ch, has := bearer(r)
			t.Saw("401 with WWW-Authenticate %q", strings.Join(r.header.Values("WWW-Authenticate"), " | "))
			rm, hasRM := param(ch, "resource_metadata")
			if scope, ok := param(ch, "scope"); t.InForce("authorization.scope.challenge-includes-scope") && (!ok || scope == "") {
				t.Violation("authorization.scope.challenge-includes-scope", "a scope parameter in the challenge", fmt.Sprintf("WWW-Authenticate %q", ch))
			} else if ok && t.InForce("authorization.refresh-token.server-no-offline-access") && hasScope(scope, "offline_access") {
				t.Violation("authorization.refresh-token.server-no-offline-access", "no offline_access in the challenge's scope", fmt.Sprintf("scope %q", scope))
			}
			switch {
			case t.InForce("authorization.prm.www-authenticate-on-401") && (!has || !hasRM || rm == ""):
				t.Violation("authorization.prm.www-authenticate-on-401", "a WWW-Authenticate Bearer challenge with resource_metadata on every 401", fmt.Sprintf("WWW-Authenticate %q", ch))
			case t.InForce("authorization.prm.discovery-mechanism") && (!hasRM || rm == ""):
				for _, u := range wellKnown(t) {
					if w, err := do(t, http.MethodGet, u, nil, http.Header{"Accept": {"application/json"}}); err == nil && w.status == http.StatusOK {
						t.Saw("no resource_metadata in the challenge; the metadata is at %s", u)
						t.Pass()
						return
					}
				}
				t.Violation("authorization.prm.discovery-mechanism", "resource_metadata in the challenge or a metadata document at the well-known URI", fmt.Sprintf("challenge %q and nothing at %v", ch, wellKnown(t)))
			default:
				if t.Open() {
					t.Pass()
				}
			}
		},
	},
	server.Def{
		ID: "authorization/protected-resource-metadata", Area: "authorization", Transports: []wire.Transport{"streamable", "sse"}, Since: spec.V20250618,
		Title: "the protected resource metadata document names the resource and at least one authorization server",
		Requirements: []string{"authorization.prm.server-implements", "authorization.prm.authorization-servers-field",
			"authorization.discovery.follow-requirements", "authorization.canonical-uri.no-trailing-slash",
			"authorization.refresh-token.server-no-offline-access", "authorization.security.communication"},
		Proofs: []server.Proof{{Proxy: "auth-prm-no-servers", Good: "auth", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail},
			{Fault: "auth-prm-no-servers", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail},
			{Fault: "auth-prm-wrong-resource", Version: spec.V20250618, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			r, ok := probe(t, "")
			if !ok {
				return
			}
			if tu, err := url.Parse(t.Target().URL); err == nil && tu.Scheme != "https" && !loopbackHost(tu.Hostname()) {
				t.Violation("authorization.security.communication", "a protected MCP server reached over TLS (https)", "the endpoint is "+t.Target().URL)
			}
			ch, _ := bearer(r)
			urls := wellKnown(t)
			if rm, ok := param(ch, "resource_metadata"); ok && rm != "" {
				urls = append([]string{rm}, urls...)
			}
			root := len(urls) - 1 // the last URL is the well-known URI at the root
			for i, u := range urls {
				d, err := do(t, http.MethodGet, u, nil, http.Header{"Accept": {"application/json"}})
				if err != nil || d.status != http.StatusOK {
					continue
				}
				var doc struct {
					Resource             string   `json:"resource"`
					AuthorizationServers []string `json:"authorization_servers"`
					ScopesSupported      []string `json:"scopes_supported"`
				}
				if err := json.Unmarshal(d.body, &doc); err != nil {
					t.Violation("authorization.prm.server-implements", "an RFC 9728 JSON document", fmt.Sprintf("%s is not JSON: %v", u, err))
					return
				}
				t.Saw("%s: resource %q, authorization_servers %v", u, doc.Resource, doc.AuthorizationServers)
				if doc.Resource == "" {
					t.Violation("authorization.prm.server-implements", "a resource member naming the MCP server", u+" has no resource")
				} else if !sameResource(doc.Resource, t.Target().URL) && !(i == root && sameResource(doc.Resource, origin(t.Target().URL))) {
					// RFC 9728 section 3.3: the resource is the identifier the
					// metadata was fetched for (the endpoint; at the root, the
					// origin is as good).
					t.Violation("authorization.prm.server-implements", fmt.Sprintf("resource %q, the MCP endpoint the metadata is for (RFC 9728 section 3.3)", t.Target().URL), fmt.Sprintf("%s names resource %q", u, doc.Resource))
				}
				if len(doc.AuthorizationServers) == 0 {
					t.Violation("authorization.prm.authorization-servers-field", "authorization_servers with at least one issuer URL", u+" lists none")
				}
				if strings.HasSuffix(doc.Resource, "/") && !strings.HasSuffix(t.Target().URL, "/") {
					t.Violation("authorization.canonical-uri.no-trailing-slash", "the canonical resource URI without a trailing slash", fmt.Sprintf("resource %q for the endpoint %s", doc.Resource, t.Target().URL))
				}
				if t.InForce("authorization.refresh-token.server-no-offline-access") {
					for _, sc := range doc.ScopesSupported {
						if sc == "offline_access" {
							t.Violation("authorization.refresh-token.server-no-offline-access", "no offline_access in scopes_supported", fmt.Sprintf("scopes_supported %v", doc.ScopesSupported))
						}
					}
				}
				for _, as := range doc.AuthorizationServers {
					if pu, err := url.Parse(as); err == nil && pu.Scheme != "https" && !loopbackHost(pu.Hostname()) {
						t.Violation("authorization.security.communication", "authorization servers reached over TLS (https)", fmt.Sprintf("authorization server %q", as))
					}
				}
				if t.Open() {
					t.Pass()
				}
				return
			}
			t.Violation("authorization.prm.server-implements", "a protected resource metadata document", fmt.Sprintf("none of %v answered 200", urls))
		},
	},
	server.Def{
		ID: "authorization/forged-token-401", Area: "authorization", Transports: []wire.Transport{"streamable", "sse"},
		Title: "a request with a forged bearer token gets 401 with an invalid_token challenge and no result",
		Requirements: []string{"authorization.token-validation.invalid-401", "authorization.token-validation.error-response",
			"authorization.token-validation.before-processing", "authorization.token-validation.oauth21-section52"},
		Proofs: []server.Proof{{Proxy: "auth-forged-accepted", Good: "auth", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail},
			{Fault: "auth-accepts-opaque-token", Version: spec.V20250618, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			r, ok := probe(t, "Bearer mcpcheck-forged-token-0000")
			if !ok {
				return
			}
			t.Saw("a forged token was answered %d, WWW-Authenticate %q", r.status, strings.Join(r.header.Values("WWW-Authenticate"), " | "))
			if r.status != http.StatusUnauthorized {
				t.Violation("authorization.token-validation.invalid-401", "401 for an invalid token", fmt.Sprintf("HTTP %d", r.status))
			}
			if bytes.Contains(r.body, []byte(`"result"`)) {
				t.Violation("authorization.token-validation.before-processing", "no data for a caller whose token fails", "the body carries a result: "+string(r.body))
			}
			if ch, ok := bearer(r); r.status == http.StatusUnauthorized && !ok {
				t.Violation("authorization.token-validation.error-response", "a WWW-Authenticate Bearer challenge (OAuth 2.1 section 5.3)", fmt.Sprintf("WWW-Authenticate %q", ch))
			} else if e, _ := param(ch, "error"); ok && e != "invalid_token" {
				t.Note("the challenge names error %q; RFC 6750 recommends invalid_token for a token that fails validation", e)
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
)

// sameResource reports whether two resource URIs are the same, the
// scheme and host compared without regard to case and a trailing slash
// ignored.
func sameResource(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host) &&
		strings.TrimSuffix(ua.EscapedPath(), "/") == strings.TrimSuffix(ub.EscapedPath(), "/") && ua.RawQuery == ub.RawQuery
}

// origin is scheme://host of u.
func origin(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return u
	}
	return pu.Scheme + "://" + pu.Host
}

// hasScope reports whether a space-separated scope list holds s.
func hasScope(list, s string) bool {
	for _, x := range strings.Fields(list) {
		if x == s {
			return true
		}
	}
	return false
}

// loopbackHost reports a loopback host name (local test deployments
// may use plain http there).
func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

var _ = server.Register(
	server.Def{
		ID: "authorization/authorization-server-2025-03-26", Area: "authorization", Transports: []wire.Transport{"streamable", "sse"}, Until: spec.V20250326,
		Title: "in 2025-03-26 a protected server publishes RFC 8414 metadata at the root of its base URL (or serves /authorize, /token, /register), over HTTPS",
		Requirements: []string{"authorization.as-metadata.server-should-provide", "authorization.base-url.metadata-at-root",
			"authorization.default-endpoints.server-without-metadata", "authorization.https.server-authorization-endpoints",
			"authorization.dcr.server-and-client-should-support"},
		Proofs: []server.Proof{{Proxy: "auth-no-as-metadata", Version: spec.V20250326, Transport: "streamable", Want: reports.Fail},
			{Fault: "auth-no-as-metadata", Version: spec.V20250326, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			if _, ok := probe(t, ""); !ok {
				return
			}
			u, err := url.Parse(t.Target().URL)
			t.Must(err)
			base := u.Scheme + "://" + u.Host
			md, err := do(t, http.MethodGet, base+"/.well-known/oauth-authorization-server", nil, http.Header{"Accept": {"application/json"}})
			if err != nil {
				t.Error(err)
				return
			}
			if md.status == http.StatusOK {
				var doc map[string]any
				if json.Unmarshal(md.body, &doc) != nil {
					t.Violation("authorization.base-url.metadata-at-root", "an RFC 8414 JSON document at /.well-known/oauth-authorization-server", "the document is not JSON")
					return
				}
				for _, k := range []string{"authorization_endpoint", "token_endpoint", "registration_endpoint"} {
					v, _ := doc[k].(string)
					if v == "" {
						if k == "registration_endpoint" {
							t.Violation("authorization.dcr.server-and-client-should-support", "a registration_endpoint (RFC 7591 dynamic client registration)", "the metadata has none")
						}
						continue
					}
					if pu, err := url.Parse(v); err == nil && pu.Scheme != "https" && !loopbackHost(pu.Hostname()) {
						t.Violation("authorization.https.server-authorization-endpoints", "authorization endpoints served over HTTPS", fmt.Sprintf("%s %q", k, v))
					}
				}
				if t.Open() {
					t.Saw("RFC 8414 metadata at %s/.well-known/oauth-authorization-server", base)
					t.Pass()
				}
				return
			}
			t.Violation("authorization.as-metadata.server-should-provide", "RFC 8414 metadata at /.well-known/oauth-authorization-server", fmt.Sprintf("HTTP %d", md.status))
			for _, p := range []string{"/authorize", "/token", "/register"} {
				r, err := do(t, http.MethodGet, base+p, nil, nil)
				if err != nil || r.status == http.StatusNotFound {
					t.Violation("authorization.default-endpoints.server-without-metadata", "without metadata, /authorize, /token and /register on the base URL", fmt.Sprintf("%s%s is not served (%v)", base, p, func() any {
						if err != nil {
							return err
						}
						return r.status
					}()))
					return
				}
			}
		},
	},
)

func init() {
	server.Exclude(map[string]string{
		"authorization.index.http-uses-mcp-auth": "an umbrella statement (follow the MCP authorization specification when protecting access): it states no wire rule of its own; the authorization/* checks judge the specific rules",
		"authorization.support.http-conforms":    "an umbrella statement (do authorization exactly as the page prescribes): it states no wire rule of its own; the authorization/* checks judge the specific rules",
	})
}
