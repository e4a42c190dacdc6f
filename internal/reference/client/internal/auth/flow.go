package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// client is a client id at one authorization server.
type client struct {
	ID, Secret string
	// Method is the token endpoint authentication method.
	Method string
}

// authorize runs discovery, registration and the authorization code flow
// for the MCP server at serverURL.
func (t *Transport) authorize(ctx context.Context, serverURL string, ch challenge, stepUp bool) (*Token, error) {
	prm, err := t.discoverResource(ctx, serverURL, ch)
	if err != nil {
		return nil, err
	}
	var as *serverMetadata
	resource := canonicalResource(serverURL)
	if prm != nil {
		resource = prm.Resource
		issuer := prm.AuthorizationServers[0]
		as, err = t.discoverServer(ctx, issuer)
		if err == errNoMetadata {
			return nil, fail("authorization server metadata", "%s publishes no RFC 8414 or OpenID metadata", issuer)
		}
	} else {
		t.logf("the server publishes no protected resource metadata; using its origin as the authorization server (2025-03-26 style)")
		u, _ := url.Parse(serverURL)
		base := u.Scheme + "://" + u.Host
		if t.fault(FaultKeepPath) {
			base += strings.TrimSuffix(u.EscapedPath(), "/")
		}
		as, err = t.discoverServer(ctx, base)
		if err == errNoMetadata && !t.fault(FaultNoDefaultEndpoints) {
			as, err = fallbackServer(base), nil
		}
		if err == errNoMetadata {
			return nil, fail("authorization server metadata", "%s publishes no authorization server metadata", base)
		}
	}
	if err != nil {
		return nil, err
	}
	if !as.fallback && !contains(as.CodeChallengeMethodsSupported, "S256") {
		return nil, fail("authorization server metadata", "%s does not advertise PKCE with S256 (code_challenge_methods_supported), so the client must not proceed", as.Issuer)
	}

	// Scopes: the challenge is authoritative; on step-up keep what was
	// granted before.
	var scopes []string
	switch {
	case len(t.cfg.Scopes) > 0:
		scopes = t.cfg.Scopes
	case len(ch.Scope) > 0:
		scopes = ch.Scope
	case prm != nil && len(prm.ScopesSupported) > 0:
		scopes = prm.ScopesSupported
	}
	t.mu.Lock()
	if stepUp && !t.fault(FaultStepUpNoUnion) {
		scopes = unionScopes(t.scopes, scopes)
	}
	t.mu.Unlock()
	if len(scopes) > 0 && contains(as.ScopesSupported, "offline_access") && !contains(scopes, "offline_access") {
		scopes = append(append([]string(nil), scopes...), "offline_access")
	}

	cl, err := t.clientFor(ctx, as)
	if err != nil {
		return nil, err
	}
	tok, err := t.codeFlow(ctx, as, cl, resource, scopes)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.token = tok
	t.scopes = unionScopes(scopes, fields(tok.Scope))
	t.mu.Unlock()
	return tok, nil
}

// canonicalResource is the MCP server URL as a resource indicator: no
// fragment, lower-case scheme and host.
func canonicalResource(serverURL string) string {
	u, err := url.Parse(serverURL)
	if err != nil {
		return serverURL
	}
	u.Fragment, u.RawFragment = "", ""
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	return u.String()
}

// clientFor returns the client id to use at as: pre-registered
// credentials, a client ID metadata document URL, credentials registered
// earlier with this issuer, or a new dynamic registration, in that order.
func (t *Transport) clientFor(ctx context.Context, as *serverMetadata) (*client, error) {
	if t.cfg.ClientID != "" {
		if t.cfg.Issuer != "" && t.cfg.Issuer != as.Issuer {
			return nil, fail("client registration", "the pre-registered client id belongs to %s, but the server now uses %s; get credentials for the new authorization server", t.cfg.Issuer, as.Issuer)
		}
		return &client{ID: t.cfg.ClientID, Secret: t.cfg.ClientSecret, Method: pickAuthMethod(as, t.cfg.ClientSecret != "")}, nil
	}
	if t.cfg.ClientMetadataURL != "" && as.ClientIDMetadataDocumentSupported {
		return &client{ID: t.cfg.ClientMetadataURL, Method: "none"}, nil
	}
	t.mu.Lock()
	cl := t.clients[as.Issuer]
	t.mu.Unlock()
	if cl != nil {
		return cl, nil
	}
	if as.RegistrationEndpoint == "" || t.fault(FaultNoDCR) {
		return nil, fail("client registration", "%s offers no dynamic registration and no client id was configured; pass pre-registered credentials", as.Issuer)
	}
	cl, err := t.register(ctx, as)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.clients[as.Issuer] = cl
	t.mu.Unlock()
	return cl, nil
}

