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

// WriteText writes the console report, what is broken first: the run's
// header (the tool, the target and who it said it is, the versions it
// negotiated and the capabilities it declared, the tool policy); the
// verdict (see RunVerdict) with each version's headline; the problems,
// one entry per check broken the same way in however many versions and
// transports (see Issues), each with the requirements it broke (in full
// the first time the report names them), expected versus actual and the
// excerpt of the transcript that proves it (see Evidence); the untestable
// checks grouped by reason; the tools; per protocol version its MUST and
// SHOULD pass rates and the counts of every outcome (untestable and n/a
// always spelled out, never folded into passes); the baseline, the
// fuzzing campaign, the side effects, and the verdict again.
// Options.Color adds ANSI colours; Options.Verbose prints whole
// transcripts, the table of each version by area and level, and the n/a
// checks. Durations are rounded for people. Text the target controls is
// made printable: no terminal escape sequence from a hostile target
// reaches the terminal.
func WriteText(w io.Writer, run *Run, opts Options) error {
	run, err := Prepare(run, opts)
	if err != nil {
		return err
	}
	t := &textWriter{w: bufio.NewWriter(w), color: opts.Color}
	sum := Summarize(run)
	j, word := verdictOf(run, opts)
	t.header(run)
	t.verdictLine(j, word, opts.Strict)
	if len(sum.Versions) > 0 {
		t.versionStrip(sum)
	}
	t.printf("\n")
	t.problems(run, opts.Verbose)
	t.untestable(run, opts.Verbose)
	t.tools(run)
	t.runDetails(run)
	for _, vs := range sum.Versions {
		t.version(vs, opts.Verbose)
	}
	if len(sum.Versions) > 1 {
		t.printf("All versions: %s  MUST %s  SHOULD %s  %s\n\n", t.paint(ansiBold+headlineColor(sum.Headline), upper(sum.Headline)),
			sum.Must.Percent(), sum.Should.Percent(), t.countsLine(sum.Total))
	}
	if opts.Verbose {
		t.listed(run, NA, "does not apply to this target or version; not counted against it")
	}
	t.baseline(run)
	t.fuzz(run)
	t.sideEffects(run)
	t.harnessProblems(run, opts.Verbose)
	t.verdictLine(j, word, opts.Strict)
	if err := t.w.Flush(); err != nil {
		return fmt.Errorf("write text report: %w", err)
	}
	return nil
}

// verdictColor colours a run verdict.
func verdictColor(v RunVerdict) string {
	switch v {
	case VerdictPass:
		return ansiGreen
	case VerdictFail:
		return ansiRed
	case VerdictIncomplete:
		return ansiCyan
	}
	return ansiYellow
}

// verdictLine prints the run's verdict (Judgement.Sentence).
func (t *textWriter) verdictLine(j Judgement, word RunVerdict, strict bool) {
	t.printf("%s\n", t.paint(ansiBold+verdictColor(word), printable(tidy(j.Sentence(strict)))))
}

// versionStrip prints each version's headline on one line.
func (t *textWriter) versionStrip(sum Summary) {
	var parts []string
	for _, vs := range sum.Versions {
		v := string(vs.Version)
		if v == "" {
			v = "(no version)"
		}
		parts = append(parts, printable(v)+" "+t.paint(headlineColor(vs.Headline), upper(vs.Headline)))
	}
	t.printf("  %s\n", strings.Join(parts, " · "))
	t.printf("  checks: %s\n", t.countsLine(sum.Total))
}

