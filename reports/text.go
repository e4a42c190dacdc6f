package reports

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
)

// ANSI colours for WriteText.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiPurple = "\x1b[35m"
	ansiCyan   = "\x1b[36m"
)

// excerptEvents is how many transcript events a non-verbose report shows
// per problem, and excerptRunes how much of each.
const (
	excerptEvents = 4
	excerptRunes  = 160
)

// textWriter accumulates output and remembers the first write error.
type textWriter struct {
	w     *bufio.Writer
	color bool
}

func (t *textWriter) printf(format string, a ...any) { fmt.Fprintf(t.w, format, a...) }

// paint wraps s in an ANSI colour when colours are on.
func (t *textWriter) paint(code, s string) string {
	if !t.color || code == "" {
		return s
	}
	return code + s + ansiReset
}

func outcomeColor(o Outcome) string {
	switch o {
	case Pass:
		return ansiGreen
	case Fail:
		return ansiRed
	case Warn:
		return ansiYellow
	case Error:
		return ansiPurple
	case Untestable:
		return ansiCyan
	case NA:
		return ansiDim
	}
	return ""
}

func headlineColor(h string) string {
	switch h {
	case "pass":
		return ansiGreen
	case "fail":
		return ansiRed
	case "warn":
		return ansiYellow
	case "error":
		return ansiPurple
	case "incomplete":
		return ansiCyan
	}
	return ansiDim
}

// WriteText writes the console report: the run's header; per protocol
// version a headline verdict, the MUST and SHOULD pass rates, the counts of
// every outcome (untestable and n/a always spelled out, never folded into
// passes) and a table per area and level; then every fail, warn and error
// with its requirements (ID, level, catalog summary and source), expected
// versus actual and a short transcript excerpt; the untestable checks with
// their reasons; the baseline, the fuzzing campaign, and the final verdict.
// Options.Color adds ANSI colours; Options.Verbose prints whole transcripts
// and lists n/a checks too. Text the target controls is made printable: no
// terminal escape sequence from a hostile target reaches the terminal.
func WriteText(w io.Writer, run *Run, opts Options) error {
	run, err := Prepare(run, opts)
	if err != nil {
		return err
	}
	t := &textWriter{w: bufio.NewWriter(w), color: opts.Color}
	sum := Summarize(run)
	t.header(run)
	for _, vs := range sum.Versions {
		t.version(vs)
	}
	if len(sum.Versions) > 1 {
		t.printf("All versions: %s  MUST %s  SHOULD %s  %s\n\n", t.paint(ansiBold+headlineColor(sum.Headline), upper(sum.Headline)),
			sum.Must.Percent(), sum.Should.Percent(), t.countsLine(sum.Total))
	}
	t.problems(run, opts.Verbose)
	t.listed(run, Untestable, "not tested: a needed fixture or trigger is absent; not counted as passing")
	t.tools(run)
	if opts.Verbose {
		t.listed(run, NA, "does not apply to this target or version; not counted against it")
	}
	t.baseline(run)
	t.fuzz(run)
	t.sideEffects(run)
	t.harnessProblems(run, opts.Verbose)
	t.verdict(run)
	if err := t.w.Flush(); err != nil {
		return fmt.Errorf("write text report: %w", err)
	}
	return nil
}

// harnessProblems lists faults of the harness itself, and with verbose the
// target's exit status and stderr tail.
func (t *textWriter) harnessProblems(run *Run, verbose bool) {
	if len(run.Problems) > 0 {
		t.printf("%s\n", t.paint(ansiBold+ansiRed, "Harness problems (this run is not trustworthy; please report them):"))
		for _, p := range run.Problems {
			t.printf("  - %s\n", printable(p))
		}
		t.printf("\n")
	}
	if !verbose {
		return
	}
	if run.Target.ExitStatus != "" {
		t.printf("Target exit: %s\n", printable(run.Target.ExitStatus))
	}
	if run.Target.StderrTail != "" {
		t.printf("Target stderr (tail):\n")
		for _, line := range strings.Split(strings.TrimRight(run.Target.StderrTail, "\n"), "\n") {
			t.printf("  | %s\n", printable(line))
		}
		t.printf("\n")
	}
}

