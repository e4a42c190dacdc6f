package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/reports"
)

// censusMeta is what the runner learnt of an entry beside its report
// (runs/ID/census-meta.json): the SDK its installed package is built on.
type censusMeta struct {
	// SDK names the MCP SDK or framework the package depends on and the
	// version installed ("@modelcontextprotocol/sdk 1.32.2"), or "".
	SDK string `json:"sdk,omitempty"`
}

// sdkPackages are the MCP SDKs and frameworks a census package may be
// built on, most specific first.
var sdkPackages = []string{"fastmcp", "mcp-framework", "@mastra/mcp", "@modelcontextprotocol/sdk"}

// detectSDK reads the installed package's package.json in prefix and
// names the first of sdkPackages it depends on, with the version npm
// installed (its own nested copy, else the hoisted one).
func detectSDK(prefix, pkg string) string {
	dir := filepath.Join(prefix, "node_modules", pkg)
	var pj struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil || json.Unmarshal(b, &pj) != nil {
		return ""
	}
	found := []string{}
	for _, s := range sdkPackages {
		if _, ok := pj.Dependencies[s]; !ok {
			continue
		}
		v := installedVersion(filepath.Join(dir, "node_modules", s))
		if v == "" {
			v = installedVersion(filepath.Join(prefix, "node_modules", s))
		}
		found = append(found, strings.TrimSpace(s+" "+v))
	}
	if len(found) == 0 {
		return "none among its npm dependencies (bundled or its own)"
	}
	return strings.Join(found, " + ")
}

