// Package catalog is mcpcheck's requirement catalog: every normative
// statement of every released MCP version, as data, each with a stable
// semantic ID that checks cite.
//
// The records live in data/*.json (embedded). A record points at the
// statements it stands for by reference ("page#fingerprint", see package
// specscan), never by quoting them, and paraphrases them in its own words.
package catalog

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec"
)

// Level is the strength of a requirement.
type Level string

// The levels. REQUIRED and SHALL are recorded as MUST, RECOMMENDED as
// SHOULD, OPTIONAL as MAY.
const (
	Must      Level = "MUST"
	MustNot   Level = "MUST NOT"
	Should    Level = "SHOULD"
	ShouldNot Level = "SHOULD NOT"
	May       Level = "MAY"
)

// Levels lists the levels from strongest to weakest.
var Levels = []Level{Must, MustNot, Should, ShouldNot, May}

// Mandatory reports whether breaking the requirement is a failure (MUST,
// MUST NOT) rather than a warning (SHOULD, SHOULD NOT) or nothing (MAY).
func (l Level) Mandatory() bool { return l == Must || l == MustNot }

// Advisory reports whether the level is SHOULD or SHOULD NOT.
func (l Level) Advisory() bool { return l == Should || l == ShouldNot }

// Role says whose behaviour a requirement constrains.
type Role string

// The roles.
const (
	RoleServer              Role = "server"
	RoleClient              Role = "client"
	RoleBoth                Role = "both"
	RoleAuthorizationServer Role = "authorization-server"
	RoleResourceServer      Role = "resource-server"
)

// Roles lists every role.
var Roles = []Role{RoleServer, RoleClient, RoleBoth, RoleAuthorizationServer, RoleResourceServer}

// Testability says how a requirement can be checked.
type Testability string

// The testability classes.
const (
	// Wire requirements can be judged from what a peer sends and how it
	// answers what we send.
	Wire Testability = "wire"
	// Fixture requirements need the target to offer a particular tool,
	// resource or prompt, or an outside trigger (a change, a user action).
	Fixture Testability = "fixture"
	// Unobservable requirements concern what happens inside a peer or
	// between a peer and its user, and cannot be seen on the wire.
	Unobservable Testability = "unobservable"
)

// Testabilities lists every testability class.
var Testabilities = []Testability{Wire, Fixture, Unobservable}

// Areas is the frozen list of protocol areas. Reports group by area, and
// scenario labels use the same names.
var Areas = []string{
	"base",            // JSON-RPC messages, _meta, general fields, error codes, icons
	"lifecycle",       // initialize, initialized, capabilities negotiation, shutdown
	"versioning",      // protocol version negotiation and selection
	"transport-stdio", // the stdio transport
	"transport-http",  // streamable HTTP: POST/GET, sessions, resumption, headers
	"transport-sse",   // the 2024-11-05 HTTP+SSE transport
	"authorization",   // OAuth-based authorization
	"security",        // security and trust considerations outside authorization
	"ping",
	"cancellation",
	"progress",
	"tasks",
	"tools",
	"resources",
	"prompts",
	"completion",
	"logging",
	"pagination",
	"sampling",
	"elicitation",
	"roots",
	"discovery",     // server/discover (2026-07-28)
	"subscriptions", // subscriptions/listen (2026-07-28)
	"mrtr",          // multi round-trip requests (2026-07-28)
	"caching",       // cacheable results (2026-07-28)
	"extensions",    // the extensions mechanism (2026-07-28)
}

