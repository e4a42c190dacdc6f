package authserver

import (
	"fmt"
	"sort"
)

// Fault is one fault switch of the authorization server: a deliberate
// defect breaking one catalog requirement, so that authorization-server
// checks can be proven to fire. Every switch is off unless named in
// Options.Faults.
type Fault struct {
	// Name is the switch's flag value.
	Name string
	// Requirement is the catalog ID of the requirement it breaks.
	Requirement string
	// Description says in one line what the server then does wrong.
	Description string
}

// The fault switch names.
const (
	FaultNoMetadata           = "no-metadata"
	FaultNoPKCEMethods        = "no-pkce-methods"
	FaultPKCENotRequired      = "pkce-not-required"
	FaultRedirectPrefixMatch  = "redirect-prefix-match"
	FaultErrorToUnregistered  = "error-to-unregistered-redirect"
	FaultRefreshNotRotated    = "refresh-not-rotated"
	FaultNoIssInResponse      = "no-iss-in-response"
	FaultIssNotAdvertised     = "iss-not-advertised"
	FaultLongLivedTokens      = "long-lived-tokens"
	FaultNoRegistration       = "no-registration"
	FaultCIMDClientIDMismatch = "cimd-client-id-mismatch"
	FaultStateNotReturned     = "state-not-returned"
	FaultInsecureEndpoint     = "insecure-endpoint"
	FaultNoCIMD               = "no-cimd"
	FaultCIMDRedirectAnyURI   = "cimd-redirect-unchecked"
	FaultCIMDDocumentAnyShape = "cimd-document-unchecked"
	FaultCIMDCacheIgnored     = "cimd-cache-ignores-headers"
)

var faultTable = []Fault{
	{FaultNoMetadata, "authorization.as-metadata.as-provides-one-mechanism", "neither RFC 8414 nor OpenID Connect discovery metadata is served (404)"},
	{FaultNoPKCEMethods, "authorization.pkce.oidc-as-advertises", "the metadata has no code_challenge_methods_supported"},
	{FaultPKCENotRequired, "authorization.oauth.as-implements-oauth21", "an authorization request without code_challenge is granted, and its code redeemed without code_verifier"},
	{FaultRedirectPrefixMatch, "authorization.redirect-uri.as-exact-match", "a redirect_uri is accepted when a registered URI is a prefix of it"},
	{FaultErrorToUnregistered, "authorization.redirect-uri.as-no-untrusted-redirect", "an authorization request with an unregistered redirect_uri is redirected there with an error"},
	{FaultRefreshNotRotated, "authorization.refresh-token.as-rotates-public", "a refresh grant returns the same refresh token, which stays valid"},
	{FaultNoIssInResponse, "authorization.iss.as-includes-iss", "authorization responses carry no iss parameter"},
	{FaultIssNotAdvertised, "authorization.iss.as-advertises", "the metadata does not set authorization_response_iss_parameter_supported"},
	{FaultLongLivedTokens, "authorization.token-lifetime.as-short-lived", "access tokens live for 10 years"},
	{FaultNoRegistration, "authorization.dcr.as-should-support", "no registration_endpoint: dynamic client registration is not offered"},
	{FaultCIMDClientIDMismatch, "authorization.cimd.as-validates-client-id", "a client ID metadata document whose client_id differs from its URL is accepted"},
	{FaultStateNotReturned, "authorization.oauth.as-implements-oauth21", "the authorization response does not carry the request's state back"},
	{FaultInsecureEndpoint, "authorization.https.as-endpoints", "the metadata names a revocation_endpoint at a plain http URL of a host that is not loopback"},
	{FaultNoCIMD, "authorization.cimd.as-should-support", "client ID metadata documents are neither advertised nor accepted (a URL client_id is an unknown client)"},
	{FaultCIMDRedirectAnyURI, "authorization.cimd.as-validates-redirect", "a metadata-document client may use any redirect_uri, listed in its document or not"},
	{FaultCIMDDocumentAnyShape, "authorization.cimd.as-validates-document", "a client ID metadata document without redirect_uris is accepted (the request's redirect_uri is trusted)"},
	{FaultCIMDCacheIgnored, "authorization.cimd.as-caches", "a fetched client ID metadata document is reused for 5 minutes whatever its Cache-Control says (no-store included)"},
}

// Faults returns every fault switch, sorted by name.
func Faults() []Fault {
	out := append([]Fault(nil), faultTable...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

type faultSet map[string]bool

func (f faultSet) on(name string) bool { return f[name] }

func newFaultSet(names []string) (faultSet, error) {
	known := map[string]bool{}
	for _, f := range faultTable {
		known[f.Name] = true
	}
	s := faultSet{}
	for _, n := range names {
		if !known[n] {
			return nil, fmt.Errorf("authserver: unknown fault switch %q (see Faults)", n)
		}
		s[n] = true
	}
	return s, nil
}
