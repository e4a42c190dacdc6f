package scenarios

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// Def declares one check, once, for every version it may run in. The
// registry is static: `mcpcheck spec coverage` counts checks from it without
// running anything, and the suites are built from it.
type Def struct {
	// ID is stable and unique: "AREA/what-is-checked" ("base/unknown-method").
	// Reports key results by ID, version and transport, and baselines list
	// IDs, so an ID never changes meaning.
	ID string
	// Title says in one line what the target is held to.
	Title string
	// Requirements are the catalog IDs the check enforces. Their levels give
	// the verdict (MUST broken: fail; SHOULD broken: warn) and their version
	// windows gate the check (outside every window: n/a).
	Requirements []string
	// Area is the catalog area the check is filed under (its area label).
	Area string
	// Labels are further labels: Fixture(...), Transport(...).
	Labels []string

	// Since and Until narrow the versions further than the requirements'
	// windows do (for example batch rejection from 2025-06-18 although the
	// cited requirement holds in every version). Zero means no bound.
	Since, Until spec.Version
	// Eras limits the check to the stateful or the stateless era; nil is
	// both.
	Eras []spec.Era
	// Transports limits the check to targets reached over these transports
	// ("stdio", "streamable", "stateless", "sse"); nil is any.
	Transports []string
	// Unsupported makes the check run even when the server does not speak
	// the version (version-negotiation checks); others are n/a then.
	Unsupported bool
	// Passive checks judge what the target sent during the version's other
	// checks (T.Observed); they run after the active ones.
	Passive bool
	// Exclusive checks run alone, never at the same time as another check
	// (Config.Parallel): checks that change state every session of the
	// server shares (its lists, a log level, what it announces to
	// listeners) or that watch a channel where the traffic of other
	// sessions could show (a subscriptions/listen stream). When in doubt,
	// a check is exclusive.
	Exclusive bool
	// Isolated checks run alongside every other check, exclusive ones
	// included, and start first: checks whose traffic stays on sessions of
	// their own, that change nothing another session sees (no list, no
	// log level, nothing announced to others) and whose verdict rests on
	// what their own requests caused on those sessions alone, so that
	// nothing another check does can change it (a silence window after
	// the check's own exchange, above all). An isolated check is never
	// exclusive.
	Isolated bool
	// IsolatedIn makes an Exclusive check Isolated in the eras it names:
	// for a check whose shared effect exists in one era only (a log level
	// set with logging/setLevel is per request in 2026-07-28).
	IsolatedIn []spec.Era
	// Group names checks that never run at the same time as one another,
	// though each may overlap checks outside the group: checks that share
	// server-wide state only among themselves ("tasks": the server's task
	// store, tasks/list).
	Group string

	// Body is the check. It gets a T (a harness.Check plus the target) and
	// ends in an outcome through T's methods. Body must not keep T.
	Body func(t *T)

	// Proofs show the check fires (TestProofs runs them;
	// TestEveryCheckIsProvenToFire requires one, or Unprovable).
	Proofs []Proof
	// Unprovable says why no proof can exist.
	Unprovable string
}

// Proof says how a check is shown to fire: against the reference server
// with a fault switch on (or behind a mode of the tests' misbehaving
// loopback proxy), in a version and over a transport, it ends in Want.
type Proof struct {
	// Fault is a reference server fault switch
	// (mcpcheck reference server --list-faults).
	Fault string
	// Proxy is, instead, a mode of the misbehaving proxy of the tests
	// (transport_proxy_test.go); Good, when set, is a faithful mode the
	// check must pass behind as well ("plain" is the proxy that changes
	// nothing).
	Proxy, Good string
	// Version is the version to run.
	Version spec.Version
	// Transport is "stdio" (the default), "streamable" or "sse".
	Transport string
	// Also names active checks run before a passive one, so that the run
	// holds the traffic it judges.
	Also []string
	// Want is reports.Fail for a MUST, reports.Warn for a SHOULD.
	Want reports.Outcome
}

var (
	regMu     sync.Mutex
	regDefs   []Def
	regIDs    = map[string]bool{}
	regFrozen bool
)

