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
// The checks are declared once in a static registry like the server
// suite's (Def) and judged with the same harness (harness.Check), one
// verdict per check and protocol version: the catalog's version windows
// gate them.
package asuite

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Def declares one authorization-server check.
type Def struct {
	// ID is stable and unique: "authserver/what-is-checked".
	ID string
	// Title says in one line what the authorization server is held to.
	Title string
	// Requirements are the catalog IDs the check enforces; their version
	// windows gate it.
	Requirements []string
	// Body is the check.
	Body func(t *T)
	// Proofs show the check fires on a fault switch of mcpcheck's
	// authserver (TestProofs runs them).
	Proofs []Proof
}

// Proof says that against mcpcheck's authserver with Fault on, in
// Version, the check ends in Want.
type Proof struct {
	Fault   string
	Version spec.Version
	Want    reports.Outcome
}

var (
	regMu   sync.Mutex
	regDefs []Def
	regIDs  = map[string]bool{}
)

// Register adds checks to the registry; a duplicate or incomplete
// declaration panics.
func Register(defs ...Def) bool {
	regMu.Lock()
	defer regMu.Unlock()
	for _, d := range defs {
		switch {
		case !strings.HasPrefix(d.ID, "authserver/"):
			panic(fmt.Sprintf("asuite: check ID %q: use authserver/name", d.ID))
		case regIDs[d.ID]:
			panic(fmt.Sprintf("asuite: check %q registered twice", d.ID))
		case d.Title == "" || len(d.Requirements) == 0 || d.Body == nil:
			panic(fmt.Sprintf("asuite: check %q needs a title, requirements and a body", d.ID))
		}
		for _, p := range d.Proofs {
			if p.Fault == "" || !p.Version.Known() || (p.Want != reports.Fail && p.Want != reports.Warn) {
				panic(fmt.Sprintf("asuite: check %q: a proof names a fault, a known version and fail or warn", d.ID))
			}
		}
		regIDs[d.ID] = true
		regDefs = append(regDefs, d)
	}
	return true
}

// Checks returns the registered checks in registration order.
func Checks() []Def {
	regMu.Lock()
	defer regMu.Unlock()
	return append([]Def(nil), regDefs...)
}

// CheckedRequirements maps each requirement ID to the checks citing it.
func CheckedRequirements() map[string][]string {
	out := map[string][]string{}
	for _, d := range Checks() {
		for _, r := range d.Requirements {
			out[r] = append(out[r], d.ID)
		}
	}
	for _, ids := range out {
		sort.Strings(ids)
	}
	return out
}

// Exclusions maps testable authorization-server requirements that have no
// check to the reason why.
var Exclusions = map[string]string{
	"authorization.cimd.as-follows-draft":             "an umbrella statement (meet every server-side requirement of the Client ID Metadata Document draft): the authserver/cimd-* checks judge the draft's observable rules one by one (the document is fetched, its client_id must equal its URL, its redirect_uris bound the request, a malformed document is refused, caching follows its headers)",
	"authorization.token-validation.as-own-resources": "in 2025-06-18 the page puts the resource server's rule (accept only tokens for your own resources) on the authorization server; an authorization server validates no access tokens on any endpoint MCP defines, so no request can present it one (the resource-server side is judged by auth/token-audience and auth/token-other-resource)",
}
