// Package auth is the reference client's OAuth 2.1 support for MCP's
// authorization (2025-03-26 onward, both eras): an http.RoundTripper that
// answers a 401 from an MCP server by discovering the protected resource
// metadata (RFC 9728) and the authorization server metadata (RFC 8414 or
// OpenID discovery), getting a client id (pre-registered credentials, a
// client ID metadata document URL, or dynamic registration), running the
// authorization code flow with PKCE (S256), the resource parameter (RFC
// 8707) and iss validation (RFC 9207), and retrying the request with the
// token. It refreshes expired tokens and steps up scopes on
// insufficient_scope, with a retry limit.
//
// Plug it in as the Transport of the http.Client the HTTP transports use.
package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/spec"
)

// Config configures authorization.
type Config struct {
	// ClientID and ClientSecret are pre-registered credentials (optional).
	// They belong to Issuer when it is set; the client refuses to use them
	// with another authorization server.
	ClientID, ClientSecret string
	// Issuer is the authorization server the pre-registered credentials
	// belong to; empty means "whichever the server names".
	Issuer string
	// ClientMetadataURL is an https URL of this client's client ID
	// metadata document, used as client_id when the authorization server
	// supports such documents.
	ClientMetadataURL string
	// ClientName is sent with dynamic registration.
	ClientName string
	// RedirectURI is where the authorization server sends the user back;
	// empty means DefaultRedirectURI.
	RedirectURI string
	// Scopes, when set, are requested instead of what the server suggests.
	Scopes []string
	// UserAgent carries the user through the authorization endpoint and
	// returns the redirect it ends in; nil means Headless.
	UserAgent UserAgent
	// ProtocolVersion selects the era's rules (2025-03-26 allows the
	// default endpoints without metadata); empty means the latest.
	ProtocolVersion spec.Version
	// MaxRetries bounds authorization attempts (including scope step-ups)
	// for one request; 0 means 3.
	MaxRetries int
	// HTTPClient makes the metadata, registration and token requests; nil
	// means a client with a 30 s timeout that does not follow redirects to
	// other hosts blindly.
	HTTPClient *http.Client
	// Logf receives progress notes; nil discards them.
	Logf func(format string, args ...any)
	// Faults names the fault switches that are on (see faults.go); only
	// the reference client's proofs use them.
	Faults []string
}

// DefaultRedirectURI is the loopback redirect URI used when none is set.
const DefaultRedirectURI = "http://127.0.0.1:8976/callback"

// Token is an access token with what came with it.
type Token struct {
	AccessToken  string
	TokenType    string
	RefreshToken string
	Expiry       time.Time
	Scope        string
	// Issuer is the authorization server that issued it.
	Issuer string
}

func (t *Token) expired() bool {
	return !t.Expiry.IsZero() && time.Now().After(t.Expiry.Add(-10*time.Second))
}

// Error is an authorization failure; the request it was for is not sent.
type Error struct {
	Step string
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("authorization failed at %s: %v", e.Step, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

func fail(step string, format string, a ...any) error {
	return &Error{Step: step, Err: fmt.Errorf(format, a...)}
}

// Transport adds the bearer token to requests and runs the authorization
// flow when the server asks for it.
//
// Concurrency: safe for concurrent use; one flow runs at a time, and
// requests that raced with it reuse its token.
type Transport struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	cfg  Config

	flow sync.Mutex // one authorization flow at a time

	mu      sync.Mutex
	token   *Token
	scopes  []string           // scopes granted or requested so far
	clients map[string]*client // credentials by issuer
	grant   *grant             // how the current token was obtained
}

// NewTransport returns a Transport for cfg.
func NewTransport(base http.RoundTripper, cfg Config) *Transport {
	if cfg.MaxRetries <= 0 {
		cfg.MaxRetries = 3
	}
	if cfg.RedirectURI == "" {
		cfg.RedirectURI = DefaultRedirectURI
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "mcpcheck reference client"
	}
	if cfg.UserAgent == nil {
		cfg.UserAgent = Headless{}
	}
	if cfg.ProtocolVersion == "" {
		cfg.ProtocolVersion = spec.Latest
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	t := &Transport{Base: base, cfg: cfg, clients: map[string]*client{}}
	if t.fault(FaultUnlimitedStepUp) {
		t.cfg.MaxRetries = 1000
	}
	if t.fault(FaultRedirectHTTP) {
		t.cfg.RedirectURI = "http://mcpcheck-client.example/callback"
	}
	return t
}

// Token returns the current token, or nil.
func (t *Transport) Token() *Token {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.token
}

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

func (t *Transport) logf(format string, a ...any) {
	if t.cfg.Logf != nil {
		t.cfg.Logf(format, a...)
	}
}

// RoundTrip sends req with the current token; on 401, or 403 with
// insufficient_scope, it (re)authorizes and sends it again, at most
// MaxRetries times. A request whose body cannot be replayed is sent once.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok := t.Token()
	if tok != nil && tok.expired() && tok.RefreshToken != "" {
		if nt, err := t.refreshLocked(req.Context(), tok); err == nil {
			tok = nt
		}
	}
	resp, err := t.send(req, tok)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		ch, again := needsAuth(resp)
		if !again {
			return resp, nil
		}
		if t.fault(FaultNoTokenOnDelete) && req.Method == http.MethodDelete ||
			t.fault(FaultNoStepUp) && resp.StatusCode == http.StatusForbidden {
			return resp, nil
		}
		if t.fault(FaultBasicCredentials) && resp.StatusCode == http.StatusUnauthorized {
			drain(resp.Body)
			r := req.Clone(req.Context())
			if req.GetBody != nil {
				if r.Body, err = req.GetBody(); err != nil {
					return nil, err
				}
			}
			r.SetBasicAuth("mcpcheck", "not-an-oauth-token")
			return t.base().RoundTrip(r)
		}
		if t.fault(FaultCancelRefusedInitialize) && resp.StatusCode == http.StatusUnauthorized {
			t.cancelInitialize(req, tok)
		}
		if attempt >= t.cfg.MaxRetries {
			t.logf("giving up after %d authorization attempts; the server still answers %d", attempt, resp.StatusCode)
			return resp, nil
		}
		if req.Body != nil && req.GetBody == nil {
			return resp, nil
		}
		drain(resp.Body)
		nt, err := t.reauthorize(req.Context(), req, tok, ch, resp.StatusCode)
		if err != nil {
			return nil, err
		}
		tok = nt
		resp, err = t.send(req, tok)
		if err != nil {
			return nil, err
		}
	}
}

