package reports

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// Bounds of what the HTML report shows of one problem: a body in an
// evidence excerpt, a whole transcript (only a short one is inlined; the
// JSON report keeps every transcript), and expected, actual and reason.
const (
	htmlBodyRunes   = 2000
	htmlWholeEvents = 12
	htmlWholeBytes  = 4 << 10
	htmlTextRunes   = 1500
	// htmlIssuesBudget bounds the problems section: past it, the rest are
	// one line each (the JSON report holds them whole).
	htmlIssuesBudget   = 150 << 10
	htmlCellTitleRunes = 120
)

// htmlIssue is one entry of the problems section (see Issue).
type htmlIssue struct {
	Anchor         string
	Outcome        string
	Label          string
	Check          string
	Title          string
	Level          string
	Versions       string
	Baselined      bool
	BaselineReason string
	Unexpected     string
	Reqs           []htmlReq
	Expected       string
	Actual         string
	Reason         string
	Retried        string
	EvidenceHead   string
	Evidence       []htmlEvent
	Unanswered     string
	// Whole is the first occurrence's whole transcript when it is short;
	// WholeNote says where the rest is when it is not.
	Whole     []htmlEvent
	WholeNote string
	// Others are the other occurrences whose result differs.
	Others []htmlOther
	// Members, for harness errors that share their reason, are the
	// checks, each with its versions.
	Members []string
	// Short: past the section's budget, only the summary line and what
	// the target did.
	Short bool
}

// size estimates the bytes the entry takes on the page.
func (h htmlIssue) size() int {
	n := 1024 + len(h.Expected) + len(h.Actual) + len(h.Reason) + len(h.Retried)
	for _, r := range h.Reqs {
		n += len(r.Summary) + len(r.Source) + 100
	}
	for _, e := range append(append([]htmlEvent(nil), h.Evidence...), h.Whole...) {
		n += len(e.Body) + 200
	}
	for _, o := range h.Others {
		n += len(o.Text) + 60
	}
	for _, m := range h.Members {
		n += len(m) + 20
	}
	return n
}

// shorten cuts an entry to its summary line and one line of what the
// target did.
func (h *htmlIssue) shorten() {
	h.Short = true
	h.Actual = clip(oneLine(orElse(h.Actual, h.Reason)), 300)
	h.Expected, h.Reason, h.Retried = "", "", ""
	h.Reqs, h.Evidence, h.Whole, h.Others, h.Unanswered, h.WholeNote = nil, nil, nil, nil, "", ""
}

type htmlOther struct{ Where, Text string }

// htmlUntestable is one reason checks were left untestable, with them.
type htmlUntestable struct {
	Reason string
	Checks []string
}

// htmlCheckRow is one check in the table of all checks: its verdict in
// each version (a cell per version, a badge per transport).
type htmlCheckRow struct {
	// Tip is the reason most of the row's cells share: the row's
	// tooltip, so the cells that share it need none of their own.
	Tip      string
	ID       string
	Title    string
	Area     string
	Level    string
	Outcomes string // the outcomes of its cells, for the outcome filter
	Reqs     []string
	Cells    []htmlMatrixCell
}

type htmlMatrixCell struct {
	Version string
	Items   []htmlCellItem
}

type htmlCellItem struct {
	Outcome string
	Label   string
	Title   string
	Href    string
}

