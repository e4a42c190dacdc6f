package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec"
)

// ToolPolicy is the tool-call policy of a server run: which tools mcpcheck
// called black-box, where their arguments came from, and what became of
// every tool the server listed.
type ToolPolicy struct {
	// Calls is the tier: "readonly" (only tools annotated readOnlyHint:
	// true), "additive" (also those annotated destructiveHint: false),
	// "all", or "named" (only the tools of Names). Reports of older
	// versions of mcpcheck say "safe" (every tool not annotated
	// destructive).
	Calls string `json:"calls"`
	// Names are the tools --call-tools named: called whatever their
	// annotations, on top of the tier (or alone, "named").
	Names []string `json:"names,omitempty"`
	// ArgsFile is the --tool-args file, if one was given.
	ArgsFile string `json:"argsFile,omitempty"`
	// ArgsFor are the tools that file gives arguments for; the others'
	// arguments are generated from their inputSchema.
	ArgsFor []string `json:"argsFor,omitempty"`
	// Tools are the tools the server listed (in any version run), in
	// name order: called or not, why, and the flag that would call
	// them.
	Tools []ToolUse `json:"tools,omitempty"`
}

// ToolUse is what a run did with one of the server's tools.
type ToolUse struct {
	Name string `json:"name"`
	// Class is what the tool's annotations make of it, with the spec's
	// defaults: "read-only", "additive" or "destructive".
	Class string `json:"class,omitempty"`
	// Annotations are the hints that decided the class ("no
	// annotations", "readOnlyHint: false, destructiveHint: false").
	Annotations string `json:"annotations,omitempty"`
	// Versions are the protocol versions whose tools/list held it.
	Versions []spec.Version `json:"versions,omitempty"`
	// Calls is how many tools/call requests the checks sent it.
	Calls int `json:"calls"`
	// Skipped says why the policy did not let mcpcheck call it ("" when
	// it did).
	Skipped string `json:"skipped,omitempty"`
	// Include is the exact flag that would also call it.
	Include string `json:"include,omitempty"`
	// Note says why it was called, or that nothing needed it.
	Note string `json:"note,omitempty"`
}

// String says the policy in one line, for the headers of the reports.
func (p *ToolPolicy) String() string {
	if p == nil {
		return ""
	}
	var s string
	names := ""
	if len(p.Names) > 0 {
		names = ", and " + strings.Join(p.Names, ", ") + " (named by --call-tools)"
	}
	switch p.Calls {
	case "all":
		s = "all tools called (--call-tools all)"
	case "named":
		s = fmt.Sprintf("only %s called (--call-tools)", strings.Join(p.Names, ", "))
	case "additive":
		s = "additive: tools annotated readOnlyHint: true or destructiveHint: false" + names
	case "safe":
		s = "safe (older mcpcheck): tools not annotated destructive"
	default:
		s = "readonly: only tools annotated readOnlyHint: true" + names
	}
	if p.ArgsFile != "" {
		s += fmt.Sprintf("; arguments for %s from %s, the others generated from inputSchema", strings.Join(p.ArgsFor, ", "), p.ArgsFile)
	}
	return s
}

// Summary counts the tools: how many were called, and how many the policy
// left out ("3 of 8 tools called, 5 not called by the policy"); "" when
// the run listed none.
func (p *ToolPolicy) Summary() string {
	if p == nil || len(p.Tools) == 0 {
		return ""
	}
	called, skipped, idle := 0, 0, 0
	for _, t := range p.Tools {
		switch {
		case t.Class == "" && t.Calls == 0 && t.Skipped == "":
			// the "more tools" line
		case t.Skipped != "":
			skipped++
		case t.Calls > 0:
			called++
		default:
			idle++
		}
	}
	s := fmt.Sprintf("%d of %d tools called", called, called+skipped+idle)
	if skipped > 0 {
		s += fmt.Sprintf(", %d not called by the policy", skipped)
	}
	if idle > 0 {
		s += fmt.Sprintf(", %d allowed but not needed", idle)
	}
	return s
}

// Skipped are the tools the policy did not let mcpcheck call.
func (p *ToolPolicy) Skipped() []ToolUse {
	if p == nil {
		return nil
	}
	var out []ToolUse
	for _, t := range p.Tools {
		if t.Skipped != "" {
			out = append(out, t)
		}
	}
	return out
}

