package reports

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// Options configures the writers. The zero value is ready to use.
type Options struct {
	// Catalog supplies requirement summaries and sources for IDs the run's
	// Requirements snapshot lacks. Nil means catalog.Default(); a catalog
	// that fails to load leaves those IDs without a summary.
	Catalog *catalog.Catalog
	// Redaction adds header names and literal secrets to what every writer
	// removes (see Redact).
	Redaction Redaction
	// Color turns on ANSI colours in WriteText.
	Color bool
	// Verbose makes WriteText and WriteMarkdown print every transcript in
	// full instead of a short excerpt of the broken checks.
	Verbose bool
	// Strict judges the run as mcpcheck --strict does: unexpected
	// warnings and baseline entries without requirements fail it, and
	// every report's verdict says so.
	Strict bool
	// SARIFPath is the file every SARIF result is located in (a path
	// relative to the repository root, such as "server.json" or
	// "build/index.js"): GitHub code scanning shows no alert without a
	// physical location. Empty means the first relative file argument of
	// a stdio target's command, else "README.md" (see SARIFLocation).
	SARIFPath string
	// BadgeVersion picks the protocol version WriteBadge reports; empty
	// means the newest version in the run.
	BadgeVersion string
}

// WriterFunc is the signature every writer shares.
type WriterFunc func(w io.Writer, run *Run, opts Options) error

// Format describes one output format for the CLI's --format flag.
type Format struct {
	Name      string     // as given to --format: text, json, junit, md, html, sarif, badge
	Extension string     // file name extension, with the dot
	Write     WriterFunc // the writer
}

// Formats lists every output format, in the order the CLI documents them.
func Formats() []Format {
	return []Format{
		{"text", ".txt", WriteText},
		{"json", ".json", WriteJSON},
		{"junit", ".junit.xml", WriteJUnit},
		{"md", ".md", WriteMarkdown},
		{"html", ".html", WriteHTML},
		{"sarif", ".sarif", WriteSARIF},
		{"badge", ".svg", WriteBadge},
	}
}

// LookupFormat finds a format by name.
func LookupFormat(name string) (Format, error) {
	var names []string
	for _, f := range Formats() {
		if f.Name == name {
			return f, nil
		}
		names = append(names, f.Name)
	}
	return Format{}, fmt.Errorf("unknown report format %q: use one of %s", name, strings.Join(names, ", "))
}

// errNilRun is returned by every writer given a nil Run.
var errNilRun = errors.New("reports: the run is nil; pass the *Run the harness filled in")

// Prepare returns what every writer works from: a redacted copy of run (see
// Redact) with Schema set to this package's, Started in UTC, unset outcomes turned into
// harness errors, check IDs a check carried before it was renamed turned
// into the ones it carries now (CanonicalCheckID), unknown wire directions turned into notes, raw bytes that
// are not UTF-8 re-encoded as base64, and Requirements filled in
// from the catalog for every cited ID. The caller's run is not modified.
func Prepare(run *Run, opts Options) (*Run, error) {
	if run == nil {
		return nil, errNilRun
	}
	out := Redact(run, opts.Redaction)
	out.Schema = Schema
	out.Started = out.Started.UTC()
	for i := range out.Checks {
		c := &out.Checks[i]
		c.ID = CanonicalCheckID(c.ID)
		if !c.Outcome.Valid() {
			c.Reason = strings.TrimSpace(fmt.Sprintf("the harness recorded no valid outcome (%s) for this check. %s", c.Outcome, c.Reason))
			c.Outcome = Error
		}
		normalizeEvents(c.Transcript)
	}
	if out.Fuzz != nil {
		for i := range out.Fuzz.Findings {
			normalizeEvents(out.Fuzz.Findings[i].Transcript)
		}
	}
	resolveRequirements(out, opts.Catalog)
	return out, nil
}

func normalizeEvents(evs []WireEvent) {
	for i := range evs {
		switch evs[i].Direction {
		case Sent, Received, Note:
		default:
			evs[i].Note = strings.TrimSpace(fmt.Sprintf("(unknown direction %q) %s", evs[i].Direction, evs[i].Note))
			evs[i].Direction = Note
		}
		if !evs[i].Base64 && !utf8.ValidString(evs[i].Raw) {
			evs[i].Raw, evs[i].Base64 = RawBytes([]byte(evs[i].Raw))
		}
	}
}

func resolveRequirements(run *Run, cat *catalog.Catalog) {
	if cat == nil {
		// A catalog with problems still holds the records that loaded.
		cat, _ = catalog.Default()
	}
	ids := citedIDs(run)
	if len(ids) == 0 {
		return
	}
	if run.Requirements == nil {
		run.Requirements = map[string]Requirement{}
	}
	for _, id := range ids {
		if _, ok := run.Requirements[id]; ok || cat == nil {
			continue
		}
		if rec, ok := cat.Get(id); ok {
			run.Requirements[id] = RequirementOf(rec)
		}
	}
	if len(run.Requirements) == 0 {
		run.Requirements = nil
	}
}

// citedIDs lists the requirement IDs cited by checks and findings, sorted.
func citedIDs(run *Run) []string {
	set := map[string]bool{}
	for _, c := range run.Checks {
		for _, id := range c.Requirements {
			set[id] = true
		}
	}
	if run.Fuzz != nil {
		for _, f := range run.Fuzz.Findings {
			for _, id := range f.Requirements {
				set[id] = true
			}
		}
	}
	ids := make([]string, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// printable makes target-controlled text safe to show on a terminal or in
// XML: invalid UTF-8 bytes become \xNN; C0 controls other than tab and
// newline, DEL, C1 controls, and bidirectional overrides (which can make
// text read differently than it is) become \u00NN-style escapes. A carriage
// return is escaped too: it could overwrite a terminal line.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f:
		return true
	case r == 0xfffe || r == 0xffff:
		return true
	}
	return false
}

// display renders a wire event's payload for people: text as is, bytes that
// are not UTF-8 with \xNN escapes (see printable).
func display(e WireEvent) string {
	if !e.Base64 {
		return printable(e.Raw)
	}
	b, err := e.Bytes()
	if err != nil {
		return "(undecodable base64: " + printable(e.Raw) + ")"
	}
	return printable(string(b))
}

// truncate shortens s to at most n runes, marking the cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + fmt.Sprintf("… (%d more bytes)", len(string(r[n:])))
}

// problems returns the broken checks (fail, warn and error), in run
// order.
func problems(run *Run) []Check {
	var out []Check
	for _, c := range run.Checks {
		if c.Broken() {
			out = append(out, c)
		}
	}
	return out
}

// oneLine folds newlines and runs of spaces into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// startedAt renders the run's start time for people, or "at an unknown
// time" when the harness did not record it.
func startedAt(run *Run) string {
	if run.Started.IsZero() {
		return "at an unknown time"
	}
	return run.Started.Format("2006-01-02 15:04:05 UTC")
}
