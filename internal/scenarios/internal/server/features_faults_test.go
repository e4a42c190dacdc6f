package server

import (
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
)

// featureAreas are the areas of tools.go, resources.go, prompts.go,
// completion.go, progress.go, cancellation.go, tasks/tasks.go,
// client_requests.go and capabilities.go.
var featureAreas = map[string]bool{
	"tools": true, "resources": true, "prompts": true, "completion": true, "progress": true,
	"cancellation": true, "tasks": true, "sampling": true, "elicitation": true, "roots": true, "capabilities": true,
}

// featureCheckIDs are the IDs of the checks of the feature files.
func featureCheckIDs() []string {
	var out []string
	for _, d := range Checks() {
		if featureAreas[strings.SplitN(d.ID, "/", 2)[0]] {
			out = append(out, d.ID)
		}
	}
	return out
}

// TestFeatureChecksAgainstReference judges the feature checks of the
// shared clean stdio run with Parallel 8 (sharedStdio), every version:
// nothing fails, warns or errors, and MCPCHECK_FEATURES_VERBOSE=1 logs
// every outcome.
func TestFeatureChecksAgainstReference(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	features := map[string]bool{}
	for _, id := range featureCheckIDs() {
		features[id] = true
	}
	verbose := os.Getenv("MCPCHECK_FEATURES_VERBOSE") != ""
	var cs []reports.Check
	for _, c := range sharedStdio(t).wide.Report.Checks {
		if features[c.ID] {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		t.Fatal("no feature check ran")
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
	for _, c := range cs {
		switch c.Outcome {
		case reports.Fail, reports.Warn, reports.Error:
			t.Errorf("%s [%s] %s\n  expected: %s\n  actual: %s\n  reason: %s", c.Outcome, c.Version, c.ID, c.Expected, c.Actual, c.Reason)
		default:
			if verbose {
				t.Logf("%s [%s] %s (%s): %s %s", c.Outcome, c.Version, c.ID, c.Duration.Round(time.Millisecond), c.Reason, c.Actual)
			}
		}
	}
}
