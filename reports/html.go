package reports

import (
	"bufio"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
	"time"
)

//go:embed html.tmpl
var htmlSource string

// htmlTemplate is parsed once, when first used (not at start: a process
// that only serves, such as the reference server a fuzz campaign starts
// thousands of times, does not pay for it). html/template escapes every
// value by context, so nothing a target sends can become markup or script.
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"lower": strings.ToLower,
	}).Parse(htmlSource))
})

type htmlView struct {
	Title       string
	Tool        string
	ToolVersion string
	Role        string
	Kind        string
	Where       string
	Started     string
	Duration    string
	Transport   string
	Versions    string
	LabelFilter string
	Silence     string
	Startup     string
	ToolPolicy  string
	// Tested says who was tested: the implementation the target named,
	// the versions it negotiated, the capabilities it declared.
	Tested     string
	Negotiated string
	Caps       []string
	// Tools lists what became of each of the server's tools.
	Tools *htmlTools
	// Verdict is the run's verdict (RunVerdict) and VerdictClass its CSS
	// class; Sentence says what it rests on.
	Verdict      string
	VerdictClass string
	Sentence     string
	// Strip is each version's headline.
	Strip []htmlOption
	// NotTested says in words what the run could not test (NotTested).
	NotTested   string
	Interrupted string
	// Issues are the problems, first; ProblemsHead counts them.
	Issues       []htmlIssue
	ProblemsHead string
	Untestable   []htmlUntestable
	UntestableN  int
	Rates        []htmlVersion
	Areas        []string
	Levels       []string
	Outcomes     []htmlOption
	VersionOpts  []string
	// HasChecks: the run judged checks (a fuzz campaign alone has none,
	// and then the per-version, coverage and check sections are left out).
	HasChecks bool
	// Rows are every check, one row each, its verdict per version.
	Rows []htmlCheckRow
	// Cited are the requirements the checks cite, each printed once.
	Cited    []htmlReq
	Baseline *htmlBaseline
	Fuzz     *htmlFuzz
	// SideEffects is what the target did besides speaking MCP.
	SideEffects *htmlSideEffects
}

type htmlOption struct{ Value, Label string }

type htmlVersion struct {
	Version     string
	Headline    string
	Must        string
	MustOf      string
	Should      string
	ShouldOf    string
	Counts      Counts
	NotJudged   string
	Baselined   int
	MustClass   string
	ShouldClass string
	Grid        htmlGrid
	TotalCount  int
}

type htmlGrid struct {
	Levels []string
	Rows   []htmlRow
}

type htmlRow struct {
	Area  string
	Cells []htmlCell
}

type htmlCell struct {
	Class string // o-pass, o-fail, ... or o-empty
	Text  string
	Title string
}

type htmlReq struct {
	ID string
	// Anchor is the element id of the requirement in the Cited list
	// ("req-" + ID), empty where it is printed in a check.
	Anchor  string
	Level   string
	Summary string
	Source  string
	Known   bool
	// Ref: printed in full earlier in the report; shown by ID only.
	Ref bool
}

type htmlEvent struct {
	Offset    string
	Conn      int // the connection, 0 when not known
	Direction string
	Arrow     string
	Method    string
	URL       string
	Status    int
	Headers   []htmlHeader
	Note      string
	Body      string
	NotUTF8   bool
	// Skipped counts the transcript events left out before this one in
	// an excerpt.
	Skipped int
}

type htmlHeader struct{ Name, Value string }

type htmlBaseline struct {
	Source  string
	Entries int
	Matched int
	Stale   []string
	Legacy  []string
	Renamed []string
}

type htmlFuzz struct {
	Execs    int64
	Duration string
	Rate     string
	Seed     int64
	Findings []htmlFinding
	Chart    *svgChart
}

type htmlFinding struct {
	ID           string
	Kind         string
	Requirements string
	Level        string
	Message      string
	Reproducer   string
	Input        string
	Events       []htmlEvent
}

// svgChart is a line chart of fuzzing throughput, laid out in Go so the
// template only places numbers.
type svgChart struct {
	Width, Height int
	Left, Right   int
	Top, Bottom   int
	Points        string
	XTicks        []svgTick
	YTicks        []svgTick
	Max           string
	PlotRight     int
}

type svgTick struct {
	X, Y  float64
	Label string
}

