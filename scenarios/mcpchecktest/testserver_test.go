package mcpchecktest

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/scenarios"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// reference is mcpcheck's reference server as an http.Handler, with the
// fault switches given turned on; it is closed when t ends.
func reference(t *testing.T, faults ...string) http.Handler {
	t.Helper()
	srv, err := server.New(server.Options{Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.HTTPHandler(server.HTTPOptions{})
}

// latest keeps the tests short: one protocol version.
var latest = []spec.Version{spec.V20251125}

// TestMCP is the example of the package documentation, run for real: the
// tools checks against the reference server served in-process, each a
// subtest of this test that must pass or be skipped with its reason.
func TestMCP(t *testing.T) {
	TestServer(t, Handler(reference(t), "/mcp"), Options{Versions: latest, LabelFilter: "area:tools"})
}

// TestFaultyServerFailsLoudly runs the ping checks against a reference
// server whose ping answers a non-empty result, through a recording T:
// the subtest of the check that catches it fails with the requirement ID,
// expected, actual and the transcript in its message, and only the checks
// that the fault breaks fail.
func TestFaultyServerFailsLoudly(t *testing.T) {
	r := newRecord(t.Context(), "TestMCP")
	testServer(r, Handler(reference(t, "ping-nonempty-result"), "/mcp"), Options{Versions: latest, LabelFilter: "area:ping"}, "")
	if len(r.fatals) > 0 || len(r.errors) > 0 {
		t.Fatalf("the test itself reported problems:\n%s", r)
	}
	sub := r.sub("ping/empty-result/2025-11-25/streamable")
	if sub == nil || !sub.failed() {
		t.Fatalf("the subtest ping/empty-result/2025-11-25/streamable did not fail against a server whose ping result is not empty:\n%s", r)
	}
	msg := strings.Join(sub.errors, "\n")
	for _, want := range []string{"fail (MUST)", "ping.response.prompt-empty-result", "expected:", "actual:", "transcript (", "→", "←"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the failure does not say %q:\n%s", want, msg)
		}
	}
	for _, name := range r.failedSubs() {
		if !strings.HasPrefix(name, "ping/") {
			t.Errorf("subtest %s failed; only ping checks ran", name)
		}
	}
	if len(r.subs) < 2 {
		t.Errorf("only %d subtests ran; the ping area has more checks", len(r.subs))
	}
}

// TestBaselineExpectsFailuresAndCatchesStaleEntries: the failures a
// baseline lists are skipped with its reason and fail nothing; the same
// baseline against a server that is not broken fails the test, naming the
// stale entry.
func TestBaselineExpectsFailuresAndCatchesStaleEntries(t *testing.T) {
	opts := Options{Versions: latest, LabelFilter: "area:ping"}
	first := newRecord(t.Context(), "TestMCP")
	testServer(first, Handler(reference(t, "ping-nonempty-result"), "/mcp"), opts, "")
	broken := first.failedSubs()
	if len(broken) == 0 {
		t.Fatalf("the faulty server broke nothing:\n%s", first)
	}
	bl := &reports.Baseline{Source: "test baseline"}
	for _, name := range broken {
		id := name[:strings.LastIndex(name[:strings.LastIndex(name, "/")], "/")]
		bl.Entries = append(bl.Entries, reports.BaselineEntry{Check: id, Version: spec.V20251125, Reason: "known: the reference runs with a fault"})
	}
	opts.Baseline = bl
	again := newRecord(t.Context(), "TestMCP")
	testServer(again, Handler(reference(t, "ping-nonempty-result"), "/mcp"), opts, "")
	if again.failed() || len(again.failedSubs()) > 0 {
		t.Errorf("with the failures baselined the test still failed:\n%s", again)
	}
	for _, name := range broken {
		s := again.sub(name)
		if s == nil || !s.skipped() || !strings.Contains(s.skips[0], "known: the reference runs with a fault") {
			t.Errorf("the baselined check %s is not skipped with the baseline's reason:\n%s", name, again)
		}
	}
	clean := newRecord(t.Context(), "TestMCP")
	testServer(clean, Handler(reference(t), "/mcp"), opts, "")
	if len(clean.errors) != len(broken) || !strings.Contains(strings.Join(clean.errors, "\n"), "now passes; remove it from the baseline") {
		t.Errorf("the baseline against a healthy server: want %d stale entries reported on the test, got:\n%s", len(broken), clean)
	}
}

// TestSkipsSayWhy: with the reference server's default page size every
// list fits one page, so the pagination checks that need a second page
// are untestable, and checks outside their version are n/a: both are
// skipped, with the reason, never passed.
func TestSkipsSayWhy(t *testing.T) {
	r := newRecord(t.Context(), "TestMCP")
	testServer(r, Handler(reference(t), "/mcp"), Options{Versions: latest, LabelFilter: "area:pagination || area:authorization"}, "")
	var untestable, na int
	for _, s := range r.subs {
		for _, why := range s.skips {
			switch {
			case strings.HasPrefix(why, "untestable: ") && len(why) > len("untestable: "):
				untestable++
			case strings.HasPrefix(why, "n/a: ") && len(why) > len("n/a: "):
				na++
			}
		}
		if s.failed() {
			t.Errorf("%s failed against the reference server: %q", s.name, s.errors)
		}
	}
	if untestable == 0 || na == 0 {
		t.Errorf("want untestable and n/a checks skipped with a reason, got %d and %d:\n%s", untestable, na, r)
	}
}

// TestRunPatternRunsOnlyWhatItSelects: a -run pattern naming one check in
// one version runs that check alone, not the suite.
func TestRunPatternRunsOnlyWhatItSelects(t *testing.T) {
	r := newRecord(t.Context(), "TestMCP")
	testServer(r, Handler(reference(t), "/mcp"), Options{}, "TestMCP/ping/empty-result/2025-11-25")
	if len(r.subs) != 1 || r.subs[0].name != "TestMCP/ping/empty-result/2025-11-25/streamable" || r.failed() || r.subs[0].failed() {
		t.Errorf("want exactly the subtest ping/empty-result/2025-11-25/streamable, passing; got:\n%s", r)
	}
	none := newRecord(t.Context(), "TestMCP")
	testServer(none, Handler(reference(t), "/mcp"), Options{}, "TestMCP/no-such-area/")
	if len(none.subs) != 0 || len(none.skips) != 1 {
		t.Errorf("a pattern that selects no check: want the test skipped, got:\n%s", none)
	}
}

// TestUnreachableTargetIsFatal: a command that does not exist ends the
// test at once with one fatal message saying so.
func TestUnreachableTargetIsFatal(t *testing.T) {
	r := newRecord(t.Context(), "TestMCP")
	testServer(r, Command("/nonexistent/mcp-server"), Options{Versions: latest}, "")
	if len(r.fatals) != 1 || len(r.subs) != 0 {
		t.Errorf("want one fatal message and no subtests, got:\n%s", r)
	}
	if r := newRecord(t.Context(), "TestMCP"); true {
		testServer(r, Command("x").WithHeader("Authorization", "secret"), Options{}, "")
		if len(r.fatals) != 1 || !strings.Contains(r.fatals[0], "WithHeader applies to URL and Handler") || strings.Contains(r.fatals[0], "secret") {
			t.Errorf("a header on a command target: want one fatal message naming the mistake, got:\n%s", r)
		}
	}
}

// pipeReference serves mcpcheck's reference server in process over pipes,
// a server of its own per connection (as a process per connection would
// be), with the fault switches given turned on.
func pipeReference(faults ...string) Target {
	return Pipe(func(ctx context.Context, in io.Reader, out io.Writer) error {
		srv, err := server.New(server.Options{Faults: faults})
		if err != nil {
			return err
		}
		defer srv.Close()
		return srv.ServeStdio(ctx, in, out, io.Discard)
	})
}

// TestPipeTarget runs the whole suite in every version against the
// reference server served over in-process pipes: each check a subtest that
// must pass or be skipped with its reason.
func TestPipeTarget(t *testing.T) {
	TestServer(t, pipeReference(), Options{})
}

// TestPipeTargetFailsLoudly: a pipe server with a fault fails the check
// the fault breaks, and one that never returns once its input closed fails
// transport-stdio/exit-on-stdin-close.
func TestPipeTargetFailsLoudly(t *testing.T) {
	r := newRecord(t.Context(), "TestMCP")
	testServer(r, pipeReference("ping-nonempty-result"), Options{Versions: latest, LabelFilter: "area:ping"}, "")
	if sub := r.sub("ping/empty-result/2025-11-25/stdio"); sub == nil || !sub.failed() {
		t.Fatalf("ping/empty-result/2025-11-25/stdio did not fail against a pipe server whose ping result is not empty:\n%s", r)
	}

	stuck := Pipe(func(ctx context.Context, in io.Reader, out io.Writer) error {
		srv, err := server.New(server.Options{})
		if err != nil {
			return err
		}
		defer srv.Close()
		_ = srv.ServeStdio(context.Background(), in, out, io.Discard) // ends at EOF
		<-ctx.Done()                                                  // but keeps serving nothing until cancelled
		return nil
	})
	r = newRecord(t.Context(), "TestMCP")
	testServer(r, stuck, Options{Versions: []spec.Version{spec.V20260728}, LabelFilter: "area:transport-stdio", Timeout: 300 * time.Millisecond, Strict: true}, "")
	if sub := r.sub("transport-stdio/exit-on-stdin-close/2026-07-28/stdio"); sub == nil || !sub.failed() {
		t.Fatalf("transport-stdio/exit-on-stdin-close (a SHOULD: Strict) did not fail against a pipe server that does not return:\n%s", r)
	}
}

// slowWriter delays every write: a server that takes delay to answer.
type slowWriter struct {
	w     io.Writer
	delay time.Duration
}

func (s slowWriter) Write(p []byte) (int, error) {
	time.Sleep(s.delay) // the target's own slowness, not synchronisation
	return s.w.Write(p)
}

// TestSilenceWindowsStretchToASlowTarget: against a server that takes
// 150 ms to answer, the silence windows last at least QuietFactor times
// that instead of the configured 250 ms, and the report says so; against
// the same server answering at once they stay at 250 ms.
func TestSilenceWindowsStretchToASlowTarget(t *testing.T) {
	serve := func(delay time.Duration) Target {
		return Pipe(func(ctx context.Context, in io.Reader, out io.Writer) error {
			srv, err := server.New(server.Options{})
			if err != nil {
				return err
			}
			defer srv.Close()
			return srv.ServeStdio(ctx, in, slowWriter{out, delay}, io.Discard)
		})
	}
	opts := Options{Versions: latest, LabelFilter: "area:cancellation"}
	fast, err := Run(t.Context(), serve(0), opts)
	if err != nil {
		t.Fatal(err)
	}
	// A fast server keeps the 250ms windows, unless this machine is so
	// loaded that even its answers took over a third of that: then the
	// stretch must be the one its measured answer times call for (that
	// answer times exclude handshakes is TestHealthTypicalAnswerTime's).
	if s := fast.Report.Silence; s == nil || s.Window != 250*time.Millisecond || s.Windows == 0 {
		t.Fatalf("against a fast server the report's silence is %+v; want 250ms windows", s)
	} else if s.Longest != s.Window {
		if want := min(scenarios.QuietFactor*s.Typical, scenarios.MaxQuietStretch); s.Typical <= s.Window/scenarios.QuietFactor || s.Longest != want {
			t.Fatalf("against a fast server the windows were stretched to %v with a typical answer time of %v; want none stretched, or stretched to %v", s.Longest, s.Typical, want)
		}
		t.Logf("the machine is loaded: the fast server's typical answer took %v, and the windows stretched to %v", s.Typical, s.Longest)
	}
	slow, err := Run(t.Context(), serve(150*time.Millisecond), opts)
	if err != nil {
		t.Fatal(err)
	}
	s := slow.Report.Silence
	if s == nil || s.Longest < 3*150*time.Millisecond || s.Typical < 150*time.Millisecond {
		t.Fatalf("against a server answering in 150ms the report's silence is %+v; want windows stretched to at least 450ms, for a typical answer time of at least 150ms", s)
	}
	if !strings.Contains(s.String(), "stretched up to") || !strings.Contains(s.String(), "typically") {
		t.Errorf("the report's silence line %q does not say the windows were stretched", s)
	}
	for _, c := range slow.Report.Checks {
		if c.Broken() {
			t.Errorf("%s against the slow server: %s %s", c.ID, c.Outcome, c.Actual)
		}
	}
}

// TestBaselineNamesANewlyBrokenRequirement: a baseline that expects
// ping/empty-result broken for another requirement does not cover the
// requirement the faulty server breaks: the subtest fails and says which
// requirement is new.
func TestBaselineNamesANewlyBrokenRequirement(t *testing.T) {
	bl := &reports.Baseline{Source: "test baseline", Entries: []reports.BaselineEntry{{
		Check: "ping/empty-result", Version: spec.V20251125, Requirements: []string{"ping.some-older-failure"}, Reason: "an older failure",
	}}}
	r := newRecord(t.Context(), "TestMCP")
	testServer(r, Handler(reference(t, "ping-nonempty-result"), "/mcp"), Options{Versions: latest, LabelFilter: "area:ping", Baseline: bl}, "")
	sub := r.sub("ping/empty-result/2025-11-25/streamable")
	if sub == nil || !sub.failed() {
		t.Fatalf("ping/empty-result did not fail although the baseline names another requirement:\n%s", r)
	}
	msg := strings.Join(sub.errors, "\n")
	for _, want := range []string{"the baseline expects this check broken, but not for ping.response.prompt-empty-result", "newly broken ping.response.prompt-empty-result"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the failure does not say %q:\n%s", want, msg)
		}
	}
}

