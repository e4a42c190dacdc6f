package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// A census run on a machine that has the reports of some entries only
// (one entry re-run, a fresh cache) regenerates the census from the
// committed CENSUS.json for the others: an entry with no report in the
// cache keeps its row and its matrix column from the committed census
// when its definition is unchanged (censusEntryKey), marked as carried
// and judged by the mcpcheck that judged it then. An entry whose
// definition changed, or that is new, has nothing to carry and is
// pending. A report in the cache always wins over a carried row, so
// merging fresh shards never keeps a stale one.
//
// What a matrix column needs beyond CENSUS.json's cells and violations
// (the counts behind each cell, the protocol versions its passing checks
// ran in, the MUST and SHOULD pass rates) is kept in the row as "carry".

// carriedFrom is the marker a carried row and column carry.
const carriedFrom = "carried from the committed census"

// censusEntryKey names an entry's definition: everything of it as listed
// (package, extras, transport, command or driver, environment, settings)
// but its note, as 12 hex digits of SHA-256. A row is carried only to an
// entry with the same key.
func censusEntryKey(e censusEntry) string {
	var b []byte
	if e.server != nil {
		s := *e.server
		s.Note = ""
		b, _ = json.Marshal(s)
	} else {
		h := *e.host
		h.Note = ""
		b, _ = json.Marshal(h)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// censusCarry is what a row keeps of its matrix column so that a census
// without the entry's report rebuilds the same column.
type censusCarry struct {
	// Started is when the run began (the matrix page shows it).
	Started time.Time    `json:"started,omitempty"`
	Must    reports.Rate `json:"must"`
	Should  reports.Rate `json:"should"`
	// Cells are the column's cells by requirement (censusCellText).
	Cells map[string]string `json:"cells"`
	// Evidence are the column's broken checks in run order, each with
	// what was seen (the first 200 characters).
	Evidence []carryEvidence `json:"evidence,omitempty"`
}

// carryEvidence is one broken check of a carried column.
type carryEvidence struct {
	reports.CheckKey
	Outcome reports.Outcome `json:"outcome"`
	Title   string          `json:"title,omitempty"`
	// Actual is what the check saw, or its reason when it says nothing
	// it saw.
	Actual string `json:"actual,omitempty"`
}

// evidenceOf is a broken check as carry keeps it.
func evidenceOf(c reports.Check) carryEvidence {
	return carryEvidence{CheckKey: c.Key(), Outcome: c.Outcome, Title: c.Title, Actual: clip(orElse(strings.TrimSpace(c.Actual), strings.TrimSpace(c.Reason)), 200)}
}

// clip cuts s to n runes, saying how much it left out.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + fmt.Sprintf("… (%d more bytes)", len(string(r[n:])))
}

// censusCellText is one cell as carry keeps it: its counts by outcome
// ("pass 2, fail 1, na 4") and, when some checks broke the requirement,
// the protocol versions its passing checks ran in ("; pass in
// 2025-06-18, 2025-11-25"), which the cell's text names.
func censusCellText(c reports.MatrixCell) string {
	var parts []string
	for _, o := range reports.Outcomes {
		if n := c.Counts.Of(o); n > 0 {
			parts = append(parts, o.String()+" "+strconv.Itoa(n))
		}
	}
	s := strings.Join(parts, ", ")
	if c.Counts.Fail+c.Counts.Warn > 0 && c.Counts.Pass > 0 {
		var in []string
		for _, ch := range c.Checks {
			if ch.Outcome == reports.Pass && !slices.Contains(in, string(ch.Version)) {
				in = append(in, string(ch.Version))
			}
		}
		sort.Strings(in)
		s += "; pass in " + strings.Join(in, ", ")
	}
	return s
}

// parseCensusCell reads censusCellText.
func parseCensusCell(s string) (n map[reports.Outcome]int, passIn []spec.Version, err error) {
	counts, in, _ := strings.Cut(s, "; pass in ")
	n = map[reports.Outcome]int{}
	for _, p := range strings.Split(counts, ", ") {
		name, num, ok := strings.Cut(p, " ")
		o, oerr := reports.ParseOutcome(name)
		k, kerr := strconv.Atoi(num)
		if !ok || oerr != nil || kerr != nil || k < 0 {
			return nil, nil, fmt.Errorf("carried cell %q: want counts such as \"pass 2, fail 1\"", s)
		}
		n[o] += k
	}
	if in != "" {
		for _, v := range strings.Split(in, ", ") {
			passIn = append(passIn, spec.Version(v))
		}
	}
	return n, passIn, nil
}

// committedCensus is the committed CENSUS.json as carrying reads it.
type committedCensus struct {
	rows map[string]censusRow
	cols map[string]carriedColumn // by matrix column name
}

// carriedColumn is one column of a committed census matrix.
type carriedColumn struct {
	server censusMatrixColumn
	rows   []censusMatrixRow
	index  int
}

// censusMatrixColumn and censusMatrixRow are a column and a row of a
// matrix in CENSUS.json (reports.Matrix.WriteJSON's layout).
type censusMatrixColumn struct {
	Name        string                    `json:"name"`
	Description string                    `json:"description"`
	Transport   string                    `json:"transport"`
	Versions    []spec.Version            `json:"versions"`
	Headline    string                    `json:"headline"`
	Counts      reports.Counts            `json:"counts"`
	Problems    []string                  `json:"problems"`
	ToolCalls   string                    `json:"toolCalls"`
	Violated    []reports.MatrixViolation `json:"violated"`
}

type censusMatrixRow struct {
	Requirement string        `json:"requirement"`
	Level       catalog.Level `json:"level"`
	Area        string        `json:"area"`
	Cells       []string      `json:"cells"`
}

// readCommittedCensus reads the census a run carries entries from; a
// missing file carries nothing.
func readCommittedCensus(path string) (*committedCensus, error) {
	cc := &committedCensus{rows: map[string]censusRow{}, cols: map[string]carriedColumn{}}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return cc, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Entries []censusRow `json:"entries"`
		Servers struct {
			Servers []censusMatrixColumn `json:"servers"`
			Rows    []censusMatrixRow    `json:"rows"`
		} `json:"servers"`
		Hosts struct {
			Servers []censusMatrixColumn `json:"servers"`
			Rows    []censusMatrixRow    `json:"rows"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("the committed census %s: %v", path, err)
	}
	for _, r := range doc.Entries {
		cc.rows[r.ID] = r
	}
	for _, m := range []struct {
		role string
		cols []censusMatrixColumn
		rows []censusMatrixRow
	}{{"server", doc.Servers.Servers, doc.Servers.Rows}, {"host", doc.Hosts.Servers, doc.Hosts.Rows}} {
		for i, s := range m.cols {
			cc.cols[m.role+" "+s.Name] = carriedColumn{server: s, rows: m.rows, index: i}
		}
	}
	return cc, nil
}

// carry returns the committed row and column of entry e when they can be
// carried: the row was judged (or ended in an error) by a census run of
// the same definition, and its column and cell counts are there.
func (cc *committedCensus) carry(e censusEntry, role string) (censusRow, carriedColumn, bool) {
	r, ok := cc.rows[e.id]
	if !ok || (r.Status != "judged" && r.Status != "error") || r.EntryKey == "" || r.EntryKey != censusEntryKey(e) || r.Carry == nil {
		return censusRow{}, carriedColumn{}, false
	}
	col, ok := cc.cols[role+" "+e.name+" ("+e.transport+")"]
	if !ok {
		return censusRow{}, carriedColumn{}, false
	}
	r.Carried = carriedFrom + ", judged by " + orElse(r.Judged, "an earlier mcpcheck")
	return r, col, true
}

func orElse(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// carriedRun rebuilds a committed matrix column as a run whose checks give
// the same cells, counts and violations: one check per broken check of
// the column (its ID, version and transport, the requirements it broke,
// with the outcome each had), and for the rest of each cell's counts a
// check named "carried" citing only that requirement. Their expected and
// actual are not in CENSUS.json: each says so.
func carriedRun(e censusEntry, row censusRow, col carriedColumn) (*reports.Run, error) {
	s := col.server
	evidence := row.Carried + ": the check's expected, full actual and transcript were in that run's report, in the earlier run's cache, which the census does not keep"
	run := &reports.Run{Schema: reports.Schema, Started: row.Carry.Started, Transport: s.Transport, Versions: s.Versions, Problems: s.Problems, ToolPolicy: toolPolicyOf(s.ToolCalls)}
	by := strings.Fields(row.Judged)
	if len(by) > 0 {
		run.Tool.Name = by[0]
	}
	if len(by) > 1 {
		run.Tool.Version = by[1]
	}
	if e.server != nil {
		run.Target = reports.Target{Role: "server", Command: shellJoin(e.server.Command), URL: e.server.URL}
	} else {
		run.Target = reports.Target{Role: "client", Command: e.host.command()}
	}
	levels := map[string]censusMatrixRow{}
	for _, r := range col.rows {
		levels[r.Requirement] = r
	}
	// The broken checks, one per check and outcome.
	type group struct {
		key     reports.CheckKey
		outcome reports.Outcome
	}
	var order []group
	reqs := map[group][]string{}
	seen := map[group]carryEvidence{}
	// In the order of the committed column's broken checks.
	for _, ev := range row.Carry.Evidence {
		g := group{ev.CheckKey, ev.Outcome}
		if _, ok := seen[g]; !ok {
			seen[g] = ev
			order = append(order, g)
			reqs[g] = nil
		}
	}
	for _, v := range s.Violated {
		g := group{v.CheckKey, v.Outcome}
		if _, ok := reqs[g]; !ok {
			order = append(order, g)
			reqs[g] = nil
		}
		if v.Requirement != "" {
			reqs[g] = append(reqs[g], v.Requirement)
		}
	}
	explained := map[string]map[reports.Outcome]int{} // requirement → outcome → checks
	for _, g := range order {
		if reqs[g] == nil && g.outcome != reports.Error {
			continue // evidence of no violation (a changed catalog): the cells say
		}
		ev := seen[g]
		c := reports.Check{ID: g.key.ID, Version: g.key.Version, Transport: g.key.Transport, Outcome: g.outcome, Requirements: reqs[g],
			Title: orElse(ev.Title, "carried"), Actual: ev.Actual, Reason: evidence}
		if g.outcome == reports.Error {
			// An error breaks only what it says it broke (none: a
			// violation without a requirement).
			c.Violated = reqs[g]
		}
		if len(reqs[g]) > 0 {
			r := levels[reqs[g][0]]
			c.Level, c.Area = r.Level, r.Area
		}
		for _, id := range reqs[g] {
			if explained[id] == nil {
				explained[id] = map[reports.Outcome]int{}
			}
			explained[id][g.outcome]++
		}
		run.Checks = append(run.Checks, c)
	}
	first := spec.Version("")
	if len(s.Versions) > 0 {
		first = s.Versions[0]
	}
	// Errors that broke no requirement of their own count in the cells
	// of the requirements they cite: give them those with error counts
	// left, one each.
	var bare []int
	for i, c := range run.Checks {
		if c.Outcome == reports.Error && len(c.Requirements) == 0 {
			bare = append(bare, i)
		}
	}
	for _, r := range col.rows {
		if col.index >= len(r.Cells) || r.Cells[col.index] == "" {
			continue
		}
		text, ok := row.Carry.Cells[r.Requirement]
		if !ok {
			return nil, fmt.Errorf("%s: the committed row keeps no counts for its cell %s", e.id, r.Requirement)
		}
		n, passIn, err := parseCensusCell(text)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", e.id, err)
		}
		for _, o := range reports.Outcomes {
			more := n[o] - explained[r.Requirement][o]
			if o == reports.Error {
				for _, i := range bare {
					if more == 0 {
						break
					}
					c := &run.Checks[i]
					c.Requirements = append(c.Requirements, r.Requirement)
					if c.Level == "" {
						c.Level, c.Area = r.Level, r.Area
					}
					more--
				}
			}
			for i := 0; i < more; i++ {
				v := first
				if o == reports.Pass && len(passIn) > 0 {
					v = passIn[i%len(passIn)]
				}
				c := reports.Check{ID: "carried", Version: v, Transport: s.Transport, Outcome: o, Level: r.Level, Area: r.Area, Requirements: []string{r.Requirement},
					Title: "carried", Reason: evidence}
				if o == reports.Error {
					c.Violated = []string{r.Requirement}
				}
				run.Checks = append(run.Checks, c)
			}
		}
	}
	return run, nil
}

// toolPolicyOf is the tool-call policy whose description is s, or nil.
func toolPolicyOf(s string) *reports.ToolPolicy {
	var names []string
	if n, ok := strings.CutPrefix(s, "only "); ok {
		n, _ = strings.CutSuffix(n, " called (--call-tools)")
		names = strings.Split(n, ", ")
	} else if _, n, ok := strings.Cut(s, ", and "); ok {
		n, _ = strings.CutSuffix(n, " (named by --call-tools)")
		names = strings.Split(n, ", ")
	}
	for _, calls := range []string{"readonly", "additive", "all", "safe", "named"} {
		for _, p := range []*reports.ToolPolicy{{Calls: calls}, {Calls: calls, Names: names}} {
			if p.String() == s {
				return p
			}
		}
	}
	return nil
}

// carriedColumnSummary makes a rebuilt column say what the committed one
// said: its counts, pass rates, versions and verdict (its synthetic
// checks give the cells, not the totals).
func carriedColumnSummary(s *reports.MatrixServer, row censusRow, col carriedColumn) {
	s.Summary.Total = col.server.Counts
	s.Summary.Must, s.Summary.Should = row.Carry.Must, row.Carry.Should
	s.Summary.Versions = nil
	for _, v := range col.server.Versions {
		s.Summary.Versions = append(s.Summary.Versions, reports.VersionSummary{Version: v})
	}
	s.Summary.Headline = col.server.Headline
	s.Headline = col.server.Headline
}

// censusCarryOf is what a fresh column's row keeps for carrying.
func censusCarryOf(m *reports.Matrix, i int) *censusCarry {
	c := &censusCarry{Started: m.Servers[i].Run.Started, Must: m.Servers[i].Summary.Must, Should: m.Servers[i].Summary.Should, Cells: map[string]string{}}
	for _, r := range m.Rows {
		if r.Cells[i].Outcome() != 0 {
			c.Cells[r.Requirement.ID] = censusCellText(r.Cells[i])
		}
	}
	for _, ch := range m.Servers[i].Run.Checks {
		if ch.Broken() {
			c.Evidence = append(c.Evidence, evidenceOf(ch))
		}
	}
	return c
}
