package mcpchecktest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
)

// TestServer runs mcpcheck's server suite against tg and reports every
// check as a subtest of t named "CHECK-ID/VERSION/TRANSPORT" (for example
// "tools/names/2025-11-25/streamable"):
//
//   - pass: the subtest passes (with -v it logs what the server did);
//   - fail (a MUST broken) or error (the harness could not judge): t.Error
//     with the requirement IDs, each one's text and source, what was
//     expected, what the server did and the end of the wire transcript;
//   - warn (a SHOULD broken): logged; t.Error with Options.Strict;
//   - n/a and untestable: t.Skip with the reason;
//   - a failure the baseline expects: t.Skip naming the baseline's reason.
//
// On t itself it reports stale baseline entries, harness problems, and a
// run that judged nothing (every check n/a or untestable), each through
// t.Error; a target that cannot be reached ends t with t.Fatal. Only the
// checks the -run pattern can select are run. The suite is bounded by
// Options.Deadline and by the test's own deadline.
func TestServer(t *testing.T, tg Target, opts Options) {
	t.Helper()
	testServer(tAdapter{t}, tg, opts, runPattern())
}

// tester is what TestServer uses of a *testing.T, so that a test can
// record what it reports.
type tester interface {
	Helper()
	Name() string
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Skip(args ...any)
	Fatalf(format string, args ...any)
	Context() context.Context
	Deadline() (time.Time, bool)
	Run(name string, f func(tester)) bool
}

// tAdapter is a *testing.T as a tester.
type tAdapter struct{ *testing.T }

func (a tAdapter) Run(name string, f func(tester)) bool {
	return a.T.Run(name, func(t *testing.T) { f(tAdapter{t}) })
}

// deadlineMargin is how long before the test's deadline the suite stops,
// to leave time to report what it judged.
const deadlineMargin = 10 * time.Second

func testServer(t tester, tg Target, opts Options, pattern string) {
	t.Helper()
	sel := newSelection(t.Name(), pattern)
	if ids, vs, narrowed := sel.plan(opts.Versions); narrowed {
		if len(ids) == 0 {
			t.Skip("the -run pattern selects none of mcpcheck's server checks")
			return
		}
		opts.only, opts.Versions = ids, vs
		opts.selection = "go test -run " + pattern
	}
	if d, ok := t.Deadline(); ok {
		left := time.Until(d) - deadlineMargin
		if left <= 0 {
			t.Fatalf("mcpchecktest: the test's deadline leaves no time to run the suite; raise go test -timeout")
			return
		}
		if opts.Deadline <= 0 || opts.Deadline > left {
			opts.Deadline = left
		}
	}
	res, err := Run(t.Context(), tg, opts)
	if err != nil {
		t.Fatalf("%v", err)
		return
	}
	run, err := reports.Prepare(res.Report, reports.Options{})
	if err != nil {
		t.Fatalf("mcpchecktest: %v", err)
		return
	}
	for _, c := range run.Checks {
		t.Run(subtestName(c), func(t tester) { reportCheck(t, run, c, opts.Strict) })
	}
	for _, s := range res.Stale {
		t.Errorf("%s", s)
	}
	for _, p := range res.Problems {
		t.Errorf("harness problem (the results are not to be trusted; please report it to mcpcheck): %v", p)
	}
	if !judgedAny(run) && !sel.narrowed {
		t.Errorf("nothing was judged: every check is n/a or untestable (the server speaks none of %v, or never got through initialization); run go test -v to see why for each", run.Versions)
	}
}

// subtestName is "CHECK-ID/VERSION/TRANSPORT".
func subtestName(c reports.Check) string {
	return c.ID + "/" + string(c.Version) + "/" + c.Transport
}

func judgedAny(run *reports.Run) bool {
	for _, c := range run.Checks {
		if c.Outcome == reports.Pass || c.Outcome == reports.Fail || c.Outcome == reports.Warn {
			return true
		}
	}
	return false
}

