// Package suite is the check framework the suites share: the server suite
// (scenarios), the client suite (scenarios/client) and the
// authorization-server suite (scenarios/asuite) declare their checks with
// one definition type (Def: ID, area, title, requirements, version window
// and eras, transports, labels, scheduling attributes and proofs), keep
// them in one kind of registry (Registry: register, validate, list, look
// up, the requirements checked), decide with one applicability test
// whether a check runs in a version over a transport (Def.Applies), label
// their specs with one frozen label vocabulary (Area, Level, Version,
// Transport, Role, Fixture, Mode) and run them with one scheduler
// (RunSpecs).
//
// What differs between the roles stays in their packages: the T a check
// body gets (Def's type parameter), the client's scenarios, how a target
// or a client is started, and what a role's registry accepts (Rules).
// This package imports none of the content packages; they import it.
package suite
