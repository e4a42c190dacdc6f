package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/fuzz"
	"github.com/mcpcheck/mcpcheck/reports"
)

// runUnjudged says why a finished suite run is no verdict on its target
// whatever its checks say, or "" when it judged what it set out to: what
// judgeRun exits 2 or 3 on (harness problems, a target that never
// completed initialization, nothing judged at all or in a version
// --protocol named, a selection that matched no check). The caller puts
// it in reports.Run.Unjudged before writing the reports, so that none of
// them calls the run passed and the text report prints no OK ahead of the
// exit message. An interrupted run says so itself (Run.Interrupted). It
// applies bl to run for the verdict; writeReports applies it again.
func runUnjudged(run *reports.Run, bl *reports.Baseline, problems []error, explicit, strict bool) string {
	if run.Interrupted != "" {
		return ""
	}
	if bl != nil {
		reports.Apply(run, bl)
	}
	var failed checkFailed
	if err := judgeRun(run, problems, explicit, strict); err != nil && !errors.As(err, &failed) {
		return err.Error()
	}
	return ""
}

// fuzzUnjudged is what a campaign's reports say it did not judge
// (reports.Run.Unjudged): the campaign's Unjudged, or the problems it had,
// which make the command exit 3 too.
func fuzzUnjudged(res *fuzz.Result) string {
	if res.Unjudged != "" || len(res.Errors) == 0 {
		return res.Unjudged
	}
	return fmt.Sprintf("the campaign had %d problem(s): %s", len(res.Errors), strings.Join(res.Errors, "; "))
}
