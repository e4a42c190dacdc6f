package auth

// Fault switches of the authorization flow: deliberate defects, each
// breaking one requirement, so that mcpcheck's client checks can be shown
// to fire against the reference client. They are named hooks (the
// reference client registers them with its other fault switches, in
// internal/reference/client/faults_auth.go); Config.Faults turns them on, and each
// is tested at one place of this package with Transport.fault.
const (
	// Discovery of the protected resource metadata.
	FaultIgnoreResourceMetadata = "auth-ignore-resource-metadata" // the challenge's resource_metadata is ignored
	FaultRootPRMFirst           = "auth-root-prm-first"           // the root well-known URL is tried before the path-based one
	FaultSkipPRM                = "auth-skip-prm"                 // no protected resource metadata: the server's origin is taken as the authorization server

	// Discovery of the authorization server metadata.
	FaultOIDCFirst             = "auth-oidc-first"               // issuer without a path: OpenID discovery before RFC 8414
	FaultPathIssuerOrder       = "auth-path-issuer-order"        // issuer with a path: the three locations in reverse order
	FaultRFC8414Only           = "auth-rfc8414-only"             // OpenID discovery documents are never asked for
	FaultSingleLocation        = "auth-single-metadata-location" // only the first well-known location is tried
	FaultNoIssuerCheck         = "auth-no-issuer-check"          // a document whose issuer differs is used anyway
	FaultSkipASMetadata        = "auth-skip-as-metadata"         // no metadata request: default endpoints at the issuer
	FaultDefaultsFirst         = "auth-defaults-first"           // 2025-03-26: the default endpoints without trying metadata first
	FaultKeepPath              = "auth-keep-path"                // 2025-03-26: the MCP endpoint's path is kept in the authorization base URL
	FaultNoDefaultEndpoints    = "auth-no-default-endpoints"     // 2025-03-26: no metadata means giving up, not the default endpoints
	FaultAcceptOtherResource   = "auth-accept-other-resource"    // protected resource metadata for another resource is used
	FaultResourceCaseSensitive = "auth-resource-case-sensitive"  // a resource differing from the server's URL only in the case of scheme or host is refused

	// Registration.
	FaultNoDCR                 = "auth-no-dcr"                   // dynamic client registration is never used
	FaultDCRNoApplicationType  = "auth-dcr-no-application-type"  // the registration request has no application_type
	FaultDCRWebApplicationType = "auth-dcr-web-application-type" // the registration says application_type "web" with a loopback redirect URI
	FaultDCRNoRefreshGrant     = "auth-dcr-no-refresh-grant"     // grant_types lacks refresh_token although the client asks for offline access
	FaultRedirectHTTP          = "auth-redirect-http"            // the redirect URI is plain http on a host that is not localhost

	// The authorization code flow.
	FaultNoPKCE                = "auth-no-pkce"                 // no code_challenge, no code_verifier
	FaultPKCEPlain             = "auth-pkce-plain"              // code_challenge_method=plain
	FaultTokenWithoutResource  = "auth-token-without-resource"  // token requests carry no resource parameter
	FaultResourceTrailingSlash = "auth-resource-trailing-slash" // the resource parameter gets a trailing slash
	FaultIgnoreIss             = "auth-ignore-iss"              // the authorization response's iss is not checked

	// Using and renewing the token.
	FaultBasicCredentials = "auth-basic-credentials"  // a 401 is answered with HTTP Basic credentials instead of OAuth
	FaultNoStepUp         = "auth-no-step-up"         // insufficient_scope is not answered with a new authorization
	FaultUnlimitedStepUp  = "auth-unlimited-step-up"  // no limit on step-up attempts
	FaultStepUpNoUnion    = "auth-step-up-no-union"   // a step-up asks only for the challenged scopes
	FaultTokenInQuery     = "auth-token-in-query"     // the access token also travels as ?access_token=
	FaultNoTokenOnDelete  = "auth-no-token-on-delete" // DELETE requests go without the token

	// FaultCancelRefusedInitialize cancels an initialize the server
	// refused with 401 (a notifications/cancelled for its id, sent as the
	// initialize was: without a token) before authorizing.
	FaultCancelRefusedInitialize = "auth-cancel-refused-initialize"
)

// fault reports whether the named fault switch is on.
func (t *Transport) fault(name string) bool {
	for _, f := range t.cfg.Faults {
		if f == name {
			return true
		}
	}
	return false
}
