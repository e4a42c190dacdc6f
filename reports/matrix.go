package reports

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// MatrixInput is one run to place in an interop matrix, under a name such
// as "ts-everything (stdio)". An empty Name is derived from the run's
// target and transport.
type MatrixInput struct {
	Name string
	// Description says what the server is ("server-everything 2026.8.31");
	// empty means the run's command or URL.
	Description string
	Run         *Run
}

// Matrix is an interop comparison table, servers by requirements, in the
// manner of Autobahn|Testsuite's comparison table: one column per run, one
// row per requirement that any run's checks cite, and in each cell the
// outcome of that server's checks for that requirement over every protocol
// version and transport it was tested in. BuildMatrix makes one; its
// WriteHTML, WriteMarkdown and WriteJSON render it.
type Matrix struct {
	// Title heads the rendered matrix.
	Title   string
	Servers []MatrixServer
	// Rows are in catalog area order, strongest level first, then by ID.
	Rows []MatrixRow
}

// MatrixServer is one column of a matrix: a run and its roll-up.
type MatrixServer struct {
	Name string
	// Description is the input's Description, else the target's command
	// or URL.
	Description string
	// Run is the run after Prepare (redacted, requirements resolved).
	Run     *Run
	Summary Summary
	// Headline is Summary.Headline, or "error" when the run has harness
	// problems (a server that could not be started has no checks and one
	// problem saying why).
	Headline string
	// Violations are the server's broken checks, one per requirement each
	// broke (Check.BrokenRequirements; a broken check that names none,
	// such as an error, once without a requirement), sorted by requirement
	// and then check. A cell keeps one outcome however many requirements
	// its checks break; these are what two matrices of the same servers
	// are compared by (the Markdown lists them with each broken check, the
	// JSON per server), so a requirement newly broken shows even where a
	// check, and its cell, were red already.
	Violations []MatrixViolation
}

// MatrixViolation is one requirement one broken check of a matrix column
// broke, with the outcome it has in its row (a requirement's own level
// decides fail or warn when the check told its requirements apart).
type MatrixViolation struct {
	RequirementKey
	Outcome Outcome `json:"outcome"`
}

// MatrixRow is one requirement's outcomes across the servers.
type MatrixRow struct {
	Requirement Requirement
	// Known is false when no run carried a snapshot of the requirement and
	// the catalog does not know it.
	Known bool
	// Cells has one entry per server, in Matrix.Servers order.
	Cells []MatrixCell
}

// MatrixCell is what one server's checks said about one requirement.
type MatrixCell struct {
	// Counts tallies the server's checks citing the requirement.
	Counts Counts
	// Checks are those checks, in run order.
	Checks []Check
}

// Outcome is the cell's colour: the worst outcome among its checks (see
// Counts.Worst), or 0 when the server had no check for the requirement.
func (c MatrixCell) Outcome() Outcome { return c.Counts.Worst() }

