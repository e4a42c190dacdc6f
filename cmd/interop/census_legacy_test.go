package main

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestCensusMigrateLegacy is the one-off migration of a CENSUS.json
// written before rows kept their entry key and carry: with
// CENSUS_MIGRATE=DIR it gives every judged or error row of DIR/CENSUS.json
// the key of its entry as census.json lists it now (use it only when
// census.json is unchanged since that CENSUS.json was written) and the
// carry its matrix column needs, read from DIR/CENSUS-SERVERS.html and
// DIR/CENSUS-HOSTS.html (each cell's counts from its title, the
// versions its passing checks ran in from its text, the pass rates and
// start time from the column's card). Without CENSUS_MIGRATE it is
// skipped.
func TestCensusMigrateLegacy(t *testing.T) {
	dir := os.Getenv("CENSUS_MIGRATE")
	if dir == "" {
		t.Skip("CENSUS_MIGRATE=DIR migrates DIR/CENSUS.json")
	}
	l, err := readCensus(filepath.Join(dir, "census.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc censusDoc
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "CENSUS.json")), &doc); err != nil {
		t.Fatal(err)
	}
	committed, err := readCommittedCensus(filepath.Join(dir, "CENSUS.json"))
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]legacyMatrixPage{}
	for role, f := range map[string]string{"server": "CENSUS-SERVERS.html", "host": "CENSUS-HOSTS.html"} {
		p, err := parseLegacyMatrixPage(string(mustRead(t, filepath.Join(dir, f))))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		pages[role] = p
	}
	byID := map[string]censusEntry{}
	for _, e := range l.entries() {
		byID[e.id] = e
	}
	migrated := 0
	for i := range doc.Entries {
		r := &doc.Entries[i]
		e, ok := byID[r.ID]
		if !ok || r.Carry != nil || (r.Status != "judged" && r.Status != "error") {
			continue
		}
		name := e.name + " (" + e.transport + ")"
		col, ok := committed.cols[r.Role+" "+name]
		if !ok {
			t.Fatalf("%s: no column %q", r.ID, name)
		}
		page := pages[r.Role]
		card, ok := page.cards[name]
		if !ok {
			t.Fatalf("%s: no card %q in the HTML matrix", r.ID, name)
		}
		c := &censusCarry{Must: card.must, Should: card.should, Started: card.started, Cells: map[string]string{}}
		for _, row := range col.rows {
			if col.index >= len(row.Cells) || row.Cells[col.index] == "" {
				continue
			}
			cell, ok := page.cells[row.Requirement][card.n]
			if !ok {
				t.Fatalf("%s: no HTML cell for %s", r.ID, row.Requirement)
			}
			text := cell.counts
			n, _, err := parseCensusCell(text)
			if err != nil {
				t.Fatalf("%s %s: %v", r.ID, row.Requirement, err)
			}
			if n[reports.Pass] > 0 && n[reports.Fail]+n[reports.Warn] > 0 {
				broken := map[string]bool{}
				for _, v := range col.server.Violated {
					if v.Requirement == row.Requirement && (v.Outcome == reports.Fail || v.Outcome == reports.Warn) {
						broken[string(v.Version)] = true
					}
				}
				var in []string
				for _, v := range col.server.Versions {
					if broken[string(v)] == strings.Contains(cell.text, " in ") {
						continue // with " in ": the versions it held in; without: those it broke in
					}
					in = append(in, string(v))
				}
				if !strings.Contains(cell.text, " in ") {
					in = nil
					for v := range broken {
						in = append(in, v)
					}
				}
				slices.Sort(in)
				text += "; pass in " + strings.Join(in, ", ")
			}
			c.Cells[row.Requirement] = text
		}
		c.Evidence = page.broken[card.n]
		r.EntryKey, r.Carry = censusEntryKey(e), c
		migrated++
	}
	js, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "CENSUS.json"), append(js, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("migrated %d rows of %s", migrated, filepath.Join(dir, "CENSUS.json"))
}

// legacyMatrixPage is what the migration reads of a matrix's HTML page.
type legacyMatrixPage struct {
	broken map[int][]carryEvidence // by column number, in page order
	cards  map[string]legacyCard
	cells  map[string]map[int]legacyCell // requirement → column number → cell
}

type legacyCard struct {
	n            int
	must, should reports.Rate
	started      time.Time
}

type legacyCell struct{ counts, text string }