func installedVersion(dir string) string {
	var pj struct {
		Version string `json:"version"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil || json.Unmarshal(b, &pj) != nil {
		return ""
	}
	return pj.Version
}

// censusRow is one entry of the census overview (CENSUS.md, CENSUS.json).
type censusRow struct {
	ID        string `json:"id"`
	Role      string `json:"role"` // server or host
	Kind      string `json:"kind,omitempty"`
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Package   string `json:"package"`
	// Status is judged (a report with checks), error (a report saying why
	// there are none), pending (not run yet) or needs-credential.
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Implementation is what the peer called itself (serverInfo,
	// clientInfo); SDK what its package is built on.
	Implementation string `json:"implementation,omitempty"`
	SDK            string `json:"sdk,omitempty"`
	// Versions are the protocol versions mcpcheck asked for, each with
	// what the peer answered ("2025-06-18", "2024-11-05 → 2025-06-18").
	Versions []string `json:"versions,omitempty"`
	Verdict  string   `json:"verdict,omitempty"`
	// Judged is the mcpcheck that made the report.
	Judged  string         `json:"judgedBy,omitempty"`
	Counts  reports.Counts `json:"counts"`
	Defects []string       `json:"topDefects,omitempty"`
	// EntryKey is censusEntryKey of the definition the report was made
	// from ("" when the cached report was made from another one).
	EntryKey string `json:"entryKey,omitempty"`
	// Carried says the row and its matrix column were carried from the
	// committed census (no report of the entry in this run's cache) and
	// by whom they were judged.
	Carried string `json:"carried,omitempty"`
	// Carry is what the column keeps for a later census to carry it.
	Carry *censusCarry `json:"carry,omitempty"`
}

// censusEntryRun loads an entry's report, or makes the column of one
// that has none (needs a credential, not run yet).
func censusEntryRun(d censusDirs, e censusEntry) (*reports.Run, censusRow) {
	row := censusRow{ID: e.id, Role: "server", Name: e.name, Transport: e.transport, Package: e.pkg}
	if e.host != nil {
		row.Role, row.Kind = "host", e.host.Kind
	}
	failed := func(format string, a ...any) *reports.Run {
		if e.host != nil {
			return failedClientRun(client{Name: e.name, Transport: e.transport, Command: e.host.command()}, format, a...)
		}
		return failedRun(peer{Name: e.name, Transport: e.transport, Command: e.server.Command, URL: e.server.URL}, format, a...)
	}
	if e.credential != "" {
		row.Status, row.Reason = "needs-credential", "needs credential: "+e.credential
		return failed("not run: needs credential: %s", e.credential), row
	}
	run, err := loadRun(d.reportPath(e))
	if err != nil {
		row.Status, row.Reason = "pending", "no report yet (the census has not reached it)"
		return failed("pending: no report from a census run of this entry yet"), row
	}
	var meta censusMeta
	if b, err := os.ReadFile(filepath.Join(d.runs, e.id, "census-meta.json")); err == nil {
		_ = json.Unmarshal(b, &meta)
	}
	row.SDK = meta.SDK
	if row.SDK == "" {
		// Reports from before the runner kept it: read the installed package.
		row.SDK = detectSDK(filepath.Join(d.pkgs, pkgSlug(e.pkg)), pkgName(e.pkg))
	}
	row.Judged = strings.TrimSpace(run.Tool.Name + " " + run.Tool.Version)
	if b, err := os.ReadFile(filepath.Join(d.runs, e.id, "census-key")); err == nil {
		if _, by, ok := strings.Cut(string(b), " judged by "); ok {
			row.Judged = by // the binary's version and SHA-256
		}
		// The report is of this definition when its key names it.
		if entry, _, _ := strings.Cut(censusKey(e, "", ""), " protocol "); strings.HasPrefix(string(b), entry+" protocol ") {
			row.EntryKey = censusEntryKey(e)
		}
	}
	sum := reports.Summarize(run)
	row.Counts, row.Verdict = sum.Total, sum.Headline
	if len(run.Checks) == 0 {
		row.Status, row.Verdict = "error", "error"
		if len(run.Problems) > 0 {
			row.Reason = firstLine(run.Problems[0])
		}
	} else {
		row.Status = "judged"
		if len(run.Problems) > 0 {
			row.Verdict = "error"
			row.Reason = firstLine(run.Problems[0])
		}
	}
	impls := map[string]bool{}
	for _, p := range run.Peers {
		if s := p.Implementation(); s != "" && !impls[s] {
			impls[s] = true
			if row.Implementation != "" {
				row.Implementation += "; "
			}
			row.Implementation += s
		}
		switch {
		case containsVersion(run.Unspoken, string(p.Version)):
			row.Versions = append(row.Versions, string(p.Version)+" (unspoken)")
		case p.Negotiated == string(p.Version):
			row.Versions = append(row.Versions, string(p.Version))
		case p.Negotiated != "":
			row.Versions = append(row.Versions, string(p.Version)+" → "+p.Negotiated)
		case len(p.Supported) > 0:
			row.Versions = append(row.Versions, string(p.Version)+" (lists "+strings.Join(p.Supported, ", ")+")")
		}
	}
	for i, is := range reports.Issues(run) {
		if i == 3 {
			break
		}
		row.Defects = append(row.Defects, defectSentence(run, is))
	}
	return run, row
}

func containsVersion[T ~string](list []T, v string) bool {
	for _, x := range list {
		if string(x) == v {
			return true
		}
	}
	return false
}

// defectSentence says one issue in a sentence: the check, what it broke
// where, and what was seen.
func defectSentence(run *reports.Run, is reports.Issue) string {
	var where []string
	for _, w := range is.Where {
		where = append(where, string(w.Version))
	}
	s := fmt.Sprintf("%s %s", is.Check, is.Outcome)
	if len(is.Requirements) > 0 {
		s += " (" + string(is.Level) + " " + strings.Join(is.Requirements, ", ") + ")"
	}
	s += " in " + strings.Join(dedupe(where), ", ")
	if len(is.Checks) > 0 {
		c := run.Checks[is.Checks[0]]
		what := c.Actual
		if what == "" {
			what = c.Reason
		}
		if what = oneLine(what, 160); what != "" {
			s += ": " + what
		}
	}
	return s
}

func dedupe(list []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// censusDoc is CENSUS.json: the overview rows and the two matrices (as
// MATRIX.json lays one out), for comparing one census with the last.
type censusDoc struct {
	Schema  string          `json:"schema"`
	Title   string          `json:"title"`
	Entries []censusRow     `json:"entries"`
	Servers json.RawMessage `json:"servers"`
	Hosts   json.RawMessage `json:"hosts"`
}

// writeCensus builds the census files from the reports in the cache:
// CENSUS.md, CENSUS.html and CENSUS.json (the overview), and the servers
// × requirements and hosts × requirements matrices (CENSUS-SERVERS.* and
// CENSUS-HOSTS.*).
func writeCensus(cc censusConfig, l censusList, stdout io.Writer) error {
	d := newCensusDirs(cc.dir)
	committed, err := readCommittedCensus(filepath.Join(filepath.Dir(cc.list), "CENSUS.json"))
	if err != nil {
		return err
	}
	var rows []censusRow
	var sIn, hIn []reports.MatrixInput
	var sRows, hRows []int             // each matrix column's row
	carried := map[int]carriedColumn{} // by row
	for _, e := range l.entries() {
		run, row := censusEntryRun(d, e)
		desc := e.pkg
		if row.Status == "pending" {
			if old, col, ok := committed.carry(e, row.Role); ok {
				r, err := carriedRun(e, old, col)
				if err != nil {
					return err
				}
				run, row = r, old
				carried[len(rows)] = col
				desc += " (" + row.Carried + ")"
			}
		}
		run.Target.Command = strings.ReplaceAll(run.Target.Command, cc.dir, "$MCPCHECK_INTEROP_DIR")
		run.Target.StderrTail = strings.ReplaceAll(run.Target.StderrTail, cc.dir, "$MCPCHECK_INTEROP_DIR")
		row.Reason = strings.ReplaceAll(row.Reason, cc.dir, "$MCPCHECK_INTEROP_DIR")
		for i := range run.Problems {
			run.Problems[i] = strings.ReplaceAll(run.Problems[i], cc.dir, "$MCPCHECK_INTEROP_DIR")
		}
		for i := range run.Checks {
			c := &run.Checks[i]
			c.Expected = strings.ReplaceAll(c.Expected, cc.dir, "$MCPCHECK_INTEROP_DIR")
			c.Actual = strings.ReplaceAll(c.Actual, cc.dir, "$MCPCHECK_INTEROP_DIR")
			c.Reason = strings.ReplaceAll(c.Reason, cc.dir, "$MCPCHECK_INTEROP_DIR")
		}
		for i := range row.Defects {
			row.Defects[i] = strings.ReplaceAll(row.Defects[i], cc.dir, "$MCPCHECK_INTEROP_DIR")
		}
		in := reports.MatrixInput{Name: e.name + " (" + e.transport + ")", Description: desc, Run: run}
		if e.host != nil {
			hIn, hRows = append(hIn, in), append(hRows, len(rows))
		} else {
			sIn, sRows = append(sIn, in), append(sRows, len(rows))
		}
		rows = append(rows, row)
	}
	if err := os.MkdirAll(cc.out, 0o755); err != nil {
		return err
	}
	doc := censusDoc{Schema: "mcpcheck.census/v1", Title: "MCP ecosystem census", Entries: rows}
	for _, m := range []struct {
		title, base string
		in          []reports.MatrixInput
		rows        []int
		into        *json.RawMessage
	}{
		{"MCP ecosystem census: servers × requirements", "CENSUS-SERVERS", sIn, sRows, &doc.Servers},
		{"MCP ecosystem census: hosts and client libraries × requirements", "CENSUS-HOSTS", hIn, hRows, &doc.Hosts},
	} {
		mx, err := reports.BuildMatrix(m.title, m.in, reports.Options{})
		if err != nil {
			return err
		}
		for i, ri := range m.rows {
			if col, ok := carried[ri]; ok {
				carriedColumnSummary(&mx.Servers[i], rows[ri], col)
			} else if r := &rows[ri]; r.EntryKey != "" && (r.Status == "judged" || r.Status == "error") {
				r.Carry = censusCarryOf(mx, i)
			}
		}
		var md, ht, js bytes.Buffer
		if err := mx.WriteMarkdown(&md); err != nil {
			return err
		}
		if err := mx.WriteHTML(&ht); err != nil {
			return err
		}
		if err := mx.WriteJSON(&js); err != nil {
			return err
		}
		*m.into = json.RawMessage(bytes.TrimSpace(js.Bytes()))
		for name, b := range map[string][]byte{m.base + ".md": md.Bytes(), m.base + ".html": ht.Bytes()} {
			if err := writeOut(cc.out, name, b, stdout); err != nil {
				return err
			}
		}
	}
	doc.Entries = rows // with the carry of the fresh columns
	js, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := writeOut(cc.out, "CENSUS.json", append(js, '\n'), stdout); err != nil {
		return err
	}
	var md, ht bytes.Buffer
	censusMarkdown(&md, rows)
	censusHTML(&ht, rows)
	if err := writeOut(cc.out, "CENSUS.md", md.Bytes(), stdout); err != nil {
		return err
	}
	return writeOut(cc.out, "CENSUS.html", ht.Bytes(), stdout)
}

func writeOut(dir, name string, b []byte, stdout io.Writer) error {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %v", path, err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", path)
	return nil
}

// censusTally counts rows by status.
func censusTally(rows []censusRow, role string) map[string]int {
	n := map[string]int{}
	for _, r := range rows {
		if r.Role == role {
			n[r.Status]++
			n["all"]++
			if r.Carried != "" {
				n["carried"]++
			}
		}
	}
	return n
}

// cells are a row's entry name ("NAME (TRANSPORT), KIND"), its verdict
// as the overview shows it (a row that was not judged shows its status
// and reason) and the class the HTML page colours it by.
func (r censusRow) cells() (name, verdict, class string) {
	name = r.Name + " (" + r.Transport + ")"
	if r.Kind != "" {
		name += ", " + r.Kind
	}
	verdict, class = r.Verdict, r.Verdict
	if r.Status != "judged" {
		verdict, class = r.Status, r.Status
		if r.Reason != "" {
			verdict += ": " + oneLine(r.Reason, 200)
		}
	}
	if r.Carried != "" {
		verdict += " (" + r.Carried + ")"
	}
	return name, verdict, class
}

func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// censusMarkdown writes CENSUS.md: what was run and how, the entries
// per role with who they said they were, the versions they spoke, their
// verdict and top defects, and what is pending or needs a credential.
func censusMarkdown(w io.Writer, rows []censusRow) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# MCP ecosystem census\n\n")
	p("The most-used MCP servers and hosts (programs, client libraries, bridges) on npm, each pinned to an exact version (reports/interop/census.json), installed into a cache with npm and judged by mcpcheck in every protocol version: servers with `mcpcheck server` (tools called: readonly unless the entry says otherwise), hosts with `mcpcheck client` through a driver that writes the host's own MCP configuration into a throwaway HOME and runs the command that makes it connect without a model. ")
	p("Regenerate: `make census` (sequential, resumable: an entry whose report is current for the same entry and the same mcpcheck binary is not run again); `go run ./cmd/interop -census -matrix-only` rebuilds these files from the cached reports. An entry with no report in the cache keeps its row and matrix column from the committed CENSUS.json when its definition in census.json is unchanged (the row's entryKey), marked \"carried from the committed census, judged by\" the mcpcheck that judged it; its broken checks keep the first 200 characters of what was seen, the rest of the evidence was in that run's cache. An entry that changed or is new is pending until it is run. CI: .github/workflows/census.yml shards it (`-shard K/N`) and merges the shards' reports into the same files.\n\n")
	p("Matrices: [servers × requirements](CENSUS-SERVERS.md) ([HTML](CENSUS-SERVERS.html)) · [hosts × requirements](CENSUS-HOSTS.md) ([HTML](CENSUS-HOSTS.html)). Triage of every distinct failure: [CENSUS-TRIAGE.json](CENSUS-TRIAGE.json).\n\n")
	for _, role := range []string{"server", "host"} {
		t := censusTally(rows, role)
		title := "Servers"
		if role == "host" {
			title = "Hosts and client libraries"
		}
		p("## %s\n\n%d entries: %d judged, %d ended in an error (the reason is in the row), %d pending, %d need a credential.", title, t["all"], t["judged"], t["error"], t["pending"], t["needs-credential"])
		if t["carried"] > 0 {
			p(" %d of the judged and error rows are carried from the committed census: this census's cache had no report of them and their entries are unchanged, so their rows and matrix columns are the committed ones, judged by the mcpcheck each names.", t["carried"])
		}
		p("\n\n")
		p("| Entry | npm package | Implementation (as it named itself) | SDK | Versions (asked → answered) | Verdict | fail | warn | Top defects |\n|---|---|---|---|---|---|--:|--:|---|\n")
		for _, r := range rows {
			if r.Role != role {
				continue
			}
			name, verdict, _ := r.cells()
			p("| %s | `%s` | %s | %s | %s | %s | %d | %d | %s |\n", mdCell(name), r.Package, mdCell(r.Implementation), mdCell(r.SDK), mdCell(strings.Join(r.Versions, ", ")),
				mdCell(verdict), r.Counts.Fail, r.Counts.Warn, mdCell(strings.Join(r.Defects, " · ")))
		}
		p("\n")
	}
	judged := map[string]bool{}
	for _, r := range rows {
		if r.Judged != "" {
			judged[r.Judged] = true
		}
	}
	var by []string
	for k := range judged {
		by = append(by, k)
	}
	sort.Strings(by)
	p("Judged by: %s.\n", strings.Join(by, "; "))
}

// censusHTML writes CENSUS.html: the overview of CENSUS.md as a page.
func censusHTML(w io.Writer, rows []censusRow) {
	e := html.EscapeString
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>MCP ecosystem census</title>\n<style>body{font:14px/1.4 system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top}th{background:#f4f4f4}.fail{color:#b00020}.pass{color:#17622a}.pending,.needs-credential,.error{color:#7a5a00}</style></head><body>\n")
	p("<h1>MCP ecosystem census</h1>\n<p>The most-used MCP servers and hosts on npm, pinned (reports/interop/census.json), judged by mcpcheck in every protocol version. Matrices: <a href=\"CENSUS-SERVERS.html\">servers × requirements</a> · <a href=\"CENSUS-HOSTS.html\">hosts × requirements</a> (each broken cell links the check, its expectation and what was seen). Regenerate with <code>make census</code>; an entry with no report in the cache and an unchanged definition keeps its committed row and column, marked as carried and judged by the mcpcheck that judged it.</p>\n")
	for _, role := range []string{"server", "host"} {
		t := censusTally(rows, role)
		title := "Servers"
		if role == "host" {
			title = "Hosts and client libraries"
		}
		p("<h2>%s</h2>\n<p>%d entries: %d judged, %d ended in an error, %d pending, %d need a credential.", title, t["all"], t["judged"], t["error"], t["pending"], t["needs-credential"])
		if t["carried"] > 0 {
			p(" %d of the judged and error rows are carried from the committed census (no report of them in this census's cache, entries unchanged), judged by the mcpcheck each names.", t["carried"])
		}
		p("</p>\n")
		p("<table><tr><th>Entry</th><th>npm package</th><th>Implementation</th><th>SDK</th><th>Versions (asked → answered)</th><th>Verdict</th><th>fail</th><th>warn</th><th>Top defects</th></tr>\n")
		for _, r := range rows {
			if r.Role != role {
				continue
			}
			name, verdict, cls := r.cells()
			var defects []string
			for _, d := range r.Defects {
				defects = append(defects, "<li>"+e(d)+"</li>")
			}
			p("<tr><td>%s</td><td><code>%s</code></td><td>%s</td><td>%s</td><td>%s</td><td class=\"%s\">%s</td><td>%d</td><td>%d</td><td><ul>%s</ul></td></tr>\n",
				e(name), e(r.Package), e(r.Implementation), e(r.SDK), e(strings.Join(r.Versions, ", ")), e(cls), e(verdict), r.Counts.Fail, r.Counts.Warn, strings.Join(defects, ""))
		}
		p("</table>\n")
	}
	p("</body></html>\n")
}