// BuildMatrix prepares every run (redaction, requirement snapshots, see
// Prepare) and lays them out as a Matrix titled title. Duplicate names get
// a " #2", " #3" suffix so columns stay distinguishable.
func BuildMatrix(title string, inputs []MatrixInput, opts Options) (*Matrix, error) {
	m := &Matrix{Title: title}
	if m.Title == "" {
		m.Title = "MCP interop matrix"
	}
	seen := map[string]int{}
	reqs := map[string]Requirement{}
	for i, in := range inputs {
		run, err := Prepare(in.Run, opts)
		if err != nil {
			return nil, fmt.Errorf("matrix input %d (%q): %w", i+1, in.Name, err)
		}
		name := strings.TrimSpace(printable(oneLine(in.Name)))
		if name == "" {
			name = ServerName(run)
		}
		seen[name]++
		if n := seen[name]; n > 1 {
			name = fmt.Sprintf("%s #%d", name, n)
		}
		sum := Summarize(run)
		head := sum.Headline
		if len(run.Problems) > 0 {
			head = "error"
		}
		desc := strings.TrimSpace(printable(oneLine(in.Description)))
		if desc == "" {
			desc = printable(oneLine(orElse(run.Target.Command, run.Target.URL)))
		}
		m.Servers = append(m.Servers, MatrixServer{Name: name, Description: desc, Run: run, Summary: sum, Headline: head})
		for id, r := range run.Requirements {
			if _, ok := reqs[id]; !ok {
				reqs[id] = r
			}
		}
	}
	index := map[string]int{}
	for si := range m.Servers {
		s := &m.Servers[si]
		for _, c := range s.Run.Checks {
			broken := c.BrokenRequirements()
			if c.Broken() && len(broken) == 0 {
				broken = []string{""}
			}
			for _, id := range broken {
				o := rowOutcome(c, id, reqs)
				if !o.Valid() {
					o = Error // a check the harness never judged
				}
				s.Violations = append(s.Violations, MatrixViolation{RequirementKey: RequirementKey{CheckKey: c.Key(), Requirement: id}, Outcome: o})
			}
			for _, id := range c.Requirements {
				c := c
				if c.Broken() && len(c.Violated) > 0 {
					// The check told the broken requirements apart: the
					// others were not found broken, and each broken one
					// is judged at its own level.
					if !slices.Contains(c.Violated, id) {
						continue
					}
					c.Outcome = rowOutcome(c, id, reqs)
				}
				ri, ok := index[id]
				if !ok {
					r, known := reqs[id]
					if !known {
						r = Requirement{ID: id, Level: c.Level, Area: c.Area}
					}
					ri = len(m.Rows)
					index[id] = ri
					m.Rows = append(m.Rows, MatrixRow{Requirement: r, Known: known, Cells: make([]MatrixCell, len(m.Servers))})
				}
				cell := &m.Rows[ri].Cells[si]
				cell.Counts.Add(c)
				cell.Checks = append(cell.Checks, c)
			}
		}
	}
	for si := range m.Servers {
		vs := m.Servers[si].Violations
		sort.SliceStable(vs, func(i, j int) bool {
			a, b := vs[i], vs[j]
			if a.Requirement != b.Requirement {
				return a.Requirement < b.Requirement
			}
			if a.ID != b.ID {
				return a.ID < b.ID
			}
			if c := a.Version.Compare(b.Version); c != 0 {
				return c < 0
			}
			return a.Transport < b.Transport
		})
	}
	sort.SliceStable(m.Rows, func(i, j int) bool {
		a, b := m.Rows[i].Requirement, m.Rows[j].Requirement
		if a.Area != b.Area {
			return lessArea(a.Area, b.Area)
		}
		if a.Level != b.Level {
			return lessLevel(a.Level, b.Level)
		}
		return a.ID < b.ID
	})
	return m, nil
}

// rowOutcome is the outcome a broken check has in requirement id's row:
// the check's own, except that a fail or warn that told its requirements
// apart (Violated) is judged at the level of the requirement when the
// catalog knows it: fail for a MUST, warn for a SHOULD.
func rowOutcome(c Check, id string, reqs map[string]Requirement) Outcome {
	if len(c.Violated) == 0 || (c.Outcome != Fail && c.Outcome != Warn) {
		return c.Outcome
	}
	if r, ok := reqs[id]; ok {
		if r.Level.Mandatory() {
			return Fail
		}
		return Warn
	}
	return c.Outcome
}

// brokenApart lists the requirements a broken check broke when they are
// not simply all it cites, for the HTML list of broken checks.
func brokenApart(c Check) string {
	broken := c.BrokenRequirements()
	all := append([]string(nil), c.Requirements...)
	slices.Sort(all)
	if slices.Equal(broken, slices.Compact(all)) {
		return ""
	}
	return printable(strings.Join(broken, ", "))
}

// MatrixSchema is the value of "schema" in a matrix's JSON (WriteJSON).
const MatrixSchema = "mcpcheck.matrix/v1"

// matrixJSON is the JSON form of a matrix.
type matrixJSON struct {
	Schema  string             `json:"schema"`
	Title   string             `json:"title"`
	Tool    string             `json:"tool"`
	Servers []matrixServerJSON `json:"servers"`
	Rows    []matrixRowJSON    `json:"rows"`
}

type matrixServerJSON struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Transport   string         `json:"transport,omitempty"`
	Versions    []spec.Version `json:"versions"`
	Headline    string         `json:"headline"`
	Counts      Counts         `json:"counts"`
	Problems    []string       `json:"problems,omitempty"`
	// ToolCalls is the run's tool-call policy (ToolPolicy.String).
	ToolCalls string `json:"toolCalls,omitempty"`
	// Violated is MatrixServer.Violations.
	Violated []MatrixViolation `json:"violated"`
}