var (
	legacyCardRE   = regexp.MustCompile(`(?s)<div class="card" data-server="(\d+)">\n<h3>\d+\. (.*?) <span class="badge.*?· started ([^<]*)</div>\n<div>MUST <span[^>]*>[^<]*</span> <span class="small">\((.*?)\)</span></div>\n<div>SHOULD <span[^>]*>[^<]*</span> <span class="small">\((.*?)\)</span></div>`)
	legacyRowRE    = regexp.MustCompile(`(?s)<tr class="row"[^>]*><td class="req"[^>]*><span class="mono">([^<]*)</span></td><td>[^<]*</td>(.*?)</tr>`)
	legacyCellRE   = regexp.MustCompile(`(?s)<td class="c o-(\w+)" title="([^"]*)">(.*?)</td>`)
	legacyBrokenRE = regexp.MustCompile(`(?s)<details class="b o-(\w+)" id="s(\d+)-b\d+"><summary><span[^>]*>[^<]*</span> <span class="mono">([^<]*) \[([^ \]]*) ([^\]]*)\]</span> ([^<]*)</summary>\n<dl class="kv">(.*?)</dl>`)
	legacyActualRE = regexp.MustCompile(`(?s)<dt>actual</dt><dd><pre>(.*?)</pre></dd>`)
	legacyReasonRE = regexp.MustCompile(`(?s)<dt>reason</dt><dd>(.*?)</dd>`)
	legacyRateRE   = regexp.MustCompile(`^(?:(\d+) of (\d+) judged passed|nothing judged)(?:; not judged: (.*))?$`)
)

func parseLegacyMatrixPage(page string) (legacyMatrixPage, error) {
	p := legacyMatrixPage{broken: map[int][]carryEvidence{}, cards: map[string]legacyCard{}, cells: map[string]map[int]legacyCell{}}
	for _, m := range legacyCardRE.FindAllStringSubmatch(page, -1) {
		n, _ := strconv.Atoi(m[1])
		c := legacyCard{n: n}
		var err error
		if strings.HasSuffix(m[3], " UTC") {
			if c.started, err = time.Parse("2006-01-02 15:04:05 UTC", m[3]); err != nil {
				return p, err
			}
		}
		if c.must, err = parseLegacyRate(html.UnescapeString(m[4])); err != nil {
			return p, err
		}
		if c.should, err = parseLegacyRate(html.UnescapeString(m[5])); err != nil {
			return p, err
		}
		p.cards[html.UnescapeString(m[2])] = c
	}
	for _, m := range legacyRowRE.FindAllStringSubmatch(page, -1) {
		cells := map[int]legacyCell{}
		for i, c := range legacyCellRE.FindAllStringSubmatch(m[2], -1) {
			if c[1] == "empty" {
				continue
			}
			title, _, _ := strings.Cut(html.UnescapeString(c[2]), "\n")
			_, counts, ok := strings.Cut(title, " checks: ")
			if !ok {
				return p, fmt.Errorf("%s cell %d: title %q", m[1], i+1, title)
			}
			text := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(c[3], "")
			cells[i+1] = legacyCell{counts: counts, text: html.UnescapeString(text)}
		}
		p.cells[html.UnescapeString(m[1])] = cells
	}
	for _, m := range legacyBrokenRE.FindAllStringSubmatch(page, -1) {
		o, err := reports.ParseOutcome(m[1])
		if err != nil {
			return p, err
		}
		n, _ := strconv.Atoi(m[2])
		seen := ""
		if a := legacyActualRE.FindStringSubmatch(m[7]); a != nil {
			seen = a[1]
		} else if r := legacyReasonRE.FindStringSubmatch(m[7]); r != nil {
			seen = r[1]
		}
		un := html.UnescapeString
		p.broken[n] = append(p.broken[n], carryEvidence{CheckKey: reports.CheckKey{ID: un(m[3]), Version: spec.Version(un(m[4])), Transport: un(m[5])}, Outcome: o, Title: un(m[6]),
			Actual: clip(strings.TrimSpace(un(seen)), 200)})
	}
	if len(p.cards) == 0 || len(p.cells) == 0 || len(p.broken) == 0 {
		return p, fmt.Errorf("found %d cards and %d rows", len(p.cards), len(p.cells))
	}
	return p, nil
}

// parseLegacyRate reads "138 of 145 judged passed; not judged: 463 n/a,
// 27 untestable".
func parseLegacyRate(s string) (reports.Rate, error) {
	var r reports.Rate
	m := legacyRateRE.FindStringSubmatch(s)
	if m == nil {
		return r, fmt.Errorf("rate %q", s)
	}
	if m[1] != "" {
		pass, _ := strconv.Atoi(m[1])
		judged, _ := strconv.Atoi(m[2])
		r.Pass, r.Broken = pass, judged-pass
	}
	if m[3] != "" {
		for _, p := range strings.Split(m[3], ", ") {
			num, what, _ := strings.Cut(p, " ")
			k, err := strconv.Atoi(num)
			if err != nil {
				return r, fmt.Errorf("rate %q", s)
			}
			switch what {
			case "n/a":
				r.NA = k
			case "untestable":
				r.Untestable = k
			case "error":
				r.Error = k
			default:
				return r, fmt.Errorf("rate %q", s)
			}
		}
	}
	return r, nil
}
