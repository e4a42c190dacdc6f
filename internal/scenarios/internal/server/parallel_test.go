package server

import (
	"context"
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The proof that outcomes do not depend on how many checks run at the
// same time: whole suites against the reference server, once with
// Parallel 1 (every check after the other, registration order) and once
// with Parallel 8, compared check by check (ID, version and transport ->
// outcome).

// wideParallel is the concurrency the tests compare with Parallel 1: more
// than any default, so that every exclusive check and every group is
// contended.
const wideParallel = 8

// outcomeKey names one check of a run.
func outcomeKey(c reports.Check) string {
	return fmt.Sprintf("%s@%s/%s", c.ID, c.Version, c.Transport)
}

// outcomes maps every check of a run to its outcome.
func outcomes(t *testing.T, res Result) map[string]reports.Outcome {
	t.Helper()
	out := map[string]reports.Outcome{}
	for _, c := range res.Report.Checks {
		k := outcomeKey(c)
		if _, dup := out[k]; dup {
			t.Errorf("check %s is reported twice", k)
		}
		out[k] = c.Outcome
	}
	return out
}

// sameOutcomes fails the test for every check whose outcome differs
// between the serial and the concurrent run (with both reasons), and when
// the concurrent run's report does not list its checks in the serial
// run's order.
func sameOutcomes(t *testing.T, what string, serial, wide Result) {
	t.Helper()
	if len(serial.Report.Checks) == 0 {
		t.Fatalf("%s: no check ran", what)
	}
	if d := cmp.Diff(outcomes(t, serial), outcomes(t, wide)); d != "" {
		t.Errorf("%s: outcomes with Parallel 1 (-) and Parallel %d (+) differ:\n%s", what, wideParallel, d)
		byKey := map[string]reports.Check{}
		for _, c := range serial.Report.Checks {
			byKey[outcomeKey(c)] = c
		}
		for _, c := range wide.Report.Checks {
			if s, ok := byKey[outcomeKey(c)]; ok && s.Outcome != c.Outcome {
				t.Errorf("%s: Parallel 1: %s (%s %s); Parallel %d: %s (%s %s)", outcomeKey(c), s.Outcome, s.Reason, s.Actual, wideParallel, c.Outcome, c.Reason, c.Actual)
			}
		}
	}
	var a, b []string
	for _, c := range serial.Report.Checks {
		a = append(a, outcomeKey(c))
	}
	for _, c := range wide.Report.Checks {
		b = append(b, outcomeKey(c))
	}
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("%s: the reports list the checks in another order:\n%s", what, d)
	}
}

// runSerialAndWide runs cfg with Parallel 1 and with wideParallel, each
// against a target of its own (mk), at the same time, and returns both
// results and how long each took.
func runSerialAndWide(t *testing.T, cfg Config, mk func(t *testing.T) target.Target) (serial, wide Result, ts, tw time.Duration) {
	t.Helper()
	var wg sync.WaitGroup
	for _, n := range []int{1, wideParallel} {
		c := cfg
		c.Parallel = n
		c.Target = mk(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			res := runOne(t, c)
			if n == 1 {
				serial, ts = res, time.Since(start)
			} else {
				wide, tw = res, time.Since(start)
			}
		}()
	}
	wg.Wait()
	return serial, wide, ts, tw
}

// runOne runs cfg (5 s steps unless set) and records a run that could
// not be judged or had harness problems as an error of t.
func runOne(t *testing.T, cfg Config) Result {
	if cfg.Target.URL != "" {
		cfg.Target.Timeouts = target.Timeouts{Start: 10 * time.Second, Step: 5 * time.Second, Grace: time.Second}
	}
	return runSuitesErr(t, cfg, 3*time.Minute)
}

// TestParallelOutcomesAgainstReference runs the whole server suite
// against the reference server with Parallel 1 and Parallel 8, over
// stdio (every version) and over streamable HTTP (the versions of
// streamableSerialVersions), a server of its own per run, and requires
// the same outcome for every check and the same report order. The runs
// are the shared clean pairs (sharedStdio, sharedStreamable), which
// other tests judge too.
func TestParallelOutcomesAgainstReference(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	for _, tc := range []struct {
		name   string
		shared func(t *testing.T) *cleanPair
	}{
		{"stdio", sharedStdio},
		{"streamable", sharedStreamable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := tc.shared(t)
			t.Logf("%d checks: Parallel 1 %s (%d connections), Parallel %d %s (%d connections)",
				len(p.serial.Report.Checks), p.ts.Round(time.Millisecond), p.serial.Starts, wideParallel, p.tw.Round(time.Millisecond), p.wide.Starts)
			sameOutcomes(t, tc.name, p.serial, p.wideLikeSerial())
		})
	}
}

