package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestMuteServerGetsAFastVerdict: a stdio server that reads its stdin and
// never answers is judged quickly: after three unanswered requests it is
// mute, the remaining checks end at once as errors or untestable naming
// that cause, and none of them is a pass. That they ended at once, not
// each after a wait of its own, shows in what the run did, not in its
// wall time: every check that was not n/a names the mute target (none
// ran into a deadline of its own), and the run started far fewer
// processes than it judged checks (a start per check is what waiting for
// each would cost over stdio; it starts about 9 for 142).
func TestMuteServerGetsAFastVerdict(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, Config{
		Target:   target.Command("sleep", "300"),
		Versions: []spec.Version{spec.V20250618, spec.V20251125},
		// A short start-up allowance: sleep is silent for good, and the
		// test is about the verdict after it (the default, a minute, is
		// held by the zoo).
		Session: session.Config{Timeout: time.Second, StartupTimeout: 2 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[reports.Outcome]int{}
	mute, judged := 0, 0
	for _, c := range res.Report.Checks {
		counts[c.Outcome]++
		if c.Outcome == reports.Pass {
			t.Errorf("%s passed against a server that answers nothing", c.ID)
		}
		if c.Outcome != reports.NA {
			judged++
		}
		if strings.Contains(c.Reason+c.Actual, "treated as mute") {
			mute++
		} else if c.Outcome != reports.NA {
			t.Errorf("%s [%s] is %s without naming the mute target: %s %s", c.ID, c.Version, c.Outcome, c.Reason, c.Actual)
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
	if res.Starts*4 > judged {
		t.Errorf("the run started the target %d times for %d checks not n/a: the checks went on opening sessions to a mute target", res.Starts, judged)
	}
	t.Logf("%d checks: %v, %d naming the mute target, %d process starts", len(res.Report.Checks), counts, mute, res.Starts)
}

// TestWrongIDServerFailsFastCitingIDs: a server that answers every request
// with an id no request had (response-ids-wrong) gets, in every version,
// a failure citing the id-echo requirement at the handshake, every check
// that needs a session untestable with that cause (never n/a: it answers,
// so "does not speak the version" would be a guess), no pass, and the
// fail-fast path, shown by what the run did rather than its wall time: no
// check waited out a deadline ("no answer within"), and the run started
// far fewer processes than it judged checks (about 15 for 345).
func TestWrongIDServerFailsFastCitingIDs(t *testing.T) {
	t.Parallel()
	res := runReference(t, Config{Versions: spec.Versions}, "response-ids-wrong")
	cited := map[spec.Version]bool{}
	untestable, judged := 0, 0
	for _, c := range res.Report.Checks {
		if c.Outcome != reports.NA {
			judged++
		}
		if strings.Contains(c.Reason+c.Actual, "no answer within") {
			t.Errorf("%s [%s] waited out a deadline: %s %s", c.ID, c.Version, c.Reason, c.Actual)
		}
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
	if res.Starts*4 > judged {
		t.Errorf("the run started the target %d times for %d checks not n/a: the checks did not end at the wrong ids", res.Starts, judged)
	}
	t.Logf("%d checks; %d untestable naming the wrong ids, %d process starts", len(res.Report.Checks), untestable, res.Starts)
}
