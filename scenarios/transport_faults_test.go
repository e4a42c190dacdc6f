package scenarios

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/harness/session"
	"github.com/mcpcheck/mcpcheck/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// transportAreas are the areas of the transport checks: failures in them
// fail the HTTP suite tests; other areas' results over HTTP are logged.
var transportAreas = map[string]bool{
	"http": true, "sse": true, "stateless": true, "discovery": true, "mrtr": true,
	"subscriptions": true, "caching": true, "auth": true,
}

func transportOwned(id string) bool {
	a, _, _ := strings.Cut(id, "/")
	return transportAreas[a]
}

// httpReference starts "mcpcheck reference server --http 127.0.0.1:0"
// (with the HTTP+SSE endpoints) and returns the URL of its MCP endpoint,
// read from the line it prints on stderr. The process is killed when the
// test ends.
func httpReference(t testing.TB, faults ...string) string {
	t.Helper()
	bin := mcpcheckBinary(t)
	args := []string{"reference", "server", "--http", "127.0.0.1:0", "--legacy-sse", "--page-size", "3"}
	for _, f := range faults {
		args = append(args, "--fault", f)
	}
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if i := strings.Index(line, "http://"); i >= 0 && !sent && strings.Contains(line, "listening") {
				urls <- strings.TrimSpace(line[i:])
				sent = true
			}
		}
		if !sent {
			close(urls)
		}
	}()
	select {
	case u, ok := <-urls:
		if !ok {
			t.Fatal("the reference server exited without printing its URL")
		}
		return u
	case <-time.After(20 * time.Second):
		t.Fatal("the reference server printed no URL within 20 s")
	}
	return ""
}

// runURL runs the suites against an HTTP target.
func runURL(t testing.TB, u string, tr target.Transport, cfg Config) Result {
	t.Helper()
	tg := target.URL(u)
	tg.Transport = tr
	return runTarget(t, tg, cfg)
}

// runTarget runs the suites (direct engine) against tg.
func runTarget(t testing.TB, tg target.Target, cfg Config) Result {
	t.Helper()
	tg.Timeouts = target.Timeouts{Start: 10 * time.Second, Step: 5 * time.Second, Grace: time.Second}
	cfg.Target = tg
	cfg.Direct = true
	if cfg.Session.Timeout == 0 {
		cfg.Session = session.Config{Timeout: 5 * time.Second}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, p := range res.Problems {
		t.Errorf("harness problem: %v", p)
	}
	return res
}

// judgeTransportRun fails the test for a failure, warning or error of a
// transport check and logs the rest.
func judgeTransportRun(t *testing.T, res Result) {
	t.Helper()
	counts := map[spec.Version]map[reports.Outcome]int{}
	for _, c := range res.Report.Checks {
		if counts[c.Version] == nil {
			counts[c.Version] = map[reports.Outcome]int{}
		}
		counts[c.Version][c.Outcome]++
		bad := c.Outcome == reports.Fail || c.Outcome == reports.Warn || c.Outcome == reports.Error
		switch {
		case bad && transportOwned(c.ID):
			t.Errorf("%s [%s] %s: %s\n  expected: %s\n  actual: %s\n  reason: %s", c.Outcome, c.Version, c.ID, c.Title, c.Expected, c.Actual, c.Reason)
		case bad:
			t.Logf("(another area) %s [%s] %s: %s / %s", c.Outcome, c.Version, c.ID, c.Actual, c.Reason)
		case testing.Verbose() && transportOwned(c.ID):
			t.Logf("%s [%s] %s %s %s", c.Outcome, c.Version, c.ID, c.Duration.Round(time.Millisecond), c.Reason)
		}
		if c.Duration > 2*time.Second {
			t.Logf("slow: %s [%s] %s took %s", c.Outcome, c.Version, c.ID, c.Duration.Round(time.Millisecond))
		}
	}
	for v, n := range counts {
		t.Logf("%s: %v", v, n)
	}
	if len(res.Report.Checks) == 0 {
		t.Fatal("no check ran")
	}
}

// TestTransportSuiteOverHTTP runs every suite, every version, against the
// reference server over streamable HTTP (transport detected): no transport
// check may fail, warn or error.
func TestTransportSuiteOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	u := httpReference(t)
	judgeTransportRun(t, runURL(t, u, target.Auto, Config{}))
}

// TestTransportSuiteOverLegacySSE runs the suites against the reference
// server's 2024-11-05 HTTP+SSE endpoint.
func TestTransportSuiteOverLegacySSE(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	u := httpReference(t)
	sse := strings.TrimSuffix(u, "/mcp") + "/sse"
	judgeTransportRun(t, runURL(t, sse, target.SSE, Config{Versions: []spec.Version{spec.V20241105}}))
}

// transportFaultCases pair the reference server's transport fault switches
// with the check that must catch each.
var transportFaultCases = []struct {
	fault   string
	check   string
	version spec.Version
	want    reports.Outcome
}{
	{"origin-not-validated", "http/origin-403", spec.V20251125, reports.Fail},
	{"protocol-version-header-ignored", "http/protocol-version-header-invalid", spec.V20251125, reports.Fail},
	{"replay-all-streams", "http/resume-same-stream", spec.V20251125, reports.Fail},
	{"session-id-not-ascii", "http/session-id", spec.V20251125, reports.Fail},
	{"terminated-session-served", "http/session-terminated-404", spec.V20251125, reports.Fail},
	{"accept-tampered-state", "mrtr/tampered-state", spec.V20260728, reports.Fail},
	{"tasks-get-sse", "tasks/get-plain-json", spec.V20251125, reports.Warn},
}

// TestTransportChecksCatchFaults proves each transport check fires: with
// the fault on it fails, without it passes (over streamable HTTP).
func TestTransportChecksCatchFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	mcpcheckBinary(t)
	for _, fc := range transportFaultCases {
		fc := fc
		t.Run(fc.fault, func(t *testing.T) {
			t.Parallel()
			for _, withFault := range []bool{true, false} {
				var faults []string
				want := reports.Pass
				if withFault {
					faults, want = []string{fc.fault}, fc.want
				}
				u := httpReference(t, faults...)
				res := runURL(t, u, target.Auto, Config{Only: []string{fc.check}, Versions: []spec.Version{fc.version}})
				c, ok := outcomeOf(res, fc.check, fc.version)
				if !ok {
					t.Fatalf("check %s did not run in %s", fc.check, fc.version)
				}
				if c.Outcome != want {
					t.Errorf("fault %v: check %s in %s ended %s, want %s\n  expected: %s\n  actual: %s\n  reason: %s", faults, fc.check, fc.version, c.Outcome, want, c.Expected, c.Actual, c.Reason)
				}
			}
		})
	}
}
