package reports

import (
	"fmt"
	"slices"
	"strings"
)

// notTestedGroups bounds how many checks NotTested names.
const notTestedGroups = 4

// NotTested says in words what a run could not test: how many checks
// ended untestable and, for the first few, which check in which versions
// and why ("1 check untestable: pagination/cursor-advances in 2025-11-25
// (every list fits one page)"). It is "" when nothing was untestable. It is
// what a headline of "incomplete" means, so reports print it beside it.
func NotTested(run *Run) string {
	type group struct {
		id       string
		versions []string
		reason   string
	}
	var groups []*group
	byID := map[string]*group{}
	n := 0
	for _, c := range run.Checks {
		if c.Outcome != Untestable {
			continue
		}
		n++
		g := byID[c.ID]
		if g == nil {
			g = &group{id: c.ID, reason: oneLine(c.Reason)}
			byID[c.ID] = g
			groups = append(groups, g)
		}
		if v := string(c.Version); v != "" && !slices.Contains(g.versions, v) {
			g.versions = append(g.versions, v)
		}
	}
	if n == 0 {
		return ""
	}
	var parts []string
	for i, g := range groups {
		if i == notTestedGroups {
			parts = append(parts, fmt.Sprintf("and %s more", plural(len(groups)-i, "check", "checks")))
			break
		}
		s := g.id
		if len(g.versions) > 0 {
			s += " in " + strings.Join(g.versions, ", ")
		}
		if g.reason != "" {
			s += " (" + clip(g.reason, 120) + ")"
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("%s untestable: %s", plural(n, "check", "checks"), strings.Join(parts, "; "))
}

// clip cuts s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
