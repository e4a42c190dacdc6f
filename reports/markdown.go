package reports

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"
)

// GitHub caps a step summary at 1 MiB, so long lists are cut: at most
// mdMaxProblems problems in detail and mdMaxListed checks per outcome list.
const (
	mdMaxProblems = 200
	mdMaxListed   = 500
)

var headlineIcon = map[string]string{
	"pass": "✅", "fail": "❌", "warn": "⚠️", "error": "❗", "incomplete": "❔", "none": "➖", "unspoken": "➖",
}

var outcomeIcon = map[Outcome]string{
	Pass: "✅", Fail: "❌", Warn: "⚠️", Error: "❗", Untestable: "❔", NA: "➖",
}

var mdSpecial = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "|", `\|`,
	"~", `\~`, "#", `\#`, "!", `\!`, "$", `\$`,
)

// md escapes text for an inline Markdown context (a table cell, a list
// item): control characters made printable, newlines folded, Markdown
// punctuation backslash-escaped (so no link, image, emphasis or table cell
// can be forged) and HTML escaped (so no tag survives).
func md(s string) string {
	return html.EscapeString(mdSpecial.Replace(oneLine(printable(s))))
}

// mdCode renders s as a code span when it holds no backtick, else as
// escaped text.
func mdCode(s string) string {
	s = oneLine(printable(s))
	if s == "" || strings.ContainsAny(s, "`<>&|") {
		return md(s)
	}
	return "`" + s + "`"
}

// mdCodes renders IDs as code spans joined with ", ".
func mdCodes(ids []string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = mdCode(id)
	}
	return strings.Join(parts, ", ")
}

// pre renders text as an HTML <pre> block, escaped. Markdown ends such a
// block only at a literal </pre>, which escaping makes impossible, so blank
// lines inside cannot let the text out into Markdown.
func pre(s string) string {
	return "<pre>" + html.EscapeString(strings.TrimRight(printable(s), "\n")) + "</pre>"
}

