package reports

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec"
)

// Change is one check whose outcome differs between two runs, or one
// requirement of a check broken in both runs that is broken in only one of
// them. Before is 0 for a check only the new run has, After is 0 for one
// only the old run has.
type Change struct {
	Key CheckKey `json:"key"`
	// Requirement, when set, makes the change about that one requirement of
	// a check that failed or warned in both runs: in NewFailures it is
	// broken now and was not before, in Fixed it was broken before and is
	// not now. Before and After are then the check's outcomes, which may
	// be the same.
	Requirement string  `json:"requirement,omitempty"`
	Title       string  `json:"title,omitempty"`
	Before      Outcome `json:"before,omitempty"`
	After       Outcome `json:"after,omitempty"`
	// Violated, on a change of outcome in NewFailures or Fixed, lists the
	// requirements the check broke (Check.BrokenRequirements): in the new
	// run for a new failure, in the old run for a fixed check.
	Violated []string `json:"violated,omitempty"`
}

// RequirementKey is the change's check key and requirement.
func (c Change) RequirementKey() RequirementKey {
	return RequirementKey{CheckKey: c.Key, Requirement: c.Requirement}
}

// Diff is what changed from one run to the next, each list in check-key
// order, then by requirement.
type Diff struct {
	// NewFailures are checks broken (fail, warn, error) now that were not
	// broken before, including checks new in this run that are broken;
	// and, one per requirement (Change.Requirement), the requirements a
	// check that failed or warned in both runs breaks now and did not
	// before: a second failure an old one would otherwise hide.
	NewFailures []Change `json:"newFailures,omitempty"`
	// Fixed are checks that pass now and were broken before; and, one per
	// requirement, those a check that failed or warned in both runs broke
	// before and does not now.
	Fixed []Change `json:"fixed,omitempty"`
	// Lost are checks judged before (pass, fail or warn) that are not
	// judged now (n/a, untestable, error, or absent from the new run, when
	// they are in Removed too): coverage lost, which can hide a failure as
	// well as a pass.
	Lost []Change `json:"lost,omitempty"`
	// LostVersions are the protocol versions in which the old run judged a
	// check and the new run has none at all: a whole version lost (its
	// checks are in Lost and Removed).
	LostVersions []spec.Version `json:"lostVersions,omitempty"`
	// Changed are the other outcome changes (fail to warn, untestable to
	// n/a, n/a to pass, ...).
	Changed []Change `json:"changed,omitempty"`
	// Added and Removed are checks only the new or only the old run has.
	Added   []Change `json:"added,omitempty"`
	Removed []Change `json:"removed,omitempty"`
}

// Empty reports whether the runs agree on every check.
func (d Diff) Empty() bool {
	return len(d.NewFailures)+len(d.Fixed)+len(d.Lost)+len(d.Changed)+len(d.Added)+len(d.Removed)+len(d.LostVersions) == 0
}

// Regressed reports whether the new run is worse than the old one in a way
// CI should fail on: a new failure, or a check or version the old run
// judged that the new one does not.
func (d Diff) Regressed() bool {
	return len(d.NewFailures)+len(d.Lost)+len(d.LostVersions) > 0
}