type matrixRowJSON struct {
	Requirement string        `json:"requirement"`
	Level       catalog.Level `json:"level"`
	Area        string        `json:"area"`
	// Cells are the servers' outcomes in Servers order, "" where a server
	// had no check citing the requirement.
	Cells []string `json:"cells"`
}

// WriteJSON writes the matrix as JSON (schema MatrixSchema), for programs
// and for comparing two matrices: per server its verdict, counts, harness
// problems and every requirement each broken check broke ("violated", see
// MatrixServer.Violations), and per requirement row the cells' outcomes.
// It holds no transcripts, expected or actual: the servers' own reports
// do. Everything is ordered, so the same runs give the same bytes.
func (m *Matrix) WriteJSON(w io.Writer) error {
	out := matrixJSON{Schema: MatrixSchema, Title: printable(m.Title), Tool: printable(m.tool()), Servers: []matrixServerJSON{}, Rows: []matrixRowJSON{}}
	for _, s := range m.Servers {
		sj := matrixServerJSON{
			Name: s.Name, Description: s.Description, Transport: printable(s.Run.Transport), Versions: s.Run.Versions,
			Headline: s.Headline, Counts: s.Summary.Total, Violated: s.Violations, ToolCalls: printable(s.Run.ToolPolicy.String()),
		}
		if sj.Versions == nil {
			sj.Versions = []spec.Version{}
		}
		if sj.Violated == nil {
			sj.Violated = []MatrixViolation{}
		}
		for _, p := range s.Run.Problems {
			sj.Problems = append(sj.Problems, printable(p))
		}
		out.Servers = append(out.Servers, sj)
	}
	for _, r := range m.Rows {
		rj := matrixRowJSON{Requirement: r.Requirement.ID, Level: r.Requirement.Level, Area: r.Requirement.Area, Cells: make([]string, len(r.Cells))}
		for i, c := range r.Cells {
			if o := c.Outcome(); o != 0 {
				rj.Cells[i] = o.String()
			}
		}
		out.Rows = append(out.Rows, rj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("write JSON matrix: %w", err)
	}
	return nil
}

// ServerName describes a run's target in a few words for a matrix column:
// a stdio command with its program shortened to the last directory and file
// (the script, after an interpreter such as node), or the URL; then the
// transport. For example "dist/index.js stdio (stdio)" or
// "http://127.0.0.1:3000/mcp (streamable)".
func ServerName(run *Run) string {
	what := run.Target.URL
	if run.Target.Command != "" {
		words := strings.Fields(run.Target.Command)
		prog := words[0]
		// Interpreters say little; the script after them names the server.
		if base := path.Base(prog); (base == "node" || base == "npx" || base == "python3" || base == "go") && len(words) > 1 {
			prog = words[1]
			words = words[1:]
		}
		dir, file := path.Split(prog)
		if d := path.Base(strings.TrimSuffix(dir, "/")); d != "." && d != "/" && d != "" && d != "bin" {
			file = d + "/" + file
		}
		what = strings.Join(append([]string{file}, words[1:]...), " ")
	}
	what = truncate(printable(oneLine(what)), 60)
	if what == "" {
		what = "unnamed target"
	}
	if run.Transport != "" {
		what += " (" + printable(run.Transport) + ")"
	}
	return what
}

// versions lists the protocol versions a server was tested in.
func (s MatrixServer) versions() string {
	var vs []string
	for _, v := range s.Summary.Versions {
		vs = append(vs, printable(string(v.Version)))
	}
	if len(vs) == 0 {
		for _, v := range s.Run.Versions {
			vs = append(vs, printable(string(v)))
		}
	}
	return strings.Join(vs, ", ")
}

// disagree reports whether the servers that checked the requirement did
// not all reach the same outcome.
func (r MatrixRow) disagree() bool {
	var first Outcome
	for _, c := range r.Cells {
		o := c.Outcome()
		if o == 0 {
			continue
		}
		if first == 0 {
			first = o
		} else if o != first {
			return true
		}
	}
	return false
}

// broken reports whether any server broke the requirement.
func (r MatrixRow) broken() bool {
	for _, c := range r.Cells {
		if c.Counts.Fail+c.Counts.Warn+c.Counts.Error > 0 {
			return true
		}
	}
	return false
}

// cellText is the short text of a cell: the outcome label, and passed out
// of judged when some of its checks broke the requirement.
func cellText(c MatrixCell) string {
	o := c.Outcome()
	if o == 0 {
		return ""
	}
	return o.Label() + cellFraction(c)
}

// cellFraction is " k/n" (k of n judged checks passed) when some of the
// cell's checks broke the requirement, followed by the protocol versions
// the breaks happened in when the server was tested in more than one
// version and not all of them broke it: " 2/4 in 2025-06-18, 2025-11-25".
// It is empty when nothing broke.
func cellFraction(c MatrixCell) string {
	n := c.Counts
	if n.Fail+n.Warn == 0 {
		return ""
	}
	s := fmt.Sprintf(" %d/%d", n.Pass, n.Pass+n.Fail+n.Warn)
	judged, broken := map[spec.Version]bool{}, map[spec.Version]bool{}
	for _, ch := range c.Checks {
		switch ch.Outcome {
		case Fail, Warn:
			broken[ch.Version] = true
			judged[ch.Version] = true
		case Pass:
			judged[ch.Version] = true
		}
	}
	if len(judged) > 1 && len(broken) < len(judged) {
		var vs []string
		for v := range broken {
			vs = append(vs, string(v))
		}
		sort.Strings(vs)
		s += " in " + strings.Join(vs, ", ")
	}
	return s
}

// countsText is "3 checks: pass 2, fail 1", naming only outcomes that
// occur.
func countsText(n Counts) string {
	var parts []string
	for _, o := range Outcomes {
		if k := n.Of(o); k > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, k))
		}
	}
	return fmt.Sprintf("%d checks: %s", n.Total(), strings.Join(parts, ", "))
}

