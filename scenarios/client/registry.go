package client

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/harness/stage"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/scenarios"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Transports of a client run.
const (
	Stdio      = "stdio"      // the client starts the server (the stage's relay)
	Streamable = "streamable" // the client is given a URL
)

// Env is what a scenario's stage configuration depends on.
type Env struct {
	Version   spec.Version
	Transport string
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
	Transports   []string
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
	// rideAuth: answer the 401 with the OAuth flow, list the tools, call
	// test-tool.
	rideAuth = scAuthDefault
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

func (s Scenario) runsIn(v spec.Version, transport string) bool {
	if s.Since != "" && v.Compare(s.Since) < 0 || s.Until != "" && v.Compare(s.Until) > 0 {
		return false
	}
	if len(s.Eras) > 0 && !containsEra(s.Eras, v.Era()) {
		return false
	}
	return len(s.Transports) == 0 || contains(s.Transports, transport)
}

// Proof says how a check is shown to fire: run it against the reference
// client with a fault switch on, in a version and over a transport, and
// expect the outcome.
type Proof struct {
	// Fault names a reference client fault switch
	// (mcpcheck reference client --list-faults).
	Fault string
	// Version to run; "" means the newest version the check applies to.
	Version spec.Version
	// Transport is Stdio (the default) or Streamable.
	Transport string
	// Want is reports.Fail for a MUST, reports.Warn for a SHOULD.
	Want reports.Outcome
}

// Def declares one client check, once, for every version it may run in.
type Def struct {
	// ID is stable and unique: "client/AREA/what" reads in reports next to
	// the server checks; IDs never change meaning (baselines list them).
	ID    string
	Title string
	// Area is the catalog area (its area label).
	Area string
	// Requirements are the client-side catalog IDs the check enforces;
	// their levels decide fail or warn and their windows gate it.
	Requirements []string
	// Scenarios names the scenarios whose recordings the check judges; nil
	// means every scenario that ran in the check's version.
	Scenarios []string
	// Since, Until, Eras and Transports narrow further than the
	// requirements' windows.
	Since, Until spec.Version
	Eras         []spec.Era
	Transports   []string
	// Judge judges the recordings (T.Cases) and ends in an outcome.
	Judge func(t *T)
	// Proofs show the check fires; Unprovable says why there is none.
	Proofs     []Proof
	Unprovable string
	// Labels are further labels (scenarios.Fixture and the like).
	Labels []string
	// Unsupported makes the check run even for a client that does not
	// speak the run's version (a 2026-07-28 run of a client that never sent
	// anything of 2026-07-28): checks of how a client meets a server of a
	// version it lacks. Every other check is n/a for such a client.
	Unsupported bool
}

var (
	regMu       sync.Mutex
	regDefs     []Def
	regIDs      = map[string]bool{}
	regScens    = map[string]*Scenario{}
	regScenList []*Scenario
	regFrozen   bool
)

// Register adds checks; area files call it from package-level vars. A
// duplicate ID, a missing field, an unknown area or scenario name, or a
// late registration panics.
func Register(defs ...Def) bool {
	regMu.Lock()
	defer regMu.Unlock()
	if regFrozen {
		panic("client: Register after the registry was frozen; register checks from package-level vars")
	}
	for _, d := range defs {
		if err := d.validate(); err != nil {
			panic(err)
		}
		if regIDs[d.ID] {
			panic(fmt.Sprintf("client: check %q registered twice", d.ID))
		}
		regIDs[d.ID] = true
		d.Labels = append([]string{scenarios.Area(d.Area)}, d.Labels...)
		regDefs = append(regDefs, d)
	}
	return true
}

// RegisterScenarios adds scenarios (from package-level vars, before the
// checks that name them are used).
func RegisterScenarios(ss ...Scenario) bool {
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
		regScenList = append(regScenList, &s)
	}
	return true
}

func (d Def) validate() error {
	switch {
	case !strings.HasPrefix(d.ID, "client/") || strings.Count(d.ID, "/") < 2:
		return fmt.Errorf("client: check ID %q: use client/AREA/name", d.ID)
	case d.Title == "":
		return fmt.Errorf("client: check %q has no title", d.ID)
	case len(d.Requirements) == 0:
		return fmt.Errorf("client: check %q cites no requirement", d.ID)
	case d.Judge == nil:
		return fmt.Errorf("client: check %q has no judge", d.ID)
	case strings.Split(d.ID, "/")[1] != d.Area:
		return fmt.Errorf("client: check %q is filed under area %q; its ID must read client/%s/...", d.ID, d.Area, d.Area)
	}
	for _, v := range []spec.Version{d.Since, d.Until} {
		if v != "" && !v.Known() {
			return fmt.Errorf("client: check %q: unknown version %q", d.ID, v)
		}
	}
	for _, tr := range d.Transports {
		if tr != Stdio && tr != Streamable {
			return fmt.Errorf("client: check %q: unknown transport %q", d.ID, tr)
		}
	}
	for _, p := range d.Proofs {
		if p.Want != reports.Fail && p.Want != reports.Warn {
			return fmt.Errorf("client: check %q: a proof must expect fail or warn, not %s", d.ID, p.Want)
		}
		if p.Version != "" && !p.Version.Known() {
			return fmt.Errorf("client: check %q: proof version %q", d.ID, p.Version)
		}
	}
	scenarios.Area(d.Area) // panics on an unknown area
	return nil
}

// Checks returns the registered checks in registration order and freezes
// the registry. It panics when a check names a scenario nobody registered.
func Checks() []Def {
	regMu.Lock()
	defer regMu.Unlock()
	if !regFrozen {
		regFrozen = true
		for _, d := range regDefs {
			for _, s := range d.Scenarios {
				if regScens[s] == nil {
					panic(fmt.Sprintf("client: check %q names scenario %q, which is not registered", d.ID, s))
				}
			}
		}
	}
	return append([]Def(nil), regDefs...)
}

// Scenarios returns the registered scenarios in registration order.
func Scenarios() []Scenario {
	regMu.Lock()
	defer regMu.Unlock()
	out := make([]Scenario, len(regScenList))
	for i, s := range regScenList {
		out[i] = *s
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

// Exclusions maps wire-testable client-side MUST/SHOULD requirements that
// have no client check to the written reason why.
var Exclusions = map[string]string{}

// exclude adds reasons to Exclusions; area files call it from init.
func exclude(reasons map[string]string) {
	for k, v := range reasons {
		if _, dup := Exclusions[k]; dup {
			panic("client: exclusion of " + k + " written twice")
		}
		Exclusions[k] = v
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func containsEra(es []spec.Era, e spec.Era) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}
