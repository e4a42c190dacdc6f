package scenarios

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/harness/session"
	"github.com/mcpcheck/mcpcheck/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestMuteServerGetsAFastVerdict: a stdio server that reads its stdin and
// never answers is judged quickly: after three unanswered requests it is
// mute, the remaining checks end at once as errors or untestable naming
// that cause, and none of them is a pass.
func TestMuteServerGetsAFastVerdict(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, Config{
		Target:   target.Command("sleep", "300"),
		Versions: []spec.Version{spec.V20250618, spec.V20251125},
		// A short start-up allowance: sleep is silent for good, and the
		// test is about the verdict after it (the default, a minute, is
		// held by the zoo).
		Session: session.Config{Timeout: time.Second, StartupTimeout: 2 * time.Second},
		Direct:  true,
	})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	counts := map[reports.Outcome]int{}
	mute := 0
	for _, c := range res.Report.Checks {
		counts[c.Outcome]++
		if c.Outcome == reports.Pass {
			t.Errorf("%s passed against a server that answers nothing", c.ID)
		}
		if strings.Contains(c.Reason+c.Actual, "treated as mute") {
			mute++
		}
	}
	if mute == 0 {
		for _, c := range res.Report.Checks {
			if c.Outcome != reports.NA {
				t.Logf("%s %s: %s %s", c.ID, c.Outcome, c.Reason, c.Actual)
			}
		}
		t.Fatalf("no check names the mute target as its cause: %v", counts)
	}
	// Each check would otherwise wait its own 1 s deadline at least once.
	if limit := time.Duration(len(res.Report.Checks)) * time.Second / 4; took > limit {
		t.Errorf("the run took %v for %d checks (limit %v): the mute target was waited for", took, len(res.Report.Checks), limit)
	}
	t.Logf("%d checks in %v: %v, %d naming the mute target", len(res.Report.Checks), took, counts, mute)
}

// TestWrongIDServerFailsFastCitingIDs: a server that answers every request
// with an id no request had (response-ids-wrong) gets, in every version,
// a failure citing the id-echo requirement at the handshake, every check
// that needs a session untestable with that cause (never n/a: it answers,
// so "does not speak the version" would be a guess), no pass, and a run
// far shorter than one deadline per check.
func TestWrongIDServerFailsFastCitingIDs(t *testing.T) {
	start := time.Now()
	res := runReference(t, Config{Direct: true, Versions: spec.Versions}, "response-ids-wrong")
	took := time.Since(start)
	cited := map[spec.Version]bool{}
	untestable := 0
	for _, c := range res.Report.Checks {
		switch c.Outcome {
		case reports.Pass:
			t.Errorf("%s %s passed against a server whose every answer carries a wrong id", c.ID, c.Version)
		case reports.Fail:
			for _, r := range c.Violated {
				if r == "base.response.id-matches-request" {
					cited[c.Version] = true
				}
			}
		case reports.Untestable:
			if strings.Contains(c.Reason, "not the id of any request") {
				untestable++
			}
		}
	}
	for _, v := range spec.Versions {
		if !cited[v] {
			t.Errorf("%s: no failure cites base.response.id-matches-request", v)
		}
	}
	if untestable == 0 {
		t.Errorf("no check is untestable naming the wrong ids as the cause")
	}
	if limit := time.Minute; took > limit {
		t.Errorf("the run took %v, want under %v", took, limit)
	}
	t.Logf("%d checks in %v; %d untestable naming the wrong ids", len(res.Report.Checks), took, untestable)
}