// reportCheck reports one check's outcome through t.
func reportCheck(t tester, run *reports.Run, c reports.Check, strict bool) {
	t.Helper()
	switch {
	case c.Baselined && c.Broken():
		t.Skip(fmt.Sprintf("expected by the baseline (%s): %s", oneLine(c.BaselineReason), verdictLine(c)))
	case c.Outcome == reports.Pass:
		t.Logf("%s: %s", strings.Join(c.Requirements, ", "), orElse(c.Actual, "passed"))
	case c.Outcome == reports.NA:
		t.Skip("n/a: " + c.Reason)
	case c.Outcome == reports.Untestable:
		t.Skip("untestable: " + c.Reason)
	case c.Outcome == reports.Warn && !strict:
		t.Logf("warning (Options.Strict makes it fail): %s", evidence(run, c))
	default:
		t.Errorf("%s", evidence(run, c))
	}
}

// verdictLine is the outcome with the check's strongest level: "fail
// (MUST)".
func verdictLine(c reports.Check) string {
	return fmt.Sprintf("%s (%s): %s", c.Outcome, c.Level, c.Title)
}

// evidenceEvents is how many transcript events a failure shows (the last
// ones), and evidenceBytes how much of each.
const (
	evidenceEvents = 8
	evidenceBytes  = 400
)

// evidence is what a failing check says: its verdict, every requirement it
// enforces (the broken ones marked), expected, actual, reason and the end
// of the transcript.
func evidence(run *reports.Run, c reports.Check) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", verdictLine(c))
	violated := map[string]bool{}
	for _, id := range c.Violated {
		violated[id] = true
	}
	unexpected := map[string]bool{}
	for _, id := range c.Unexpected {
		unexpected[id] = true
	}
	if len(c.Unexpected) > 0 {
		fmt.Fprintf(&b, "the baseline expects this check broken, but not for %s\n", strings.Join(c.Unexpected, ", "))
	}
	for _, id := range c.Requirements {
		mark := "requirement"
		switch {
		case unexpected[id]:
			mark = "newly broken"
		case violated[id]:
			mark = "broken"
		}
		if r, ok := run.Requirements[id]; ok {
			fmt.Fprintf(&b, "%s %s (%s): %s [%s]\n", mark, id, r.Level, oneLine(r.Summary), r.Source())
		} else {
			fmt.Fprintf(&b, "%s %s\n", mark, id)
		}
	}
	for _, kv := range [][2]string{{"expected", c.Expected}, {"actual", c.Actual}, {"reason", c.Reason}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, "%-9s %s\n", kv[0]+":", indent(kv[1]))
		}
	}
	evs := c.Transcript
	if len(evs) > 0 {
		if len(evs) > evidenceEvents {
			fmt.Fprintf(&b, "transcript (the last %d of %d events):\n", evidenceEvents, len(evs))
			evs = evs[len(evs)-evidenceEvents:]
		} else {
			fmt.Fprintf(&b, "transcript (%d events):\n", len(evs))
		}
		for _, e := range evs {
			fmt.Fprintf(&b, "  %s\n", eventLine(e))
		}
	}
	fmt.Fprintf(&b, "check %s, protocol %s, transport %s", c.ID, c.Version, c.Transport)
	return b.String()
}

func eventLine(e reports.WireEvent) string {
	arrow := map[reports.Direction]string{reports.Sent: "→", reports.Received: "←"}[e.Direction]
	if arrow == "" {
		arrow = "·"
	}
	s := fmt.Sprintf("+%-7s %s ", e.Offset.Round(time.Millisecond), arrow)
	if h := e.HTTP; h != nil {
		if h.Method != "" {
			s += h.Method + " " + h.URL + " "
		}
		if h.Status != 0 {
			s += fmt.Sprintf("HTTP %d ", h.Status)
		}
	}
	body := e.Raw
	if e.Base64 {
		body = "(not UTF-8, base64) " + body
	}
	if e.Note != "" {
		body = strings.TrimSpace(e.Note + " " + body)
	}
	body = oneLine(body)
	if r := []rune(body); len(r) > evidenceBytes {
		body = string(r[:evidenceBytes]) + fmt.Sprintf("… (%d more bytes)", len(body)-len(string(r[:evidenceBytes])))
	}
	return s + body
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func indent(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n          ")
}

func orElse(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
