package reports

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// Counts tallies checks per outcome. Baselined counts the broken checks
// (fail, warn, error) that the baseline expects; they are still included in
// Fail, Warn and Error.
type Counts struct {
	Pass       int `json:"pass"`
	Fail       int `json:"fail"`
	Warn       int `json:"warn"`
	NA         int `json:"na"`
	Untestable int `json:"untestable"`
	Error      int `json:"error"`
	Baselined  int `json:"baselined"`
}

// Add counts one check.
func (c *Counts) Add(ch Check) {
	switch ch.Outcome {
	case Pass:
		c.Pass++
	case Fail:
		c.Fail++
	case Warn:
		c.Warn++
	case NA:
		c.NA++
	case Untestable:
		c.Untestable++
	default:
		c.Error++
	}
	if ch.Baselined && ch.Broken() {
		c.Baselined++
	}
}

// Of returns the count for one outcome.
func (c Counts) Of(o Outcome) int {
	switch o {
	case Pass:
		return c.Pass
	case Fail:
		return c.Fail
	case Warn:
		return c.Warn
	case NA:
		return c.NA
	case Untestable:
		return c.Untestable
	case Error:
		return c.Error
	}
	return 0
}

// Total is the number of checks counted.
func (c Counts) Total() int { return c.Pass + c.Fail + c.Warn + c.NA + c.Untestable + c.Error }

// Headline is the one-word verdict over Counts, worst first:
// "fail" (a MUST broken), "error" (the harness broke), "warn" (a SHOULD
// broken), "incomplete" (nothing broken but some checks untestable), "pass"
// (every applicable check judged and passed) or "none" (nothing judged).
// Summarize makes the headline of a version the server does not speak
// (Run.Unspoken) "unspoken" where it would be a pass or none.
// Baselined failures still count: baselines decide exit codes, not truth.
func (c Counts) Headline() string {
	switch {
	case c.Fail > 0:
		return "fail"
	case c.Error > 0:
		return "error"
	case c.Warn > 0:
		return "warn"
	case c.Untestable > 0:
		return "incomplete"
	case c.Pass > 0:
		return "pass"
	}
	return "none"
}

// Worst is the outcome that colours a group of checks: fail, error, warn,
// untestable, pass, na in that order of precedence, or 0 for no checks. A
// group with untestable checks is never coloured as passing.
func (c Counts) Worst() Outcome {
	for _, o := range []Outcome{Fail, Error, Warn, Untestable, Pass, NA} {
		if c.Of(o) > 0 {
			return o
		}
	}
	return 0
}

// Rate is the pass rate of the checks at one strength (MUST and MUST NOT, or
// SHOULD and SHOULD NOT):
//
//	rate = Pass / (Pass + Broken)
//
// where Broken counts fail and warn outcomes. Checks that were n/a,
// untestable or a harness error are not in the denominator; they are
// reported beside the rate. A rate over zero judged checks is undefined,
// never 100%.
type Rate struct {
	Pass       int `json:"pass"`
	Broken     int `json:"broken"`
	NA         int `json:"na"`
	Untestable int `json:"untestable"`
	Error      int `json:"error"`
}

func (r *Rate) add(o Outcome) {
	switch o {
	case Pass:
		r.Pass++
	case Fail, Warn:
		r.Broken++
	case NA:
		r.NA++
	case Untestable:
		r.Untestable++
	default:
		r.Error++
	}
}

// MarshalJSON writes the counts and "rate": the value in [0,1], or null
// when nothing was judged.
func (r Rate) MarshalJSON() ([]byte, error) {
	type plain Rate
	var rate *float64
	if v, ok := r.Value(); ok {
		rate = &v
	}
	return json.Marshal(struct {
		plain
		Rate *float64 `json:"rate"`
	}{plain(r), rate})
}

// Judged is Pass + Broken, the rate's denominator.
func (r Rate) Judged() int { return r.Pass + r.Broken }

// Value is the rate in [0,1]; ok is false when nothing was judged.
func (r Rate) Value() (v float64, ok bool) {
	if r.Judged() == 0 {
		return 0, false
	}
	return float64(r.Pass) / float64(r.Judged()), true
}

// Percent renders the rate as "93.3%", "100%" or "n/a" when undefined. It
// rounds down, so a rate below 100% never shows as 100%.
func (r Rate) Percent() string {
	if r.Judged() == 0 {
		return "n/a"
	}
	if r.Pass == r.Judged() {
		return "100%"
	}
	tenths := r.Pass * 1000 / r.Judged()
	return fmt.Sprintf("%d.%d%%", tenths/10, tenths%10)
}

// Summary is the roll-up the writers print.
type Summary struct {
	Total Counts `json:"total"`
	// Must and Should are the pass rates over all versions.
	Must   Rate `json:"must"`
	Should Rate `json:"should"`
	// Headline is Total.Headline().
	Headline  string           `json:"headline"`
	Versions  []VersionSummary `json:"versions"`
	Baselined int              `json:"baselined"`
}

// VersionSummary is the roll-up for one protocol version.
type VersionSummary struct {
	Version  spec.Version `json:"version"`
	Headline string       `json:"headline"`
	Counts   Counts       `json:"counts"`
	Must     Rate         `json:"must"`
	Should   Rate         `json:"should"`
	// Cells are the counts per area and level, areas in catalog order
	// (unknown areas after, sorted), levels strongest first.
	Cells []Cell `json:"cells"`
}

