package client

import "github.com/mcpcheck/mcpcheck/internal/reference/client/internal/auth"

// Fault switches of authorization. They change what the OAuth flow does,
// so all of them are named hooks of package auth (auth.Config.Faults,
// which the CLI fills from --fault); here they are registered with the
// requirement each breaks.
func init() {
	a := func(name, req, desc string) Fault { return Fault{Name: name, Requirement: req, Description: desc} }
	fs := []Fault{
		a(auth.FaultIgnoreResourceMetadata, "authorization.www-authenticate.client-parses", "the resource_metadata URL of the 401 challenge is ignored; the well-known URLs are probed instead"),
		a(auth.FaultRootPRMFirst, "authorization.prm.client-well-known-fallback", "the root protected resource metadata URL is requested before the path-based one"),
		a(auth.FaultSkipPRM, "authorization.prm.client-uses-for-discovery", "no protected resource metadata is fetched: the MCP server's origin is taken for the authorization server"),
		a(auth.FaultOIDCFirst, "authorization.as-metadata.root-issuer-order", "for an issuer without a path, openid-configuration is requested before oauth-authorization-server"),
		a(auth.FaultPathIssuerOrder, "authorization.as-metadata.path-issuer-order", "for an issuer with a path, the three metadata locations are tried in reverse order"),
		a(auth.FaultRFC8414Only, "authorization.as-metadata.client-supports-both-mechanisms", "OpenID Connect discovery documents are never requested, only RFC 8414 ones"),
		a(auth.FaultSingleLocation, "authorization.as-metadata.client-tries-multiple", "only the first well-known metadata location is tried"),
		a(auth.FaultNoIssuerCheck, "authorization.as-metadata.issuer-validation", "authorization server metadata whose issuer differs from the one asked for is used anyway"),
		a(auth.FaultSkipASMetadata, "authorization.as-metadata.client-uses-rfc8414", "no authorization server metadata is requested: /authorize, /token and /register at the issuer are assumed"),
		a(auth.FaultDefaultsFirst, "authorization.default-endpoints.metadata-first", "the 2025-03-26 default endpoints are used without trying metadata discovery first"),
		a(auth.FaultKeepPath, "authorization.base-url.discard-path", "the 2025-03-26 authorization base URL keeps the MCP endpoint's path"),
		a(auth.FaultNoDefaultEndpoints, "authorization.default-endpoints.client-uses-defaults", "when no authorization server metadata exists (2025-03-26) the client gives up instead of using the default endpoints"),
		a(auth.FaultAcceptOtherResource, "authorization.resource-param.identifies-server", "protected resource metadata naming another resource is accepted, and its token sent to this server"),
		a(auth.FaultResourceCaseSensitive, "authorization.canonical-uri.accept-uppercase", "protected resource metadata whose resource differs from the server's URL only in the case of scheme or host is refused (compared byte for byte)"),
		a(auth.FaultNoDCR, "authorization.dcr.client-should-support", "dynamic client registration is never used"),
		a(auth.FaultDCRNoApplicationType, "authorization.dcr.application-type", "the dynamic registration request carries no application_type"),
		a(auth.FaultDCRWebApplicationType, "authorization.dcr.native-application-type", "the dynamic registration request says application_type \"web\" for a loopback redirect URI"),
		a(auth.FaultDCRNoRefreshGrant, "authorization.refresh-token.grant-types", "the dynamic registration request lists only authorization_code in grant_types, though the client asks for offline access"),
		a(auth.FaultRedirectHTTP, "authorization.redirect-uri.localhost-or-https", "the redirect URI is http://mcpcheck-client.example/callback (plain http, not localhost)"),
		a(auth.FaultNoPKCE, "authorization.pkce.client-uses", "the authorization code flow runs without PKCE (no code_challenge, no code_verifier)"),
		a(auth.FaultPKCEPlain, "authorization.pkce.s256", "PKCE uses code_challenge_method=plain"),
		a(auth.FaultTokenWithoutResource, "authorization.resource-param.in-auth-and-token-requests", "token requests carry no resource parameter"),
		a(auth.FaultResourceTrailingSlash, "authorization.canonical-uri.no-trailing-slash", "the resource parameter carries a trailing slash the server's URI does not have"),
		a(auth.FaultIgnoreIss, "authorization.iss.client-validates", "the iss parameter of the authorization response is not checked"),
		a(auth.FaultBasicCredentials, "authorization.index.http-uses-mcp-auth", "a 401 is answered by retrying with HTTP Basic credentials instead of MCP's OAuth flow"),
		a(auth.FaultNoStepUp, "authorization.step-up.client-responds", "a 403 insufficient_scope is given up on, with no step-up authorization"),
		a(auth.FaultUnlimitedStepUp, "authorization.step-up.retry-limit", "step-up authorization is retried without limit (1000 times)"),
		a(auth.FaultStepUpNoUnion, "authorization.scope.client-union-on-reauth", "a step-up authorization asks only for the challenged scopes, dropping those granted before"),
		a(auth.FaultTokenInQuery, "authorization.token-usage.no-query-string", "the access token also travels in the query string (?access_token=)"),
		a(auth.FaultNoTokenOnDelete, "authorization.token-usage.every-request", "the DELETE that ends a session goes without the access token"),
		a(auth.FaultCancelRefusedInitialize, "cancellation.initialize.never-cancelled", "an initialize the server refused with 401 is cancelled (notifications/cancelled for its id, without a token) before the client authorizes"),
	}
	var hooks []string
	for _, f := range fs {
		hooks = append(hooks, f.Name)
	}
	registerFaults(hooks, fs...)
}