func (t *textWriter) header(run *Run) {
	name := run.Tool.Name
	if name == "" {
		name = "mcpcheck"
	}
	t.printf("%s %s\n", t.paint(ansiBold, printable(name)), printable(run.Tool.Version))
	role := run.Target.Role
	if role == "" {
		role = "target"
	}
	where := run.Target.Command
	if where == "" {
		where = run.Target.URL
	}
	if run.Target.Kind != "" {
		role += " (" + run.Target.Kind + ")"
	}
	t.printf("%s: %s\n", printable(role), printable(oneLine(where)))
	var vs []string
	for _, v := range run.Versions {
		vs = append(vs, string(v))
	}
	t.printf("started %s · took %s · transport %s · protocol %s\n", startedAt(run), humanDuration(run.Duration),
		printable(run.Transport), printable(strings.Join(vs, ", ")))
	if run.LabelFilter != "" {
		t.printf("label filter: %s\n", printable(run.LabelFilter))
	}
	if run.Selection != "" {
		t.printf("selection: %s\n", printable(run.Selection))
	}
	if run.Silence != nil {
		t.printf("silence windows: %s\n", run.Silence)
	}
	if run.Startup != nil {
		t.printf("target start-up: %s\n", run.Startup)
	}
	if run.ToolPolicy != nil {
		t.printf("tool calls: %s\n", printable(run.ToolPolicy.String()))
	}
	t.printf("\n")
}

func (t *textWriter) countsLine(c Counts) string {
	parts := make([]string, 0, len(Outcomes))
	for _, o := range []Outcome{Pass, Fail, Warn, Error, Untestable, NA} {
		s := fmt.Sprintf("%s %d", strings.ToLower(o.Label()), c.Of(o))
		if c.Of(o) > 0 && o != NA {
			s = t.paint(outcomeColor(o), s)
		}
		parts = append(parts, s)
	}
	line := strings.Join(parts, " · ")
	if c.Baselined > 0 {
		line += fmt.Sprintf("  (%d broken but baselined)", c.Baselined)
	}
	return line
}

func rateLine(r Rate) string {
	s := fmt.Sprintf("%-6s (%d of %d judged passed", r.Percent(), r.Pass, r.Judged())
	if r.Judged() == 0 {
		s = fmt.Sprintf("%-6s (nothing judged", r.Percent())
	}
	var not []string
	if r.NA > 0 {
		not = append(not, fmt.Sprintf("%d n/a", r.NA))
	}
	if r.Untestable > 0 {
		not = append(not, fmt.Sprintf("%d untestable", r.Untestable))
	}
	if r.Error > 0 {
		not = append(not, fmt.Sprintf("%d error", r.Error))
	}
	if len(not) > 0 {
		s += "; not judged: " + strings.Join(not, ", ")
	}
	return s + ")"
}

func (t *textWriter) version(vs VersionSummary) {
	v := string(vs.Version)
	if v == "" {
		v = "(no version)"
	}
	t.printf("%s  %s\n", t.paint(ansiBold, "Protocol "+printable(v)), t.paint(ansiBold+headlineColor(vs.Headline), upper(vs.Headline)))
	t.printf("  MUST    %s\n", rateLine(vs.Must))
	t.printf("  SHOULD  %s\n", rateLine(vs.Should))
	t.printf("  checks  %s\n", t.countsLine(vs.Counts))
	if len(vs.Cells) > 0 {
		areaW := len("area")
		for _, c := range vs.Cells {
			if n := len(printable(c.Area)); n > areaW {
				areaW = n
			}
		}
		t.printf("\n  %-*s  %-10s  %4s  %4s  %4s  %5s  %10s  %4s\n", areaW, "area", "level", "pass", "fail", "warn", "error", "untestable", "n/a")
		for _, c := range vs.Cells {
			lvl := string(c.Level)
			if lvl == "" {
				lvl = "-"
			}
			t.printf("  %-*s  %-10s  %4d  %4d  %4d  %5d  %10d  %4d\n", areaW, printable(c.Area), printable(lvl),
				c.Counts.Pass, c.Counts.Fail, c.Counts.Warn, c.Counts.Error, c.Counts.Untestable, c.Counts.NA)
		}
	}
	t.printf("\n")
}