// Record is one requirement.
type Record struct {
	// ID is stable and semantic: lower-case dot-separated words such as
	// "lifecycle.initialize.client-sends-first". It never encodes a position.
	ID    string `json:"id"`
	Level Level  `json:"level"`
	Role  Role   `json:"role"`
	Area  string `json:"area"`
	// Since is the first version the requirement applies to; Until the last,
	// empty while it is still in force in the latest version.
	Since spec.Version `json:"since"`
	Until spec.Version `json:"until,omitempty"`
	// Page and Section locate the statement in the Since version.
	Page    string `json:"page"`
	Section string `json:"section"`
	// Summary paraphrases the requirement in one line, in our own words.
	Summary     string      `json:"summary"`
	Testability Testability `json:"testability"`
	// Why explains the testability class.
	Why string `json:"why"`
	// Refs are the statements the record stands for: "page#hash" covers every
	// keyword of that sentence, "page#hash:N" only its N-th keyword.
	Refs []string `json:"refs"`
}

// In reports whether the requirement applies in version v.
func (r Record) In(v spec.Version) bool { return v.Within(r.Since, r.Until) }

// UntilOrLatest is Until, or the latest version when Until is empty.
func (r Record) UntilOrLatest() spec.Version {
	if r.Until == "" {
		return spec.Latest
	}
	return r.Until
}

// Skip records a bold keyword that is not a requirement of its own (for
// example the boilerplate that introduces the keywords, or a keyword quoted
// from another standard), with the reason.
type Skip struct {
	Ref string `json:"ref"`
	Why string `json:"why"`
}

var (
	idRE  = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*){1,5}$`)
	refRE = regexp.MustCompile(`^[a-z0-9/_-]+#[0-9a-f]{8}(:[1-9][0-9]?)?$`)
)

// ParseRef splits a reference into page, fingerprint and keyword index (0
// when the reference covers the whole sentence).
func ParseRef(ref string) (page, hash string, index int, err error) {
	if !refRE.MatchString(ref) {
		return "", "", 0, fmt.Errorf("reference %q is not of the form page#hash or page#hash:N (hash: 8 hex digits)", ref)
	}
	page, rest, _ := strings.Cut(ref, "#")
	hash, idx, ok := strings.Cut(rest, ":")
	if ok {
		fmt.Sscanf(idx, "%d", &index)
	}
	return page, hash, index, nil
}

// Validate checks one record's own fields and returns every problem found.
func (r Record) Validate() []error {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("record %q: "+format, append([]any{r.ID}, a...)...))
	}
	if !idRE.MatchString(r.ID) {
		bad("id must be 2-6 lower-case dot-separated words of [a-z0-9-]")
	} else if area, _, _ := strings.Cut(r.ID, "."); !contains(Areas, area) && area != strings.SplitN(r.Area, "-", 2)[0] {
		bad("id should start with its area %q", r.Area)
	}
	if !containsT(Levels, r.Level) {
		bad("level %q is not one of %v", r.Level, Levels)
	}
	if !containsT(Roles, r.Role) {
		bad("role %q is not one of %v", r.Role, Roles)
	}
	if !contains(Areas, r.Area) {
		bad("area %q is not in the frozen list (catalog.Areas)", r.Area)
	}
	if !r.Since.Known() {
		bad("since %q is not a released version", r.Since)
	}
	if r.Until != "" && !r.Until.Known() {
		bad("until %q is not a released version", r.Until)
	}
	if r.Since.Known() && r.Until.Known() && r.Until.Compare(r.Since) < 0 {
		bad("until %s is before since %s", r.Until, r.Since)
	}
	if r.Page == "" || r.Section == "" {
		bad("page and section are required")
	}
	if len(strings.TrimSpace(r.Summary)) < 12 || strings.Contains(r.Summary, "\n") {
		bad("summary must be one line of at least 12 characters")
	}
	if !containsT(Testabilities, r.Testability) {
		bad("testability %q is not one of %v", r.Testability, Testabilities)
	}
	if len(strings.TrimSpace(r.Why)) < 8 {
		bad("why must say in a few words why the requirement is %s", r.Testability)
	}
	if len(r.Refs) == 0 {
		bad("refs must name at least one statement")
	}
	for _, ref := range r.Refs {
		if _, _, _, err := ParseRef(ref); err != nil {
			bad("%v", err)
		}
	}
	return errs
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsT[T comparable](list []T, s T) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