// htmlIssues builds the problems section from the run's issues, and
// maps each broken check's index in Run.Checks to the anchor of the entry
// that shows it.
func htmlIssues(run *Run, issues []Issue) ([]htmlIssue, map[int]string) {
	var reqs requirementPrinter
	shared := sharedErrors(run, issues)
	var out []htmlIssue
	anchors := map[int]string{}
	groupAnchor := map[*errorGroup]string{}
	for i, is := range issues {
		anchor := fmt.Sprintf("issue-%d", len(out)+1)
		if g, ok := shared[i]; ok {
			if g == nil {
				// Shown in its group's entry, made at the group's first issue.
				for _, h := range groupsOf(shared) {
					if slices.ContainsFunc(h.issues, func(x Issue) bool { return x.Check == is.Check && x.Outcome == is.Outcome }) {
						anchor = groupAnchor[h]
					}
				}
			} else {
				h := htmlIssue{Anchor: anchor, Outcome: Error.String(), Label: Error.Label(),
					Check: plural(len(g.issues), "check", "checks") + ", for one reason", Reason: printable(clip(tidy(g.reason), htmlTextRunes))}
				for _, m := range g.issues {
					h.Members = append(h.Members, printable(m.Check+" in "+m.Versions()))
				}
				groupAnchor[g] = anchor
				out = append(out, h)
			}
		} else {
			out = append(out, htmlIssueOf(run, is, anchor, &reqs))
		}
		for _, k := range is.Checks {
			anchors[k] = "#" + anchor
		}
	}
	used := 0
	for i := range out {
		if used > htmlIssuesBudget {
			out[i].shorten()
		}
		used += out[i].size()
	}
	return out, anchors
}

// groupsOf lists the error groups of sharedErrors.
func groupsOf(shared map[int]*errorGroup) []*errorGroup {
	var out []*errorGroup
	for _, g := range shared {
		if g != nil {
			out = append(out, g)
		}
	}
	return out
}

func htmlIssueOf(run *Run, is Issue, anchor string, reqs *requirementPrinter) htmlIssue {
	c := run.Checks[is.Checks[0]]
	text := func(s string) string { return printable(clip(tidy(s), htmlTextRunes)) }
	h := htmlIssue{
		Anchor: anchor, Outcome: is.Outcome.String(), Label: is.Outcome.Label(), Check: printable(is.Check),
		Title: printable(c.Title), Level: printable(string(is.Level)), Versions: printable(is.Versions()),
		Baselined: is.Baselined, BaselineReason: printable(c.BaselineReason), Unexpected: printable(strings.Join(is.Unexpected, ", ")),
		Expected: text(c.Expected), Actual: text(c.Actual), Reason: text(c.Reason), Retried: text(c.Retried),
	}
	for _, id := range issueRequirements(run, is) {
		r, ok := run.Requirements[id]
		hr := htmlReq{ID: printable(id), Level: printable(string(r.Level)), Summary: printable(r.Summary), Source: printable(r.Source()), Known: ok}
		if reqs.first(id) {
			hr.Anchor = "req-" + printable(id)
		} else {
			hr.Ref = true
		}
		h.Reqs = append(h.Reqs, hr)
	}
	ev := EvidenceOf(c)
	if len(ev.Events) > 0 {
		h.EvidenceHead = printable(evidenceHead(c.Key(), ev))
		h.Evidence = htmlEvents(ev.Events)
		for i := range h.Evidence {
			if i > 0 {
				h.Evidence[i].Skipped = ev.Skipped(i)
			}
		}
		if len(ev.Unanswered) > 0 {
			s := "no answer to " + strings.Join(ev.Unanswered, ", ")
			if ev.Waited > 0 {
				s += " by +" + humanDuration(ev.Waited) + ", when the check judged it"
			} else {
				s += " in the transcript"
			}
			h.Unanswered = printable(s)
		}
	}
	if n := len(c.Transcript); n > len(ev.Events) {
		size := 0
		for _, e := range c.Transcript {
			size += len(e.Raw)
		}
		if n <= htmlWholeEvents && size <= htmlWholeBytes {
			h.Whole = htmlEvents(c.Transcript)
		} else {
			h.WholeNote = fmt.Sprintf("The whole transcript (%s, %s) is in the JSON report (--format json), or printed by mcpcheck report convert RUN.json --format text --verbose.", plural(n, "event", "events"), byteSize(size))
		}
	}
	for n, k := range is.Where[1:] {
		if !is.Differs[n] {
			continue
		}
		o := run.Checks[is.Checks[n+1]]
		h.Others = append(h.Others, htmlOther{Where: printable(strings.TrimSpace(string(k.Version) + " " + k.Transport)), Text: printable(clip(oneLine(tidy(orElse(o.Actual, o.Reason))), 600))})
	}
	return h
}

