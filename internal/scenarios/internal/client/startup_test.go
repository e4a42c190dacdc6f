package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestSlowStartingClientHasItsAllowance: a client that takes longer than
// the case timeout to send its first message (a Node host on a busy
// machine took over 20 s, and its checks ended untestable) is given its
// start-up allowance first, and the case timeout only from its first
// message: the same client started late is judged as one started at
// once. Without the allowance the case ended before the client spoke.
func TestSlowStartingClientHasItsAllowance(t *testing.T) {
	t.Parallel()
	const caseTimeout = 4 * time.Second
	l := referenceLaunch(t, Streamable)
	// The client plays the initialize scenario only, and starts later than
	// the case timeout; told any other scenario it exits at once, having
	// sent nothing (a case that judges nothing).
	l.Command = `case "$` + EnvScenario + `" in initialize) sleep 6;; *) exit 0;; esac; exec ` + l.Command
	res := runSuite(t, Config{Launch: l, CaseTimeout: caseTimeout, StartupTimeout: time.Minute,
		Versions: []spec.Version{spec.V20251125}, Only: []string{"client/lifecycle/initialize-params"}})
	if len(res.Report.Checks) != 1 {
		t.Fatalf("%d checks ran, want 1", len(res.Report.Checks))
	}
	if c := res.Report.Checks[0]; c.Outcome != reports.Pass {
		t.Errorf("%s; want pass: the client spoke within its start-up allowance", describe(c))
	}
}

// TestSilentClientEndsAtItsAllowance: a client that never says anything is
// stopped once its start-up allowance is over, the case says so, and the
// run is no verdict on it (ErrClientSilent). Only the first cases wait the
// whole allowance (those started before any had ended): once one has, a
// client that has spoken in no case is silent, and later cases wait the
// case timeout for its first message.
func TestSilentClientEndsAtItsAllowance(t *testing.T) {
	t.Parallel()
	const parallel = 16
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The stage appends its URL to the command: "#" makes it a comment.
	// The check rides on every scenario: every one is a case.
	res, err := Run(ctx, Config{Launch: Launch{Command: "sleep 600 #"}, CaseTimeout: time.Second, StartupTimeout: 3 * time.Second, Parallel: parallel,
		Versions: []spec.Version{spec.V20251125}, Only: []string{"client/lifecycle/initialize-params"}})
	if !errors.Is(err, ErrClientSilent) {
		t.Fatalf("run: %v, want %v", err, ErrClientSilent)
	}
	if len(res.Report.Checks) != 1 {
		t.Fatalf("%d checks ran, want 1", len(res.Report.Checks))
	}
	c := res.Report.Checks[0]
	if c.Outcome == reports.Pass || c.Outcome == reports.Fail || c.Outcome == reports.Warn {
		t.Errorf("%s; a client that said nothing was judged", describe(c))
	}
	notes := map[string]int{}
	for _, e := range c.Transcript {
		for _, a := range []string{"3s", "1s"} {
			if strings.Contains(e.Note, "sent nothing within its start-up allowance of "+a) {
				notes[a]++
			}
		}
	}
	if notes["3s"] < 1 || notes["3s"] > parallel || notes["1s"] != res.Cases-notes["3s"] {
		t.Errorf("cases by the allowance they waited: %v of %d; want 1 to %d waiting the start-up allowance (3s), the rest the case timeout (1s) once the client was found silent", notes, res.Cases, parallel)
	}
}
