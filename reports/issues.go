package reports

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// Issue is one problem as reports show it first: a check broken the same
// way (the same outcome, the same broken requirements, baselined or not)
// in every version and transport where it broke, listed once, naming them
// all. The check's verdict in each of them is in Run.Checks.
type Issue struct {
	// Check is the check's ID; Title its title.
	Check string `json:"check"`
	Title string `json:"title,omitempty"`
	// Outcome is fail, warn or error.
	Outcome Outcome       `json:"outcome"`
	Level   catalog.Level `json:"level,omitempty"`
	Area    string        `json:"area,omitempty"`
	// Requirements are the requirements broken (Check.BrokenRequirements),
	// the same in every occurrence.
	Requirements []string `json:"requirements,omitempty"`
	// Baselined is set when the baseline expects every occurrence.
	Baselined bool `json:"baselined,omitempty"`
	// Unexpected are the requirements broken that the baseline entries
	// matching the check do not name (Check.Unexpected).
	Unexpected []string `json:"unexpected,omitempty"`
	// Where lists the version and transport of each occurrence, in run
	// order.
	Where []CheckKey `json:"where"`
	// Checks are the indices in Run.Checks of the occurrences, in the
	// order of Where; the first is the one reports show in detail.
	Checks []int `json:"checks"`
	// Differs, for each occurrence after the first, says whether what it
	// saw differs from the first beyond numbers (ids, durations): then
	// reports show its actual too.
	Differs []bool `json:"-"`
}

// Versions lists the occurrences as people read them: "2024-11-05,
// 2025-03-26 (stdio)", with the transport after each version when they
// differ ("2025-11-25 stdio, 2025-11-25 streamable").
func (is Issue) Versions() string {
	return whereString(is.Where)
}

func whereString(keys []CheckKey) string {
	trs := map[string]bool{}
	for _, k := range keys {
		trs[k.Transport] = true
	}
	var parts []string
	for _, k := range keys {
		v := string(k.Version)
		if v == "" {
			v = "(no version)"
		}
		if len(trs) > 1 && k.Transport != "" {
			v += " " + k.Transport
		}
		parts = append(parts, v)
	}
	s := strings.Join(parts, ", ")
	if len(trs) == 1 && len(keys) > 0 && keys[0].Transport != "" {
		s += " (" + keys[0].Transport + ")"
	}
	return s
}

// Issues groups the run's broken checks (fail, warn and error) into
// issues, most urgent first: what fails the run before what the baseline
// expects; within that failures, then warnings, then harness errors;
// then MUST before SHOULD; then in the order of the areas in the catalog,
// then by check ID.
func Issues(run *Run) []Issue {
	type groupKey struct {
		id, reqs, unexpected string
		outcome              Outcome
		baselined            bool
	}
	var out []Issue
	at := map[groupKey]int{}
	for i, c := range run.Checks {
		if !c.Broken() {
			continue
		}
		o := c.Outcome
		if !o.Valid() {
			o = Error
		}
		k := groupKey{id: c.ID, reqs: strings.Join(c.BrokenRequirements(), " "), unexpected: strings.Join(c.Unexpected, " "), outcome: o, baselined: c.Baselined}
		n, ok := at[k]
		if !ok {
			n = len(out)
			at[k] = n
			out = append(out, Issue{Check: c.ID, Title: c.Title, Outcome: o, Level: c.Level, Area: c.Area,
				Requirements: c.BrokenRequirements(), Baselined: c.Baselined, Unexpected: c.Unexpected})
		}
		is := &out[n]
		if len(is.Checks) > 0 {
			first := run.Checks[is.Checks[0]]
			is.Differs = append(is.Differs, sameShape(first.Actual) != sameShape(c.Actual) || sameShape(first.Reason) != sameShape(c.Reason))
		}
		is.Where = append(is.Where, c.Key())
		is.Checks = append(is.Checks, i)
	}
	rank := map[Outcome]int{Fail: 0, Warn: 1, Error: 2}
	sort.SliceStable(out, func(i, k int) bool {
		a, b := out[i], out[k]
		if a.Baselined != b.Baselined {
			return !a.Baselined
		}
		if rank[a.Outcome] != rank[b.Outcome] {
			return rank[a.Outcome] < rank[b.Outcome]
		}
		if a.Level != b.Level {
			return lessLevel(a.Level, b.Level)
		}
		if a.Area != b.Area {
			return lessArea(a.Area, b.Area)
		}
		return a.Check < b.Check
	})
	return out
}

// numbers matches what differs between two occurrences of one problem
// without making it another: ids, counts, durations, offsets.
var numbers = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// sameShape is s with its numbers blanked, to compare two occurrences.
func sameShape(s string) string { return numbers.ReplaceAllString(oneLine(s), "#") }

// issueCounts tallies issues per outcome, for the headline of the
// problems section: "2 failing, 5 warning checks".
func issueCounts(issues []Issue) (fail, warn, errs, baselined int) {
	for _, is := range issues {
		switch {
		case is.Baselined:
			baselined++
		case is.Outcome == Fail:
			fail++
		case is.Outcome == Warn:
			warn++
		default:
			errs++
		}
	}
	return
}

// UntestableGroup is one check left untestable in one or more versions,
// for the reason given (the same in all of them, but for numbers).
type UntestableGroup struct {
	Check  string
	Reason string
	Where  []CheckKey
}

// untestableGroups groups the untestable checks by check and reason,
// in run order.
func untestableGroups(run *Run) []UntestableGroup {
	var out []UntestableGroup
	at := map[[2]string]int{}
	for _, c := range run.Checks {
		if c.Outcome != Untestable {
			continue
		}
		k := [2]string{c.ID, sameShape(c.Reason)}
		n, ok := at[k]
		if !ok {
			n = len(out)
			at[k] = n
			out = append(out, UntestableGroup{Check: c.ID, Reason: orElse(c.Reason, "no reason recorded")})
		}
		out[n].Where = append(out[n].Where, c.Key())
	}
	return out
}

// requirementPrinter prints each requirement's text once per report: the
// first time in full, after that by ID.
type requirementPrinter struct{ seen map[string]bool }

// first reports whether id is printed for the first time, and marks it.
func (p *requirementPrinter) first(id string) bool {
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	if p.seen[id] {
		return false
	}
	p.seen[id] = true
	return true
}

// issueRequirements are the requirements an issue shows: those it broke,
// or, for a harness error that broke none it could name, those it cites.
func issueRequirements(run *Run, is Issue) []string {
	if len(is.Requirements) > 0 {
		return is.Requirements
	}
	c := run.Checks[is.Checks[0]]
	if is.Outcome == Error {
		return nil
	}
	return slices.Clone(c.Requirements)
}