// runDetails prints how the run went, after its problems: silence
// windows, start-up times, capabilities per version when they differ.
func (t *textWriter) runDetails(run *Run) {
	_, _, caps := peerLines(run)
	shown := false
	if len(caps) > 1 {
		t.printf("Capabilities declared per version:\n")
		for _, c := range caps {
			t.printf("  %s\n", printable(c))
		}
		shown = true
	}
	if run.Silence != nil {
		t.printf("silence windows: %s\n", run.Silence)
		shown = true
	}
	if run.Startup != nil {
		t.printf("target start-up: %s\n", run.Startup)
		shown = true
	}
	if shown {
		t.printf("\n")
	}
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
	t.printf("%s %s · %s: %s\n", t.paint(ansiBold, printable(name)), printable(run.Tool.Version), printable(role), printable(oneLine(where)))
	if impl, versions, caps := peerLines(run); impl != "" {
		t.printf("tested: %s\n", t.paint(ansiBold, printable(impl)))
		if versions != "" {
			t.printf("negotiated: %s\n", printable(versions))
		}
		if len(caps) == 1 {
			t.printf("capabilities: %s\n", printable(caps[0]))
		} else if len(caps) > 1 {
			t.printf("capabilities: they differ per version (listed below)\n")
		}
	}
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

// version prints one version's roll-up; with verbose its table by area
// and level too.
func (t *textWriter) version(vs VersionSummary, verbose bool) {
	v := string(vs.Version)
	if v == "" {
		v = "(no version)"
	}
	t.printf("%s  %s\n", t.paint(ansiBold, "Protocol "+printable(v)), t.paint(ansiBold+headlineColor(vs.Headline), upper(vs.Headline)))
	t.printf("  MUST    %s\n", rateLine(vs.Must))
	t.printf("  SHOULD  %s\n", rateLine(vs.Should))
	t.printf("  checks  %s\n", t.countsLine(vs.Counts))
	if len(vs.Cells) > 0 && verbose {
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

// Width and lines of expected, actual and reason texts in a problem entry
// (the JSON report, and --verbose, keep them whole).
const (
	textLineRunes = 300
	textLines     = 6
	// textUntestableRunes bounds an untestable reason: a client run has
	// dozens, each naming its scenario and how the client refused it.
	textUntestableRunes = 200
)

// problems prints the issues: failures and warnings, then harness errors
// (those that share their reason once, naming every check), each with
// what it broke, expected versus actual and the evidence.
func (t *textWriter) problems(run *Run, verbose bool) {
	issues := Issues(run)
	if len(issues) == 0 {
		return
	}
	fail, warn, errs, bl := issueCounts(issues)
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
	verdicts := 0
	for _, is := range issues {
		verdicts += len(is.Where)
	}
	t.printf("%s: %s (%s across versions and transports)\n\n", t.paint(ansiBold, "Problems"), strings.Join(parts, ", "), plural(verdicts, "verdict", "verdicts"))
	var reqs requirementPrinter
	shared := sharedErrors(run, issues)
	for i, is := range issues {
		if g, ok := shared[i]; ok {
			if g != nil {
				t.errorGroup(run, g, verbose)
			}
			continue
		}
		t.issue(run, is, &reqs, verbose)
	}
}

// issue prints one problem entry.
func (t *textWriter) issue(run *Run, is Issue, reqs *requirementPrinter, verbose bool) {
	c := run.Checks[is.Checks[0]]
	label := fmt.Sprintf("%-5s", is.Outcome.Label())
	t.printf("%s  %s", t.paint(ansiBold+outcomeColor(is.Outcome), label), t.paint(ansiBold, printable(is.Check)))
	if is.Level != "" {
		t.printf("  %s", printable(string(is.Level)))
	}
	t.printf("  in %s", printable(is.Versions()))
	if is.Baselined {
		t.printf("  (baselined: %s)", printable(oneLine(c.BaselineReason)))
	}
	if len(is.Unexpected) > 0 {
		t.printf("  %s", t.paint(ansiBold+ansiRed, "(new: "+printable(strings.Join(is.Unexpected, ", "))+" broken, which the baseline's entries for this check do not name)"))
	}
	t.printf("\n")
	pad := "       "
	if c.Title != "" {
		t.printf("%s%s\n", pad, printable(oneLine(c.Title)))
	}
	for _, id := range issueRequirements(run, is) {
		verb := "breaks"
		if is.Outcome == Error {
			verb = "cites"
		}
		r, ok := run.Requirements[id]
		switch {
		case !reqs.first(id):
			t.printf("%s%s %s (above)\n", pad, verb, printable(id))
		case ok:
			t.printf("%s%s %s (%s): %s\n", pad, verb, printable(id), printable(string(r.Level)), printable(oneLine(r.Summary)))
			t.printf("%s       source: %s\n", pad, printable(r.Source()))
		default:
			t.printf("%s%s %s (not in the catalog)\n", pad, verb, printable(id))
		}
	}
	clipped := func(s string) string {
		s = tidy(s)
		if verbose {
			return s
		}
		return clipLines(s, textLines, textLineRunes)
	}
	t.block(pad, "expected: ", clipped(c.Expected))
	t.block(pad, "actual:   ", clipped(c.Actual))
	t.block(pad, "reason:   ", clipped(c.Reason))
	if c.Retried != "" {
		t.block(pad, "retried:  ", clipped(c.Retried))
	}
	if verbose {
		t.transcript(pad, c.Transcript, true)
	} else if ev := EvidenceOf(c); len(ev.Events) > 0 {
		head := evidenceHead(c.Key(), ev)
		if len(ev.Events) < ev.Total {
			head = strings.TrimSuffix(head, ")") + "; --verbose shows all)"
		}
		t.printf("%s%s:\n", pad, printable(head))
		for _, l := range evidenceLines(ev) {
			t.printf("%s  %s\n", pad, l)
		}
	}
	for n, k := range is.Where[1:] {
		o := run.Checks[is.Checks[n+1]]
		if verbose {
			t.printf("%salso in %s:\n", pad, printable(strings.TrimSpace(string(k.Version)+" "+k.Transport)))
			t.block(pad+"  ", "actual:   ", tidy(o.Actual))
			t.block(pad+"  ", "reason:   ", tidy(o.Reason))
			t.transcript(pad+"  ", o.Transcript, true)
			continue
		}
		if is.Differs[n] {
			what := orElse(o.Actual, o.Reason)
			t.printf("%sin %s: %s\n", pad, printable(strings.TrimSpace(string(k.Version)+" "+k.Transport)), printable(truncate(oneLine(tidy(what)), textLineRunes)))
		}
	}
	t.printf("\n")
}

// errorGroup is harness errors of several checks that share their
// reason: printed once, naming every check.
type errorGroup struct {
	reason string
	issues []Issue
}

// sharedErrors finds the error issues whose first occurrence's reason
// (but for numbers) is the same as another's: the entry at the first
// index holds the group, the others nil; issues not in a group are
// absent.
func sharedErrors(run *Run, issues []Issue) map[int]*errorGroup {
	byShape := map[string][]int{}
	var order []string
	for i, is := range issues {
		if is.Outcome != Error {
			continue
		}
		k := sameShape(run.Checks[is.Checks[0]].Reason)
		if _, ok := byShape[k]; !ok {
			order = append(order, k)
		}
		byShape[k] = append(byShape[k], i)
	}
	out := map[int]*errorGroup{}
	for _, k := range order {
		idx := byShape[k]
		if len(idx) < 2 {
			continue
		}
		g := &errorGroup{reason: run.Checks[issues[idx[0]].Checks[0]].Reason}
		for n, i := range idx {
			g.issues = append(g.issues, issues[i])
			if n == 0 {
				out[i] = g
			} else {
				out[i] = nil
			}
		}
	}
	return out
}

// errorGroup prints harness errors that share one reason.
func (t *textWriter) errorGroup(run *Run, g *errorGroup, verbose bool) {
	n := 0
	for _, is := range g.issues {
		n += len(is.Where)
	}
	t.printf("%s  %s, for one reason\n", t.paint(ansiBold+outcomeColor(Error), "ERROR"), plural(len(g.issues), "check", "checks")+fmt.Sprintf(" (%s)", plural(n, "verdict", "verdicts")))
	pad := "       "
	reason := tidy(g.reason)
	if !verbose {
		reason = clipLines(reason, textLines, textLineRunes)
	}
	t.block(pad, "reason:   ", reason)
	for _, is := range g.issues {
		t.printf("%s- %s in %s\n", pad, printable(is.Check), printable(is.Versions()))
	}
	t.printf("\n")
}

// untestable prints the untestable checks, those that share a reason
// (but for numbers) once.
func (t *textWriter) untestable(run *Run, verbose bool) {
	groups := untestableGroups(run)
	if len(groups) == 0 {
		return
	}
	n := 0
	for _, g := range groups {
		n += len(g.Where)
	}
	t.printf("%s (%s): not tested, a needed fixture or trigger is absent; not counted as passing\n", t.paint(ansiBold+outcomeColor(Untestable), "UNTESTABLE"), plural(n, "verdict", "verdicts"))
	byReason := map[string][]int{}
	var order []string
	for i, g := range groups {
		k := sameShape(g.Reason)
		if _, ok := byReason[k]; !ok {
			order = append(order, k)
		}
		byReason[k] = append(byReason[k], i)
	}
	for _, k := range order {
		idx := byReason[k]
		reason := oneLine(tidy(groups[idx[0]].Reason))
		if !verbose {
			reason = truncate(reason, textUntestableRunes)
		}
		if len(idx) == 1 {
			g := groups[idx[0]]
			t.printf("  %s [%s]: %s\n", printable(g.Check), printable(whereString(g.Where)), printable(reason))
			continue
		}
		t.printf("  %s: %s\n", plural(len(idx), "check", "checks"), printable(reason))
		for _, i := range idx {
			g := groups[i]
			t.printf("    %s [%s]\n", printable(g.Check), printable(whereString(g.Where)))
		}
	}
	t.printf("\n")
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
	for _, r := range b.Renamed {
		t.printf("  %s  %s\n", t.paint(ansiYellow, "RENAMED"), printable(r.String()))
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