// WriteMarkdown writes a GitHub-flavoured Markdown report for CI step
// summaries and PR comments, problems first and under MarkdownBudget
// bytes: the verdict (see RunVerdict), who was tested, each version's
// headline; the problems, one entry per check broken the same way across
// versions and transports (see Issues), each with the requirements it
// broke (in full once per report) and, collapsed, expected versus actual
// and the evidence that proves it (past a share of the budget only one
// line each); the untestable checks grouped by reason; the stale
// baseline entries and fuzzing findings; then a table of protocol
// versions with MUST and SHOULD pass rates and every outcome count, a
// table per version by area and level and collapsed lists of n/a and
// passing checks. What does not fit is left out with a note pointing at
// the JSON and HTML reports, which hold everything. Text the target
// controls is escaped: pipes, backticks, Markdown punctuation and HTML
// cannot break out.
func WriteMarkdown(w io.Writer, run *Run, opts Options) error {
	run, err := Prepare(run, opts)
	if err != nil {
		return err
	}
	var head, probs, tail strings.Builder
	sum := Summarize(run)
	mdHead(&head, run, sum, opts)
	mdProblems(&probs, run, opts, MarkdownBudget/2)
	mdUntestable(&probs, run)
	mdExtras(&probs, run)
	mdSideEffects(&probs, run)
	mdTools(&probs, run)
	// The rest, section by section, while it fits.
	used := head.Len() + probs.Len()
	omitted := 0
	for _, sec := range mdTailSections(run, sum) {
		if used+tail.Len()+len(sec) > MarkdownBudget-512 {
			omitted++
			continue
		}
		tail.WriteString(sec)
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(head.String())
	bw.WriteString(probs.String())
	bw.WriteString(tail.String())
	if omitted > 0 {
		fmt.Fprintf(bw, "*%d further sections (area tables, check lists) were left out to keep this summary under %d KB; the JSON and HTML reports hold everything.*\n", omitted, MarkdownBudget>>10)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write Markdown report: %w", err)
	}
	return nil
}

// MarkdownBudget bounds the Markdown report (GitHub PR comments take 64 KiB;
// job summaries more, but a summary is read, not searched).
const MarkdownBudget = 60 << 10

// mdDetailBudget bounds one problem's collapsed details.
const mdDetailBudget = 2 << 10

// verdictIcon is the icon of a run verdict.
var verdictIcon = map[RunVerdict]string{
	VerdictPass: "✅", VerdictFail: "❌", VerdictIncomplete: "❔", VerdictNotJudged: "➖", VerdictInterrupted: "⏹️",
}

func mdHead(b *strings.Builder, run *Run, sum Summary, opts Options) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	j, word := verdictOf(run, opts)
	p("## %s %s: %s\n\n", verdictIcon[word], md(toolName(run)), word.Label())
	where := run.Target.Command
	if where == "" {
		where = run.Target.URL
	}
	p("**Target** (%s, %s): %s  \n", md(orElse(run.Target.Role, "target")), md(run.Target.Kind), md(where))
	if impl, nego, caps := peerLines(run); impl != "" {
		p("**Tested:** %s", md(impl))
		if nego != "" {
			p(", negotiated %s", md(nego))
		}
		p("  \n")
		if len(caps) == 1 {
			p("**Capabilities:** %s  \n", md(caps[0]))
		}
	}
	p("**Run** started %s, took %s, transport %s", startedAt(run), humanDuration(run.Duration), md(run.Transport))
	if run.LabelFilter != "" {
		p(", label filter %s", md(run.LabelFilter))
	}
	if run.Silence != nil {
		p(", silence windows %s", md(run.Silence.String()))
	}
	if run.Startup != nil {
		p(", target start-up %s", md(run.Startup.String()))
	}
	p("  \n")
	if run.ToolPolicy != nil {
		p("**Tool calls:** %s  \n", md(run.ToolPolicy.String()))
	}
	if run.Interrupted != "" {
		p("**Interrupted** (%s): the checks the run did not reach are marked not run  \n", md(run.Interrupted))
	}
	p("**Verdict for CI:** %s — %s\n\n", string(word), md(tidy(j.Reason(opts.Strict))))
	if len(sum.Versions) > 0 {
		var parts []string
		for _, vs := range sum.Versions {
			parts = append(parts, fmt.Sprintf("%s %s %s", md(orElse(string(vs.Version), "(no version)")), headlineIcon[vs.Headline], vs.Headline))
		}
		p("%s\n\n", strings.Join(parts, " · "))
	}
	if nt := NotTested(run); nt != "" {
		p("**Not tested:** %s. Untestable checks are never counted as passing.\n\n", md(nt))
	}
}

// mdProblems writes the issues: in detail while the section stays under
// budget bytes, then one line each.
func mdProblems(b *strings.Builder, run *Run, opts Options, budget int) {
	issues := Issues(run)
	if len(issues) == 0 {
		return
	}
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	n := 0
	for _, is := range issues {
		n += len(is.Where)
	}
	p("### Problems: %s (%s)\n\n", plural(len(issues), "check", "checks"), plural(n, "verdict", "verdicts"))
	more := 0
	if len(issues) > mdMaxProblems {
		more, issues = len(issues)-mdMaxProblems, issues[:mdMaxProblems]
	}
	start := b.Len()
	short := false
	var reqs requirementPrinter
	for i, is := range issues {
		c := run.Checks[is.Checks[0]]
		if !short && b.Len()-start > budget {
			short = true
			p("The rest in one line each (the JSON and HTML reports have their details):\n\n")
		}
		if short && b.Len()-start > budget*3/2 {
			more += len(issues) - i
			break
		}
		if short {
			p("- %s %s %s in %s", outcomeIcon[is.Outcome], is.Outcome.Label(), mdCode(is.Check), md(is.Versions()))
			if what := orElse(c.Actual, c.Reason); what != "" {
				p(": %s", md(truncate(firstLine(tidy(what)), 160)))
			}
			p("\n")
			continue
		}
		p("#### %s %s %s", outcomeIcon[is.Outcome], is.Outcome.Label(), mdCode(is.Check))
		if is.Level != "" {
			p(" (%s)", md(string(is.Level)))
		}
		p(" in %s\n\n", md(is.Versions()))
		if c.Title != "" {
			p("%s  \n", md(c.Title))
		}
		if is.Baselined {
			p("*Baselined (expected):* %s  \n", md(c.BaselineReason))
		}
		if len(is.Unexpected) > 0 {
			p("**New:** breaks %s, which the baseline's entries for this check do not name  \n", mdCodes(is.Unexpected))
		}
		p("\n")
		for _, id := range issueRequirements(run, is) {
			r, ok := run.Requirements[id]
			switch {
			case !reqs.first(id):
				p("- %s (above)\n", mdCode(id))
			case ok:
				p("- %s (%s): %s — %s\n", mdCode(id), md(string(r.Level)), md(r.Summary), md(r.Source()))
			default:
				p("- %s\n", mdCode(id))
			}
		}
		p("\n<details><summary>Expected, actual and evidence</summary>\n\n")
		p("%s\n\n</details>\n\n", pre(truncate(mdDetails(run, is, opts.Verbose), mdDetailBudget)))
	}
	if short {
		p("\n")
	}
	if more > 0 {
		p("… and %d more; the JSON and HTML reports list them all.\n\n", more)
	}
}

