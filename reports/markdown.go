package reports

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"sort"
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
// summaries and PR comments, failures first and under MarkdownBudget bytes:
// a headline verdict, a table of protocol versions with MUST and SHOULD
// pass rates and every outcome count, the failures, warnings and harness
// errors (each with its requirements and, collapsed, expected versus actual
// and a short transcript; past a share of the budget only one line each),
// the stale baseline entries and fuzzing findings, then a table per
// version by area and level and collapsed lists of untestable, n/a and
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
	mdHead(&head, run, sum)
	mdProblems(&probs, run, opts, MarkdownBudget/2)
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

func mdHead(b *strings.Builder, run *Run, sum Summary) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	j := Verdict(run)
	p("## %s %s: %s\n\n", headlineIcon[sum.Headline], md(toolName(run)), upper(sum.Headline))
	where := run.Target.Command
	if where == "" {
		where = run.Target.URL
	}
	p("**Target** (%s, %s): %s  \n", md(orElse(run.Target.Role, "target")), md(run.Target.Kind), md(where))
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
	if run.ToolPolicy != nil {
		p("  \n**Tool calls:** %s", md(run.ToolPolicy.String()))
	}
	if run.Interrupted != "" {
		p("  \n**Interrupted** (%s): the checks the run did not reach are marked not run", md(run.Interrupted))
	}
	p("  \n**Verdict for CI:** ")
	if j.Failed(false) {
		p("failed — %d unexpected failures, ", len(j.Failures))
		if n := len(j.Unexpected); n > 0 {
			p("%s in checks the baseline lists, ", plural(n, "new broken requirement", "new broken requirements"))
		}
		p("%d harness errors, %d stale baseline entries", len(j.Errors), len(j.Stale))
		if len(j.Findings) > 0 {
			p(", %d fuzz findings (crash, hang or MUST-level violation)", len(j.Findings))
		}
		if j.Unjudged != "" {
			p("; not all was judged: %s", md(j.Unjudged))
		}
		p("\n\n")
	} else if j.Unjudged != "" {
		p("failed — nothing complete was judged: %s\n\n", md(j.Unjudged))
	} else {
		p("passed — no unexpected failures\n\n")
	}
	if nt := NotTested(run); nt != "" {
		p("**Not tested:** %s. Untestable checks are never counted as passing.\n\n", md(nt))
	}

	p("| Protocol | Verdict | MUST pass rate | SHOULD pass rate | pass | fail | warn | error | untestable | n/a |\n")
	p("|---|---|---|---|--:|--:|--:|--:|--:|--:|\n")
	for _, vs := range sum.Versions {
		c := vs.Counts
		p("| %s | %s %s | %s | %s | %d | %d | %d | %d | %d | %d |\n", md(string(vs.Version)), headlineIcon[vs.Headline], vs.Headline,
			mdRate(vs.Must), mdRate(vs.Should), c.Pass, c.Fail, c.Warn, c.Error, c.Untestable, c.NA)
	}
	p("\nPass rate = pass / (pass + broken) at that level; n/a, untestable and error checks are not in it and are counted on their own. Untestable checks were not run and are never counted as passing.\n")
	if sum.Baselined > 0 {
		p("%s expected by the baseline; they are still counted above.\n", plural(sum.Baselined, "broken check is", "broken checks are"))
	}
	p("\n")
}

// mdProblems writes the failures, warnings and errors: in detail while the
// section stays under budget bytes, then one line each.
func mdProblems(b *strings.Builder, run *Run, opts Options, budget int) {
	ps := problems(run)
	if len(ps) == 0 {
		return
	}
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	// Failures first, then harness errors, then warnings; run order within.
	rank := map[Outcome]int{Fail: 0, Error: 1, Warn: 2}
	sort.SliceStable(ps, func(i, k int) bool { return rank[ps[i].Outcome] < rank[ps[k].Outcome] })
	p("### Failures, warnings and errors (%d)\n\n", len(ps))
	more := 0
	if len(ps) > mdMaxProblems {
		more, ps = len(ps)-mdMaxProblems, ps[:mdMaxProblems]
	}
	start := b.Len()
	short := false
	for i, c := range ps {
		if !short && b.Len()-start > budget {
			short = true
			p("The rest in one line each (the JSON and HTML reports have their details):\n\n")
		}
		if short && b.Len()-start > budget*3/2 {
			more += len(ps) - i
			break
		}
		if short {
			p("- %s %s %s %s", outcomeIcon[c.Outcome], c.Outcome.Label(), mdCode(c.ID), md("["+string(c.Version)+" "+c.Transport+"]"))
			if c.Actual != "" {
				p(": %s", md(truncate(firstLine(c.Actual), 160)))
			}
			p("\n")
			continue
		}
		p("#### %s %s %s %s", outcomeIcon[c.Outcome], c.Outcome.Label(), mdCode(c.ID), md("["+string(c.Version)+" "+c.Transport+"]"))
		if c.Level != "" {
			p(" (%s)", md(string(c.Level)))
		}
		p("\n\n")
		if c.Title != "" {
			p("%s  \n", md(c.Title))
		}
		if c.Baselined {
			p("*Baselined (expected):* %s  \n", md(c.BaselineReason))
		}
		if len(c.Unexpected) > 0 {
			p("**New:** breaks %s, which the baseline's entries for this check do not name  \n", mdCodes(c.Unexpected))
		}
		p("\n")
		for _, id := range c.Requirements {
			if r, ok := run.Requirements[id]; ok {
				p("- %s (%s): %s — %s\n", mdCode(id), md(string(r.Level)), md(r.Summary), md(r.Source()))
			} else {
				p("- %s\n", mdCode(id))
			}
		}
		p("\n<details><summary>Expected, actual and transcript</summary>\n\n")
		p("%s\n\n</details>\n\n", pre(truncate(mdDetails(c, opts.Verbose), mdDetailBudget)))
	}
	if short {
		p("\n")
	}
	if more > 0 {
		p("… and %d more; the JSON and HTML reports list them all.\n\n", more)
	}
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
	for _, o := range []Outcome{Untestable, NA, Pass} {
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

// mdDetails is the body of a problem's collapsed details.
func mdDetails(c Check, verbose bool) string {
	var b strings.Builder
	if c.Expected != "" {
		fmt.Fprintf(&b, "expected: %s\n", c.Expected)
	}
	if c.Actual != "" {
		fmt.Fprintf(&b, "actual:   %s\n", c.Actual)
	}
	if c.Reason != "" {
		fmt.Fprintf(&b, "reason:   %s\n", c.Reason)
	}
	if c.Retried != "" {
		fmt.Fprintf(&b, "retried:  %s\n", c.Retried)
	}
	evs := c.Transcript
	if !verbose && len(evs) > excerptEvents {
		fmt.Fprintf(&b, "transcript (last %d of %d events%s):\n", excerptEvents, len(evs), connLegend(evs[len(evs)-excerptEvents:]))
		evs = evs[len(evs)-excerptEvents:]
	} else if len(evs) > 0 {
		fmt.Fprintf(&b, "transcript%s:\n", parenLegend(connLegend(evs)))
	}
	for _, e := range evs {
		b.WriteString("  " + eventLine(e, verbose, "    ") + "\n")
	}
	return b.String()
}