// Compare compares an older run with a newer one, matching checks by ID
// (an ID a check carried before it was renamed is its current one, see
// CanonicalCheckID), version and transport, and the requirements of a check that failed or
// warned in both runs by ID (Check.BrokenRequirements). A check in both
// runs with the same outcome and, when broken, the same broken
// requirements is not listed. A check the old run judged and the new one
// does not have is lost coverage as well as removed, and a version in
// which the new run has no check at all while the old one judged some is
// lost (LostVersions). Either run may be nil (it then has no checks).
func Compare(before, after *Run) Diff {
	var d Diff
	old := map[CheckKey]Check{}
	if before != nil {
		for _, c := range before.Checks {
			old[canonicalKey(c)] = c
		}
	}
	seen := map[CheckKey]bool{}
	if after != nil {
		for _, c := range after.Checks {
			k := canonicalKey(c)
			seen[k] = true
			o, had := old[k]
			ch := Change{Key: k, Title: c.Title, Before: o.Outcome, After: c.Outcome}
			switch {
			case !had:
				d.Added = append(d.Added, ch)
				if c.Broken() {
					ch.Violated = c.BrokenRequirements()
					d.NewFailures = append(d.NewFailures, ch)
				}
			case o.Outcome == c.Outcome:
			case c.Broken() && !o.Broken():
				ch.Violated = c.BrokenRequirements()
				d.NewFailures = append(d.NewFailures, ch)
			case c.Outcome == Pass && o.Broken():
				ch.Violated = o.BrokenRequirements()
				d.Fixed = append(d.Fixed, ch)
			case judged(o.Outcome) && !judged(c.Outcome):
				d.Lost = append(d.Lost, ch)
			default:
				d.Changed = append(d.Changed, ch)
			}
			if had && violates(o.Outcome) && violates(c.Outcome) {
				now, then := c.BrokenRequirements(), o.BrokenRequirements()
				for _, r := range now {
					if !slices.Contains(then, r) {
						d.NewFailures = append(d.NewFailures, Change{Key: k, Requirement: r, Title: c.Title, Before: o.Outcome, After: c.Outcome})
					}
				}
				for _, r := range then {
					if !slices.Contains(now, r) {
						d.Fixed = append(d.Fixed, Change{Key: k, Requirement: r, Title: c.Title, Before: o.Outcome, After: c.Outcome})
					}
				}
			}
		}
	}
	now := map[spec.Version]bool{}
	for k := range seen {
		now[k.Version] = true
	}
	lostVersion := map[spec.Version]bool{}
	for k, c := range old {
		if !seen[k] {
			ch := Change{Key: k, Title: c.Title, Before: c.Outcome}
			d.Removed = append(d.Removed, ch)
			if judged(c.Outcome) {
				d.Lost = append(d.Lost, ch)
				if !now[k.Version] && !lostVersion[k.Version] {
					lostVersion[k.Version] = true
					d.LostVersions = append(d.LostVersions, k.Version)
				}
			}
		}
	}
	sort.Slice(d.LostVersions, func(i, j int) bool { return d.LostVersions[i].Compare(d.LostVersions[j]) < 0 })
	for _, l := range []*[]Change{&d.NewFailures, &d.Fixed, &d.Lost, &d.Changed, &d.Added, &d.Removed} {
		sortChanges(*l)
	}
	return d
}

// canonicalKey is c's key under the ID the check carries now.
func canonicalKey(c Check) CheckKey {
	k := c.Key()
	k.ID = CanonicalCheckID(k.ID)
	return k
}

// violates reports whether an outcome is a judged break, whose requirements
// the check names (an error judged nothing).
func violates(o Outcome) bool { return o == Fail || o == Warn }

// judged reports whether an outcome is a verdict on the target.
func judged(o Outcome) bool { return o == Pass || o == Fail || o == Warn }

func sortChanges(cs []Change) {
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i].Key, cs[j].Key
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		if a.Transport != b.Transport {
			return a.Transport < b.Transport
		}
		return cs[i].Requirement < cs[j].Requirement
	})
}

func outcomeOrDash(o Outcome) string {
	if o == 0 {
		return "—"
	}
	return o.String()
}

var diffSections = []struct {
	title string
	get   func(Diff) []Change
	fixed bool
}{
	{"New failures", func(d Diff) []Change { return d.NewFailures }, false},
	{"Fixed", func(d Diff) []Change { return d.Fixed }, true},
	{"Lost coverage (judged before, not now)", func(d Diff) []Change { return d.Lost }, false},
	{"Changed", func(d Diff) []Change { return d.Changed }, false},
	{"Added checks", func(d Diff) []Change { return d.Added }, false},
	{"Removed checks", func(d Diff) []Change { return d.Removed }, false},
}