// mdUntestable lists the untestable checks, grouped by reason.
func mdUntestable(b *strings.Builder, run *Run) {
	groups := htmlUntestables(run)
	if len(groups) == 0 {
		return
	}
	fmt.Fprintf(b, "<details><summary>%s Not tested: %s</summary>\n\n", outcomeIcon[Untestable], plural(Summarize(run).Total.Untestable, "check untestable", "checks untestable"))
	for i, g := range groups {
		if i == mdMaxListed {
			fmt.Fprintf(b, "- … and %d more\n", len(groups)-i)
			break
		}
		fmt.Fprintf(b, "- %s: %s\n", md(truncate(g.Reason, 300)), md(strings.Join(g.Checks, "; ")))
	}
	b.WriteString("\n</details>\n\n")
}

// mdExtras writes the stale baseline entries and the fuzzing findings.
func mdExtras(b *strings.Builder, run *Run) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	if bl := run.Baseline; bl != nil && len(bl.Stale) > 0 {
		p("### Stale baseline entries (%d)\n\n", len(bl.Stale))
		for _, s := range bl.Stale {
			p("- %s\n", md(s.String()))
		}
		p("\n")
	}
	if bl := run.Baseline; bl != nil && len(bl.Legacy) > 0 {
		p("### Baseline entries without requirements (%d)\n\n", len(bl.Legacy))
		for _, e := range bl.Legacy {
			p("- %s\n", md(LegacyHint(e)))
		}
		p("\n")
	}
	if bl := run.Baseline; bl != nil && len(bl.Renamed) > 0 {
		p("### Baseline entries naming renamed checks (%d)\n\n", len(bl.Renamed))
		for _, r := range bl.Renamed {
			p("- %s\n", md(r.String()))
		}
		p("\n")
	}
	if f := run.Fuzz; f != nil {
		p("### Fuzzing\n\n%d executions in %s (%s/s on average), seed %d, %d findings.\n\n", f.Execs, humanDuration(f.Duration), execRate(f), f.Seed, len(f.Findings))
		for _, fd := range f.Findings {
			p("- **%s** %s: %s", md(fd.Kind), mdCode(fd.ID), md(truncate(fd.Message, 400)))
			if len(fd.Requirements) > 0 {
				p(" (%s %s)", md(strings.Join(fd.Requirements, ", ")), md(string(fd.Level)))
			}
			p("  \n  reproduce: %s\n", mdCode(fd.Reproducer))
		}
		p("\n")
	}
}