// pickAuthMethod chooses the token endpoint authentication method.
func pickAuthMethod(as *serverMetadata, haveSecret bool) string {
	supported := as.TokenEndpointAuthMethodsSupported
	if !haveSecret {
		return "none"
	}
	if len(supported) == 0 {
		return "client_secret_basic"
	}
	for _, m := range []string{"client_secret_basic", "client_secret_post"} {
		if contains(supported, m) {
			return m
		}
	}
	return supported[0]
}

// register performs dynamic client registration (RFC 7591).
func (t *Transport) register(ctx context.Context, as *serverMetadata) (*client, error) {
	method := "none"
	if s := as.TokenEndpointAuthMethodsSupported; len(s) > 0 && !contains(s, "none") {
		method = s[0]
		for _, m := range []string{"client_secret_basic", "client_secret_post"} {
			if contains(s, m) {
				method = m
				break
			}
		}
	}
	body := map[string]any{
		"client_name":                t.cfg.ClientName,
		"redirect_uris":              []string{t.cfg.RedirectURI},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
		"application_type":           "native",
	}
	switch {
	case t.fault(FaultDCRNoApplicationType):
		delete(body, "application_type")
	case t.fault(FaultDCRWebApplicationType):
		body["application_type"] = "web"
	case t.fault(FaultDCRNoRefreshGrant):
		body["grant_types"] = []string{"authorization_code"}
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.RegistrationEndpoint, strings.NewReader(string(b)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := t.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fail("client registration", "%v", err)
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, fail("client registration", "%s answered HTTP %d: %s", as.RegistrationEndpoint, resp.StatusCode, clip(rb))
	}
	var r struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Method       string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(rb, &r); err != nil || r.ClientID == "" {
		return nil, fail("client registration", "%s answered without a client_id: %s", as.RegistrationEndpoint, clip(rb))
	}
	if r.Method == "" {
		r.Method = method
		if r.ClientSecret == "" {
			r.Method = "none"
		}
	}
	t.logf("registered with %s as client %s", as.Issuer, r.ClientID)
	return &client{ID: r.ClientID, Secret: r.ClientSecret, Method: r.Method}, nil
}

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// codeFlow runs the authorization code grant with PKCE.
func (t *Transport) codeFlow(ctx context.Context, as *serverMetadata, cl *client, resource string, scopes []string) (*Token, error) {
	verifier := randomString(32)
	sum := sha256.Sum256([]byte(verifier))
	challenge, method := base64.RawURLEncoding.EncodeToString(sum[:]), "S256"
	if t.fault(FaultPKCEPlain) {
		challenge, method = verifier, "plain"
	}
	state := randomString(16)
	if t.fault(FaultResourceTrailingSlash) && !strings.HasSuffix(resource, "/") {
		resource += "/"
	}
	issuer := as.Issuer // recorded before the user agent leaves

	au, err := url.Parse(as.AuthorizationEndpoint)
	if err != nil {
		return nil, fail("authorization request", "authorization_endpoint %q is not a URL", as.AuthorizationEndpoint)
	}
	q := au.Query()
	q.Set("response_type", "code")
	q.Set("client_id", cl.ID)
	q.Set("redirect_uri", t.cfg.RedirectURI)
	q.Set("state", state)
	if !t.fault(FaultNoPKCE) {
		q.Set("code_challenge", challenge)
		q.Set("code_challenge_method", method)
	}
	q.Set("resource", resource)
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	au.RawQuery = q.Encode()

	back, err := t.cfg.UserAgent.Authorize(ctx, au.String(), t.cfg.RedirectURI)
	if err != nil {
		return nil, fail("authorization request", "%v", err)
	}
	params := back.Query()
	// RFC 9207: a present iss must equal the recorded issuer exactly; an
	// absent one is an error when the server advertises it.
	iss, hasIss := params["iss"]
	switch {
	case t.fault(FaultIgnoreIss):
		// the fault: the response goes unchecked
	case hasIss && (len(iss) != 1 || iss[0] != issuer):
		return nil, fail("authorization response", "the response's iss %q is not the issuer %q the flow started with; possible mix-up attack, not using the code", strings.Join(iss, ","), issuer)
	case !hasIss && as.IssParameterSupported:
		return nil, fail("authorization response", "the authorization server advertises iss in responses but sent none; not using the code")
	}
	if params.Get("state") != state {
		return nil, fail("authorization response", "the state in the redirect does not match the one sent; not using the code")
	}
	if e := params.Get("error"); e != "" {
		return nil, fail("authorization response", "the authorization server refused: %s %s", e, params.Get("error_description"))
	}
	code := params.Get("code")
	if code == "" {
		return nil, fail("authorization response", "the redirect %s carries no code", back.Redacted())
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {t.cfg.RedirectURI},
		"code_verifier": {verifier},
		"resource":      {resource},
	}
	if t.fault(FaultNoPKCE) {
		form.Del("code_verifier")
	}
	tok, err := t.tokenRequest(ctx, as, cl, form)
	if err != nil {
		return nil, err
	}
	tok.Issuer = issuer
	t.mu.Lock()
	t.grant = &grant{as: as, cl: cl, resource: resource}
	t.mu.Unlock()
	return tok, nil
}

// grant remembers what a refresh needs.
type grant struct {
	as       *serverMetadata
	cl       *client
	resource string
}

// refresh uses old's refresh token.
func (t *Transport) refresh(ctx context.Context, old *Token) (*Token, error) {
	t.mu.Lock()
	rs := t.grant
	t.mu.Unlock()
	if rs == nil || old.RefreshToken == "" {
		return nil, errors.New("no refresh token")
	}
	form := url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {old.RefreshToken},
		"resource":      {rs.resource},
	}
	tok, err := t.tokenRequest(ctx, rs.as, rs.cl, form)
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = old.RefreshToken
	}
	tok.Issuer = old.Issuer
	t.mu.Lock()
	t.token = tok
	t.mu.Unlock()
	t.logf("refreshed the access token")
	return tok, nil
}