// send clones req with a fresh body and the token.
func (t *Transport) send(req *http.Request, tok *Token) (*http.Response, error) {
	r := req.Clone(req.Context())
	if req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = b
	}
	if tok != nil && !(t.fault(FaultNoTokenOnDelete) && r.Method == http.MethodDelete) {
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		if t.fault(FaultTokenInQuery) {
			q := r.URL.Query()
			q.Set("access_token", tok.AccessToken)
			r.URL.RawQuery = q.Encode()
		}
	}
	return t.base().RoundTrip(r)
}

// needsAuth reports whether resp asks for (more) authorization.
func needsAuth(resp *http.Response) (challenge, bool) {
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return parseChallenge(resp.Header), true
	case http.StatusForbidden:
		ch := parseChallenge(resp.Header)
		return ch, ch.Error == "insufficient_scope"
	}
	return challenge{}, false
}

// reauthorize gets a new token after the server refused old. It refreshes
// when it can and the server did not ask for more scope, and runs the full
// flow otherwise.
func (t *Transport) reauthorize(ctx context.Context, req *http.Request, old *Token, ch challenge, status int) (*Token, error) {
	t.flow.Lock()
	defer t.flow.Unlock()
	if cur := t.Token(); cur != nil && cur != old {
		return cur, nil // another request already got a new token
	}
	if status == http.StatusUnauthorized && old != nil && old.RefreshToken != "" && ch.Error != "insufficient_scope" {
		if nt, err := t.refresh(ctx, old); err == nil {
			return nt, nil
		} else {
			t.logf("refreshing the token failed (%v); authorizing again", err)
		}
	}
	return t.authorize(ctx, req.URL.String(), ch, status == http.StatusForbidden)
}

func (t *Transport) refreshLocked(ctx context.Context, old *Token) (*Token, error) {
	t.flow.Lock()
	defer t.flow.Unlock()
	if cur := t.Token(); cur != nil && cur != old {
		return cur, nil
	}
	return t.refresh(ctx, old)
}

// cancelInitialize is fault auth-cancel-refused-initialize: when req
// carries an initialize request, a notifications/cancelled for its id goes
// to the same URL with the same headers and token (none, on the first
// refusal), and its answer is dropped.
func (t *Transport) cancelInitialize(req *http.Request, tok *Token) {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return
	}
	rc, err := req.GetBody()
	if err != nil {
		return
	}
	b, _ := io.ReadAll(io.LimitReader(rc, 1<<20))
	rc.Close()
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(b, &m) != nil || m.Method != "initialize" || len(m.ID) == 0 {
		return
	}
	body := []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(m.ID) + `,"reason":"fault"}}`)
	r := req.Clone(req.Context())
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	if resp, err := t.send(r, tok); err == nil {
		drain(resp.Body)
	}
}

func drain(b io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, b, 4096)
	b.Close()
}

// unionScopes merges scope lists, keeping order and dropping duplicates.
func unionScopes(lists ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if s != "" && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

var errNoMetadata = errors.New("no metadata")

func fields(s string) []string { return strings.Fields(s) }
