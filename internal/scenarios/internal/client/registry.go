package client

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/suite"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Transports of a client run.
const (
	Stdio      = wire.TransportStdio      // the client starts the server (the stage's relay)
	Streamable = wire.TransportStreamable // the client is given a URL
)

// Env is what a scenario's stage configuration depends on.
type Env struct {
	Version   spec.Version
	Transport wire.Transport
}

// Scenario is one way the stage plays the server for one launch of the
// client.
type Scenario struct {
	// Name is what MCP_CONFORMANCE_SCENARIO carries: an official suite
	// scenario name ("initialize", "sse-retry"), or an mcpcheck one
	// ("mcpcheck-server-requests"). For mcpcheck scenarios a scripted
	// client runs the generic flow (see Flow).
	Name string
	// Title says in one line what the stage does.
	Title string
	// Acts says what a scripted client does in the scenario, for the
	// reasons of checks that find it did not; "" means the generic flow.
	Acts string
	// Since and Until bound the versions it runs in; Eras limits it to an
	// era; Transports to "stdio" or "streamable" (nil: both).
	Since, Until spec.Version
	Eras         []spec.Era
	Transports   []wire.Transport
	// Stage configures the case. nil serves the reference server's
	// fixtures as they are. The runner sets Server.Versions to the run's
	// version unless Stage did.
	Stage func(env Env) stage.Config
	// URL picks the URL an HTTP client is given (nil: the streamable
	// endpoint); for the HTTP+SSE scenario it is the SSE endpoint.
	URL func(c *stage.Case) string
	// Context is MCP_CONFORMANCE_CONTEXT for the client (nil: unset).
	Context func(env Env, c *stage.Case) string
	// Done reports, while the client runs, that the scenario has seen all
	// it is about; the client is then given a moment to finish and
	// stopped. nil waits for the client to exit (or the case timeout).
	Done func(c *Case) bool
	// RidesOn lists the official scenarios a scripted client that refuses
	// this one is run as instead, first choice first, the stage still
	// playing this one (mcpcheck scenarios only; nil: the default rides,
	// see rides).
	RidesOn []string
	// RideCalls are the tool calls a client run as http-custom-headers is
	// asked to make (the toolCalls of MCP_CONFORMANCE_CONTEXT, the form
	// that official scenario gives them in); nil: each tool the scenario
	// adds to the stage, once, with arguments built from its inputSchema
	// (see Flow).
	RideCalls func(env Env) []RideCall
}

// RideCall is one tool call a client run as http-custom-headers makes.
type RideCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// The official scenarios mcpcheck scenarios ride on.
const (
	// rideInitialize: connect and list the tools.
	rideInitialize = "initialize"
	// rideEveryTool: connect, list the tools and call each one listed
	// (those its SDK does not drop as invalid), as Flow does on one page.
	rideEveryTool = "http-invalid-tool-headers"
	// rideToolCalls: connect, list the tools and make the tool calls
	// MCP_CONFORMANCE_CONTEXT lists (toolCalls).
	rideToolCalls = "http-custom-headers"
	// rideElicitation: declare elicitation (form mode), list the tools and
	// call one the stage does not have.
	rideElicitation = "elicitation-sep1034-client-defaults"
	// RideAuth: answer the 401 with the OAuth flow, list the tools, call
	// test-tool.
	RideAuth = "auth/metadata-default"
)

// rides is the official scenarios s rides on in env, first choice first
// (nil for an official scenario, which a scripted client knows): its own
// RidesOn, then, over HTTP, http-invalid-tool-headers (which calls every
// tool it lists, its own choice from the listing, as Flow does) and the
// tool calls of http-custom-headers (the scenario's own tools, by name),
// and last initialize. Official scenario names are HTTP ones; over stdio
// only initialize is tried.
func (s Scenario) rides(env Env) []string {
	if !strings.HasPrefix(s.Name, "mcpcheck-") {
		return nil
	}
	out := append([]string(nil), s.RidesOn...)
	if env.Transport == Streamable {
		out = append(out, rideEveryTool, rideToolCalls)
	}
	out = append(out, rideInitialize)
	seen := map[string]bool{}
	uniq := out[:0]
	for _, r := range out {
		if !seen[r] {
			seen[r] = true
			uniq = append(uniq, r)
		}
	}
	return uniq
}

// Flow is what a scripted client does in an mcpcheck scenario: connect,
// list the tools (following nextCursor to the end), call each tool once
// with arguments built from its inputSchema (required properties only,
// the first enum value or a type's simplest value), and exit. Official
// scenarios keep the official suite's flows.
const Flow = "connect, list every tool (all pages) and call each once, then exit"

func (s Scenario) acts() string {
	if s.Acts != "" {
		return s.Acts
	}
	return Flow
}