// TestRunPatternScopesTheBaseline (issue 33): a -run pattern that selects
// one check records itself in the report (Selection), and, as a label
// filter does, leaves the baseline entries about the checks it did not
// select out of scope rather than stale; an entry about the selected
// check is still held to the run (it passes now: stale).
func TestRunPatternScopesTheBaseline(t *testing.T) {
	bl := &reports.Baseline{Source: "test baseline", Entries: []reports.BaselineEntry{
		{Check: "tools/names", Requirements: []string{"tools.name.allowed-characters"}, Reason: "known: a check the pattern leaves out"},
		{Check: "ping/empty-result", Version: spec.V20251125, Requirements: []string{"ping.response.prompt-empty-result"}, Reason: "known: fixed since"},
	}}
	const pattern = "TestMCP/ping/empty-result/2025-11-25"
	r := newRecord(t.Context(), "TestMCP")
	testServer(r, Handler(reference(t), "/mcp"), Options{Baseline: bl}, pattern)
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "ping/empty-result") || !strings.Contains(r.errors[0], "now passes") {
		t.Errorf("want one error on the test, the stale entry of the selected check, and none about tools/names; got:\n%s", r)
	}

	res, err := Run(t.Context(), Handler(reference(t), "/mcp"), Options{Versions: latest, Baseline: bl, only: []string{"ping/empty-result"}, selection: "go test -run " + pattern})
	if err != nil {
		t.Fatal(err)
	}
	if b := res.Report.Baseline; res.Report.Selection != "go test -run "+pattern || b == nil || b.OutOfScope != 1 || len(res.Stale) != 1 {
		t.Errorf("selection %q, baseline %+v, stale %v; want the pattern recorded, tools/names out of scope and the ping entry stale", res.Report.Selection, b, res.Stale)
	}
}
