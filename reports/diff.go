package reports

import (
	"bufio"
	"fmt"
	"io"
	"sort"
)

// Change is one check whose outcome differs between two runs. Before is 0
// for a check only the new run has, After is 0 for one only the old run has.
type Change struct {
	Key    CheckKey `json:"key"`
	Title  string   `json:"title,omitempty"`
	Before Outcome  `json:"before,omitempty"`
	After  Outcome  `json:"after,omitempty"`
}

// Diff is what changed from one run to the next, each list in check-key
// order.
type Diff struct {
	// NewFailures are checks broken (fail, warn, error) now that were not
	// broken before, including checks new in this run that are broken.
	NewFailures []Change `json:"newFailures,omitempty"`
	// Fixed are checks that pass now and were broken before.
	Fixed []Change `json:"fixed,omitempty"`
	// Lost are checks judged before (pass, fail or warn) that are not
	// judged now (n/a, untestable, error): coverage lost, which can hide a
	// failure as well as a pass.
	Lost []Change `json:"lost,omitempty"`
	// Changed are the other outcome changes (fail to warn, untestable to
	// n/a, n/a to pass, ...).
	Changed []Change `json:"changed,omitempty"`
	// Added and Removed are checks only the new or only the old run has.
	Added   []Change `json:"added,omitempty"`
	Removed []Change `json:"removed,omitempty"`
}

// Empty reports whether the runs agree on every check.
func (d Diff) Empty() bool {
	return len(d.NewFailures)+len(d.Fixed)+len(d.Lost)+len(d.Changed)+len(d.Added)+len(d.Removed) == 0
}

// Compare compares an older run with a newer one, matching checks by ID,
// version and transport. A check in both runs with the same outcome is not
// listed. Either run may be nil (it then has no checks).
func Compare(before, after *Run) Diff {
	var d Diff
	old := map[CheckKey]Check{}
	if before != nil {
		for _, c := range before.Checks {
			old[c.Key()] = c
		}
	}
	seen := map[CheckKey]bool{}
	if after != nil {
		for _, c := range after.Checks {
			k := c.Key()
			seen[k] = true
			o, had := old[k]
			ch := Change{Key: k, Title: c.Title, Before: o.Outcome, After: c.Outcome}
			switch {
			case !had:
				d.Added = append(d.Added, ch)
				if c.Broken() {
					d.NewFailures = append(d.NewFailures, ch)
				}
			case o.Outcome == c.Outcome:
			case c.Broken() && !o.Broken():
				d.NewFailures = append(d.NewFailures, ch)
			case c.Outcome == Pass && o.Broken():
				d.Fixed = append(d.Fixed, ch)
			case judged(o.Outcome) && !judged(c.Outcome):
				d.Lost = append(d.Lost, ch)
			default:
				d.Changed = append(d.Changed, ch)
			}
		}
	}
	for k, c := range old {
		if !seen[k] {
			d.Removed = append(d.Removed, Change{Key: k, Title: c.Title, Before: c.Outcome})
		}
	}
	for _, l := range []*[]Change{&d.NewFailures, &d.Fixed, &d.Lost, &d.Changed, &d.Added, &d.Removed} {
		sortChanges(*l)
	}
	return d
}

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
		return a.Transport < b.Transport
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
}{
	{"New failures", func(d Diff) []Change { return d.NewFailures }},
	{"Fixed", func(d Diff) []Change { return d.Fixed }},
	{"Lost coverage (judged before, not now)", func(d Diff) []Change { return d.Lost }},
	{"Changed", func(d Diff) []Change { return d.Changed }},
	{"Added checks", func(d Diff) []Change { return d.Added }},
	{"Removed checks", func(d Diff) []Change { return d.Removed }},
}

// WriteText renders the diff for a terminal, one section per kind of change,
// each line "check [version transport]: before -> after".
func (d Diff) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if d.Empty() {
		fmt.Fprintln(bw, "No changes: every check has the same outcome in both runs.")
	}
	for _, s := range diffSections {
		cs := s.get(d)
		if len(cs) == 0 {
			continue
		}
		fmt.Fprintf(bw, "%s (%d)\n", s.title, len(cs))
		for _, c := range cs {
			fmt.Fprintf(bw, "  %s: %s -> %s", printable(c.Key.String()), outcomeOrDash(c.Before), outcomeOrDash(c.After))
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
	for _, s := range diffSections {
		cs := s.get(d)
		if len(cs) == 0 {
			continue
		}
		fmt.Fprintf(bw, "#### %s (%d)\n\n| Check | Version | Transport | Before | After | Title |\n|---|---|---|---|---|---|\n", s.title, len(cs))
		for _, c := range cs {
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s |\n", mdCode(c.Key.ID), md(string(c.Key.Version)), md(c.Key.Transport),
				outcomeOrDash(c.Before), outcomeOrDash(c.After), md(c.Title))
		}
		fmt.Fprintln(bw)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write diff: %w", err)
	}
	return nil
}