func (s Scenario) runsIn(v spec.Version, transport wire.Transport) bool {
	ok, _ := suite.Window{Since: s.Since, Until: s.Until, Eras: s.Eras, Transports: s.Transports}.Applies(v, transport)
	return ok
}

// Proof says how a check is shown to fire: run it against the reference
// client with a fault switch on (mcpcheck reference client --list-faults),
// in a version ("": the newest version the check applies to) and over a
// transport (Stdio, the default, or Streamable), and expect the outcome.
type Proof = suite.Proof

// Def declares one client check, once, for every version it may run in:
// the shared definition (suite.Def) whose body judges the recordings
// (T.Cases) of the scenarios it names (Def.Scenarios; nil: every scenario
// that ran in the check's version). IDs read "client/AREA/what", next to
// the server checks, and never change meaning (baselines list them).
// Unsupported makes the check run even for a client that does not speak
// the run's version (a 2026-07-28 run of a client that never sent
// anything of 2026-07-28): checks of how a client meets a server of a
// version it lacks. Every other check is n/a for such a client.
type Def = suite.Def[*T]

var (
	regMu       sync.Mutex
	regScens    = map[string]*Scenario{}
	regScenList []keyedScenario
)

// registry holds the client checks.
var registry = suite.NewRegistry[*T](clientRules)

// keyedScenario is a registered scenario with the place it was registered
// from (suite.Caller).
type keyedScenario struct {
	at suite.Place
	s  *Scenario
}

// clientRules are what the client registry accepts: IDs client/AREA/name
// filed under that catalog area, the two client transports, proofs on a
// reference client fault switch, and scenario names registered by the
// time the checks are first listed.
var clientRules = suite.Rules{
	Name:                 "client",
	Prefix:               "client/",
	AreaInID:             true,
	Transports:           []wire.Transport{Stdio, Streamable},
	ProofTransports:      []wire.Transport{Stdio, Streamable},
	ProofVersionOptional: true,
	KnownScenario:        func(name string) bool { return scenarioNamed(name) != nil },
	Root:                 "client",
}

// Register adds checks; area files call it from package-level vars, in
// this package and in its area sub-packages. A broken declaration, a
// duplicate ID or a registration after the first listing panics, and so
// does, at the first listing, a check naming a scenario nobody
// registered. Checks are listed in the order of the places that
// registered them (suite.Registry).
func Register(defs ...Def) bool { return registry.Register(defs...) }

// RegisterScenarios adds scenarios (from package-level vars, before the
// checks that name them are used).
func RegisterScenarios(ss ...Scenario) bool {
	at := suite.Caller(clientRules.Root)
	regMu.Lock()
	defer regMu.Unlock()
	for _, s := range ss {
		s := s
		if s.Name == "" || s.Title == "" {
			panic(fmt.Sprintf("client: scenario %q needs a name and a title", s.Name))
		}
		if regScens[s.Name] != nil {
			panic(fmt.Sprintf("client: scenario %q registered twice", s.Name))
		}
		regScens[s.Name] = &s
		regScenList = append(regScenList, keyedScenario{at, &s})
	}
	return true
}

// Checks returns the registered checks in listing order and freezes the
// registry. It panics when a check names a scenario nobody registered.
func Checks() []Def { return registry.Checks() }

// Lookup returns the registered check with the ID id.
func Lookup(id string) (Def, bool) { return registry.Lookup(id) }

// Scenarios returns the registered scenarios in the order of the places
// that registered them, as Checks.
func Scenarios() []Scenario {
	regMu.Lock()
	defer regMu.Unlock()
	list := append([]keyedScenario(nil), regScenList...)
	sort.SliceStable(list, func(i, j int) bool { return list[i].at.Before(list[j].at) })
	out := make([]Scenario, len(list))
	for i, s := range list {
		out[i] = *s.s
	}
	return out
}

func scenarioNamed(name string) *Scenario {
	regMu.Lock()
	defer regMu.Unlock()
	return regScens[name]
}

// CheckedRequirements maps every requirement a client check cites to the
// checks citing it: the "checked" side of client coverage.
func CheckedRequirements() map[string][]string { return registry.CheckedRequirements() }

// Exclusions maps client-side MUST/SHOULD requirements client coverage
// counts (catalog.CoverageCounts) that have no client check to the written
// reason why.
var Exclusions = map[string]string{}

// Exclude adds reasons to Exclusions; area files call it from init.
func Exclude(reasons map[string]string) {
	for k, v := range reasons {
		if _, dup := Exclusions[k]; dup {
			panic("client: exclusion of " + k + " written twice")
		}
		Exclusions[k] = v
	}
}

func contains(ss []string, s string) bool { return slices.Contains(ss, s) }
