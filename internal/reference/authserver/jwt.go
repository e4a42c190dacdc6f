package authserver

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// JWT access tokens (RFC 9068 profile), by hand: ES256 signing, ES256 and
// RS256 verification, JWKS documents (RFC 7517).

var b64 = base64.RawURLEncoding

// Claims are the claims of an access token. Times are Unix seconds; zero
// means absent.
type Claims struct {
	Issuer    string   `json:"iss,omitempty"`
	Subject   string   `json:"sub,omitempty"`
	Audience  Audience `json:"aud,omitempty"`
	Expiry    int64    `json:"exp,omitempty"`
	NotBefore int64    `json:"nbf,omitempty"`
	IssuedAt  int64    `json:"iat,omitempty"`
	ID        string   `json:"jti,omitempty"`
	ClientID  string   `json:"client_id,omitempty"`
	Scope     string   `json:"scope,omitempty"`
}

// Audience is the aud claim: one string or an array of strings.
type Audience []string

// MarshalJSON writes one audience as a string, more as an array.
func (a Audience) MarshalJSON() ([]byte, error) {
	if len(a) == 1 {
		return json.Marshal(a[0])
	}
	return json.Marshal([]string(a))
}

// UnmarshalJSON reads a string or an array of strings.
func (a *Audience) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*a = Audience{s}
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return errors.New("aud is neither a string nor an array of strings")
	}
	*a = ss
	return nil
}

// Has reports whether the audience names s exactly.
func (a Audience) Has(s string) bool {
	for _, x := range a {
		if x == s {
			return true
		}
	}
	return false
}

// HasScope reports whether the space-separated scope claim holds s.
func (c Claims) HasScope(s string) bool {
	for _, x := range strings.Fields(c.Scope) {
		if x == s {
			return true
		}
	}
	return false
}

// signingKey is an ES256 key with its key id.
type signingKey struct {
	kid string
	key *ecdsa.PrivateKey
}

func newSigningKey(kid string) (signingKey, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return signingKey{}, err
	}
	return signingKey{kid: kid, key: k}, nil
}

// sign makes a compact JWS of claims with header typ at+jwt.
func (k signingKey) sign(claims any) (string, error) {
	hdr, _ := json.Marshal(map[string]string{"alg": "ES256", "typ": "at+jwt", "kid": k.kid})
	body, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := b64.EncodeToString(hdr) + "." + b64.EncodeToString(body)
	sum := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, k.key, sum[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + b64.EncodeToString(sig), nil
}

// jwk is one JSON Web Key.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid,omitempty"`
	Use string `json:"use,omitempty"`
	Alg string `json:"alg,omitempty"`
	Crv string `json:"crv,omitempty"`
	X   string `json:"x,omitempty"`
	Y   string `json:"y,omitempty"`
	N   string `json:"n,omitempty"`
	E   string `json:"e,omitempty"`
}

func (k signingKey) public() jwk {
	return jwk{Kty: "EC", Kid: k.kid, Use: "sig", Alg: "ES256", Crv: "P-256",
		X: b64.EncodeToString(k.key.X.FillBytes(make([]byte, 32))),
		Y: b64.EncodeToString(k.key.Y.FillBytes(make([]byte, 32)))}
}

// KeySet is a parsed JWKS: public keys by key id.
type KeySet struct {
	keys map[string]crypto.PublicKey
}

// ParseJWKS reads a JWKS document ({"keys":[...]}); EC P-256 and RSA keys
// are kept, others skipped.
func ParseJWKS(b []byte) (*KeySet, error) {
	var doc struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("JWKS: %w", err)
	}
	ks := &KeySet{keys: map[string]crypto.PublicKey{}}
	for _, k := range doc.Keys {
		switch {
		case k.Kty == "EC" && k.Crv == "P-256":
			x, err1 := b64.DecodeString(k.X)
			y, err2 := b64.DecodeString(k.Y)
			if err1 != nil || err2 != nil {
				continue
			}
			pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
			if !pub.Curve.IsOnCurve(pub.X, pub.Y) { //nolint:staticcheck // the key comes from a document, check it
				continue
			}
			ks.keys[k.Kid] = pub
		case k.Kty == "RSA":
			n, err1 := b64.DecodeString(k.N)
			e, err2 := b64.DecodeString(k.E)
			if err1 != nil || err2 != nil || len(e) > 4 {
				continue
			}
			ks.keys[k.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		}
	}
	if len(ks.keys) == 0 {
		return nil, errors.New("JWKS: no usable key")
	}
	return ks, nil
}