// WriteHTML writes the run as one self-contained HTML page: no external
// fetch of any kind (inline CSS, a little inline JavaScript, inline SVG).
// It shows a headline verdict per protocol version with MUST and SHOULD pass
// rates and n/a and untestable counts; a coverage grid of areas by levels
// coloured by the worst outcome in each cell (untestable is never green);
// filters by version, area, level and outcome; every check with its
// requirements' paraphrase and source (page § section, versions), expected
// versus actual and a collapsible transcript; the baseline; and, when the
// run has a fuzzing campaign, its findings with reproducer commands and an
// SVG chart of executions per second. Printing expands every section.
// Everything is escaped by html/template, so a hostile target cannot inject
// markup or script.
func WriteHTML(w io.Writer, run *Run, opts Options) error {
	run, err := Prepare(run, opts)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := htmlTemplate().Execute(bw, buildHTMLView(run, opts)); err != nil {
		return fmt.Errorf("write HTML report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write HTML report: %w", err)
	}
	return nil
}

func buildHTMLView(run *Run, opts Options) htmlView {
	sum := Summarize(run)
	j, word := verdictOf(run, opts)
	v := htmlView{
		Tool:         printable(toolName(run)),
		ToolVersion:  printable(run.Tool.Version),
		Role:         printable(orElse(run.Target.Role, "target")),
		Kind:         printable(run.Target.Kind),
		Where:        printable(orElse(run.Target.Command, run.Target.URL)),
		Started:      startedAt(run),
		Duration:     humanDuration(run.Duration),
		Transport:    printable(run.Transport),
		LabelFilter:  printable(run.LabelFilter),
		Silence:      printable(run.Silence.String()),
		Startup:      printable(run.Startup.String()),
		ToolPolicy:   printable(run.ToolPolicy.String()),
		Tools:        newHTMLTools(run.ToolPolicy),
		Verdict:      string(word),
		VerdictClass: word.Class(),
		Sentence:     printable(tidy(j.Reason(opts.Strict))),
		NotTested:    printable(NotTested(run)),
		SideEffects:  htmlSideEffectsOf(run),
	}
	impl, nego, caps := peerLines(run)
	v.Tested, v.Negotiated = printable(impl), printable(nego)
	for _, c := range caps {
		v.Caps = append(v.Caps, printable(c))
	}
	var vs []string
	for _, ver := range run.Versions {
		vs = append(vs, printable(string(ver)))
	}
	v.Versions = strings.Join(vs, ", ")
	v.Title = fmt.Sprintf("%s report: %s", v.Tool, word.Label())
	if u := sum.Total.Untestable; u > 0 {
		v.Title += fmt.Sprintf(" (%s untestable)", plural(u, "check", "checks"))
	}
	if run.Interrupted != "" {
		v.Interrupted = printable(run.Interrupted)
	}
	for _, o := range Outcomes {
		v.Outcomes = append(v.Outcomes, htmlOption{o.String(), o.Label()})
	}
	for _, s := range sum.Versions {
		v.Strip = append(v.Strip, htmlOption{Value: s.Headline, Label: printable(orElse(string(s.Version), "(no version)"))})
	}
	issues := Issues(run)
	var anchors map[int]string
	v.Issues, anchors = htmlIssues(run, issues)
	if fail, warn, errs, bl := issueCounts(issues); len(issues) > 0 {
		var parts []string
		if fail > 0 {
			parts = append(parts, plural(fail, "failing check", "failing checks"))
		}
		if warn > 0 {
			parts = append(parts, plural(warn, "check warning", "checks warning"))
		}
		if errs > 0 {
			parts = append(parts, plural(errs, "check in harness error", "checks in harness error"))
		}
		if bl > 0 {
			parts = append(parts, fmt.Sprintf("%d baselined", bl))
		}
		n := 0
		for _, is := range issues {
			n += len(is.Where)
		}
		v.ProblemsHead = fmt.Sprintf("%s (%s across versions and transports)", strings.Join(parts, ", "), plural(n, "verdict", "verdicts"))
	}
	v.Untestable = htmlUntestables(run)
	v.UntestableN = sum.Total.Untestable
	areaSet, levelSet := map[string]bool{}, map[string]bool{}
	var allCells []Cell
	for _, s := range sum.Versions {
		v.VersionOpts = append(v.VersionOpts, printable(string(s.Version)))
		v.Rates = append(v.Rates, htmlVersion{
			Version:     printable(string(s.Version)),
			Headline:    s.Headline,
			Must:        s.Must.Percent(),
			MustOf:      judgedOf(s.Must),
			Should:      s.Should.Percent(),
			ShouldOf:    judgedOf(s.Should),
			Counts:      s.Counts,
			Baselined:   s.Counts.Baselined,
			MustClass:   rateClass(s.Must),
			ShouldClass: rateClass(s.Should),
			Grid:        grid(s.Cells),
			TotalCount:  s.Counts.Total(),
		})
		for _, c := range s.Cells {
			allCells = append(allCells, c)
			if !areaSet[c.Area] {
				areaSet[c.Area] = true
			}
			levelSet[string(c.Level)] = true
		}
	}
	sortCells(allCells)
	for _, a := range areasOf(allCells) {
		v.Areas = append(v.Areas, printable(a))
	}
	for _, l := range levelsOf(allCells) {
		v.Levels = append(v.Levels, printable(string(l)))
	}
	v.HasChecks = len(run.Checks) > 0
	v.Rows = htmlCheckRows(run, v.VersionOpts, anchors)
	cited := map[string]bool{}
	for _, h := range v.Issues {
		for _, r := range h.Reqs {
			cited[r.ID] = true // printed in the problem
		}
	}
	for _, c := range run.Checks {
		for _, id := range c.Requirements {
			if cited[printable(id)] {
				continue
			}
			cited[printable(id)] = true
			r, ok := run.Requirements[id]
			v.Cited = append(v.Cited, htmlReq{ID: printable(id), Anchor: "req-" + printable(id), Level: printable(string(r.Level)), Summary: printable(r.Summary), Source: printable(r.Source()), Known: ok})
		}
	}
	sort.Slice(v.Cited, func(i, k int) bool { return v.Cited[i].ID < v.Cited[k].ID })
	if b := run.Baseline; b != nil {
		hb := &htmlBaseline{Source: printable(b.Source), Entries: b.Entries, Matched: b.Matched}
		for _, s := range b.Stale {
			hb.Stale = append(hb.Stale, printable(s.String()))
		}
		for _, e := range b.Legacy {
			hb.Legacy = append(hb.Legacy, printable(LegacyHint(e)))
		}
		for _, r := range b.Renamed {
			hb.Renamed = append(hb.Renamed, printable(r.String()))
		}
		v.Baseline = hb
	}
	if f := run.Fuzz; f != nil {
		hf := &htmlFuzz{Execs: f.Execs, Duration: humanDuration(f.Duration), Rate: execRate(f), Seed: f.Seed, Chart: chart(f.Samples)}
		for _, fd := range f.Findings {
			hf.Findings = append(hf.Findings, htmlFinding{
				ID: printable(fd.ID), Kind: printable(fd.Kind), Requirements: printable(strings.Join(fd.Requirements, ", ")),
				Level: printable(string(fd.Level)), Message: printable(fd.Message), Reproducer: printable(fd.Reproducer),
				Input: printable(fd.Input), Events: htmlEvents(fd.Transcript),
			})
		}
		v.Fuzz = hf
	}
	return v
}

