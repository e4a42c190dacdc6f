package client

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness"
	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

// T is what a check's Judge gets: the harness.Check to record the outcome
// on (Pass, Fail, Violation, NotApplicable, Untestable, Saw, Expect are
// promoted) and the cases it judges.
type T struct {
	*harness.Check
	Ctx       context.Context
	transport wire.Transport
	cases     []*Case
	// launches is the whole run, for checks conditional on an optional
	// behaviour (given.go); nil: the cases are all there is.
	launches launches
}

// Cases are the recordings the check judges: one per scenario it names
// (or every scenario of its version) that ran.
func (t *T) Cases() []*Case { return t.cases }

// Transport is the run's transport: Stdio or Streamable.
func (t *T) Transport() wire.Transport { return t.transport }

// Breach records a breach found by a message rule of internal/harness/rules as a
// violation of its requirement (of every cited requirement when none of
// the rule's is in force in the version), with where it happened.
func (t *T) Breach(c *Case, b rules.Breach) {
	actual := b.Actual + " (" + c.Scenario.Name + ")"
	if b.Requirement == "" || !t.Cites(b.Requirement) {
		t.Fail(b.Expected, actual)
		return
	}
	t.Violation(b.Requirement, b.Expected, actual)
}

func (t *T) Cites(req string) bool {
	for _, r := range t.Check.Requirements() {
		if r == req {
			return true
		}
	}
	return false
}

// InForce reports whether requirement id applies in the check's version.
func (t *T) InForce(id string) bool { return rules.InForce(id, t.Version()) }

// Rule is what EachMessage holds every message of one kind to.
type Rule struct {
	// Expected is the Expected text of a breach (when judge returns one).
	Expected string
	// None is the n/a reason when no message is of the kind.
	None string
	// Saw is the pass text, a format for the number of messages judged.
	Saw string
	// Limit bounds the breaches recorded (0: 10).
	Limit int
}

// EachMessage holds every message the client sent in the check's cases to
// judge: counted says the message is of the kind the check is about,
// breach (non-empty) what was wrong with it. With none counted the check
// is n/a (rule.None), with none broken it passes.
func (t *T) EachMessage(rule Rule, judge func(c *Case, m Msg) (counted bool, breach string)) {
	limit := rule.Limit
	if limit <= 0 {
		limit = 10
	}
	n, bad := 0, 0
	for _, c := range t.cases {
		for _, m := range c.Client() {
			counted, why := judge(c, m)
			if counted {
				n++
			}
			if why == "" {
				continue
			}
			bad++
			if bad <= limit {
				t.Fail(rule.Expected, why+" ("+c.Scenario.Name+")")
			}
		}
	}
	t.Settle(n, bad, rule.None, rule.Saw)
}

// Settle ends a check that counted n things and found bad of them broken:
// n/a with none when nothing was counted, a pass saying saw otherwise.
func (t *T) Settle(n, bad int, none, saw string) {
	switch {
	case n == 0 && bad == 0:
		t.NotApplicable(none + t.WhyNothing())
	case bad == 0:
		if saw != "" {
			t.Saw(saw, n)
		}
		t.Pass()
	case bad > 10:
		t.Saw("%d breaches in all, the first 10 shown", bad)
	}
}

// SettleActed is settle for a check that needs the client to act: with
// nothing counted it ends untestable, needs saying what the client did not
// do (see NeedAction).
func (t *T) SettleActed(n, bad int, needs, saw string) {
	if n == 0 {
		t.NeedAction(false, needs)
		return
	}
	t.Settle(n, bad, "", saw)
}

// WhyNothing adds, for an n/a reason, what the cases were like when the
// client sent nothing at all.
func (t *T) WhyNothing() string {
	for _, c := range t.cases {
		if c.Traffic() {
			return ""
		}
	}
	if len(t.cases) == 0 {
		return ""
	}
	return " (" + t.cases[0].UntestableWhy("") + ")"
}

// NeedAction ends the check as untestable when no case shows the client
// doing what the check needs (needs says what, for the reason); it reports
// whether the check can go on.
func (t *T) NeedAction(ok bool, needs string) bool {
	if ok {
		return t.Open()
	}
	var why []string
	for _, c := range t.cases {
		why = append(why, c.UntestableWhy(needs))
	}
	if len(why) == 0 {
		why = append(why, "no scenario of this check ran")
	}
	t.Untestable(strings.Join(why, "; "))
	return false
}

// Excerpt quotes a message for an Actual text.
func Excerpt(m Msg) string {
	s := wire.Excerpt(m.Raw, 200)
	if m.HTTP != nil && m.HTTP.Method != "" && m.HTTP.Status == 0 {
		s = m.HTTP.Method + " " + s
	}
	return s
}

// Where names where a message was, for reports: scenario and position.
func Where(c *Case, m Msg) string {
	return fmt.Sprintf("%s, message %d", c.Scenario.Name, m.Seq)
}