// line is the tool in one line of a report.
func (u ToolUse) line() string {
	switch {
	case u.Skipped != "":
		return fmt.Sprintf("%s (%s): not called: %s; %s calls it", u.Name, u.Class, u.Skipped, u.Include)
	case u.Calls > 0:
		return fmt.Sprintf("%s (%s): called %s (%s)", u.Name, u.Class, plural(u.Calls, "time", "times"), u.Note)
	case u.Class == "":
		return u.Name + ": " + u.Note
	default:
		return fmt.Sprintf("%s (%s): %s", u.Name, u.Class, u.Note)
	}
}

// maxToolLines bounds the tools the text and Markdown reports list one
// by one (JSON and HTML list all the run kept).
const maxToolLines = 40

// toolLines are the lines of the tools section: the skipped tools first
// (what a reader may want to include), then the others.
func (p *ToolPolicy) toolLines() (lines []string, more int) {
	var skipped, rest []string
	for _, u := range p.Tools {
		if u.Skipped != "" {
			skipped = append(skipped, u.line())
		} else {
			rest = append(rest, u.line())
		}
	}
	all := append(skipped, rest...)
	if len(all) > maxToolLines {
		return all[:maxToolLines], len(all) - maxToolLines
	}
	return all, 0
}

// tools writes the tools section of the text report.
func (t *textWriter) tools(run *Run) {
	p := run.ToolPolicy
	if p == nil || len(p.Tools) == 0 {
		return
	}
	t.printf("%s (%s)\n", t.paint(ansiBold, "Tools"), p.Summary())
	lines, more := p.toolLines()
	for _, l := range lines {
		t.printf("  %s\n", printable(l))
	}
	if more > 0 {
		t.printf("  … and %d more (the JSON and HTML reports list every tool)\n", more)
	}
	t.printf("\n")
}

// mdTools writes the tools section of the Markdown report.
func mdTools(b *strings.Builder, run *Run) {
	p := run.ToolPolicy
	if p == nil || len(p.Tools) == 0 {
		return
	}
	fmt.Fprintf(b, "<details><summary>Tools: %s</summary>\n\n", md(p.Summary()))
	lines, more := p.toolLines()
	for _, l := range lines {
		fmt.Fprintf(b, "- %s\n", md(truncate(l, 400)))
	}
	if more > 0 {
		fmt.Fprintf(b, "- … and %d more\n", more)
	}
	b.WriteString("\n</details>\n\n")
}

// htmlTools is the tools section of the HTML report.
type htmlTools struct {
	Summary string
	Rows    []ToolUse
}

func newHTMLTools(p *ToolPolicy) *htmlTools {
	if p == nil || len(p.Tools) == 0 {
		return nil
	}
	h := &htmlTools{Summary: printable(p.Summary())}
	for _, u := range p.Tools {
		u.Name, u.Annotations, u.Skipped, u.Include, u.Note = printable(u.Name), printable(u.Annotations), printable(u.Skipped), printable(u.Include), printable(u.Note)
		h.Rows = append(h.Rows, u)
	}
	return h
}

// mergeToolPolicy is the policy of merged shards: the first's, with the
// tools of all of them (calls added up, versions united; a tool called
// in one shard is called).
func mergeToolPolicy(runs []*Run) *ToolPolicy {
	first := runs[0].ToolPolicy
	if first == nil {
		return nil
	}
	out := *first
	out.Tools = nil
	index := map[string]int{}
	for _, r := range runs {
		if r.ToolPolicy == nil {
			continue
		}
		for _, u := range r.ToolPolicy.Tools {
			i, ok := index[u.Name]
			if !ok {
				index[u.Name] = len(out.Tools)
				u.Versions = append([]spec.Version(nil), u.Versions...)
				out.Tools = append(out.Tools, u)
				continue
			}
			m := &out.Tools[i]
			if u.Calls > 0 {
				m.Note = u.Note // why it was called, not "no check called it"
			}
			m.Calls += u.Calls
			for _, v := range u.Versions {
				if !slices.Contains(m.Versions, v) {
					m.Versions = append(m.Versions, v)
				}
			}
		}
	}
	slices.SortFunc(out.Tools, func(a, b ToolUse) int { return strings.Compare(a.Name, b.Name) })
	return &out
}