func (t *textWriter) problems(run *Run, verbose bool) {
	ps := problems(run)
	if len(ps) == 0 {
		return
	}
	t.printf("%s (%d)\n\n", t.paint(ansiBold, "Problems"), len(ps))
	for _, c := range ps {
		label := fmt.Sprintf("%-5s", c.Outcome.Label())
		t.printf("%s  %s  %s", t.paint(ansiBold+outcomeColor(c.Outcome), label), printable(c.Key().String()), printable(string(c.Level)))
		if c.Baselined {
			t.printf("  (baselined: %s)", printable(oneLine(c.BaselineReason)))
		}
		if len(c.Unexpected) > 0 {
			t.printf("  %s", t.paint(ansiBold+ansiRed, "(new: "+printable(strings.Join(c.Unexpected, ", "))+" broken, which the baseline's entries for this check do not name)"))
		}
		t.printf("\n")
		pad := "       "
		if c.Title != "" {
			t.printf("%s%s\n", pad, printable(oneLine(c.Title)))
		}
		for _, id := range c.Requirements {
			if r, ok := run.Requirements[id]; ok {
				t.printf("%srequirement %s (%s): %s\n", pad, printable(id), printable(string(r.Level)), printable(oneLine(r.Summary)))
				t.printf("%s            source: %s\n", pad, printable(r.Source()))
			} else {
				t.printf("%srequirement %s (not in the catalog)\n", pad, printable(id))
			}
		}
		t.block(pad, "expected: ", c.Expected)
		t.block(pad, "actual:   ", c.Actual)
		t.block(pad, "reason:   ", c.Reason)
		t.block(pad, "retried:  ", c.Retried)
		t.transcript(pad, c.Transcript, verbose)
		t.printf("\n")
	}
}

// block prints a labelled, possibly multi-line value with continuation
// lines indented under the first.
func (t *textWriter) block(pad, label, s string) {
	if s == "" {
		return
	}
	lines := strings.Split(strings.TrimRight(printable(s), "\n"), "\n")
	t.printf("%s%s%s\n", pad, label, lines[0])
	for _, l := range lines[1:] {
		t.printf("%s%s%s\n", pad, strings.Repeat(" ", len(label)), l)
	}
}

func arrow(d Direction) string {
	switch d {
	case Sent:
		return "→"
	case Received:
		return "←"
	}
	return "·"
}

func (t *textWriter) transcript(pad string, evs []WireEvent, verbose bool) {
	if len(evs) == 0 {
		return
	}
	shown := evs
	if !verbose && len(evs) > excerptEvents {
		shown = evs[len(evs)-excerptEvents:]
		t.printf("%stranscript (last %d of %d events; --verbose shows all%s):\n", pad, len(shown), len(evs), connLegend(shown))
	} else {
		t.printf("%stranscript (%d events%s):\n", pad, len(evs), connLegend(evs))
	}
	for _, e := range shown {
		t.printf("%s  %s\n", pad, eventLine(e, verbose, pad+"    "))
	}
}

// connLegend explains the connection labels of evs ("; c2 is connection
// 2"), "" when no event carries one.
func connLegend(evs []WireEvent) string {
	seen := map[int]bool{}
	var conns []int
	for _, e := range evs {
		if e.Conn > 0 && !seen[e.Conn] {
			seen[e.Conn] = true
			conns = append(conns, e.Conn)
		}
	}
	switch len(conns) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("; all on connection c%d", conns[0])
	}
	return fmt.Sprintf("; %d connections, cN is connection N", len(conns))
}