// cellDetail lists up to max of a cell's checks that neither passed nor
// were n/a, one per line, with what went wrong.
func cellDetail(c MatrixCell, max int) []string {
	var out []string
	n := 0
	for _, ch := range c.Checks {
		if ch.Outcome == Pass || ch.Outcome == NA {
			continue
		}
		n++
		if n > max {
			continue
		}
		line := fmt.Sprintf("%s %s", ch.Key(), ch.Outcome.Label())
		switch {
		case ch.Broken() && ch.Actual != "":
			line += ": " + ch.Actual
		case ch.Reason != "":
			line += ": " + ch.Reason
		}
		out = append(out, truncate(printable(oneLine(line)), 160))
	}
	if n > max {
		out = append(out, fmt.Sprintf("… and %d more", n-max))
	}
	return out
}

// WriteMarkdown renders the matrix as Markdown for docs: a table of servers
// with their verdicts and pass rates, the requirement-by-server table with
// an icon per cell, and per server the checks it broke. Everything the
// targets control is escaped.
func (m *Matrix) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	p("# %s\n\n", md(m.Title))
	noun, nouns := m.Noun(), m.Noun()+"s"
	p("Each column is one %s over one transport, checked by %s in every protocol version it was asked to; each row is a requirement of the catalog that a check cited. ", noun, md(m.tool()))
	p("A cell shows the worst outcome of that %s's checks for the requirement over all versions and, when some broke it, how many of the judged checks passed and, when it held in some versions, the versions it broke in.\n\n", noun)
	p("Legend: ✅ pass · ❌ fail (MUST broken) · ⚠️ warn (SHOULD broken) · ❗ error (harness) · ❔ untestable · ➖ n/a · blank: not checked\n\n")

	p("## %s\n\n| # | %s | Target |", title(nouns), title(noun))
	p(" Transport | Protocol versions | Verdict | MUST pass rate | SHOULD pass rate | pass | fail | warn | error | untestable | n/a |\n")
	p("|--:|---|---|---|---|---|---|---|--:|--:|--:|--:|--:|--:|\n")
	for i, s := range m.Servers {
		c := s.Summary.Total
		p("| %d | %s | %s | %s | %s | %s %s | %s | %s | %d | %d | %d | %d | %d | %d |\n", i+1, md(s.Name), md(s.Description), md(s.Run.Transport), md(s.versions()),
			headlineIcon[s.Headline], s.Headline, mdRate(s.Summary.Must), mdRate(s.Summary.Should), c.Pass, c.Fail, c.Warn, c.Error, c.Untestable, c.NA)
	}
	p("\n")
	for _, s := range m.Servers {
		if s.Run.ToolPolicy != nil {
			p("- **%s** tool calls: %s\n", md(s.Name), md(s.Run.ToolPolicy.String()))
		}
	}
	for _, s := range m.Servers {
		for _, pr := range s.Run.Problems {
			p("- ❗ **%s**: %s\n", md(s.Name), md(truncate(pr, 400)))
		}
	}

	p("\n## Requirements × %s\n\nColumns are the %s numbered as above. ", nouns, nouns)
	p("Requirement IDs are from the catalog: `mcpcheck spec show ID` prints one.\n\n| Requirement | Level |")
	for i := range m.Servers {
		p(" %d |", i+1)
	}
	p("\n|---|---|")
	for range m.Servers {
		p(":-:|")
	}
	p("\n")
	for _, r := range m.Rows {
		p("| %s | %s |", mdCode(r.Requirement.ID), md(string(r.Requirement.Level)))
		for _, c := range r.Cells {
			o := c.Outcome()
			if o == 0 {
				p(" |")
				continue
			}
			p(" %s%s |", outcomeIcon[o], cellFraction(c))
		}
		p("\n")
	}
	p("\n## Broken checks per %s\n\n", noun)
	for _, s := range m.Servers {
		ps := problems(s.Run)
		if len(ps) == 0 {
			continue
		}
		p("### %s (%d)\n\n", md(s.Name), len(ps))
		more := 0
		if len(ps) > mdMaxProblems {
			more, ps = len(ps)-mdMaxProblems, ps[:mdMaxProblems]
		}
		for _, c := range ps {
			p("- %s %s %s %s", outcomeIcon[c.Outcome], c.Outcome.Label(), mdCode(c.ID), md("["+string(c.Version)+" "+c.Transport+"]"))
			if broken := c.BrokenRequirements(); len(broken) > 0 {
				p(" (breaks %s)", md(strings.Join(broken, ", ")))
			} else if len(c.Requirements) > 0 {
				p(" (%s)", md(strings.Join(c.Requirements, ", ")))
			}
			if c.Actual != "" {
				p(": %s", md(truncate(c.Actual, 240)))
			} else if c.Reason != "" {
				p(": %s", md(truncate(c.Reason, 240)))
			}
			p("\n")
		}
		if more > 0 {
			p("- … and %d more; the %s's own JSON and HTML reports list them all.\n", more, noun)
		}
		p("\n")
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write Markdown matrix: %w", err)
	}
	return nil
}

