package scenarios

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/harness/session"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// featureProofChecks are the checks this file answers for: each has a case
// in featureProofCases or an entry in unprovableFeatureChecks.
var featureProofChecks = []string{
	"base/batch-accepted", "base/batch-rejected", "base/error-objects", "base/invalid-request",
	"base/meta-required", "base/no-server-requests", "base/notification-no-id", "base/parse-error",
	"base/request-ids", "base/response-id-echo", "base/response-shape", "base/server-info-meta",
	"base/unknown-method", "base/utf8", "base/wire-schema", "cancellation/finished-request",
	"cancellation/server-sent", "cancellation/unknown-id", "capabilities/client-undeclared",
	"capabilities/features-declared", "capabilities/prompt-notifications", "capabilities/stateless-undeclared",
	"completion/invalid-ref", "completion/not-supported", "completion/unknown-ref", "completion/values-bound",
	"lifecycle/capabilities-respected", "lifecycle/initialize-result",
	"lifecycle/no-requests-before-initialized", "lifecycle/second-initialize", "logging/declared-if-sent",
	"logging/per-request-invalid-level", "pagination/walk", "progress/known-tokens",
	"progress/no-token-no-progress", "progress/observed", "progress/server-request-tokens",
	"prompts/get-content", "prompts/list-changed", "prompts/list-stable", "prompts/missing-argument",
	"prompts/unknown-prompt", "resources/list-changed", "resources/list-stable", "resources/malformed-uri",
	"resources/not-found-legacy", "resources/uri-syntax", "tools/case-sensitive-names",
	"tools/input-schema-valid", "tools/input-validation", "tools/list-stable", "tools/names",
	"tools/output-schema-valid", "tools/unknown-tool", "tools/x-mcp-header", "versioning/unknown-version",
	"versioning/unsupported-version-error",
}

