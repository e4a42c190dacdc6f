package reports

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// longDuration matches a Go duration printed to more precision than a
// person reads ("16.967922022s", "1m43.293441s", "751.512579ms").
var longDuration = regexp.MustCompile(`\b(?:[0-9]+h)?(?:[0-9]+m)?[0-9]+\.[0-9]{4,}(?:ns|µs|us|ms|s)\b`)

// tidy rounds the durations in a text the harness wrote for people
// (reasons, expected and actual) as humanDuration does: "no answer within
// 16.967922022s" reads "no answer within 17s". The JSON report keeps the
// text as recorded.
func tidy(s string) string {
	if !strings.ContainsAny(s, ".") {
		return s
	}
	return longDuration.ReplaceAllStringFunc(s, func(m string) string {
		d, err := time.ParseDuration(m)
		if err != nil {
			return m
		}
		return humanDuration(d)
	})
}

// clipLines keeps at most n lines of s, each cut to width runes, and says
// how much was left out.
func clipLines(s string, n, width int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	more := 0
	if len(lines) > n {
		more, lines = len(lines)-n, lines[:n]
	}
	for i, l := range lines {
		lines[i] = truncate(l, width)
	}
	if more > 0 {
		lines = append(lines, fmt.Sprintf("… %s more (--verbose, or the JSON report)", plural(more, "line", "lines")))
	}
	return strings.Join(lines, "\n")
}

// evidenceHead says what an excerpt is: "evidence (2025-03-26 stdio, 3 of
// 14 events; all on connection c24)".
func evidenceHead(k CheckKey, ev Evidence) string {
	where := strings.TrimSpace(string(k.Version) + " " + k.Transport)
	n := fmt.Sprintf("%d of %d events", len(ev.Events), ev.Total)
	if len(ev.Events) == ev.Total {
		n = plural(ev.Total, "event", "events")
	}
	head := "evidence ("
	if where != "" {
		head += where + ", "
	}
	return head + n + connLegend(ev.Events) + ")"
}

// evidenceLines renders an excerpt as plain-text lines: each event on one
// line (eventLine), the events left out between them counted, and the
// requests no answer came to, with how long the check waited.
func evidenceLines(ev Evidence) []string {
	var out []string
	for i, e := range ev.Events {
		if n := ev.Skipped(i); n > 0 && i > 0 {
			out = append(out, fmt.Sprintf("  … %s …", plural(n, "event", "events")))
		}
		out = append(out, eventLine(e, false, ""))
	}
	if len(ev.Unanswered) > 0 {
		s := "no answer to " + strings.Join(ev.Unanswered, ", ")
		if ev.Waited > 0 {
			s += " by +" + humanDuration(ev.Waited) + ", when the check judged it"
		} else {
			s += " in the transcript"
		}
		out = append(out, s)
	}
	return out
}