// runSuitesErr is runSuites for a goroutine of the test: a run that
// cannot be judged, and every harness problem, is an error of t (Fatal
// may only be called from the test's own goroutine).
func runSuitesErr(t *testing.T, cfg Config, limit time.Duration) Result {
	if cfg.Session.Timeout == 0 {
		cfg.Session.Timeout = 5 * time.Second
	}
	cfg.ToolPolicy = ownTools(cfg.ToolPolicy)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Errorf("run with Parallel %d: %v", cfg.Parallel, err)
	}
	for _, p := range res.Problems {
		t.Errorf("harness problem with Parallel %d: %v", cfg.Parallel, p)
	}
	return res
}

// parallelFaultRows are the proof rows (Def.Proofs) TestParallelFaultRows
// runs: a sample, as a whole suite per row with Parallel 1 and 8 takes
// seconds, chosen where concurrency could change a verdict: quiet windows
// (cancellation, progress), passive checks over every connection
// (progress/observed, elicitation/complete-id), exclusive checks (list
// changes, listen streams, log levels), the tasks group, a target whose
// every answer carries a wrong id (the run's Health gives up on it), and
// the GET stream, resumption and the task store of one HTTP server that
// every session shares.
var parallelFaultRows = []struct {
	check, fault string
	version      spec.Version
	transport    wire.Transport
}{
	{"cancellation/finished-request", "stale-cancel-answered", spec.V20251125, ""},
	{"progress/observed", "progress-after-completion", spec.V20251125, ""},
	{"elicitation/complete-id", "elicit-complete-wrong-id", spec.V20251125, ""},
	{"tools/list-changed", "no-tools-list-changed", spec.V20251125, ""},
	{"tasks/ids-unique", "task-ids-counter", spec.V20251125, ""},
	{"logging/per-request-stream", "log-on-listen-stream", spec.V20260728, ""},
	{"security/logs-no-secrets", "log-secrets", spec.V20260728, ""},
	{"lifecycle/initialize-result", "response-ids-wrong", spec.V20251125, ""},
	{"transport-http/get-stream-no-responses", "response-on-get-stream", spec.V20251125, "streamable"},
	{"transport-http/resume-same-stream", "replay-all-streams", spec.V20251125, "streamable"},
	{"tasks/get-plain-json", "tasks-get-sse", spec.V20251125, "streamable"},
	{"logging/set-level-invalid", "bad-log-level-accepted", spec.V20241105, "sse"},
	// Unprompted traffic, judged per session by the passive checks.
	{"lifecycle/capabilities-respected", "unprompted-client-request", spec.V20251125, ""},
	{"progress/known-tokens", "unprompted-progress", spec.V20251125, ""},
	{"resources/updated-subscribed", "unsubscribed-resource-updated", spec.V20250618, ""},
	{"transport-http/responses-on-own-streams", "response-on-get-stream", spec.V20251125, "streamable"},
	{"logging/request-scoped", "log-without-level", spec.V20260728, "streamable"},
}

// faultRun is one run of TestParallelFaultRows: faults switched on in
// a version over a transport, and the checks their proofs say must fire.
type faultRun struct {
	faults    []string
	version   spec.Version
	transport wire.Transport
	want      map[string]reports.Outcome // check ID -> the proof's outcome
}

// aloneFaults are the sample's faults that get a run of their own: with
// response-ids-wrong every session is untestable, which would hide the
// other faults' verdicts.
var aloneFaults = map[string]bool{"response-ids-wrong": true}

// faultRuns returns the runs of the proof rows: the sample of
// parallelFaultRows, whose faults of one version and transport are
// switched on together in one run (each fault breaks its own
// requirement, and the whole suite runs either way: one run per version
// and transport instead of one per row), or every fault row of the
// registry, one run per fault, when all is set.
func faultRuns(t *testing.T, all bool) []*faultRun {
	t.Helper()
	var runs []*faultRun
	byKey := map[string]*faultRun{}
	add := func(d Def, p Proof, key string) {
		k := key + "@" + string(p.Version) + "/" + string(orStdio(p.Transport))
		r := byKey[k]
		if r == nil {
			r = &faultRun{version: p.Version, transport: p.Transport, want: map[string]reports.Outcome{}}
			byKey[k] = r
			runs = append(runs, r)
		}
		if !slices.Contains(r.faults, p.Fault) {
			r.faults = append(r.faults, p.Fault)
		}
		if w, ok := r.want[d.ID]; ok && w != p.Want {
			t.Fatalf("%s: proofs of one run want %s and %s", d.ID, w, p.Want)
		}
		r.want[d.ID] = p.Want
	}
	if all {
		for _, d := range Checks() {
			for _, p := range d.Proofs {
				if p.Fault != "" {
					add(d, p, p.Fault)
				}
			}
		}
		return runs
	}
	for _, row := range parallelFaultRows {
		d, ok := lookupCheck(row.check)
		if !ok {
			t.Fatalf("%s is not a registered check", row.check)
		}
		found := false
		for _, p := range d.Proofs {
			if p.Fault == row.fault && p.Version == row.version && p.Transport == row.transport {
				key := "sample"
				if aloneFaults[p.Fault] {
					key = p.Fault
				}
				add(d, p, key)
				found = true
			}
		}
		if !found {
			t.Fatalf("%s has no proof with fault %s in %s over %s", row.check, row.fault, row.version, orStdio(row.transport))
		}
	}
	return runs
}