// byteSize is "812 bytes", "14 KB" or "2.1 MB".
func byteSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// htmlUntestables groups the untestable checks by reason, as the text
// report does.
func htmlUntestables(run *Run) []htmlUntestable {
	var out []htmlUntestable
	at := map[string]int{}
	for _, g := range untestableGroups(run) {
		k := sameShape(g.Reason)
		n, ok := at[k]
		if !ok {
			n = len(out)
			at[k] = n
			out = append(out, htmlUntestable{Reason: printable(clip(oneLine(tidy(g.Reason)), 600))})
		}
		out[n].Checks = append(out[n].Checks, printable(g.Check+" in "+whereString(g.Where)))
	}
	return out
}

// htmlCheckRows lays out every check as a row, its verdict per version
// in columns, in run order; a broken check's badge links to its problem
// entry.
func htmlCheckRows(run *Run, versions []string, anchors map[int]string) []htmlCheckRow {
	var rows []htmlCheckRow
	at := map[string]int{}
	col := map[string]int{}
	for i, v := range versions {
		col[v] = i
	}
	for i, c := range run.Checks {
		n, ok := at[c.ID]
		if !ok {
			n = len(rows)
			at[c.ID] = n
			r := htmlCheckRow{ID: printable(c.ID), Title: printable(c.Title), Area: printable(c.Area), Level: printable(string(c.Level))}
			for _, id := range c.Requirements {
				r.Reqs = append(r.Reqs, printable(id))
			}
			for _, v := range versions {
				r.Cells = append(r.Cells, htmlMatrixCell{Version: v})
			}
			rows = append(rows, r)
		}
		r := &rows[n]
		o := c.Outcome
		if !o.Valid() {
			o = Error
		}
		var title string
		if o != Pass {
			title = clip(shortReason(oneLine(tidy(orElse(c.Reason, c.Actual)))), htmlCellTitleRunes)
		}
		label := o.String()
		if o == NA {
			label = "n/a"
		}
		item := htmlCellItem{Outcome: o.String(), Label: label, Title: printable(title), Href: anchors[i]}
		if len(versions) > 0 {
			k, ok := col[printable(string(c.Version))]
			if !ok {
				k = len(versions) - 1
			}
			r.Cells[k].Items = append(r.Cells[k].Items, item)
		}
		if !strings.Contains(" "+r.Outcomes+" ", " "+o.String()+" ") {
			r.Outcomes = strings.TrimSpace(r.Outcomes + " " + o.String())
		}
		if c.Level != "" && lessLevel(c.Level, catalog.Level(r.Level)) {
			r.Level = printable(string(c.Level))
		}
	}
	for i := range rows {
		rows[i].shareTip()
	}
	return rows
}

// shareTip makes the reason most of the row's cells give its tooltip
// (when two or more give it), and drops it from those cells.
func (r *htmlCheckRow) shareTip() {
	n := map[string]int{}
	for _, c := range r.Cells {
		for _, it := range c.Items {
			if it.Title != "" {
				n[it.Title]++
			}
		}
	}
	best := ""
	for t, k := range n {
		if k > n[best] || k == n[best] && t < best {
			best = t
		}
	}
	if n[best] < 2 {
		return
	}
	r.Tip = best
	for i := range r.Cells {
		for k := range r.Cells[i].Items {
			it := &r.Cells[i].Items[k]
			switch it.Title {
			case best:
				it.Title = ""
			case "":
				it.Title = it.Label // not the row's reason, which is not this cell's
			}
		}
	}
}

// outsideWindow matches the reason of a check n/a for its version window.
var outsideWindow = regexp.MustCompile(`^outside the version window: (.*); this run speaks [^ ]+$`)

// shortReason says an n/a reason of the version window in fewer words
// (the table's column names the version).
func shortReason(s string) string {
	if m := outsideWindow.FindStringSubmatch(s); m != nil {
		return "applies to " + strings.NewReplacer(" applies to ", " in ", "..,", ".. ,").Replace(m[1])
	}
	return s
}