// Cell is the count of checks in one area at one level.
type Cell struct {
	Area   string        `json:"area"`
	Level  catalog.Level `json:"level"`
	Counts Counts        `json:"counts"`
}

// Summarize rolls up the run's checks: in total, per version (every version
// in run.Versions or named by a check, oldest first), and per area and level
// within each version.
func Summarize(run *Run) Summary {
	var s Summary
	byVersion := map[spec.Version]*VersionSummary{}
	cells := map[spec.Version]map[[2]string]*Counts{}
	order := append([]spec.Version(nil), run.Versions...)
	var extra []spec.Version
	for _, ch := range run.Checks {
		s.Total.Add(ch)
		addRate(&s.Must, &s.Should, ch)
		vs := byVersion[ch.Version]
		if vs == nil {
			vs = &VersionSummary{Version: ch.Version}
			byVersion[ch.Version] = vs
			cells[ch.Version] = map[[2]string]*Counts{}
			if !containsVersion(order, ch.Version) {
				extra = append(extra, ch.Version)
			}
		}
		vs.Counts.Add(ch)
		addRate(&vs.Must, &vs.Should, ch)
		k := [2]string{ch.Area, string(ch.Level)}
		if cells[ch.Version][k] == nil {
			cells[ch.Version][k] = &Counts{}
		}
		cells[ch.Version][k].Add(ch)
	}
	order = append(order, extra...)
	sort.SliceStable(order, func(i, j int) bool { return order[i] < order[j] })
	seen := map[spec.Version]bool{}
	for _, v := range order {
		if seen[v] {
			continue
		}
		seen[v] = true
		vs := byVersion[v]
		if vs == nil {
			vs = &VersionSummary{Version: v}
		}
		vs.Headline = vs.Counts.Headline()
		if containsVersion(run.Unspoken, v) && (vs.Headline == "pass" || vs.Headline == "none") {
			// The version is not spoken: a pass of the checks that judge
			// how the server says so is no pass of the version.
			vs.Headline = "unspoken"
		}
		for k, c := range cells[v] {
			vs.Cells = append(vs.Cells, Cell{Area: k[0], Level: catalog.Level(k[1]), Counts: *c})
		}
		sortCells(vs.Cells)
		s.Versions = append(s.Versions, *vs)
	}
	s.Headline = s.Total.Headline()
	if s.Headline == "pass" && len(s.Versions) > 0 {
		spoken := false
		for _, vs := range s.Versions {
			spoken = spoken || vs.Headline != "unspoken"
		}
		if !spoken {
			s.Headline = "unspoken"
		}
	}
	if run.Fuzz != nil {
		for _, f := range run.Fuzz.Findings {
			if FailingFinding(f) {
				s.Headline = "fail" // a campaign's findings decide its headline too
				break
			}
		}
	}
	s.Baselined = s.Total.Baselined
	return s
}

func addRate(must, should *Rate, ch Check) {
	switch {
	case ch.Level.Mandatory():
		must.add(ch.Outcome)
	case ch.Level.Advisory():
		should.add(ch.Outcome)
	}
}

func containsVersion(list []spec.Version, v spec.Version) bool {
	for _, w := range list {
		if w == v {
			return true
		}
	}
	return false
}

// areaRank orders areas as catalog.Areas does; unknown areas sort after.
func areaRank(a string) int {
	for i, x := range catalog.Areas {
		if x == a {
			return i
		}
	}
	return len(catalog.Areas)
}

// levelRank orders levels strongest first; unknown levels sort after.
func levelRank(l catalog.Level) int {
	for i, x := range catalog.Levels {
		if x == l {
			return i
		}
	}
	return len(catalog.Levels)
}

func lessArea(a, b string) bool {
	ra, rb := areaRank(a), areaRank(b)
	if ra != rb {
		return ra < rb
	}
	return a < b
}

func lessLevel(a, b catalog.Level) bool {
	ra, rb := levelRank(a), levelRank(b)
	if ra != rb {
		return ra < rb
	}
	return a < b
}

func sortCells(cells []Cell) {
	sort.Slice(cells, func(i, j int) bool {
		if cells[i].Area != cells[j].Area {
			return lessArea(cells[i].Area, cells[j].Area)
		}
		return lessLevel(cells[i].Level, cells[j].Level)
	})
}

// areasOf lists the areas of cells in report order, without repeats.
func areasOf(cells []Cell) []string {
	var out []string
	for _, c := range cells {
		if len(out) == 0 || out[len(out)-1] != c.Area {
			out = append(out, c.Area)
		}
	}
	return out
}

// levelsOf lists the levels that occur in cells, strongest first.
func levelsOf(cells []Cell) []catalog.Level {
	set := map[catalog.Level]bool{}
	var out []catalog.Level
	for _, c := range cells {
		if !set[c.Level] {
			set[c.Level] = true
			out = append(out, c.Level)
		}
	}
	sort.Slice(out, func(i, j int) bool { return lessLevel(out[i], out[j]) })
	return out
}
