package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// colorUsage documents --color for the commands that print a report.
const colorUsage = `  --color WHEN             colour the console: auto (default: on a terminal, unless NO_COLOR
                           is set or TERM is dumb), always or never
`

// addColorFlag adds --color to fs.
func addColorFlag(fs *flag.FlagSet) *string { return fs.String("color", "auto", "") }

// parseColor checks a --color value.
func parseColor(cmd, v string) error {
	switch v {
	case "auto", "always", "never":
		return nil
	}
	return usagef("%s: --color %q: use auto, always or never", cmd, v)
}

// colorOn decides whether w gets ANSI colours: --color always or never
// says so; auto colours a terminal, unless NO_COLOR is set (no-color.org)
// or TERM is dumb.
func colorOn(e *env, w io.Writer, when string) bool {
	switch when {
	case "always":
		return true
	case "never":
		return false
	}
	if e.getenv("NO_COLOR") != "" || e.getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}

// isTerminal reports whether w is a character device (a terminal), but
// not the null device, which is one too.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(st, null)
}

// liveProgress shows a run's progress on stderr as checks end. On a
// terminal it is one line, rewritten in place: the checks done, how many
// fail, warn or broke the harness so far, the version now running and the
// time taken; it is cleared when the run ends, before the report. Else (a
// CI log) it writes one line per check that fails, warns or breaks the
// harness, with its version, and with verbose one per check; never a
// line per version change, which interleave when versions overlap.
// Durations are rounded for people.
type liveProgress struct {
	w       io.Writer
	tty     bool
	color   bool
	verbose bool
	start   time.Time

	mu      sync.Mutex
	done    int
	fail    int
	warn    int
	errs    int
	version spec.Version
	shown   bool // a progress line is on the terminal
	last    time.Time
}

// newProgress shows progress on e.stderr, in place when it is a terminal.
func newProgress(e *env, verbose bool, color bool) *liveProgress {
	return &liveProgress{w: e.stderr, tty: isTerminal(e.stderr), color: color, verbose: verbose, start: time.Now()}
}

// redrawEvery bounds how often the terminal line is rewritten.
const redrawEvery = 100 * time.Millisecond

// check records one ended check (scenarios.Config.Progress).
func (p *liveProgress) check(c reports.Check) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.version = c.Version
	broken := false
	switch c.Outcome {
	case reports.Fail:
		p.fail++
		broken = true
	case reports.Warn:
		p.warn++
		broken = true
	case reports.Error:
		p.errs++
		broken = true
	}
	if broken || p.verbose {
		p.clear()
		fmt.Fprintf(p.w, "  %s %-10s %s (%s)\n", p.paint(c.Outcome, fmt.Sprintf("%-10s", c.Outcome.Label())), c.Version, c.ID, roundDuration(c.Duration))
	}
	if p.tty && (broken || time.Since(p.last) >= redrawEvery) {
		p.draw()
	}
}

// finish clears the progress line: the report follows.
func (p *liveProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// line is the progress line's text.
func (p *liveProgress) line() string {
	s := fmt.Sprintf("mcpcheck: %d checks done", p.done)
	var bad []string
	if p.fail > 0 {
		bad = append(bad, p.paint(reports.Fail, fmt.Sprintf("%d failing", p.fail)))
	}
	if p.warn > 0 {
		bad = append(bad, p.paint(reports.Warn, fmt.Sprintf("%d warning", p.warn)))
	}
	if p.errs > 0 {
		bad = append(bad, p.paint(reports.Error, fmt.Sprintf("%d in harness error", p.errs)))
	}
	if len(bad) > 0 {
		s += " · " + strings.Join(bad, " · ")
	}
	if p.version != "" {
		s += " · now " + string(p.version)
	}
	return s + " · " + roundDuration(time.Since(p.start))
}

func (p *liveProgress) draw() {
	fmt.Fprintf(p.w, "\r\x1b[K%s", p.line())
	p.shown, p.last = true, time.Now()
}

func (p *liveProgress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// paint colours s by outcome when colours are on.
func (p *liveProgress) paint(o reports.Outcome, s string) string {
	if !p.color {
		return s
	}
	code := map[reports.Outcome]string{reports.Pass: "32", reports.Fail: "31", reports.Warn: "33", reports.Error: "35", reports.Untestable: "36", reports.NA: "2"}[o]
	if code == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// roundDuration prints d as people read it: tenths of a second from a
// second up ("16.9s", "1m43.3s"), whole milliseconds below.
func roundDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(time.Millisecond).String()
	case d > 0:
		return "<1ms"
	}
	return "0s"
}