// judgedOf says what a rate is over: "3 of 4 judged passed; 1 untestable".
func judgedOf(r Rate) string {
	s := fmt.Sprintf("%d of %d judged passed", r.Pass, r.Judged())
	if r.Judged() == 0 {
		s = "nothing judged"
	}
	var not []string
	for _, p := range []struct {
		n    int
		what string
	}{{r.NA, "n/a"}, {r.Untestable, "untestable"}, {r.Error, "error"}} {
		if p.n > 0 {
			not = append(not, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	if len(not) > 0 {
		s += "; not judged: " + strings.Join(not, ", ")
	}
	return s
}

func rateClass(r Rate) string {
	val, ok := r.Value()
	switch {
	case !ok:
		return "o-na"
	case val == 1:
		return "o-pass"
	case val >= 0.9:
		return "o-warn"
	}
	return "o-fail"
}

// grid lays out cells as rows of areas and columns of levels.
func grid(cells []Cell) htmlGrid {
	var g htmlGrid
	levels := levelsOf(cells)
	for _, l := range levels {
		g.Levels = append(g.Levels, printable(string(l)))
	}
	idx := map[[2]string]Counts{}
	for _, c := range cells {
		idx[[2]string{c.Area, string(c.Level)}] = c.Counts
	}
	for _, a := range areasOf(cells) {
		row := htmlRow{Area: printable(a)}
		for _, l := range levels {
			c, ok := idx[[2]string{a, string(l)}]
			if !ok {
				row.Cells = append(row.Cells, htmlCell{Class: "o-empty", Text: "", Title: "no checks"})
				continue
			}
			worst := c.Worst()
			text := fmt.Sprintf("%d/%d", c.Pass, c.Pass+c.Fail+c.Warn)
			if c.Pass+c.Fail+c.Warn == 0 {
				text = "–"
			}
			var extra []string
			if c.Untestable > 0 {
				extra = append(extra, fmt.Sprintf("%d?", c.Untestable))
			}
			if c.Error > 0 {
				extra = append(extra, fmt.Sprintf("%d!", c.Error))
			}
			if len(extra) > 0 {
				text += " " + strings.Join(extra, " ")
			}
			title := fmt.Sprintf("%s %s: pass %d, fail %d, warn %d, error %d, untestable %d, n/a %d", a, l, c.Pass, c.Fail, c.Warn, c.Error, c.Untestable, c.NA)
			row.Cells = append(row.Cells, htmlCell{Class: "o-" + worst.String(), Text: text, Title: printable(title)})
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}

func htmlEvents(evs []WireEvent) []htmlEvent {
	var out []htmlEvent
	for _, e := range evs {
		he := htmlEvent{
			Offset: "+" + humanDuration(e.Offset), Conn: e.Conn, Direction: printable(string(e.Direction)), Arrow: arrow(e.Direction),
			Note: printable(e.Note), Body: truncate(display(e), htmlBodyRunes), NotUTF8: e.Base64,
		}
		if e.HTTP != nil {
			he.Method, he.URL, he.Status = printable(e.HTTP.Method), printable(e.HTTP.URL), e.HTTP.Status
			for _, k := range sortedKeys(e.HTTP.Headers) {
				for _, val := range e.HTTP.Headers[k] {
					he.Headers = append(he.Headers, htmlHeader{printable(k), printable(val)})
				}
			}
		}
		out = append(out, he)
	}
	return out
}

// chart scales throughput samples into a 640×200 SVG plot area; nil when
// there is no line to draw (fewer than two samples: the average rate is
// printed beside it anyway).
func chart(samples []ThroughputSample) *svgChart {
	if len(samples) < 2 {
		return nil
	}
	c := &svgChart{Width: 640, Height: 200, Left: 56, Right: 12, Top: 24, Bottom: 28} // the top margin holds the axis label
	maxT := samples[len(samples)-1].Offset
	for _, s := range samples {
		if s.Offset > maxT {
			maxT = s.Offset
		}
	}
	maxR := 0.0
	for _, s := range samples {
		if !math.IsNaN(s.ExecsPerSec) && !math.IsInf(s.ExecsPerSec, 0) && s.ExecsPerSec > maxR {
			maxR = s.ExecsPerSec
		}
	}
	maxR = niceCeil(maxR)
	plotW := float64(c.Width - c.Left - c.Right)
	plotH := float64(c.Height - c.Top - c.Bottom)
	x := func(t time.Duration) float64 {
		if maxT <= 0 {
			return float64(c.Left)
		}
		return float64(c.Left) + plotW*float64(t)/float64(maxT)
	}
	y := func(r float64) float64 {
		if math.IsNaN(r) || math.IsInf(r, 0) || r < 0 {
			r = 0
		}
		return float64(c.Top) + plotH*(1-r/maxR)
	}
	var pts []string
	for _, s := range samples {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(s.Offset), y(s.ExecsPerSec)))
	}
	c.Points = strings.Join(pts, " ")
	for i := 0; i <= 4; i++ {
		r := maxR * float64(i) / 4
		c.YTicks = append(c.YTicks, svgTick{X: float64(c.Left) - 6, Y: y(r), Label: trimFloat(r)})
		t := time.Duration(float64(maxT) * float64(i) / 4)
		c.XTicks = append(c.XTicks, svgTick{X: x(t), Y: float64(c.Height - c.Bottom + 16), Label: humanDuration(t)})
	}
	c.Max = trimFloat(maxR)
	c.PlotRight = c.Width - c.Right
	return c
}

// niceCeil rounds v up to 1, 2, 2.5 or 5 times a power of ten (at least 1).
func niceCeil(v float64) float64 {
	if v <= 1 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func trimFloat(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	return strings.TrimSuffix(s, ".0")
}
