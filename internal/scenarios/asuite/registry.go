// Package asuite holds mcpcheck's authorization-server checks: what an
// OAuth 2.1 authorization server that MCP clients use must do, judged from
// outside through its metadata, authorization, token and registration
// endpoints ("mcpcheck authserver-check --url AS"). The checks act as a
// public client (registered dynamically, through a client ID metadata
// document mcpcheck hosts, or given on the command line) and need an
// authorization endpoint that consents without a person (mcpcheck's own
// authserver does; a real one needs a test tenant with automatic consent):
// a check whose valid request is not granted at once ends untestable,
// never passed.
//
// The checks are declared once in the registry of the shared check
// framework (internal/scenarios/suite: Def, Register) and judged with the same
// harness (harness.Check), one verdict per check and protocol version:
// the catalog's version windows gate them.
package asuite

import "github.com/mcpcheck/mcpcheck/internal/scenarios/suite"

// Def declares one authorization-server check: the shared definition
// (suite.Def) whose body gets a *T (the harness check plus the run's
// authorization server). IDs read "authserver/what-is-checked"; the
// requirements' version windows gate the check; proofs name a fault
// switch of mcpcheck's authserver and a known version.
type Def = suite.Def[*T]

// Proof says that against mcpcheck's authserver with Fault on, in
// Version, the check ends in Want (see suite.Proof).
type Proof = suite.Proof

// registry holds the authorization-server checks.
var registry = suite.NewRegistry[*T](suite.Rules{Name: "asuite", Prefix: "authserver/", NoArea: true, Root: "asuite"})

// Register adds checks to the registry; a duplicate or incomplete
// declaration panics.
func Register(defs ...Def) bool { return registry.Register(defs...) }

// Checks returns the registered checks in listing order and freezes
// the registry.
func Checks() []Def { return registry.Checks() }

// CheckedRequirements maps each requirement ID to the checks citing it.
func CheckedRequirements() map[string][]string { return registry.CheckedRequirements() }

// Exclusions maps testable authorization-server requirements that have no
// check to the reason why.
var Exclusions = map[string]string{
	"authorization.cimd.as-follows-draft":             "an umbrella statement (meet every server-side requirement of the Client ID Metadata Document draft): the authserver/cimd-* checks judge the draft's observable rules one by one (the document is fetched, its client_id must equal its URL, its redirect_uris bound the request, a malformed document is refused, caching follows its headers)",
	"authorization.token-validation.as-own-resources": "in 2025-06-18 the page puts the resource server's rule (accept only tokens for your own resources) on the authorization server; an authorization server validates no access tokens on any endpoint MCP defines, so no request can present it one (the resource-server side is judged by authorization/token-audience and authorization/token-other-resource)",
}