// mdTailSections are the sections after the problems, in the order they
// are kept while the budget lasts: the area tables per version, then the
// lists of untestable, n/a and passing checks.
func mdTailSections(run *Run, sum Summary) []string {
	var out []string
	if len(sum.Versions) > 0 {
		var b strings.Builder
		b.WriteString("### Per protocol version\n\n| Protocol | Verdict | MUST pass rate | SHOULD pass rate | pass | fail | warn | error | untestable | n/a |\n")
		b.WriteString("|---|---|---|---|--:|--:|--:|--:|--:|--:|\n")
		for _, vs := range sum.Versions {
			c := vs.Counts
			fmt.Fprintf(&b, "| %s | %s %s | %s | %s | %d | %d | %d | %d | %d | %d |\n", md(string(vs.Version)), headlineIcon[vs.Headline], vs.Headline,
				mdRate(vs.Must), mdRate(vs.Should), c.Pass, c.Fail, c.Warn, c.Error, c.Untestable, c.NA)
		}
		b.WriteString("\nPass rate = pass / (pass + broken) at that level; n/a, untestable and error checks are not in it and are counted on their own. Untestable checks were not run and are never counted as passing.\n")
		if sum.Baselined > 0 {
			fmt.Fprintf(&b, "%s expected by the baseline; they are still counted above.\n", plural(sum.Baselined, "broken check is", "broken checks are"))
		}
		b.WriteString("\n")
		out = append(out, b.String())
	}
	for _, vs := range sum.Versions {
		if len(vs.Cells) == 0 {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "### %s by area and level\n\n", md(string(vs.Version)))
		b.WriteString("| Area | Level | | pass | fail | warn | error | untestable | n/a |\n|---|---|---|--:|--:|--:|--:|--:|--:|\n")
		for _, c := range vs.Cells {
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d | %d | %d |\n", md(c.Area), md(orElse(string(c.Level), "-")), outcomeIcon[c.Counts.Worst()],
				c.Counts.Pass, c.Counts.Fail, c.Counts.Warn, c.Counts.Error, c.Counts.Untestable, c.Counts.NA)
		}
		b.WriteString("\n")
		out = append(out, b.String())
	}
	for _, o := range []Outcome{NA, Pass} {
		var cs []Check
		for _, c := range run.Checks {
			if c.Outcome == o {
				cs = append(cs, c)
			}
		}
		if len(cs) == 0 {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<details><summary>%s %s checks (%d)</summary>\n\n", outcomeIcon[o], o.Label(), len(cs))
		more := 0
		if len(cs) > mdMaxListed {
			more, cs = len(cs)-mdMaxListed, cs[:mdMaxListed]
		}
		for _, c := range cs {
			fmt.Fprintf(&b, "- %s %s", mdCode(c.ID), md("["+string(c.Version)+" "+c.Transport+"]"))
			if c.Reason != "" {
				fmt.Fprintf(&b, ": %s", md(truncate(c.Reason, 200)))
			}
			b.WriteString("\n")
		}
		if more > 0 {
			fmt.Fprintf(&b, "- … and %d more\n", more)
		}
		b.WriteString("\n</details>\n\n")
		out = append(out, b.String())
	}
	return out
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func mdRate(r Rate) string {
	if r.Judged() == 0 {
		return "n/a (nothing judged)"
	}
	return fmt.Sprintf("%s (%d/%d)", r.Percent(), r.Pass, r.Judged())
}

// mdDetails is the body of a problem's collapsed details: the first
// occurrence's expected, actual, reason and evidence, and what the
// others saw when it differs.
func mdDetails(run *Run, is Issue, verbose bool) string {
	c := run.Checks[is.Checks[0]]
	var b strings.Builder
	if c.Expected != "" {
		fmt.Fprintf(&b, "expected: %s\n", tidy(c.Expected))
	}
	if c.Actual != "" {
		fmt.Fprintf(&b, "actual:   %s\n", tidy(c.Actual))
	}
	if c.Reason != "" {
		fmt.Fprintf(&b, "reason:   %s\n", tidy(c.Reason))
	}
	if c.Retried != "" {
		fmt.Fprintf(&b, "retried:  %s\n", tidy(c.Retried))
	}
	if verbose {
		if len(c.Transcript) > 0 {
			fmt.Fprintf(&b, "transcript%s:\n", parenLegend(connLegend(c.Transcript)))
		}
		for _, e := range c.Transcript {
			b.WriteString("  " + eventLine(e, true, "    ") + "\n")
		}
	} else if ev := EvidenceOf(c); len(ev.Events) > 0 {
		fmt.Fprintf(&b, "%s:\n", evidenceHead(c.Key(), ev))
		for _, l := range evidenceLines(ev) {
			b.WriteString("  " + l + "\n")
		}
	}
	for n, k := range is.Where[1:] {
		if is.Differs[n] {
			o := run.Checks[is.Checks[n+1]]
			fmt.Fprintf(&b, "in %s: %s\n", strings.TrimSpace(string(k.Version)+" "+k.Transport), truncate(oneLine(tidy(orElse(o.Actual, o.Reason))), 300))
		}
	}
	return b.String()
}
