package server

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// transportAreas are the areas of the transport checks: failures in them
// fail TestTransportSuiteOverHTTP; other areas' results are logged.
var transportAreas = map[string]bool{
	"transport-http": true, "transport-sse": true, "discovery": true, "mrtr": true,
	"subscriptions": true, "caching": true, "authorization": true,
}

func transportOwned(id string) bool {
	a, _, _ := strings.Cut(id, "/")
	return transportAreas[a]
}

// httpReference starts "mcpcheck reference server --http 127.0.0.1:0"
// (with the HTTP+SSE endpoints) with faults switched on and returns the URL
// of its MCP endpoint (see startReferenceHTTP). An auth-* fault breaks a
// resource-server rule, so the server then runs in auth mode, trusting an
// authorization server of the test (authReference), and runURL presents
// its valid token.
func httpReference(t testing.TB, faults ...string) string {
	t.Helper()
	for _, f := range faults {
		if strings.HasPrefix(f, "auth-") {
			return authReference(t, faults...)
		}
	}
	return startReferenceHTTP(t, append([]string{"--legacy-sse"}, faultArgs(faults)...)...)
}

// legacySSEURL is the HTTP+SSE endpoint of the reference server whose MCP
// endpoint is u.
func legacySSEURL(u string) string { return strings.TrimSuffix(u, "/mcp") + "/sse" }

// runURL runs the suites against an HTTP target.
func runURL(t testing.TB, u string, tr target.Transport, cfg Config) Result {
	t.Helper()
	tg := target.URL(u)
	tg.Transport = tr
	if a, ok := authReferences.Load(u); ok {
		tg.AuthIssuer = a.(authRef).issuer
		tg.AuthUpstream = a.(authRef).upstream
		tg.Headers = append(tg.Headers, target.Header{Name: "Authorization", Value: a.(authRef).bearer})
	}
	return runTarget(t, tg, cfg)
}

// runTarget runs the suites against tg.
func runTarget(t testing.TB, tg target.Target, cfg Config) Result {
	t.Helper()
	tg.Timeouts = target.Timeouts{Start: 10 * time.Second, Step: 5 * time.Second, Grace: time.Second}
	cfg.Target = tg
	return runSuites(t, cfg, 3*time.Minute)
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

// TestTransportSuiteOverHTTP runs the transport checks (transportAreas),
// every version, against the reference server over HTTP with the
// transport detected: none may fail, warn or error. The other areas'
// checks over streamable HTTP are judged by the clean runs of
// TestSuiteOverHTTPAgainstReference (the 2024-11-05 HTTP+SSE endpoint's
// by its legacy-sse), with the transport named; what this run adds is
// the detection, which the transport checks' sessions exercise.
func TestTransportSuiteOverHTTP(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	var only []string
	for _, d := range Checks() {
		if transportOwned(d.ID) {
			only = append(only, d.ID)
		}
	}
	u := httpReference(t)
	res := runURL(t, u, target.Auto, Config{Only: only})
	judgeTransportRun(t, res)
	for _, v := range spec.Versions {
		ran := false
		for _, c := range res.Report.Checks {
			ran = ran || (c.Version == v && c.Outcome == reports.Pass)
		}
		if !ran {
			t.Errorf("no transport check passed in %s: the run over the detected transport judged nothing there", v)
		}
	}
}