// TestParallelFaultRows runs, for a sample of the proof rows
// (parallelFaultRows; every fault row of the registry with
// MCPCHECK_PARALLEL_ALL_ROWS=1, some minutes), the whole suite of the
// rows' version against the reference server with the rows' faults
// switched on, with Parallel 1 and Parallel 8: every check must end the
// same in both runs, and the proved checks as their proofs say. Over
// stdio the server is served in process over pipes (pipeReference), as
// TestProofs serves it: a process start per connection took most of a
// Parallel 1 run's time.
func TestParallelFaultRows(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	mcpcheckBinary(t)
	for _, fr := range faultRuns(t, os.Getenv("MCPCHECK_PARALLEL_ALL_ROWS") != "") {
		fr := fr
		faults := strings.Join(fr.faults, "+")
		t.Run(fmt.Sprintf("%s/%s/%s", faults, fr.version, orStdio(fr.transport)), func(t *testing.T) {
			t.Parallel()
			mk := func(t *testing.T) target.Target {
				switch fr.transport {
				case "streamable":
					tg := target.URL(httpReference(t, fr.faults...))
					tg.Transport = target.Streamable
					return tg
				case "sse":
					tg := target.URL(legacySSEURL(httpReference(t, fr.faults...)))
					tg.Transport = target.SSE
					return tg
				}
				return pipeReference(fr.faults...)
			}
			serial, wide, ts, tw := runSerialAndWide(t, Config{Versions: []spec.Version{fr.version}}, mk)
			t.Logf("%d checks: Parallel 1 %s, Parallel %d %s", len(serial.Report.Checks), ts.Round(time.Millisecond), wideParallel, tw.Round(time.Millisecond))
			sameOutcomes(t, "faults "+faults, serial, wide)
			for id, want := range fr.want {
				expectOutcome(t, wide, id, fr.version, want, fmt.Sprintf("faults %s over %s with Parallel %d", faults, orStdio(fr.transport), wideParallel))
			}
		})
	}
}

// transcriptMarkers are strings only one check sends: each must show in
// that check's transcript and in no other, whatever ran at the same time.
var transcriptMarkers = map[string]string{
	"mcpcheck_no_such_tool_7f3a":  "tools/unknown-tool",
	"mcpcheck-not-a-cursor-7f3a":  "pagination/invalid-cursor",
	"mcpcheck-no-such-task-7f3a":  "tasks/unknown-id",
	"mcpcheck-never-sent-7f3a":    "cancellation/unknown-id",
	"mcpcheck-no-session":         "transport-http/session-missing-id-400",
	"mcpcheck-bad-version-header": "transport-http/protocol-version-header-invalid",
}

// TestParallelTranscriptsAreTheChecksOwn takes the runs with Parallel 8
// and every transcript kept (Verbose) of the shared clean pairs, over
// stdio and streamable HTTP: each check's transcript holds what its own
// connections carried, so a string only one check sends is in that
// check's transcript and in no other of its version, whatever ran at the
// same time.
func TestParallelTranscriptsAreTheChecksOwn(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	for _, tc := range []struct {
		name   string
		shared func(t *testing.T) *cleanPair
	}{
		{"stdio", sharedStdio},
		{"streamable", sharedStreamable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := tc.shared(t).wide
			if res.Parallel != wideParallel {
				t.Fatalf("the shared run had Parallel %d, want %d", res.Parallel, wideParallel)
			}
			for _, v := range spec.Versions {
				seen := map[string][]string{} // marker -> checks of v whose transcript has it
				for _, c := range res.Report.Checks {
					if c.Version != v {
						continue
					}
					for m := range transcriptMarkers {
						for _, e := range c.Transcript {
							if strings.Contains(e.Raw, m) {
								seen[m] = append(seen[m], c.ID)
								break
							}
						}
					}
				}
				for m, id := range transcriptMarkers {
					if c, ok := outcomeOf(res, id, v); !ok || c.Outcome != reports.Pass {
						continue // n/a over this transport or in this version: it sent nothing
					}
					if d := cmp.Diff([]string{id}, seen[m]); d != "" {
						t.Errorf("%s: %q, sent by %s only, is in the transcripts of %v", v, m, id, seen[m])
					}
				}
			}
		})
	}
}
