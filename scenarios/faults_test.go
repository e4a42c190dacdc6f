package scenarios

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// faultCases pair each fault switch of the reference server with the check
// that must catch it, in a version where it applies.
var faultCases = []struct {
	fault   string
	check   string
	version spec.Version
	want    reports.Outcome // fail for a MUST, warn for a SHOULD
}{
	{"error-id-mismatch", "base/error-id-echo", spec.V20251125, reports.Fail},
	{"reply-to-notification", "base/notification-no-response", spec.V20251125, reports.Fail},
	{"no-result-type", "base/result-type", spec.V20260728, reports.Fail},
	{"speak-before-initialize", "lifecycle/silent-before-initialize", spec.V20251125, reports.Fail},
	{"speak-before-initialize", "lifecycle/silent-before-initialize", spec.V20241105, reports.Fail},
	{"init-wrong-version", "versioning/echo-supported", spec.V20251125, reports.Fail},
	{"ping-nonempty-result", "ping/empty-result", spec.V20251125, reports.Fail},
	{"stdout-banner", "stdio/stdout-only-messages", spec.V20251125, reports.Fail},
	{"bad-log-level-accepted", "logging/set-level-invalid", spec.V20251125, reports.Warn},
	{"log-without-level", "logging/silent-without-level", spec.V20260728, reports.Fail},
	{"invalid-cursor-accepted", "pagination/invalid-cursor", spec.V20251125, reports.Warn},
}

// TestChecksCatchFaults proves each check fires: against the reference
// server with the fault switched on it fails (or warns, for a SHOULD), and
// without the fault it passes.
func TestChecksCatchFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	referenceTarget(t) // build once, or skip
	for _, fc := range faultCases {
		fc := fc
		t.Run(fc.fault, func(t *testing.T) {
			t.Parallel()
			for _, withFault := range []bool{true, false} {
				var faults []string
				want := reports.Pass
				if withFault {
					faults, want = []string{fc.fault}, fc.want
				}
				res := runReference(t, Config{Direct: true, Only: []string{fc.check}, Versions: []spec.Version{fc.version}}, faults...)
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