// featureProofCases pair checks that had no proof with a fault switch of
// the reference server that breaks a requirement they cite, in a version
// where the check applies. Only the fault-on side runs here: against the
// clean reference server every check passes (TestSuiteAgainstReference).
var featureProofCases = []faultCase{
	{"batch-refused", "base/batch-accepted", spec.V20250326, reports.Fail},
	{"batch-answered", "base/batch-rejected", spec.V20251125, reports.Fail},
	{"error-without-message", "base/error-objects", spec.V20251125, reports.Fail},
	{"invalid-request-result", "base/invalid-request", spec.V20251125, reports.Fail},
	{"meta-version-assumed", "base/meta-required", spec.V20260728, reports.Fail},
	{"stateless-server-request", "base/no-server-requests", spec.V20260728, reports.Fail},
	{"notification-with-id", "base/notification-no-id", spec.V20251125, reports.Fail},
	{"parse-error-wrong-code", "base/parse-error", spec.V20251125, reports.Fail},
	{"server-request-id-reused", "base/request-ids", spec.V20251125, reports.Fail},
	{"result-id-truncated", "base/response-id-echo", spec.V20251125, reports.Fail},
	{"error-with-result", "base/response-shape", spec.V20250618, reports.Fail},
	{"no-server-info-meta", "base/server-info-meta", spec.V20260728, reports.Warn},
	{"unknown-method-wrong-code", "base/unknown-method", spec.V20251125, reports.Fail},
	{"latin1-ping", "base/utf8", spec.V20251125, reports.Fail},
	{"ping-meta-not-object", "base/wire-schema", spec.V20251125, reports.Fail},
	{"stale-cancel-answered", "cancellation/finished-request", spec.V20251125, reports.Fail},
	{"stale-cancel-answered", "cancellation/unknown-id", spec.V20251125, reports.Warn},
	{"cancel-client-request", "cancellation/server-sent", spec.V20251125, reports.Fail},
	{"client-caps-assumed", "capabilities/client-undeclared", spec.V20251125, reports.Fail},
	{"prompts-undeclared", "capabilities/features-declared", spec.V20251125, reports.Fail},
	{"prompt-notifications-undeclared", "capabilities/prompt-notifications", spec.V20251125, reports.Warn},
	{"undeclared-input-kinds", "capabilities/stateless-undeclared", spec.V20260728, reports.Fail},
	{"completion-bogus-ref-served", "completion/invalid-ref", spec.V20251125, reports.Fail},
	{"completions-undeclared-wrong-code", "completion/not-supported", spec.V20251125, reports.Warn},
	{"completion-unknown-prompt-code", "completion/unknown-ref", spec.V20251125, reports.Warn},
	{"completion-values-unbounded", "completion/values-bound", spec.V20251125, reports.Warn},
	{"tools-list-changed-undeclared", "lifecycle/capabilities-respected", spec.V20251125, reports.Fail},
	{"init-no-server-info", "lifecycle/initialize-result", spec.V20251125, reports.Fail},
	{"request-before-initialized", "lifecycle/no-requests-before-initialized", spec.V20251125, reports.Warn},
	{"second-initialize-unanswered", "lifecycle/second-initialize", spec.V20251125, reports.Warn},
	{"logging-undeclared", "logging/declared-if-sent", spec.V20251125, reports.Fail},
	{"invalid-log-level-ignored", "logging/per-request-invalid-level", spec.V20260728, reports.Warn},
	{"cursor-loops", "pagination/walk", spec.V20251125, reports.Warn},
	{"progress-without-token", "progress/known-tokens", spec.V20251125, reports.Fail},
	{"progress-without-token", "progress/no-token-no-progress", spec.V20251125, reports.Fail},
	{"progress-after-completion", "progress/observed", spec.V20251125, reports.Fail},
	{"request-progress-token-float", "progress/server-request-tokens", spec.V20251125, reports.Fail},
	{"prompt-image-not-base64", "prompts/get-content", spec.V20251125, reports.Fail},
	{"no-prompts-list-changed", "prompts/list-changed", spec.V20251125, reports.Warn},
	{"prompts-list-refused-stateless", "prompts/list-stable", spec.V20260728, reports.Fail},
	{"prompt-arguments-unchecked", "prompts/missing-argument", spec.V20251125, reports.Warn},
	{"unknown-prompt-wrong-code", "prompts/unknown-prompt", spec.V20251125, reports.Warn},
	{"no-resources-list-changed", "resources/list-changed", spec.V20251125, reports.Warn},
	{"resources-list-refused-stateless", "resources/list-stable", spec.V20260728, reports.Fail},
	{"malformed-uri-served", "resources/malformed-uri", spec.V20251125, reports.Fail},
	{"not-found-invalid-params-legacy", "resources/not-found-legacy", spec.V20251125, reports.Warn},
	{"resource-uri-no-scheme", "resources/uri-syntax", spec.V20251125, reports.Fail},
	{"tool-names-case-insensitive", "tools/case-sensitive-names", spec.V20251125, reports.Warn},
	{"input-schema-null", "tools/input-schema-valid", spec.V20251125, reports.Fail},
	{"tool-arguments-unchecked", "tools/input-validation", spec.V20251125, reports.Fail},
	{"tools-list-refused-stateless", "tools/list-stable", spec.V20260728, reports.Fail},
	{"tool-name-with-space", "tools/names", spec.V20251125, reports.Warn},
	{"output-schema-invalid", "tools/output-schema-valid", spec.V20251125, reports.Fail},
	{"unknown-tool-served", "tools/unknown-tool", spec.V20251125, reports.Fail},
	{"duplicate-x-mcp-header", "tools/x-mcp-header", spec.V20260728, reports.Fail},
	{"unknown-version-oldest", "versioning/unknown-version", spec.V20251125, reports.Warn},
	{"unsupported-version-no-list", "versioning/unsupported-version-error", spec.V20260728, reports.Fail},
}

// featureProofTraffic names, for a passive check, the active checks run
// before it in the same run: a passive check judges only what the target
// sent during the run, and the handshake alone may hold nothing of the
// kind to judge. The active checks end in a round trip on the pooled
// session, which also puts every frame the fault sent before it ahead of
// the passive judgement. Their own outcomes are not asserted.
var featureProofTraffic = map[string][]string{
	"base/error-objects":                {"base/unknown-method"},
	"base/notification-no-id":           {"progress/increasing"},
	"base/request-ids":                  {"sampling/tool-loop-balance"},
	"base/response-shape":               {"base/unknown-method"},
	"base/server-info-meta":             {"tools/names"},
	"base/utf8":                         {"base/response-id-echo"},
	"base/wire-schema":                  {"base/response-id-echo"},
	"cancellation/server-sent":          {"base/response-id-echo"},
	"capabilities/prompt-notifications": {"base/response-id-echo"},
	"lifecycle/capabilities-respected":  {"base/response-id-echo"},
	"logging/declared-if-sent":          {"base/response-id-echo"},
	"progress/known-tokens":             {"progress/no-token-no-progress"},
	"progress/observed":                 {"tools/structured-output", "tools/unknown-tool"},
	"progress/server-request-tokens":    {"sampling/tool-loop-balance"},
}