// eventLine renders one wire event; in excerpt mode on one line, cut short.
func eventLine(e WireEvent, verbose bool, contPad string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "+%-9s %s ", humanDuration(e.Offset), arrow(e.Direction))
	if e.Conn > 0 {
		fmt.Fprintf(&b, "c%d ", e.Conn)
	}
	if e.HTTP != nil {
		if e.HTTP.Method != "" {
			fmt.Fprintf(&b, "%s %s ", printable(e.HTTP.Method), printable(e.HTTP.URL))
		}
		if e.HTTP.Status != 0 {
			fmt.Fprintf(&b, "HTTP %d ", e.HTTP.Status)
		}
		if verbose {
			for _, k := range sortedKeys(e.HTTP.Headers) {
				for _, v := range e.HTTP.Headers[k] {
					fmt.Fprintf(&b, "\n%s%s: %s", contPad, printable(k), printable(v))
				}
			}
			if len(e.HTTP.Headers) > 0 {
				b.WriteString("\n" + contPad)
			}
		}
	}
	if e.Note != "" {
		fmt.Fprintf(&b, "(%s) ", printable(oneLine(e.Note)))
	}
	body := display(e)
	if e.Base64 {
		b.WriteString("[not UTF-8] ")
	}
	if verbose {
		b.WriteString(strings.ReplaceAll(strings.TrimRight(body, "\n"), "\n", "\n"+contPad))
	} else {
		b.WriteString(truncate(strings.ReplaceAll(strings.TrimRight(body, "\n"), "\n", `\n`), excerptRunes))
	}
	ls := strings.Split(b.String(), "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(ls, "\n")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (t *textWriter) listed(run *Run, o Outcome, what string) {
	var cs []Check
	for _, c := range run.Checks {
		if c.Outcome == o {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return
	}
	t.printf("%s (%d): %s\n", t.paint(ansiBold+outcomeColor(o), o.Label()), len(cs), what)
	for _, c := range cs {
		reason := c.Reason
		if reason == "" {
			reason = "no reason recorded"
		}
		t.printf("  %s: %s\n", printable(c.Key().String()), printable(oneLine(reason)))
	}
	t.printf("\n")
}

func (t *textWriter) baseline(run *Run) {
	b := run.Baseline
	if b == nil {
		return
	}
	scope := ""
	if b.OutOfScope > 0 {
		scope = fmt.Sprintf(", %d out of scope (about checks the run did not select)", b.OutOfScope)
	}
	t.printf("%s %s: %d entries, %d matched broken checks, %d stale%s\n", t.paint(ansiBold, "Baseline"), printable(b.Source), b.Entries, b.Matched, len(b.Stale), scope)
	for _, s := range b.Stale {
		t.printf("  %s  %s\n", t.paint(ansiYellow, "STALE"), printable(s.String()))
	}
	for _, e := range b.Legacy {
		t.printf("  %s  %s\n", t.paint(ansiYellow, "LEGACY"), printable(LegacyHint(e)))
	}
	t.printf("\n")
}

func (t *textWriter) fuzz(run *Run) {
	f := run.Fuzz
	if f == nil {
		return
	}
	t.printf("%s: %d execs in %s (%s/s average), seed %d, %d findings\n", t.paint(ansiBold, "Fuzzing"), f.Execs, humanDuration(f.Duration),
		execRate(f), f.Seed, len(f.Findings))
	for _, fd := range f.Findings {
		t.printf("  %s  %s", t.paint(ansiRed, fmt.Sprintf("%-9s", printable(fd.Kind))), printable(fd.ID))
		if len(fd.Requirements) > 0 {
			t.printf("  %s %s", printable(strings.Join(fd.Requirements, ", ")), printable(string(fd.Level)))
		}
		t.printf("\n             %s\n", printable(oneLine(fd.Message)))
		t.printf("             reproduce: %s\n", printable(oneLine(fd.Reproducer)))
		if fd.Input != "" {
			t.printf("             input: %s\n", printable(fd.Input))
		}
	}
	t.printf("\n")
}

// execRate is the campaign's average executions per second, one decimal.
func execRate(f *FuzzSummary) string {
	if f.Duration <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f", float64(f.Execs)/f.Duration.Seconds())
}

func (t *textWriter) verdict(run *Run) {
	if run.Interrupted != "" {
		t.printf("%s\n", t.paint(ansiBold+ansiYellow, "INTERRUPTED: "+printable(run.Interrupted)+"; the checks it did not reach are marked not run"))
	}
	j := Verdict(run)
	if run.Unjudged != "" || len(run.Problems) > 0 {
		t.printf("%s\n", t.paint(ansiBold+ansiYellow, "NOT JUDGED: "+printable(j.Unjudged)))
	}
	if !j.Failed(false) {
		if !j.OK(false) {
			return // said above: no OK for a run that did not judge what it set out to
		}
		msg := "OK: no unexpected failures"
		if len(j.Warnings) > 0 {
			msg += fmt.Sprintf(" (%d unexpected warnings)", len(j.Warnings))
		}
		t.printf("%s\n", t.paint(ansiBold+ansiGreen, msg))
		return
	}
	var parts []string
	if n := len(j.Failures); n > 0 {
		parts = append(parts, plural(n, "unexpected failure", "unexpected failures"))
	}
	if n := len(j.Unexpected); n > 0 {
		parts = append(parts, plural(n, "new broken requirement", "new broken requirements")+" in checks the baseline lists ("+printable(joinKeys(j.Unexpected, 3))+")")
	}
	if n := len(j.Errors); n > 0 {
		parts = append(parts, plural(n, "harness error", "harness errors"))
	}
	if n := len(j.Stale); n > 0 {
		parts = append(parts, plural(n, "stale baseline entry", "stale baseline entries"))
	}
	if n := len(j.Warnings); n > 0 {
		parts = append(parts, plural(n, "unexpected warning", "unexpected warnings"))
	}
	t.printf("%s\n", t.paint(ansiBold+ansiRed, "FAILED: "+strings.Join(parts, ", ")))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// parenLegend puts a connLegend in parentheses of its own: " (all on
// connection c1)", "" for none.
func parenLegend(l string) string {
	if l == "" {
		return ""
	}
	return " (" + strings.TrimPrefix(l, "; ") + ")"
}