// Has reports whether the set holds a key with that id.
func (ks *KeySet) Has(kid string) bool { _, ok := ks.keys[kid]; return ok }

// Verify checks the signature of a compact JWS against the set and returns
// its claims. Only ES256 and RS256 are accepted ("none" never); claims are
// not validated here (see Validate).
func (ks *KeySet) Verify(token string) (Claims, error) {
	var c Claims
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return c, errors.New("not a compact JWS (three dot-separated parts)")
	}
	hb, err := b64.DecodeString(parts[0])
	if err != nil {
		return c, errors.New("the header is not base64url")
	}
	var hdr struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	if err := json.Unmarshal(hb, &hdr); err != nil {
		return c, errors.New("the header is not JSON")
	}
	key, ok := ks.keys[hdr.Kid]
	if !ok {
		return c, fmt.Errorf("no key %q in the issuer's JWKS", hdr.Kid)
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil {
		return c, errors.New("the signature is not base64url")
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	switch k := key.(type) {
	case *ecdsa.PublicKey:
		if hdr.Alg != "ES256" || len(sig) != 64 ||
			!ecdsa.Verify(k, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
			return c, fmt.Errorf("the signature does not verify (alg %q)", hdr.Alg)
		}
	case *rsa.PublicKey:
		if hdr.Alg != "RS256" || rsa.VerifyPKCS1v15(k, crypto.SHA256, sum[:], sig) != nil {
			return c, fmt.Errorf("the signature does not verify (alg %q)", hdr.Alg)
		}
	}
	return decodeClaims(parts[1])
}

func decodeClaims(part string) (Claims, error) {
	var c Claims
	cb, err := b64.DecodeString(part)
	if err != nil {
		return c, errors.New("the claims are not base64url")
	}
	if err := json.Unmarshal(cb, &c); err != nil {
		return c, fmt.Errorf("the claims are not a JSON object of the expected types: %v", err)
	}
	return c, nil
}

// Expectation is what a resource server requires of a token's claims.
type Expectation struct {
	// Issuer is the trusted issuer (iss must equal it).
	Issuer string
	// Resource is the resource server's canonical URI (aud must name it).
	Resource string
	// Now is the time to judge exp and nbf at; Leeway tolerates clock skew.
	Now    time.Time
	Leeway time.Duration
}

// Validate judges verified claims as a resource server must (OAuth 2.1
// section 5.2, RFC 8707, RFC 9068): issuer, audience, expiry, not-before.
// The first failure is returned.
func (c Claims) Validate(x Expectation) error {
	now := x.Now.Unix()
	lee := int64(x.Leeway / time.Second)
	switch {
	case c.Issuer != x.Issuer:
		return fmt.Errorf("the token was issued by %q, not the trusted issuer %q", c.Issuer, x.Issuer)
	case len(c.Audience) == 0:
		return errors.New("the token names no audience")
	case !c.Audience.Has(x.Resource):
		return fmt.Errorf("the token's audience %v does not name this resource %q", []string(c.Audience), x.Resource)
	case c.Expiry == 0:
		return errors.New("the token has no expiry")
	case now > c.Expiry+lee:
		return fmt.Errorf("the token expired at %s", time.Unix(c.Expiry, 0).UTC().Format(time.RFC3339))
	case c.NotBefore != 0 && now+lee < c.NotBefore:
		return fmt.Errorf("the token is not valid before %s", time.Unix(c.NotBefore, 0).UTC().Format(time.RFC3339))
	}
	return nil
}

// KeyID returns the kid of a compact JWS's header ("" when there is none).
func KeyID(token string) string {
	h, _, _ := strings.Cut(token, ".")
	b, err := b64.DecodeString(h)
	if err != nil {
		return ""
	}
	var hdr struct {
		Kid string `json:"kid"`
	}
	_ = json.Unmarshal(b, &hdr)
	return hdr.Kid
}

// UnverifiedClaims decodes a compact JWS's claims without checking its
// signature: for fault switches that model a resource server skipping it.
func UnverifiedClaims(token string) (Claims, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return Claims{}, errors.New("not a compact JWS (three dot-separated parts)")
	}
	return decodeClaims(parts[1])
}
