package scenarios

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// faultCases pair each fault switch of the reference server with the check
// that must catch it, in a version where it applies.
var faultCases = []faultCase{
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
	runFaultCases(t, faultCases, func(fc faultCase) string { return fc.fault }, runReferenceCheck)
}

// runReferenceCheck runs fc's check alone, in its version, against the
// reference server over stdio with faults switched on.
func runReferenceCheck(t *testing.T, fc faultCase, faults ...string) Result {
	return runReference(t, Config{Direct: true, Only: []string{fc.check}, Versions: []spec.Version{fc.version}}, faults...)
}
