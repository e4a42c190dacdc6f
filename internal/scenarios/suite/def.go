package suite

import (
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// Def declares one check, once, for every version it may run in. T is
// what the check's body gets from its role's runner (the server suite's
// *scenarios.T, the client suite's *client.T, the authorization-server
// suite's *asuite.T). The registries are static: `mcpcheck spec coverage`
// counts checks from them without running anything, and the suites are
// built from them.
type Def[T any] struct {
	// ID is stable and unique: "AREA/what-is-checked" ("base/unknown-method",
	// "client/base/id-unique", "authserver/metadata"). Reports key results
	// by ID, version and transport, and baselines list IDs, so an ID never
	// changes meaning.
	ID string
	// Title says in one line what the target is held to.
	Title string
	// Requirements are the catalog IDs the check enforces. Their levels give
	// the verdict (MUST broken: fail; SHOULD broken: warn) and their version
	// windows gate the check (outside every window: n/a).
	Requirements []string
	// Area is the catalog area the check is filed under (its area label);
	// empty only where the role's Rules allow it.
	Area string
	// Labels are further labels: Fixture(...) and the like. The registry
	// adds the area, transport and (where the role has them) mode labels.
	Labels []string

	// Since and Until narrow the versions further than the requirements'
	// windows do (for example batch rejection from 2025-06-18 although the
	// cited requirement holds in every version). Zero means no bound.
	Since, Until spec.Version
	// Eras limits the check to the stateful or the stateless era; nil is
	// both.
	Eras []spec.Era
	// Transports limits the check to runs over these transports (the
	// names the role's Rules.Transports allow); nil is any.
	Transports []wire.Transport
	// Unsupported makes the check run even when the peer does not speak
	// the version (version-negotiation checks); others are n/a then.
	Unsupported bool

	// Passive checks judge what the target sent during the version's other
	// checks; they run after the active ones (server suite).
	Passive bool
	// Exclusive checks run alone, never at the same time as another check
	// (but isolated ones): checks that change state every session of the
	// target shares or watch a channel where the traffic of other sessions
	// could show. When in doubt, a check is exclusive.
	Exclusive bool
	// Isolated checks run alongside every other check, exclusive ones
	// included, and start first: their traffic stays on sessions of their
	// own, they change nothing another session sees, and their verdict
	// rests on what their own requests caused. An isolated check is never
	// exclusive.
	Isolated bool
	// IsolatedIn makes an Exclusive check Isolated in the eras it names.
	IsolatedIn []spec.Era
	// Group names checks that never run at the same time as one another,
	// though each may overlap checks outside the group.
	Group string

	// Scenarios names the scenarios whose recordings the check judges
	// (client suite; nil: every scenario that ran in the check's version).
	Scenarios []string

	// Body is the check: it gets the role's T and ends in an outcome
	// through T's methods. Body must not keep T.
	Body func(t T)

	// Proofs show the check fires (each role's TestProofs runs them; its
	// TestEveryCheckIsProvenToFire requires one, or Unprovable).
	Proofs []Proof
	// Unprovable says why no proof can exist.
	Unprovable string
}

// Proof says how a check is shown to fire: against the role's reference
// peer with a fault switch on (or, for the server suite, behind a mode of
// the tests' misbehaving loopback proxy), in a version and over a
// transport, it ends in Want.
type Proof struct {
	// Fault is a fault switch of the reference peer (mcpcheck reference
	// server --list-faults, mcpcheck reference client --list-faults,
	// mcpcheck authserver --list-faults).
	Fault string
	// Proxy is, instead, a mode of the misbehaving proxy of the server
	// suite's tests; Good, when set, is a faithful mode the check must pass
	// behind as well ("plain" is the proxy that changes nothing).
	Proxy, Good string
	// Version is the version to run ("" where the role's Rules allow it:
	// the newest version the check applies to).
	Version spec.Version
	// Transport is the transport to run over ("" is the role's default).
	Transport wire.Transport
	// Also names active checks run before a passive one, so that the run
	// holds the traffic it judges.
	Also []string
	// Want is reports.Fail for a MUST, reports.Warn for a SHOULD.
	Want reports.Outcome
	// Quiet says the check decides only on a machine that keeps time to a
	// few milliseconds (a fixed rate told from jitter): on a busy one it
	// rightly stays undecided (untestable), so the proof cannot be held to
	// Want there. The client suite runs such proofs in the slow tier,
	// alone (TestQuietProofs), not in make test's crowd.
	Quiet bool
}

// Window is where a check (or a client scenario) runs: a version window,
// eras and transports, each empty for no bound.
type Window struct {
	Since, Until spec.Version
	Eras         []spec.Era
	Transports   []wire.Transport
}

// Window is the check's own window (the requirements' windows are the
// harness's business: a check all of whose requirements are out of force
// is n/a there).
func (d Def[T]) Window() Window {
	return Window{Since: d.Since, Until: d.Until, Eras: d.Eras, Transports: d.Transports}
}

// InWindow reports whether the check may run in v by its own bounds and
// eras, and why not.
func (d Def[T]) InWindow(v spec.Version) (bool, string) { return d.Window().InWindow(v) }

// Applies reports whether the check runs in version v over transport,
// and why not: its version window and eras, then its transports. What the
// peer declares (a capability, the versions it speaks) is judged by the
// role's runner and by the check itself.
func (d Def[T]) Applies(v spec.Version, transport wire.Transport) (bool, string) {
	return d.Window().Applies(v, transport)
}

// InWindow reports whether v is within the window's versions and eras,
// and why not.
func (w Window) InWindow(v spec.Version) (bool, string) {
	if w.Since != "" && v.Compare(w.Since) < 0 {
		return false, fmt.Sprintf("the check applies from %s; this run speaks %s", w.Since, v)
	}
	if w.Until != "" && v.Compare(w.Until) > 0 {
		return false, fmt.Sprintf("the check applies up to %s; this run speaks %s", w.Until, v)
	}
	if len(w.Eras) > 0 && !slices.Contains(w.Eras, v.Era()) {
		return false, fmt.Sprintf("the check is about the %s era; %s is %s", erasText(w.Eras), v, v.Era())
	}
	return true, ""
}

// Applies reports whether a run in version v over transport is within the
// window (InWindow, then the transports), and why not.
func (w Window) Applies(v spec.Version, transport wire.Transport) (bool, string) {
	if ok, why := w.InWindow(v); !ok {
		return false, why
	}
	if len(w.Transports) > 0 && !slices.Contains(w.Transports, transport) {
		return false, fmt.Sprintf("the check is about the %v transport; this run is over %s", w.Transports, transport)
	}
	return true, ""
}

func erasText(es []spec.Era) string {
	var s []string
	for _, e := range es {
		s = append(s, e.String())
	}
	return strings.Join(s, "/")
}

// SpecName is the name of the check's spec in version v: "[V] ID: title".
func (d Def[T]) SpecName(v spec.Version) string {
	return fmt.Sprintf("[%s] %s: %s", v, d.ID, d.Title)
}

// SpecLabels are the labels of the check's spec in version v, judging
// role: the version and role labels, the check's own (area, further
// labels, transports, mode) and the level of the strongest requirement
// in force in v (else of any version; none for MAY).
func (d Def[T]) SpecLabels(cat *catalog.Catalog, v spec.Version, role catalog.Role) []string {
	labels := append([]string{Version(v), Role(role)}, d.Labels...)
	lvl := StrongestLevel(cat, d.Requirements, v)
	if lvl == "" {
		lvl = StrongestLevel(cat, d.Requirements, "")
	}
	if lvl != "" && lvl != catalog.May {
		labels = append(labels, Level(lvl))
	}
	return labels
}

// StrongestLevel is the strongest level among the requirements in force
// in version v ("" for any version), "" when none is: what a check's
// level label says.
func StrongestLevel(cat *catalog.Catalog, requirements []string, v spec.Version) catalog.Level {
	best := catalog.Level("")
	rank := func(l catalog.Level) int {
		for i, x := range catalog.Levels {
			if x == l {
				return i
			}
		}
		return len(catalog.Levels)
	}
	for _, id := range requirements {
		rec, ok := cat.Get(id)
		if !ok || (v != "" && !rec.In(v)) {
			continue
		}
		if best == "" || rank(rec.Level) < rank(best) {
			best = rec.Level
		}
	}
	return best
}