// WriteText renders the diff for a terminal, one section per kind of change,
// each line "check [version transport]: before -> after".
func (d Diff) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if d.Empty() {
		fmt.Fprintln(bw, "No changes: every check has the same outcome in both runs.")
	}
	if len(d.LostVersions) > 0 {
		fmt.Fprintf(bw, "Lost versions (judged before, not run now) (%d)\n", len(d.LostVersions))
		for _, v := range d.LostVersions {
			fmt.Fprintf(bw, "  %s: %s judged before, none run now\n", printable(string(v)), plural(d.lostIn(v), "check", "checks"))
		}
		fmt.Fprintln(bw)
	}
	for _, s := range diffSections {
		cs := s.get(d)
		if len(cs) == 0 {
			continue
		}
		fmt.Fprintf(bw, "%s (%d)\n", s.title, len(cs))
		for _, c := range cs {
			fmt.Fprintf(bw, "  %s: %s -> %s", printable(c.Key.String()), outcomeOrDash(c.Before), outcomeOrDash(c.After))
			if what := changeRequirements(c, s.fixed); what != "" {
				fmt.Fprintf(bw, "  %s", printable(what))
			}
			if c.Title != "" {
				fmt.Fprintf(bw, "  %s", printable(oneLine(c.Title)))
			}
			fmt.Fprintln(bw)
		}
		fmt.Fprintln(bw)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write diff: %w", err)
	}
	return nil
}

// WriteMarkdown renders the diff as Markdown: a line of totals, then a table
// per kind of change. Titles are escaped.
func (d Diff) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "### Changes since the previous run\n\n")
	if d.Empty() {
		fmt.Fprintf(bw, "No changes: every check has the same outcome in both runs.\n")
	} else {
		fmt.Fprintf(bw, "%d new failures · %d fixed · %d lost · %d changed · %d added · %d removed\n\n",
			len(d.NewFailures), len(d.Fixed), len(d.Lost), len(d.Changed), len(d.Added), len(d.Removed))
	}
	if len(d.LostVersions) > 0 {
		fmt.Fprintf(bw, "#### Lost versions (%d)\n\n", len(d.LostVersions))
		for _, v := range d.LostVersions {
			fmt.Fprintf(bw, "- **%s**: %s judged before, none run now\n", md(string(v)), plural(d.lostIn(v), "check", "checks"))
		}
		fmt.Fprintln(bw)
	}
	for _, s := range diffSections {
		cs := s.get(d)
		if len(cs) == 0 {
			continue
		}
		// New failures and fixed checks say which requirements changed.
		byReq := s.title == diffSections[0].title || s.fixed
		fmt.Fprintf(bw, "#### %s (%d)\n\n| Check | Version | Transport |", s.title, len(cs))
		if byReq {
			fmt.Fprintf(bw, " Requirements |")
		}
		fmt.Fprintf(bw, " Before | After | Title |\n|---|---|---|")
		if byReq {
			fmt.Fprintf(bw, "---|")
		}
		fmt.Fprintf(bw, "---|---|---|\n")
		for _, c := range cs {
			fmt.Fprintf(bw, "| %s | %s | %s |", mdCode(c.Key.ID), md(string(c.Key.Version)), md(c.Key.Transport))
			if byReq {
				reqs := mdCodes(c.Violated)
				switch {
				case c.Requirement != "" && s.fixed:
					reqs = mdCode(c.Requirement) + " no longer broken"
				case c.Requirement != "":
					reqs = "**" + mdCode(c.Requirement) + " newly broken**"
				}
				fmt.Fprintf(bw, " %s |", reqs)
			}
			fmt.Fprintf(bw, " %s | %s | %s |\n", outcomeOrDash(c.Before), outcomeOrDash(c.After), md(c.Title))
		}
		fmt.Fprintln(bw)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write diff: %w", err)
	}
	return nil
}

// lostIn counts the lost checks of version v.
func (d Diff) lostIn(v spec.Version) int {
	n := 0
	for _, c := range d.Lost {
		if c.Key.Version == v {
			n++
		}
	}
	return n
}

// changeRequirements says which requirements a change is about, for the
// text diff: "requirement R newly broken" (or "no longer broken", in the
// Fixed section) for a per-requirement change, "breaks A, B" ("broke" when
// fixed) for a change of outcome that names them.
func changeRequirements(c Change, fixed bool) string {
	switch {
	case c.Requirement != "" && fixed:
		return "requirement " + c.Requirement + " no longer broken"
	case c.Requirement != "":
		return "requirement " + c.Requirement + " newly broken"
	case len(c.Violated) > 0 && fixed:
		return "broke " + strings.Join(c.Violated, ", ")
	case len(c.Violated) > 0:
		return "breaks " + strings.Join(c.Violated, ", ")
	}
	return ""
}