// unprovableFeatureChecks are checks of the proof list that no server
// fault can sensibly break, with the reason.
var unprovableFeatureChecks = map[string]string{}

// TestFeatureChecksCatchProofFaults proves the checks of featureProofCases
// fire: with the fault switched on, the check fails (MUST) or warns
// (SHOULD) in the case's version.
func TestFeatureChecksCatchProofFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	referenceTarget(t) // build once, or skip
	for _, fc := range featureProofCases {
		fc := fc
		t.Run(fc.check+"/"+fc.fault+"/"+string(fc.version), func(t *testing.T) {
			t.Parallel()
			only := append([]string{fc.check}, featureProofTraffic[fc.check]...)
			cfg := Config{Direct: true, Only: only, Versions: []spec.Version{fc.version}}
			if len(only) > 1 {
				// A passive check judges what the active ones provoke;
				// under a loaded -race run give their exchanges room.
				cfg.Session = session.Config{Timeout: 15 * time.Second}
			}
			c, _ := expectOutcome(t, runReference(t, cfg, fc.fault), fc.check, fc.version, fc.want, "fault "+fc.fault)
			t.Logf("%s: %s", c.Outcome, c.Actual)
		})
	}
}

// TestFeatureProofCasesAreSound keeps the proof table honest: every check
// exists and applies in the case's version, every fault is a switch of
// the reference server that breaks a requirement the check cites, and no
// check is both proven and listed as unprovable.
func TestFeatureProofCasesAreSound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the reference server")
	}
	faults := featureProofFaultRequirements(t)
	defs := map[string]Def{}
	for _, d := range Checks() {
		defs[d.ID] = d
	}
	for _, fc := range featureProofCases {
		d, ok := defs[fc.check]
		if !ok {
			t.Errorf("%s: no such check", fc.check)
			continue
		}
		if ok, why := d.inWindow(fc.version); !ok {
			t.Errorf("%s does not apply in %s: %s", fc.check, fc.version, why)
		}
		req, ok := faults[fc.fault]
		if !ok {
			t.Errorf("%s: the reference server has no fault switch %q", fc.check, fc.fault)
			continue
		}
		cited := false
		for _, r := range d.Requirements {
			cited = cited || r == req
		}
		if !cited {
			t.Errorf("fault %s breaks %s, which %s does not cite (%v)", fc.fault, req, fc.check, d.Requirements)
		}
		if _, dup := unprovableFeatureChecks[fc.check]; dup {
			t.Errorf("%s is both proven and listed as unprovable", fc.check)
		}
		if fc.want != reports.Fail && fc.want != reports.Warn {
			t.Errorf("%s: a proof ends fail or warn, not %s", fc.check, fc.want)
		}
	}
	proven := map[string]bool{}
	for _, fc := range featureProofCases {
		proven[fc.check] = true
	}
	listed := map[string]bool{}
	for _, id := range featureProofChecks {
		listed[id] = true
		if _, ok := defs[id]; !ok {
			t.Errorf("featureProofChecks: no such check %s", id)
		}
		if _, skip := unprovableFeatureChecks[id]; !proven[id] && !skip {
			t.Errorf("%s has neither a proof case nor a reason in unprovableFeatureChecks", id)
		}
	}
	for id := range proven {
		if !listed[id] {
			t.Errorf("featureProofCases proves %s, which is not in featureProofChecks", id)
		}
	}
	for id := range unprovableFeatureChecks {
		if !listed[id] {
			t.Errorf("unprovableFeatureChecks lists %s, which is not in featureProofChecks", id)
		}
	}
	for check, extra := range featureProofTraffic {
		if !defs[check].Passive {
			t.Errorf("featureProofTraffic: %s is not a passive check", check)
		}
		for _, id := range extra {
			if d, ok := defs[id]; !ok || d.Passive {
				t.Errorf("featureProofTraffic of %s: %s is not an active check", check, id)
			}
		}
	}
}

// featureProofFaultRequirements lists the reference server's fault switches
// (mcpcheck reference server --list-faults): name -> requirement broken.
func featureProofFaultRequirements(t *testing.T) map[string]string {
	t.Helper()
	out, err := exec.Command(mcpcheckBinary(t), "reference", "server", "--list-faults").Output()
	if err != nil {
		t.Fatalf("--list-faults: %v", err)
	}
	faults := map[string]string{}
	for i, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); i > 0 && len(f) >= 2 {
			faults[f[0]] = f[1]
		}
	}
	return faults
}