// Noun is what the matrix compares: "client" when every run judged a
// client, "server" when every run judged a server, "target" otherwise.
func (m *Matrix) Noun() string {
	roles := map[string]bool{}
	for _, s := range m.Servers {
		r := s.Run.Target.Role
		if r == "" {
			r = "server" // runs from before roles were recorded
		}
		roles[r] = true
	}
	switch {
	case len(roles) == 1 && roles["client"]:
		return "client"
	case len(roles) <= 1:
		return "server"
	}
	return "target"
}

// title capitalises the first letter of a word.
func title(w string) string {
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// tool names the program and version that produced the runs.
func (m *Matrix) tool() string {
	for _, s := range m.Servers {
		if s.Run.Tool.Name != "" {
			return strings.TrimSpace(s.Run.Tool.Name + " " + s.Run.Tool.Version)
		}
	}
	return "mcpcheck"
}

type matrixView struct {
	Title string
	Tool  string
	Noun  string // "server", "client" or "target"
	Nouns string
	// NounsTitle is Nouns capitalised, for headings.
	NounsTitle string
	Servers    []matrixServerView
	Areas      []string
	Rows       []matrixRowView
	Outcomes   []htmlOption
}

type matrixServerView struct {
	Description string
	N           int
	Name        string
	Where       string
	Kind        string
	Started     string
	Transport   string
	Versions    string
	Headline    string
	Must        string
	MustOf      string
	MustCls     string
	Should      string
	ShouldOf    string
	Counts      Counts
	Problems    []string
	Broken      []matrixBrokenView
}

type matrixBrokenView struct {
	Anchor   string
	Outcome  string
	Label    string
	Key      string
	Title    string
	Reqs     string
	Broken   string
	Expected string
	Actual   string
	Reason   string
}

type matrixRowView struct {
	ID       string
	Level    string
	Area     string
	Summary  string
	Source   string
	Broken   bool
	Disagree bool
	Cells    []matrixCellView
}

type matrixCellView struct {
	Class string
	Text  string
	Title string
	Link  string
}

// matrixTemplate is parsed when first used.
var matrixTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("matrix").Parse(matrixHTML))
})

