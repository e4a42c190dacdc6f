package authserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Kind names a token Mint makes.
type Kind string

// The kinds of token. Each differs from Valid in one way only.
const (
	// Valid: issued by this server for the resource, with the scope,
	// valid now for the token lifetime.
	Valid Kind = "valid"
	// Expired: its exp is an hour ago.
	Expired Kind = "expired"
	// NotYetValid: its nbf is an hour from now.
	NotYetValid Kind = "not-yet-valid"
	// WrongAudience: its aud names an API that is no MCP server.
	WrongAudience Kind = "wrong-audience"
	// NoAudience: it has no aud claim.
	NoAudience Kind = "no-audience"
	// OtherResource: its aud names another MCP server on the same host,
	// whose URL starts with the resource's (the resource followed by
	// "-other"): what a token for a sibling server looks like.
	OtherResource Kind = "other-resource"
	// WrongIssuer: signed with this server's key, but its iss names
	// another issuer.
	WrongIssuer Kind = "wrong-issuer"
	// BadSignature: signed with a key that is not in the JWKS, under the
	// JWKS key's kid.
	BadSignature Kind = "bad-signature"
	// Unsigned: alg "none" with an empty signature.
	Unsigned Kind = "unsigned"
	// MissingScope: its scope holds none of the requested scopes, only
	// the unrelated scope "mcpcheck:unrelated".
	MissingScope Kind = "missing-scope"
)

// Kinds lists every kind.
var Kinds = []Kind{Valid, Expired, NotYetValid, WrongAudience, NoAudience, OtherResource, WrongIssuer, BadSignature, Unsigned, MissingScope}

// WrongAudienceURI and WrongIssuerURI are what WrongAudience and
// WrongIssuer tokens name.
const (
	WrongAudienceURI = "https://api.mcpcheck.invalid"
	WrongIssuerURI   = "https://issuer.mcpcheck.invalid"
	UnrelatedScope   = "mcpcheck:unrelated"
)

// MintRequest asks for a token.
type MintRequest struct {
	Kind Kind `json:"kind"`
	// Resource is the canonical URI of the resource server (RFC 8707).
	Resource string `json:"resource"`
	// Scope is the space-separated scope to grant ("" for none).
	Scope string `json:"scope,omitempty"`
	// Subject defaults to "mcpcheck-user".
	Subject string `json:"subject,omitempty"`
	// Lifetime, in seconds, replaces the token lifetime of a Valid token
	// (at most MaxLifetime): the token a whole conformance run presents.
	// Other kinds keep their own times.
	Lifetime int64 `json:"lifetime,omitempty"`
}

// MaxLifetime bounds MintRequest.Lifetime: a day.
const MaxLifetime = 24 * 60 * 60

// Minted is a token and the claims it carries.
type Minted struct {
	Token  string `json:"access_token"`
	Kind   Kind   `json:"kind"`
	Claims Claims `json:"claims"`
}

// OtherResourceOf is the audience an OtherResource token for resource names.
func OtherResourceOf(resource string) string { return resource + "-other" }

// Mint makes a token of the kind asked for.
func (s *Server) Mint(m MintRequest) (Minted, error) {
	if m.Resource == "" {
		return Minted{}, fmt.Errorf("authserver: mint %s: no resource", m.Kind)
	}
	if m.Subject == "" {
		m.Subject = "mcpcheck-user"
	}
	if m.Lifetime < 0 || m.Lifetime > MaxLifetime || (m.Lifetime != 0 && m.Kind != Valid) {
		return Minted{}, fmt.Errorf("authserver: mint %s: a lifetime of %d s (a valid token may last 1 to %d s)", m.Kind, m.Lifetime, MaxLifetime)
	}
	now := s.opts.Now()
	c := Claims{Issuer: s.opts.Issuer, Subject: m.Subject, Audience: Audience{m.Resource}, Scope: m.Scope,
		ClientID: "mcpcheck", IssuedAt: now.Unix(), NotBefore: now.Unix(), Expiry: now.Add(s.opts.TokenTTL).Unix(), ID: randomString(8)}
	key := s.key
	switch m.Kind {
	case Valid:
		if m.Lifetime > 0 {
			c.Expiry = now.Add(time.Duration(m.Lifetime) * time.Second).Unix()
		}
	case Expired:
		c.IssuedAt, c.NotBefore, c.Expiry = now.Add(-2*time.Hour).Unix(), now.Add(-2*time.Hour).Unix(), now.Add(-time.Hour).Unix()
	case NotYetValid:
		c.NotBefore, c.Expiry = now.Add(time.Hour).Unix(), now.Add(2*time.Hour).Unix()
	case WrongAudience:
		c.Audience = Audience{WrongAudienceURI}
	case NoAudience:
		c.Audience = nil
	case OtherResource:
		c.Audience = Audience{OtherResourceOf(m.Resource)}
	case WrongIssuer:
		c.Issuer = WrongIssuerURI
	case BadSignature:
		key = s.rogue
	case Unsigned:
		hdr, _ := json.Marshal(map[string]string{"alg": "none", "typ": "at+jwt"})
		body, _ := json.Marshal(c)
		return Minted{Token: b64.EncodeToString(hdr) + "." + b64.EncodeToString(body) + ".", Kind: m.Kind, Claims: c}, nil
	case MissingScope:
		c.Scope = UnrelatedScope
	default:
		return Minted{}, fmt.Errorf("authserver: unknown token kind %q (want one of %v)", m.Kind, Kinds)
	}
	tok, err := key.sign(c)
	if err != nil {
		return Minted{}, err
	}
	return Minted{Token: tok, Kind: m.Kind, Claims: c}, nil
}

// mintHTTP serves the mint API: POST a MintRequest, get a Minted.
func (s *Server) mintHTTP(w http.ResponseWriter, r *http.Request) {
	if !isLoopback(hostOnly(r.RemoteAddr)) {
		oauthError(w, http.StatusForbidden, "access_denied", "the mint API answers loopback callers only")
		return
	}
	var m MintRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<10)).Decode(&m); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the body is not a mint request: "+err.Error())
		return
	}
	out, err := s.Mint(m)
	if err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func hostOnly(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		addr = addr[:i]
	}
	return strings.Trim(addr, "[]")
}
