package fuzz

import (
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
)

// The names of the fuzzer's internal packages that its users (cmd/mcpcheck
// and its tests) need, in this package.

// Target is something to fuzz: it starts connections (conn.Target).
type Target = conn.Target

// ExecTarget starts a stdio server process per connection (conn.ExecTarget).
type ExecTarget = conn.ExecTarget

// CommandTarget splits a command line on spaces (quotes are honoured) into an
// ExecTarget, as "mcpcheck fuzz --stdio CMD" does (conn.CommandTarget).
func CommandTarget(cmdline string) (*ExecTarget, error) { return conn.CommandTarget(cmdline) }

// HTTPTarget is a server reached over HTTP (conn.HTTPTarget).
type HTTPTarget = conn.HTTPTarget

// Input is one fuzz case (mutate.Input).
type Input = mutate.Input

// Mutator is a named, deterministic transformation of a base message into
// an Input (mutate.Mutator).
type Mutator = mutate.Mutator

// HTTPMutator is a mutator of hostile HTTP requests (mutate.HTTPMutator).
type HTTPMutator = mutate.HTTPMutator

// Tool is what the campaign learned about one of the target's tools
// (mutate.Tool; CallableTools filters them).
type Tool = mutate.Tool

// Mutators returns every stream mutator (bytes, framing, json, protocol),
// sorted by name (mutate.Mutators).
func Mutators() []Mutator { return mutate.Mutators() }

// HTTPMutators returns every HTTP mutator, sorted by name (mutate.HTTPMutators).
func HTTPMutators() []HTTPMutator { return mutate.HTTPMutators() }

// MutatorNames returns the names of every mutator, the http family
// included, sorted (mutate.MutatorNames).
func MutatorNames() []string { return mutate.MutatorNames() }

// ClientMutators returns the mutators of client campaigns over HTTP (http)
// or stdio, sorted by name (mutate.ClientMutators).
func ClientMutators(http bool) []Mutator { return mutate.ClientMutators(http) }

// ClientMutatorNames returns the names of every client campaign mutator
// (both transports), sorted (mutate.ClientMutatorNames).
func ClientMutatorNames() []string { return mutate.ClientMutatorNames() }

// LookupFamily returns the family of a mutator name ("json" for
// "json/null-id") (mutate.LookupFamily).
func LookupFamily(name string) string { return mutate.LookupFamily(name) }

// Observation is one thing an oracle noticed about the target
// (oracle.Observation).
type Observation = oracle.Observation

// LegacyVersion is the version a Config.NewestSpoken campaign falls back
// to when the target does not speak the stateless one (oracle.LegacyVersion).
const LegacyVersion = oracle.LegacyVersion
