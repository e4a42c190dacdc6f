package authorization

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server"
	"net"
	"net/http"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// A foreign issuer: an OAuth authorization server the check runs for
// itself on a fresh loopback port, which no target can have been told to
// trust. It publishes RFC 8414 (and OpenID) metadata and a JWKS, so a
// token it signs verifies against the keys its own iss names: a server
// that takes the issuer, or the keys, from the token accepts it. Unlike
// the minted-token checks it needs no issuer the target trusts, so it
// judges any protected server.

// foreignIssuer is one such authorization server.
type foreignIssuer struct {
	url string
	kid string
	key *ecdsa.PrivateKey
	srv *http.Server
}

// startForeignIssuer listens on a free loopback port; close ends it.
func startForeignIssuer() (*foreignIssuer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("running a foreign authorization server: %w", err)
	}
	f := &foreignIssuer{url: "http://" + ln.Addr().String(), key: key}
	sum := sha256.Sum256(append(key.X.Bytes(), key.Y.Bytes()...))
	f.kid = "mcpcheck-foreign-" + base64.RawURLEncoding.EncodeToString(sum[:6])
	mux := http.NewServeMux()
	meta := func(w http.ResponseWriter, _ *http.Request) {
		foreignJSON(w, map[string]any{"issuer": f.url, "jwks_uri": f.url + "/jwks",
			"authorization_endpoint": f.url + "/authorize", "token_endpoint": f.url + "/token",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"subject_types_supported": []string{"public"}, "id_token_signing_alg_values_supported": []string{"ES256"}})
	}
	mux.HandleFunc("/.well-known/oauth-authorization-server", meta)
	mux.HandleFunc("/.well-known/openid-configuration", meta)
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, _ *http.Request) {
		foreignJSON(w, map[string]any{"keys": []map[string]string{{"kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": f.kid,
			"x": b64Fixed(key.X.Bytes()), "y": b64Fixed(key.Y.Bytes())}}})
	})
	f.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = f.srv.Serve(ln) }()
	return f, nil
}

func (f *foreignIssuer) close() { _ = f.srv.Close() }

// token signs an hour's ES256 access token for resource with scope.
func (f *foreignIssuer) token(resource, scope string) (string, error) {
	now := time.Now().Unix()
	hdr, _ := json.Marshal(map[string]string{"alg": "ES256", "typ": "at+jwt", "kid": f.kid})
	claims, _ := json.Marshal(map[string]any{"iss": f.url, "sub": "mcpcheck-foreign-user", "aud": resource, "client_id": "mcpcheck",
		"scope": scope, "iat": now, "nbf": now - 60, "exp": now + 3600, "jti": fmt.Sprintf("foreign-%d", time.Now().UnixNano())})
	in := base64.RawURLEncoding.EncodeToString(hdr) + "." + base64.RawURLEncoding.EncodeToString(claims)
	sum := sha256.Sum256([]byte(in))
	r, s, err := ecdsa.Sign(rand.Reader, f.key, sum[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return in + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// b64Fixed encodes a P-256 coordinate in its 32 bytes.
func b64Fixed(b []byte) string {
	out := make([]byte, 32)
	copy(out[32-len(b):], b)
	return base64.RawURLEncoding.EncodeToString(out)
}

// foreignJSON writes v as the JSON answer.
func foreignJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

var _ = server.Register(
	server.Def{
		ID: "authorization/token-foreign-issuer", Area: "authorization", Transports: []wire.Transport{"streamable"}, Since: spec.V20250618,
		Title:        "an access token of an issuer the server does not trust, though its signature verifies against the keys that issuer publishes, gets 401",
		Requirements: reqs("authorization.token-validation.no-foreign-tokens"),
		Proofs:       []server.Proof{{Fault: "auth-trusts-token-issuer", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			bare, ok := probe(t, "")
			if !ok {
				return
			}
			ch, _ := bearer(bare)
			scope, _ := param(ch, "scope")
			f, err := startForeignIssuer()
			if err != nil {
				t.Error(err)
				return
			}
			defer f.close()
			tok, err := f.token(t.Target().URL, scope)
			if err != nil {
				t.Error(err)
				return
			}
			judge401(t, "authorization.token-validation.no-foreign-tokens",
				fmt.Sprintf("a token for this resource (aud %s, scope %q) of an issuer the server cannot trust (iss %s, a fresh loopback authorization server whose metadata and JWKS verify it)", t.Target().URL, scope, f.url),
				"Bearer "+tok, "")
			if t.Open() {
				t.Pass()
			}
		},
	},
)
