package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// resourceMetadata is the protected resource metadata (RFC 9728) fields the
// client uses.
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// serverMetadata is the authorization server metadata (RFC 8414 / OpenID
// discovery) fields the client uses.
type serverMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	IssParameterSupported             bool     `json:"authorization_response_iss_parameter_supported"`
	// fallback marks endpoints guessed without metadata (2025-03-26).
	fallback bool
}

// maxMetadata bounds a metadata document.
const maxMetadata = 1 << 20

// getJSON fetches a JSON document; a 4xx answer is errNoMetadata.
func (t *Transport) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := t.cfg.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		return errNoMetadata
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata+1))
	if err != nil {
		return err
	}
	if len(b) > maxMetadata {
		return fmt.Errorf("GET %s: the document is larger than %d bytes", u, maxMetadata)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("GET %s: not a JSON object: %v", u, err)
	}
	return nil
}

// discoverResource finds the protected resource metadata of the MCP
// server at serverURL: the URL from the challenge when there is one, else
// the path-based well-known URL, then the root one. It returns nil without
// error when the server publishes none.
func (t *Transport) discoverResource(ctx context.Context, serverURL string, ch challenge) (*resourceMetadata, error) {
	if t.fault(FaultSkipPRM) {
		return nil, nil
	}
	var candidates []string
	if ch.ResourceMetadata != "" && !t.fault(FaultIgnoreResourceMetadata) {
		candidates = []string{ch.ResourceMetadata}
	} else {
		u, err := url.Parse(serverURL)
		if err != nil {
			return nil, err
		}
		origin := u.Scheme + "://" + u.Host
		if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
			candidates = append(candidates, origin+"/.well-known/oauth-protected-resource"+p)
		}
		candidates = append(candidates, origin+"/.well-known/oauth-protected-resource")
		if t.fault(FaultRootPRMFirst) {
			reverse(candidates)
		}
	}
	for _, c := range candidates {
		var md resourceMetadata
		err := t.getJSON(ctx, c, &md)
		if err == errNoMetadata {
			continue
		}
		if err != nil {
			return nil, fail("protected resource metadata", "%v", err)
		}
		if len(md.AuthorizationServers) == 0 {
			return nil, fail("protected resource metadata", "%s names no authorization_servers", c)
		}
		if err := checkResource(md.Resource, serverURL); err != nil && !t.fault(FaultAcceptOtherResource) {
			return nil, fail("protected resource metadata", "%s: %v", c, err)
		}
		if t.fault(FaultResourceCaseSensitive) && !strings.HasPrefix(md.Resource, originOf(serverURL)) {
			// The defect: scheme and host compared byte for byte.
			return nil, fail("protected resource metadata", "%s: the metadata is for resource %s, not for %s; refusing to authorize", c, md.Resource, serverURL)
		}
		t.logf("protected resource metadata from %s", c)
		return &md, nil
	}
	if ch.ResourceMetadata != "" {
		return nil, fail("protected resource metadata", "the server's WWW-Authenticate names %s, which does not serve metadata", ch.ResourceMetadata)
	}
	return nil, nil
}

// originOf is scheme://host of a URL as written.
func originOf(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return scheme + "://" + rest
}

// checkResource verifies that the metadata's resource is the MCP server:
// the same URL, or a prefix of it on a path boundary with the same origin.
func checkResource(resource, serverURL string) error {
	if resource == "" {
		return fmt.Errorf("the metadata has no resource")
	}
	r, err := url.Parse(resource)
	if err != nil {
		return fmt.Errorf("resource %q is not a URL", resource)
	}
	s, _ := url.Parse(serverURL)
	if !strings.EqualFold(r.Scheme, s.Scheme) || !strings.EqualFold(r.Host, s.Host) {
		return fmt.Errorf("the metadata is for resource %s, not for %s; refusing to authorize (a token for another resource must not be sent here)", resource, serverURL)
	}
	rp, sp := strings.TrimSuffix(r.Path, "/"), strings.TrimSuffix(s.Path, "/")
	if rp != sp && !strings.HasPrefix(sp, rp+"/") {
		return fmt.Errorf("the metadata is for resource %s, not for %s; refusing to authorize", resource, serverURL)
	}
	return nil
}

// discoverServer fetches the authorization server metadata of issuer, trying
// RFC 8414 and OpenID discovery in the order the specification gives, and
// checks that the document is about issuer.
func (t *Transport) discoverServer(ctx context.Context, issuer string) (*serverMetadata, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return nil, fail("authorization server metadata", "authorization server %q is not a URL", issuer)
	}
	origin := u.Scheme + "://" + u.Host
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	var candidates []string
	if p != "" {
		candidates = []string{
			origin + "/.well-known/oauth-authorization-server" + p,
			origin + "/.well-known/openid-configuration" + p,
			origin + p + "/.well-known/openid-configuration",
		}
	} else {
		candidates = []string{
			origin + "/.well-known/oauth-authorization-server",
			origin + "/.well-known/openid-configuration",
		}
	}
	switch {
	case t.fault(FaultSkipASMetadata), t.fault(FaultDefaultsFirst):
		return fallbackServer(issuer), nil
	case t.fault(FaultOIDCFirst) && p == "", t.fault(FaultPathIssuerOrder) && p != "":
		reverse(candidates)
	case t.fault(FaultRFC8414Only), t.fault(FaultSingleLocation):
		candidates = candidates[:1] // the one RFC 8414 location comes first
	}
	for _, c := range candidates {
		var md serverMetadata
		err := t.getJSON(ctx, c, &md)
		if err == errNoMetadata {
			continue
		}
		if err != nil {
			return nil, fail("authorization server metadata", "%v", err)
		}
		if md.Issuer != issuer && !t.fault(FaultNoIssuerCheck) {
			return nil, fail("authorization server metadata", "%s says its issuer is %q, but it was fetched for %q; refusing it (RFC 8414 section 3.3)", c, md.Issuer, issuer)
		}
		if md.AuthorizationEndpoint == "" || md.TokenEndpoint == "" {
			return nil, fail("authorization server metadata", "%s lacks authorization_endpoint or token_endpoint", c)
		}
		t.logf("authorization server metadata from %s", c)
		return &md, nil
	}
	return nil, errNoMetadata
}

// fallbackServer is the 2025-03-26 default: /authorize, /token and
// /register under base (the MCP server's origin; only fault switches pass
// a base with a path) when there is no metadata.
func fallbackServer(base string) *serverMetadata {
	origin := strings.TrimSuffix(base, "/")
	return &serverMetadata{
		Issuer:                origin,
		AuthorizationEndpoint: origin + "/authorize",
		TokenEndpoint:         origin + "/token",
		RegistrationEndpoint:  origin + "/register",
		fallback:              true,
	}
}

// reverse reverses list in place.
func reverse(list []string) {
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