// Register adds checks to the registry. Area files call it from a
// package-level var:
//
//	var _ = Register(Def{ID: "ping/empty-result", ...})
//
// A duplicate ID, a missing field, an unknown area, a bad label or
// registration after the registry was frozen (the first run or listing)
// panics, so a broken registry never builds a suite.
func Register(defs ...Def) bool {
	regMu.Lock()
	defer regMu.Unlock()
	if regFrozen {
		panic("scenarios: Register after the registry was frozen; register checks from package-level vars")
	}
	for _, d := range defs {
		if err := d.validate(); err != nil {
			panic(err)
		}
		if regIDs[d.ID] {
			panic(fmt.Sprintf("scenarios: check %q registered twice", d.ID))
		}
		regIDs[d.ID] = true
		d.Labels = append([]string{Area(d.Area)}, d.Labels...)
		for _, tr := range d.Transports {
			d.Labels = append(d.Labels, Transport(tr))
		}
		if d.Passive {
			d.Labels = append(d.Labels, Mode("passive"))
		} else {
			d.Labels = append(d.Labels, Mode("active"))
		}
		regDefs = append(regDefs, d)
	}
	return true
}

func (d Def) validate() error {
	switch {
	case d.ID == "" || !strings.Contains(d.ID, "/"):
		return fmt.Errorf("scenarios: check ID %q: use AREA/name", d.ID)
	case d.Title == "":
		return fmt.Errorf("scenarios: check %q has no title", d.ID)
	case len(d.Requirements) == 0:
		return fmt.Errorf("scenarios: check %q cites no requirement", d.ID)
	case d.Body == nil:
		return fmt.Errorf("scenarios: check %q has no body", d.ID)
	}
	for _, l := range d.Labels {
		if !strings.Contains(l, ":") {
			return fmt.Errorf("scenarios: check %q: label %q does not come from the label helpers", d.ID, l)
		}
	}
	for _, v := range []spec.Version{d.Since, d.Until} {
		if v != "" && !v.Known() {
			return fmt.Errorf("scenarios: check %q: unknown version %q", d.ID, v)
		}
	}
	for _, tr := range d.Transports {
		if !transportNames[tr] {
			return fmt.Errorf("scenarios: check %q: unknown transport %q", d.ID, tr)
		}
	}
	for _, p := range d.Proofs {
		switch {
		case (p.Fault == "") == (p.Proxy == ""):
			return fmt.Errorf("scenarios: check %q: a proof names a fault switch or a proxy mode", d.ID)
		case p.Want != reports.Fail && p.Want != reports.Warn:
			return fmt.Errorf("scenarios: check %q: a proof ends fail or warn, not %s", d.ID, p.Want)
		case !p.Version.Known():
			return fmt.Errorf("scenarios: check %q: proof version %q", d.ID, p.Version)
		case p.Transport != "" && p.Transport != "stdio" && p.Transport != "streamable" && p.Transport != "sse":
			return fmt.Errorf("scenarios: check %q: proof transport %q", d.ID, p.Transport)
		}
	}
	Area(d.Area) // panics on an unknown area
	return nil
}

// Checks returns the registered checks in registration order (file order,
// then order within the file) and freezes the registry.
func Checks() []Def {
	regMu.Lock()
	defer regMu.Unlock()
	regFrozen = true
	return append([]Def(nil), regDefs...)
}

// CheckedRequirements maps every requirement ID cited by a registered check
// to the IDs of the checks citing it: the "checked" side of coverage.
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

// inWindow reports whether the check may run in v, by its own bounds and
// era (the requirements' windows are the harness's business: a check all
// of whose requirements are out of force is n/a there).
func (d Def) inWindow(v spec.Version) (bool, string) {
	if d.Since != "" && v.Compare(d.Since) < 0 {
		return false, fmt.Sprintf("the check applies from %s; this run speaks %s", d.Since, v)
	}
	if d.Until != "" && v.Compare(d.Until) > 0 {
		return false, fmt.Sprintf("the check applies up to %s; this run speaks %s", d.Until, v)
	}
	if len(d.Eras) > 0 {
		ok := false
		for _, e := range d.Eras {
			ok = ok || e == v.Era()
		}
		if !ok {
			return false, fmt.Sprintf("the check is about the %s era; %s is %s", erasText(d.Eras), v, v.Era())
		}
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
