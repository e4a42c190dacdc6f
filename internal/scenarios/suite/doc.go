// Package suite is the check framework the suites share: the server suite
// (scenarios), the client suite (internal/scenarios/client) and the
// authorization-server suite (internal/scenarios/asuite) declare their checks with
// one definition type (Def: ID, area, title, requirements, version window
// and eras, transports, labels, scheduling attributes and proofs), keep
// them in one kind of registry (Registry: register, validate, list, look
// up, the requirements checked), decide with one applicability test
// whether a check runs in a version over a transport (Def.Applies), label
// their specs with one frozen label vocabulary (Area, Level, Version,
// Transport, Role, Fixture, Mode) and run them with one scheduler
// (RunSpecs).
//
// Check IDs follow one rule in every role: an ID is PREFIX AREA/name, where
// PREFIX is the role's ("" for the server suite; "client/" for the client
// suite, kept so that one report, baseline or matrix holds the two roles'
// checks apart), AREA is the catalog area the check is filed under
// (Def.Area), and the directory and file that declare the check read
// AREA.go or AREA_*.go with '-' written '_', a file in a sub-directory of
// the suite's package read as DIR_FILE (a transport-http check lives in
// transport_http*.go or transport/http*.go). The authorization-server suite files no areas: its
// IDs are authserver/name. A check renamed to follow the rule keeps its
// old ID in the alias table of reports.CanonicalCheckID, through which
// baselines, run comparisons, matrices, Registry.Lookup and the runners'
// Only resolve it; TestCheckIDsAgreeWithAreaAndFile holds the rule.
//
// What differs between the roles stays in their packages: the T a check
// body gets (Def's type parameter), the client's scenarios, how a target
// or a client is started, and what a role's registry accepts (Rules).
// This package imports none of the content packages; they import it.
package suite
