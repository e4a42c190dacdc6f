package scenarios

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/harness/session"
	"github.com/mcpcheck/mcpcheck/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// transportProofChecks are the checks this file proves: each has a row in
// transportProofCases or a reason in unprovableTransportChecks.
var transportProofChecks = []string{
	"auth/authorization-server-2025-03-26", "discovery/server-discover", "elicitation/complete-id", "elicitation/declared-modes",
	"elicitation/request-shape", "http/get-stream-no-responses", "http/modern-only-legacy-traffic", "http/no-requests-on-response-streams",
	"http/post-content-type", "http/protocol-version-header-absent", "http/sse-close-after-response", "http/sse-cut-streams",
	"mrtr/input-via-mrtr-only", "mrtr/only-supported-requests", "mrtr/round-trip", "sampling/input-request-messages",
	"sampling/tool-loop-balance", "sampling/tools-only-if-declared", "sse/endpoint-event-first", "sse/post-and-stream",
	"stateless/header-names-case-insensitive", "stateless/interleaved-conversations", "stateless/missing-capability",
	"stateless/no-connection-affinity", "stateless/no-connection-context", "stateless/protocol-version-header-missing",
	"stdio/exit-on-stdin-close", "stdio/no-server-requests", "subscriptions/listen-notifications", "tasks/cancel-terminal",
	"tasks/cancel-working", "tasks/create-result", "tasks/id-receiver-generated", "tasks/ids-unique", "tasks/lifecycle",
	"tasks/result-same-outcome", "tasks/server-as-requestor", "tasks/undeclared-ignored", "tasks/unknown-id",
}