// tokenRequest posts form to the token endpoint with the client's
// authentication.
func (t *Transport) tokenRequest(ctx context.Context, as *serverMetadata, cl *client, form url.Values) (*Token, error) {
	if t.fault(FaultTokenWithoutResource) {
		form.Del("resource")
	}
	switch cl.Method {
	case "client_secret_post":
		form.Set("client_id", cl.ID)
		form.Set("client_secret", cl.Secret)
	case "client_secret_basic":
	default:
		form.Set("client_id", cl.ID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if cl.Method == "client_secret_basic" {
		req.SetBasicAuth(url.QueryEscape(cl.ID), url.QueryEscape(cl.Secret))
	}
	resp, err := t.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fail("token request", "%v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if resp.StatusCode != http.StatusOK {
		return nil, fail("token request", "%s answered HTTP %d: %s", as.TokenEndpoint, resp.StatusCode, clip(b))
	}
	var r struct {
		AccessToken  string `json:"access_token"`
		TokenType    string `json:"token_type"`
		ExpiresIn    int64  `json:"expires_in"`
		RefreshToken string `json:"refresh_token"`
		Scope        string `json:"scope"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.AccessToken == "" {
		return nil, fail("token request", "%s answered without an access_token: %s", as.TokenEndpoint, clip(b))
	}
	if r.TokenType != "" && !strings.EqualFold(r.TokenType, "bearer") {
		return nil, fail("token request", "the token type is %q; this client only uses Bearer tokens", r.TokenType)
	}
	tok := &Token{AccessToken: r.AccessToken, TokenType: "Bearer", RefreshToken: r.RefreshToken, Scope: r.Scope}
	if r.ExpiresIn > 0 {
		tok.Expiry = time.Now().Add(time.Duration(r.ExpiresIn) * time.Second)
	}
	return tok, nil
}

// UserAgent takes the user through the authorization endpoint.
type UserAgent interface {
	// Authorize visits authURL and returns the URL the authorization
	// server redirected to, which starts with redirectURI.
	Authorize(ctx context.Context, authURL, redirectURI string) (*url.URL, error)
}

// Headless follows the authorization endpoint's redirects itself, without
// a browser, and stops at the redirect URI. It suits servers that
// authorize without user interaction (test servers, pre-approved clients);
// a login page is an error.
type Headless struct {
	// Client makes the requests; nil means a client with a 30 s timeout.
	Client *http.Client
}

// Authorize implements UserAgent.
func (h Headless) Authorize(ctx context.Context, authURL, redirectURI string) (*url.URL, error) {
	c := h.Client
	if c == nil {
		c = &http.Client{Timeout: 30 * time.Second}
	}
	nc := *c
	nc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	next := authURL
	for range 10 {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, next, nil)
		if err != nil {
			return nil, err
		}
		resp, err := nc.Do(req)
		if err != nil {
			return nil, err
		}
		drain(resp.Body)
		loc := resp.Header.Get("Location")
		if resp.StatusCode < 300 || resp.StatusCode > 399 || loc == "" {
			return nil, fmt.Errorf("the authorization endpoint answered HTTP %d instead of redirecting; it needs a person (use a browser-based user agent)", resp.StatusCode)
		}
		u, err := req.URL.Parse(loc)
		if err != nil {
			return nil, fmt.Errorf("the authorization endpoint redirected to %q, which is not a URL", loc)
		}
		if strings.HasPrefix(u.String(), redirectURI) {
			return u, nil
		}
		next = u.String()
	}
	return nil, errors.New("the authorization endpoint redirected more than 10 times")
}
