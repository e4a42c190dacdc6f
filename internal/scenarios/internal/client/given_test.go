package client

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// launchOf is one finished launch of a stdio client in scenario name
// (2025-11-25) that sent msgs, each answered by the stage.
func launchOf(name string, msgs ...string) *Case {
	var evs []stage.Event
	for _, m := range msgs {
		evs = append(evs, fromClient(m))
		if id, _, ok := strings.Cut(strings.TrimPrefix(m, `{"jsonrpc":"2.0","id":`), `,"method"`); ok && strings.HasPrefix(m, `{"jsonrpc":"2.0","id":`) {
			evs = append(evs, fromStage(`{"jsonrpc":"2.0","id":`+id+`,"result":{"tools":[],"content":[]}}`))
		}
	}
	return &Case{Scenario: scenarioNamed(name), Version: spec.V20251125, Transport: Stdio, Events: rec(evs...), Launched: true, Exit: "exited with status 0"}
}

const (
	givenInit     = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	givenCall     = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	givenProgress = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"progressToken":"p-1"}}}`
)

// TestOptionalBehaviourDecidesNAOrUntestable: client/progress/token-type
// binds only a client that asks for progress. A client that put a
// progressToken on no request in any launch of the run is n/a, the reason
// naming what it never did; one that did so in one launch, though not in
// the check's own case, stays untestable; one that did in the check's case
// is judged (a pass here; a float token fails, so the check still
// catches a breach).
func TestOptionalBehaviourDecidesNAOrUntestable(t *testing.T) {
	const id = "client/progress/token-type"
	plain := func() *Case { return launchOf("initialize", givenInit, givenCall) }
	other := launchOf(caNoAnswerScenario, givenInit, givenProgress)

	never := judgeInRun(t, id, spec.V20251125, Stdio, []*Case{plain()}, []*Case{plain(), launchOf(caNoAnswerScenario, givenInit, givenCall)})
	if never.Outcome != reports.NA || !strings.Contains(never.Reason, "asks for progress") || !strings.Contains(never.Reason, "none of its 2 launches") {
		t.Errorf("no progressToken in any launch: %s; want n/a naming the progress the client never asked for, in its 2 launches", describe(never))
	}
	once := judgeInRun(t, id, spec.V20251125, Stdio, []*Case{plain()}, []*Case{plain(), other})
	if once.Outcome != reports.Untestable {
		t.Errorf("a progressToken in another launch of the run: %s; want untestable (the requirement binds this client)", describe(once))
	}
	here := judgeInRun(t, id, spec.V20251125, Stdio, []*Case{other}, []*Case{plain(), other})
	if here.Outcome != reports.Pass {
		t.Errorf("a string progressToken in the check's own case: %s; want pass", describe(here))
	}
	bad := launchOf("initialize", givenInit, strings.Replace(givenProgress, `"p-1"`, `1.5`, 1))
	if got := judgeInRun(t, id, spec.V20251125, Stdio, []*Case{bad}, []*Case{bad}); got.Outcome != reports.Fail {
		t.Errorf("a float progressToken: %s; want fail", describe(got))
	}
}

// TestRunLaunchesWaitForTheWholeRun: the run's answer on a behaviour counts
// every launch once all have ended, and a run stopped before that (a
// launch interrupted, or the run's context ended) tells nothing, so the
// check stays untestable.
func TestRunLaunchesWaitForTheWholeRun(t *testing.T) {
	run := func(cs ...*Case) *runner {
		r := &runner{cases: map[caseKey]*pending{}}
		for i, c := range cs {
			p := &pending{done: make(chan struct{}), c: c}
			close(p.done)
			r.cases[caseKey{spec.V20251125, string(rune('a' + i))}] = p
		}
		return r
	}
	ctx := context.Background()
	plain := launchOf("initialize", givenInit, givenCall)
	asked := launchOf(caNoAnswerScenario, givenInit, givenProgress)

	if shown, n, ok := (runLaunches{run(plain, plain), ctx}).shows(doesAskProgress); shown || n != 2 || !ok {
		t.Errorf("two launches without progress: shown %v, %d launches, known %v; want false, 2, true", shown, n, ok)
	}
	if shown, _, ok := (runLaunches{run(plain, asked), ctx}).shows(doesAskProgress); !shown || !ok {
		t.Errorf("one launch with a progressToken: shown %v, known %v; want true, true", shown, ok)
	}
	cut := launchOf("initialize", givenInit)
	cut.Interrupted = true
	if _, _, ok := (runLaunches{run(plain, cut), ctx}).shows(doesAskProgress); ok {
		t.Error("a launch the run's stop interrupted: the answer was taken as known")
	}
	stopped, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, ok := (runLaunches{run(plain), stopped}).shows(doesAskProgress); ok {
		t.Error("a run whose context ended: the answer was taken as known")
	}
}

// TestConditionalChecksAreRegistered: every check OnlyIf names is a
// registered client check.
func TestConditionalChecksAreRegistered(t *testing.T) {
	for id := range conditional {
		if _, ok := Lookup(id); !ok {
			t.Errorf("onlyIf names %s, which is no registered client check", id)
		}
	}
}