// transportProofCases pair each check with a reference fault switch (or a
// mode of the misbehaving proxy of transport_proxy_test.go) that breaks a
// requirement it cites, in a version and transport where it applies. Only
// the fault-on side runs here: the clean side is proven by the suites that
// require every check to pass against the clean reference server.
var transportProofCases = []struct {
	fault     string // a fault switch of the reference server, or a proxy mode when proxy is set
	proxy     bool
	check     string
	version   spec.Version
	transport string          // stdio, streamable or sse
	want      reports.Outcome // fail for a MUST, warn for a SHOULD
	also      []string        // active checks whose traffic a passive check judges
}{
	// Streamable HTTP.
	{"response-on-get-stream", false, "http/get-stream-no-responses", spec.V20251125, "streamable", reports.Fail, nil},
	{"stateless-stream-request", false, "http/no-requests-on-response-streams", spec.V20260728, "streamable", reports.Fail, []string{"discovery/discover-result"}},
	// A fail, not a warn: besides the SHOULD NOT the fault breaks, the check
	// cites base.stateless.explicit-state-handles, a MUST.
	{"state-bound-to-connection", false, "stateless/no-connection-affinity", spec.V20260728, "streamable", reports.Fail, nil},
	{"ping-text-plain", true, "http/post-content-type", spec.V20251125, "streamable", reports.Fail, nil},
	{"require-version-header", true, "http/protocol-version-header-absent", spec.V20251125, "streamable", reports.Warn, nil},
	{"sse-hold-open", true, "http/sse-close-after-response", spec.V20251125, "streamable", reports.Warn, nil},
	{"sse-cut", true, "http/sse-cut-streams", spec.V20250618, "streamable", reports.Warn, nil},
	{"sse-cut", true, "http/sse-cut-streams", spec.V20251125, "streamable", reports.Warn, nil},
	{"modern-only-get-served", true, "http/modern-only-legacy-traffic", spec.V20260728, "streamable", reports.Warn, nil},
	{"modern-only-lenient", true, "stateless/protocol-version-header-missing", spec.V20260728, "streamable", reports.Fail, nil},
	{"case-sensitive-headers", true, "stateless/header-names-case-insensitive", spec.V20260728, "streamable", reports.Fail, nil},
	{"auth-no-as-metadata", true, "auth/authorization-server-2025-03-26", spec.V20250326, "streamable", reports.Fail, nil},
	// HTTP+SSE.
	{"endpoint-not-first", false, "sse/endpoint-event-first", spec.V20241105, "sse", reports.Fail, nil},
	{"legacy-response-in-post", false, "sse/post-and-stream", spec.V20241105, "sse", reports.Fail, nil},
	// stdio.
	{"stdio-server-request", false, "stdio/no-server-requests", spec.V20260728, "stdio", reports.Fail, []string{"discovery/discover-result"}},
	{"stdin-eof-ignored", false, "stdio/exit-on-stdin-close", spec.V20260728, "stdio", reports.Warn, nil},
	// 2026-07-28.
	{"no-server-discover", false, "discovery/server-discover", spec.V20260728, "stdio", reports.Fail, nil},
	{"input-via-request", false, "mrtr/input-via-mrtr-only", spec.V20260728, "stdio", reports.Fail, []string{"mrtr/round-trip"}},
	{"input-via-request", false, "mrtr/round-trip", spec.V20260728, "stdio", reports.Fail, nil},
	{"input-required-on-complete", false, "mrtr/only-supported-requests", spec.V20260728, "stdio", reports.Fail, []string{"completion/values-bound"}},
	{"sampling-input-bad-role", false, "sampling/input-request-messages", spec.V20260728, "stdio", reports.Fail, nil},
	{"one-conversation-at-a-time", false, "stateless/interleaved-conversations", spec.V20260728, "stdio", reports.Warn, nil},
	{"missing-capability-wrong-code", false, "stateless/missing-capability", spec.V20260728, "stdio", reports.Fail, nil},
	{"caps-from-connection", false, "stateless/no-connection-context", spec.V20260728, "stdio", reports.Fail, nil},
	{"listen-no-subscription-id", false, "subscriptions/listen-notifications", spec.V20260728, "stdio", reports.Fail, nil},
	// Sampling and elicitation (2025-11-25).
	{"sampling-tools-undeclared", false, "sampling/tools-only-if-declared", spec.V20251125, "stdio", reports.Fail, nil},
	{"sampling-tool-results-mixed", false, "sampling/tool-loop-balance", spec.V20251125, "stdio", reports.Fail, nil},
	{"elicit-url-undeclared", false, "elicitation/declared-modes", spec.V20251125, "stdio", reports.Fail, nil},
	{"elicit-url-invalid", false, "elicitation/request-shape", spec.V20251125, "stdio", reports.Fail, nil},
	{"elicit-complete-wrong-id", false, "elicitation/complete-id", spec.V20251125, "stdio", reports.Fail, []string{"elicitation/request-shape"}},
	// Tasks (2025-11-25).
	{"task-cancel-terminal-accepted", false, "tasks/cancel-terminal", spec.V20251125, "stdio", reports.Fail, nil},
	{"task-cancel-answers-working", false, "tasks/cancel-working", spec.V20251125, "stdio", reports.Fail, nil},
	{"task-created-at-not-rfc3339", false, "tasks/create-result", spec.V20251125, "stdio", reports.Fail, nil},
	{"task-id-from-requestor", false, "tasks/id-receiver-generated", spec.V20251125, "stdio", reports.Fail, nil},
	{"task-ids-counter", false, "tasks/ids-unique", spec.V20251125, "stdio", reports.Fail, nil},
	{"task-result-no-related-meta", false, "tasks/lifecycle", spec.V20251125, "stdio", reports.Fail, nil},
	{"task-result-differs", false, "tasks/result-same-outcome", spec.V20251125, "stdio", reports.Fail, nil},
	{"task-status-related-meta", false, "tasks/server-as-requestor", spec.V20251125, "stdio", reports.Warn, []string{"tasks/lifecycle"}},
	{"tasks-undeclared-honoured", false, "tasks/undeclared-ignored", spec.V20251125, "stdio", reports.Fail, nil},
	{"unknown-task-internal-error", false, "tasks/unknown-id", spec.V20251125, "stdio", reports.Fail, nil},
}

// unprovableTransportChecks are the checks of transportProofChecks that no
// fault can sensibly break, with the reason.
var unprovableTransportChecks = map[string]string{}