// WriteHTML renders the matrix as one self-contained HTML page (inline CSS
// and a little inline JavaScript, no fetches): a card per server with its
// verdict and pass rates, the requirement-by-server table with cells
// coloured by outcome (hover for every check behind a cell, click a broken
// cell for its expected and actual), filters by area and by rows that are
// broken or where servers disagree, and per server the list of broken
// checks. Printing shows every row. html/template escapes everything, so a
// hostile target cannot inject markup or script.
func (m *Matrix) WriteHTML(w io.Writer) error {
	v := matrixView{Title: printable(m.Title), Tool: printable(m.tool()), Noun: m.Noun(), Nouns: m.Noun() + "s", NounsTitle: title(m.Noun() + "s")}
	for _, o := range Outcomes {
		v.Outcomes = append(v.Outcomes, htmlOption{o.String(), o.Label()})
	}
	anchors := make([]map[string]string, len(m.Servers)) // per server: requirement ID -> first broken check's anchor
	for i, s := range m.Servers {
		sv := matrixServerView{
			N: i + 1, Name: s.Name, Description: s.Description, Where: printable(orElse(s.Run.Target.Command, s.Run.Target.URL)), Kind: printable(s.Run.Target.Kind),
			Started: startedAt(s.Run), Transport: printable(s.Run.Transport), Versions: s.versions(), Headline: s.Headline,
			Must: s.Summary.Must.Percent(), MustOf: judgedOf(s.Summary.Must), MustCls: rateClass(s.Summary.Must),
			Should: s.Summary.Should.Percent(), ShouldOf: judgedOf(s.Summary.Should), Counts: s.Summary.Total,
		}
		for _, pr := range s.Run.Problems {
			sv.Problems = append(sv.Problems, printable(pr))
		}
		anchors[i] = map[string]string{}
		for j, c := range problems(s.Run) {
			a := fmt.Sprintf("s%d-b%d", i+1, j+1)
			for _, id := range c.Requirements {
				if _, ok := anchors[i][id]; !ok {
					anchors[i][id] = a
				}
			}
			sv.Broken = append(sv.Broken, matrixBrokenView{
				Anchor: a, Outcome: c.Outcome.String(), Label: c.Outcome.Label(), Key: printable(c.Key().String()), Title: printable(c.Title),
				Reqs: printable(strings.Join(c.Requirements, ", ")), Broken: brokenApart(c), Expected: truncate(printable(c.Expected), 800), Actual: truncate(printable(c.Actual), 800), Reason: truncate(printable(c.Reason), 800),
			})
		}
		v.Servers = append(v.Servers, sv)
	}
	areaSeen := map[string]bool{}
	for _, r := range m.Rows {
		req := r.Requirement
		if !areaSeen[req.Area] {
			areaSeen[req.Area] = true
			v.Areas = append(v.Areas, printable(req.Area))
		}
		rv := matrixRowView{
			ID: printable(req.ID), Level: printable(string(req.Level)), Area: printable(req.Area), Summary: printable(req.Summary),
			Broken: r.broken(), Disagree: r.disagree(),
		}
		if r.Known {
			rv.Source = printable(req.Source())
		}
		for si, c := range r.Cells {
			o := c.Outcome()
			cv := matrixCellView{Class: "o-empty", Title: m.Servers[si].Name + ": no check cites this requirement"}
			if o != 0 {
				cv.Class = "o-" + o.String()
				cv.Text = cellText(c)
				cv.Title = m.Servers[si].Name + ": " + countsText(c.Counts)
				if o != Pass && o != NA {
					cv.Title += "\n" + strings.Join(cellDetail(c, 3), "\n")
				}
				if c.Counts.Fail+c.Counts.Warn+c.Counts.Error > 0 {
					cv.Link = anchors[si][r.Requirement.ID]
				}
			}
			rv.Cells = append(rv.Cells, cv)
		}
		v.Rows = append(v.Rows, rv)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := matrixTemplate().Execute(bw, v); err != nil {
		return fmt.Errorf("write HTML matrix: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write HTML matrix: %w", err)
	}
	return nil
}

const matrixHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>{{.Title}}</title>
<style>
:root{--pass:#1a7f37;--fail:#cf222e;--warn:#9a6700;--error:#8250df;--untestable:#57606a;--na:#8c959f;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:#fff;margin:0 auto;padding:16px 24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:16px 0 4px}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;border:1px solid var(--line);border-radius:6px;padding:6px;margin:2px 0}
.meta,.small{color:var(--muted)}.small{font-size:12px}
.badge{display:inline-block;border-radius:4px;padding:1px 7px;font-weight:600;font-size:12px;color:#fff;min-width:48px;text-align:center}
.badge.o-pass{background:var(--pass)}.badge.o-fail{background:var(--fail)}.badge.o-warn{background:var(--warn)}.badge.o-error{background:var(--error)}
.badge.o-untestable,.badge.o-incomplete{background:var(--untestable)}.badge.o-na,.badge.o-none{background:var(--na)}
.cards{display:flex;flex-wrap:wrap;gap:10px}
.card{border:1px solid var(--line);border-radius:8px;padding:8px 12px;min-width:250px;flex:1;max-width:420px}
.card h3{margin:0 0 4px}.card .mono{word-break:break-all}
.rate{font-weight:700}.rate.o-pass{color:var(--pass)}.rate.o-fail{color:var(--fail)}.rate.o-warn{color:var(--warn)}.rate.o-na{color:var(--na)}
.problem{color:var(--error);font-weight:600}
table.m{border-collapse:collapse;margin:8px 0}
table.m th,table.m td{border:1px solid var(--line);padding:2px 6px;font-size:12px}
table.m thead th{position:sticky;top:0;background:#f6f8fa;z-index:1;vertical-align:bottom}
table.m th.srv{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;max-height:220px;font-weight:500}
table.m td.req{white-space:nowrap}
table.m td.c{text-align:center;white-space:nowrap;padding:2px 3px;font-size:11px}
table.m td.c a{color:inherit}
td.o-pass{background:#dafbe1}td.o-fail{background:#ffebe9;color:var(--fail);font-weight:600}td.o-warn{background:#fff8c5}td.o-error{background:#fbefff}
td.o-untestable{background:repeating-linear-gradient(45deg,#eaeef2,#eaeef2 4px,#f6f8fa 4px,#f6f8fa 8px)}td.o-na{background:#f6f8fa;color:var(--na)}td.o-empty{background:#fff}
.filters{padding:6px 0}.filters label{margin-right:14px}
.hidden{display:none}
details.b{border:1px solid var(--line);border-left:4px solid var(--fail);border-radius:6px;margin:4px 0;padding:2px 8px}
details.b.o-warn{border-left-color:var(--warn)}details.b.o-error{border-left-color:var(--error)}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 10px;margin:4px 0}dl.kv dt{color:var(--muted)}dl.kv dd{margin:0}
@page{size:A4 landscape;margin:8mm}
@media print{
 .filters,script{display:none}
 .hidden{display:table-row !important}
 table.m th,table.m td,table.m td.c{font-size:7.5px;padding:1px 2px}
 table.m td.req{white-space:normal;word-break:break-all}
 table.m th.srv{max-height:none}
 table.m thead th{position:static}
 details>*{display:block}
 details::details-content{content-visibility:visible;display:block}
 body{padding:0}
}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="meta">{{len .Servers}} {{.Nouns}} × {{len .Rows}} requirements, checked by {{.Tool}}. Each cell is the worst outcome of that {{.Noun}}'s checks for the requirement over every protocol version it was tested in; hover a cell for its counts (and the checks behind one that is not a clean pass), click a broken one for expected and actual.</p>

<h2>{{.NounsTitle}}</h2>
<div class="cards">
{{range .Servers}}<div class="card" data-server="{{.N}}">
<h3>{{.N}}. {{.Name}} <span class="badge o-{{.Headline}}">{{.Headline}}</span></h3>
{{if ne .Description .Where}}<div>{{.Description}}</div>{{end}}<div class="small mono">{{.Kind}}: {{.Where}}</div>
<div class="small">transport {{.Transport}} · protocol {{.Versions}} · started {{.Started}}</div>
<div>MUST <span class="rate {{.MustCls}}">{{.Must}}</span> <span class="small">({{.MustOf}})</span></div>
<div>SHOULD <span class="rate">{{.Should}}</span> <span class="small">({{.ShouldOf}})</span></div>
<div class="small">pass {{.Counts.Pass}} · fail {{.Counts.Fail}} · warn {{.Counts.Warn}} · error {{.Counts.Error}} · untestable {{.Counts.Untestable}} · n/a {{.Counts.NA}}</div>
{{range .Problems}}<div class="problem">{{.}}</div>{{end}}
</div>
{{end}}</div>

<h2>Requirements × {{.Nouns}}</h2>
<p class="small"><span class="badge o-pass">PASS</span> <span class="badge o-fail">FAIL</span> MUST broken · <span class="badge o-warn">WARN</span> SHOULD broken · <span class="badge o-error">ERROR</span> harness · <span class="badge o-untestable">UNTESTABLE</span> · <span class="badge o-na">N/A</span> · blank: no check. "k/n": k of n judged checks passed.</p>
<div class="filters">
<label>area <select id="f-area"><option value="">all</option>{{range .Areas}}<option value="{{.}}">{{.}}</option>{{end}}</select></label>
<label>rows <select id="f-rows"><option value="">all</option><option value="broken">broken by some {{.Noun}}</option><option value="disagree">{{.Nouns}} disagree</option></select></label>
<span class="small" id="f-count"></span>
</div>
<table class="m"><thead><tr><th>requirement</th><th>level</th>{{range .Servers}}<th class="srv" title="{{.Name}}">{{.N}}. {{.Name}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr class="row" data-area="{{.Area}}" data-broken="{{.Broken}}" data-disagree="{{.Disagree}}"><td class="req" title="{{.Summary}}{{if .Source}} — {{.Source}}{{end}}"><span class="mono">{{.ID}}</span></td><td>{{.Level}}</td>{{range .Cells}}<td class="c {{.Class}}" title="{{.Title}}">{{if .Link}}<a href="#{{.Link}}">{{.Text}}</a>{{else}}{{.Text}}{{end}}</td>{{end}}</tr>
{{end}}</tbody></table>

<h2>Broken checks per {{.Noun}}</h2>
{{range .Servers}}{{if .Broken}}<h3>{{.N}}. {{.Name}} ({{len .Broken}})</h3>
{{range .Broken}}<details class="b o-{{.Outcome}}" id="{{.Anchor}}"><summary><span class="badge o-{{.Outcome}}">{{.Label}}</span> <span class="mono">{{.Key}}</span> {{.Title}}</summary>
<dl class="kv"><dt>requirements</dt><dd class="mono">{{.Reqs}}</dd>{{if .Broken}}<dt>broken</dt><dd class="mono">{{.Broken}}</dd>{{end}}{{if .Expected}}<dt>expected</dt><dd><pre>{{.Expected}}</pre></dd>{{end}}{{if .Actual}}<dt>actual</dt><dd><pre>{{.Actual}}</pre></dd>{{end}}{{if .Reason}}<dt>reason</dt><dd>{{.Reason}}</dd>{{end}}</dl>
</details>
{{end}}{{end}}{{end}}
<script>
(function(){
  var area=document.getElementById("f-area"),rows=document.getElementById("f-rows");
  function apply(){
    var all=document.querySelectorAll("tr.row"),shown=0;
    all.forEach(function(tr){
      var ok=(!area.value||tr.dataset.area===area.value)&&(!rows.value||tr.dataset[rows.value]==="true");
      tr.classList.toggle("hidden",!ok);
      if(ok){shown++;}
    });
    document.getElementById("f-count").textContent=shown+" of "+all.length+" requirements";
  }
  area.addEventListener("change",apply);rows.addEventListener("change",apply);
  apply();
  window.addEventListener("hashchange",function(){
    var d=document.getElementById(location.hash.slice(1));
    if(d&&d.tagName==="DETAILS"){d.open=true;}
  });
})();
</script>
</body>
</html>
`
