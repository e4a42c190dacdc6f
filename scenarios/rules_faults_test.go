package scenarios

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// ruleFaultCases prove the checks of error_codes.go, implementation_info.go
// and logging_security.go fire: with the fault on, the check fails (warns
// for a SHOULD). A passive check judges the traffic of the active checks
// in also. The clean side is TestSuiteAgainstReference.
var ruleFaultCases = []struct {
	fault   string
	check   string
	version spec.Version
	want    reports.Outcome
	also    []string
}{
	{"reserved-code-misused", "base/reserved-code-meanings", spec.V20260728, reports.Fail, []string{"base/unknown-method"}},
	{"unknown-result-type", "base/result-type-known", spec.V20260728, reports.Fail, []string{"base/client-info-neutral"}},
	{"bad-extension-name", "capabilities/extension-names", spec.V20260728, reports.Fail, nil},
	{"client-info-dependent", "base/client-info-neutral", spec.V20260728, reports.Warn, nil},
	{"log-secrets", "security/logs-no-secrets", spec.V20251125, reports.Fail, nil},
	{"log-secrets", "security/logs-no-secrets", spec.V20260728, reports.Fail, nil},
	{"log-secrets", "security/logs-no-secrets", spec.V20241105, reports.Fail, nil},
	{"log-on-listen-stream", "logging/per-request-stream", spec.V20260728, reports.Fail, nil},
}

func TestRuleChecksCatchFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	referenceTarget(t) // build once, or skip
	for _, fc := range ruleFaultCases {
		fc := fc
		t.Run(fc.fault+"/"+string(fc.version), func(t *testing.T) {
			t.Parallel()
			res := runReference(t, Config{Direct: true, Only: append([]string{fc.check}, fc.also...), Versions: []spec.Version{fc.version}}, fc.fault)
			expectOutcome(t, res, fc.check, fc.version, fc.want, "fault "+fc.fault)
		})
	}
}
