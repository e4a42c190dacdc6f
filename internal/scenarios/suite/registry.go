package suite

import (
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Rules say what one role's registry accepts and how it labels its
// checks.
type Rules struct {
	// Name names the registry in its panics ("scenarios", "client").
	Name string
	// Prefix is what every ID starts with ("client/", "authserver/"; ""
	// for none); every ID has the form PREFIX AREA/name, or PREFIX name
	// when the role files no areas (NoArea).
	Prefix string
	// AreaInID makes the ID's first segment after Prefix the check's area
	// (client/AREA/name).
	AreaInID bool
	// NoArea: the role's checks are filed under no catalog area (and get
	// no area label).
	NoArea bool
	// Transports are the names Def.Transports may use.
	Transports []wire.Transport
	// Modes labels each check active or passive (Mode).
	Modes bool
	// ProofTransports are the names Proof.Transport may use besides "".
	ProofTransports []wire.Transport
	// ProofVersionOptional lets a proof leave its version empty.
	ProofVersionOptional bool
	// ProofProxies lets a proof name a proxy mode instead of a fault.
	ProofProxies bool
	// KnownScenario, when set, is asked when the registry freezes (the
	// first Checks) about every name in Def.Scenarios: a check naming a
	// scenario nobody registered panics then (scenarios register from
	// package-level vars too, in any file order).
	KnownScenario func(name string) bool
	// Root is the directory name of the role's content package, which
	// the places of its registrations are named relative to (see Caller).
	Root string
}

// Registry holds one role's checks. Area files register from
// package-level vars, in the content package or its area sub-packages:
//
//	var _ = Register(Def{ID: "ping/empty-result", ...})
//
// The checks are listed in the order of the places that registered them
// (Place: file, then line; see Caller), whatever order Go initialized the
// packages and vars in. A duplicate ID, a missing field, an unknown area,
// version, transport or label, or registration after the registry was
// frozen (the first listing) panics, so a broken registry never builds a
// suite.
type Registry[T any] struct {
	rules  Rules
	mu     sync.Mutex
	defs   []Def[T]
	places []Place // of defs, until the registry is frozen
	ids    map[string]int
	frozen bool
}

// NewRegistry returns an empty registry that keeps rules.
func NewRegistry[T any](rules Rules) *Registry[T] {
	return &Registry[T]{rules: rules, ids: map[string]int{}}
}

// Register adds checks to the registry; it panics on a broken
// declaration (see Registry) and returns true, for package-level vars.
func (r *Registry[T]) Register(defs ...Def[T]) bool {
	at := Caller(r.rules.Root)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.frozen {
		panic(r.rules.Name + ": Register after the registry was frozen; register checks from package-level vars")
	}
	for _, d := range defs {
		if err := r.Validate(d); err != nil {
			panic(err)
		}
		if _, dup := r.ids[d.ID]; dup {
			panic(fmt.Sprintf("%s: check %q registered twice", r.rules.Name, d.ID))
		}
		r.ids[d.ID] = len(r.defs)
		var labels []string
		if !r.rules.NoArea {
			labels = append(labels, Area(d.Area))
		}
		labels = append(labels, d.Labels...)
		for _, tr := range d.Transports {
			labels = append(labels, Transport(string(tr)))
		}
		if r.rules.Modes {
			if d.Passive {
				labels = append(labels, Mode("passive"))
			} else {
				labels = append(labels, Mode("active"))
			}
		}
		d.Labels = labels
		r.defs = append(r.defs, d)
		r.places = append(r.places, at)
	}
	return true
}

// Validate says what is wrong with d by the registry's rules (nil when
// nothing is). It does not look for duplicates.
func (r *Registry[T]) Validate(d Def[T]) error {
	n := r.rules.Name
	form := r.rules.Prefix + "AREA/name"
	if r.rules.NoArea {
		form = r.rules.Prefix + "name"
	}
	rest, prefixed := strings.CutPrefix(d.ID, r.rules.Prefix)
	switch {
	case !prefixed || rest == "" || (!r.rules.NoArea && !strings.Contains(rest, "/")):
		return fmt.Errorf("%s: check ID %q: use %s", n, d.ID, form)
	case d.Title == "":
		return fmt.Errorf("%s: check %q has no title", n, d.ID)
	case len(d.Requirements) == 0:
		return fmt.Errorf("%s: check %q cites no requirement", n, d.ID)
	case d.Body == nil:
		return fmt.Errorf("%s: check %q has no body", n, d.ID)
	case r.rules.NoArea && d.Area != "":
		return fmt.Errorf("%s: check %q: this suite files no areas", n, d.ID)
	case !r.rules.NoArea && !KnownArea(d.Area):
		return fmt.Errorf("%s: check %q: %q is not a catalog area", n, d.ID, d.Area)
	case r.rules.AreaInID && strings.Split(rest, "/")[0] != d.Area:
		return fmt.Errorf("%s: check %q is filed under area %q; its ID must read %s%s/...", n, d.ID, d.Area, r.rules.Prefix, d.Area)
	}
	for _, l := range d.Labels {
		if !strings.Contains(l, ":") {
			return fmt.Errorf("%s: check %q: label %q does not come from the label helpers", n, d.ID, l)
		}
	}
	for _, v := range []spec.Version{d.Since, d.Until} {
		if v != "" && !v.Known() {
			return fmt.Errorf("%s: check %q: unknown version %q", n, d.ID, v)
		}
	}
	for _, tr := range d.Transports {
		if !slices.Contains(r.rules.Transports, tr) {
			return fmt.Errorf("%s: check %q: unknown transport %q", n, d.ID, tr)
		}
	}
	for _, p := range d.Proofs {
		switch {
		case !r.rules.ProofProxies && p.Fault == "":
			return fmt.Errorf("%s: check %q: a proof names a fault switch", n, d.ID)
		case r.rules.ProofProxies && (p.Fault == "") == (p.Proxy == ""):
			return fmt.Errorf("%s: check %q: a proof names a fault switch or a proxy mode", n, d.ID)
		case !r.rules.ProofProxies && (p.Proxy != "" || p.Good != ""):
			return fmt.Errorf("%s: check %q: a proof of this suite names no proxy mode", n, d.ID)
		case p.Want != reports.Fail && p.Want != reports.Warn:
			return fmt.Errorf("%s: check %q: a proof ends fail or warn, not %s", n, d.ID, p.Want)
		case (p.Version != "" || !r.rules.ProofVersionOptional) && !p.Version.Known():
			return fmt.Errorf("%s: check %q: proof version %q", n, d.ID, p.Version)
		case p.Transport != "" && !slices.Contains(r.rules.ProofTransports, p.Transport):
			return fmt.Errorf("%s: check %q: proof transport %q", n, d.ID, p.Transport)
		}
	}
	return nil
}

// Checks returns the registered checks in the order of the places that
// registered them and freezes the registry.
func (r *Registry[T]) Checks() []Def[T] {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.frozen {
		r.frozen = true
		order := make([]int, len(r.defs))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return r.places[order[a]].Before(r.places[order[b]]) })
		defs := make([]Def[T], len(r.defs))
		for i, j := range order {
			defs[i] = r.defs[j]
			r.ids[defs[i].ID] = i
		}
		r.defs, r.places = defs, nil
		for _, d := range r.defs {
			for _, s := range d.Scenarios {
				if r.rules.KnownScenario == nil || !r.rules.KnownScenario(s) {
					panic(fmt.Sprintf("%s: check %q names scenario %q, which is not registered", r.rules.Name, d.ID, s))
				}
			}
		}
	}
	return append([]Def[T](nil), r.defs...)
}

// Lookup returns the check with the ID id, or the check an old ID was
// renamed to (reports.CanonicalCheckID).
func (r *Registry[T]) Lookup(id string) (Def[T], bool) {
	defs := r.Checks()
	r.mu.Lock()
	i, ok := r.ids[id]
	if !ok {
		i, ok = r.ids[reports.CanonicalCheckID(id)]
	}
	r.mu.Unlock()
	if !ok {
		return Def[T]{}, false
	}
	return defs[i], true
}

// CheckedRequirements maps every requirement ID cited by a registered
// check to the IDs of the checks citing it, sorted: the "checked" side of
// coverage.
func (r *Registry[T]) CheckedRequirements() map[string][]string {
	out := map[string][]string{}
	for _, d := range r.Checks() {
		for _, id := range d.Requirements {
			out[id] = append(out[id], d.ID)
		}
	}
	for _, ids := range out {
		sort.Strings(ids)
	}
	return out
}