// TestTransportChecksCatchProofFaults proves each check of
// transportProofChecks fires: with its fault switch on (or behind its
// proxy mode) it fails for a MUST and warns for a SHOULD.
func TestTransportChecksCatchProofFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	bin := mcpcheckBinary(t)
	t.Run("coverage", func(t *testing.T) {
		transportProofCoverage(t, bin)
	})
	for _, pc := range transportProofCases {
		pc := pc
		t.Run(pc.fault+"/"+pc.check+"/"+string(pc.version)+"/"+pc.transport, func(t *testing.T) {
			t.Parallel()
			cfg := Config{Only: append([]string{pc.check}, pc.also...), Versions: []spec.Version{pc.version}}
			if len(pc.also) > 0 {
				// A passive check judges what the active ones provoke;
				// under a loaded -race run a 5 s step can end their
				// exchange before the fault shows, so give them room.
				cfg.Session = session.Config{Timeout: 15 * time.Second}
			}
			var res Result
			switch {
			case pc.proxy:
				tg := target.URL(proxyReference(t, pc.fault))
				tg.Transport = target.Streamable
				tg.Headers = []target.Header{{Name: "Authorization", Value: proxyGoodToken}}
				res = runTarget(t, tg, cfg)
			case pc.transport == "stdio":
				cfg.Direct = true
				res = runReference(t, cfg, pc.fault)
			case pc.transport == "streamable":
				res = runURL(t, httpReference(t, pc.fault), target.Streamable, cfg)
			case pc.transport == "sse":
				res = runURL(t, legacySSEURL(httpReference(t, pc.fault)), target.SSE, cfg)
			default:
				t.Fatalf("unknown transport %q", pc.transport)
			}
			c, ok := expectOutcome(t, res, pc.check, pc.version, pc.want, pc.fault+" on over "+pc.transport)
			if !ok {
				return
			}
			t.Logf("%s: %s\n  expected: %s\n  actual: %s", c.Outcome, pc.check, c.Expected, c.Actual)
		})
	}
}

// transportProofCoverage checks the tables: every check of
// transportProofChecks is registered and either proven or listed as
// unprovable, and every fault switch named is one the binary lists,
// breaking a requirement its check cites.
func transportProofCoverage(t *testing.T, bin string) {
	registered := map[string]bool{}
	cites := map[string]map[string]bool{}
	for _, d := range Checks() {
		registered[d.ID] = true
		cites[d.ID] = map[string]bool{}
		for _, r := range d.Requirements {
			cites[d.ID][r] = true
		}
	}
	out, err := exec.Command(bin, "reference", "server", "--list-faults").Output()
	if err != nil {
		t.Fatalf("--list-faults: %v", err)
	}
	faults := map[string]string{} // name -> requirement
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) > 1 {
			faults[f[0]] = f[1]
		}
	}
	proven := map[string]bool{}
	for _, pc := range transportProofCases {
		proven[pc.check] = true
		if !registered[pc.check] {
			t.Errorf("case for %s: no such check", pc.check)
		}
		req, listed := faults[pc.fault]
		switch {
		case pc.proxy:
		case !listed:
			t.Errorf("case for %s: the reference server lists no fault switch %q", pc.check, pc.fault)
		case !cites[pc.check][req]:
			t.Errorf("case for %s: fault %s breaks %s, which the check does not cite", pc.check, pc.fault, req)
		}
		if pc.transport != "stdio" && pc.transport != "streamable" && pc.transport != "sse" {
			t.Errorf("case for %s: transport %q", pc.check, pc.transport)
		}
	}
	for _, id := range transportProofChecks {
		why, skipped := unprovableTransportChecks[id]
		switch {
		case !registered[id]:
			t.Errorf("%s: no such check", id)
		case proven[id] && skipped:
			t.Errorf("%s is proven and also listed as unprovable (%s)", id, why)
		case !proven[id] && !skipped:
			t.Errorf("%s has no proof case and no reason in unprovableTransportChecks", id)
		case skipped && why == "":
			t.Errorf("%s is listed as unprovable without a reason", id)
		}
	}
	for id := range unprovableTransportChecks {
		found := false
		for _, x := range transportProofChecks {
			found = found || x == id
		}
		if !found {
			t.Errorf("unprovableTransportChecks names %s, which is not one of transportProofChecks", id)
		}
	}
}
