package server

import (
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/suite"
)

// Def declares one server check, once, for every version it may run in:
// the shared definition (suite.Def) whose body gets a *T (a
// harness.Check plus the target). Proofs name reference server fault
// switches, or modes of the misbehaving loopback proxy of the tests
// (transport_proxy_test.go), with a known version and the transport
// "stdio" (the default), "streamable" or "sse".
type Def = suite.Def[*T]

// Proof says how a check is shown to fire (see suite.Proof).
type Proof = suite.Proof

// registry holds the server checks.
var registry = suite.NewRegistry[*T](serverRules)

// serverRules are what the server registry accepts: IDs AREA/name in a
// catalog area, the four transports, active and passive checks, proofs on
// a fault switch or a proxy mode in a known version.
var serverRules = suite.Rules{
	Name:            "scenarios",
	Transports:      []wire.Transport{wire.TransportStdio, wire.TransportStreamable, wire.TransportStateless, wire.TransportSSE},
	Modes:           true,
	ProofTransports: []wire.Transport{wire.TransportStdio, wire.TransportStreamable, wire.TransportSSE},
	ProofProxies:    true,
	Root:            "server",
}

// Register adds checks to the registry. Area files call it from a
// package-level var, in this package or in an area package under it
// (internal/scenarios/internal/server/AREA):
//
//	var _ = Register(Def{ID: "ping/empty-result", ...})
//
// A duplicate ID, a missing field, an unknown area, a bad label or
// registration after the registry was frozen (the first run or listing)
// panics, so a broken registry never builds a suite.
func Register(defs ...Def) bool { return registry.Register(defs...) }

// Checks returns the registered checks in the order of the places that
// registered them (file, then line; an area package's file read as
// DIR_FILE: see suite.Caller) and freezes the registry.
func Checks() []Def { return registry.Checks() }

// Lookup returns the registered check with the ID id.
func Lookup(id string) (Def, bool) { return registry.Lookup(id) }

// CheckedRequirements maps every requirement ID cited by a registered check
// to the IDs of the checks citing it: the "checked" side of coverage.
func CheckedRequirements() map[string][]string { return registry.CheckedRequirements() }
