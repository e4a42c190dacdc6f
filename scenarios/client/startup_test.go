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
	const caseTimeout = 8 * time.Second
	l := referenceLaunch(t, Streamable)
	// The client plays the initialize scenario only, and starts later than
	// the case timeout; told any other scenario it exits at once, having
	// sent nothing (a case that judges nothing).
	l.Command = `case "$` + EnvScenario + `" in initialize) sleep 10;; *) exit 0;; esac; exec ` + l.Command
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
// run is no verdict on it (ErrClientSilent).
func TestSilentClientEndsAtItsAllowance(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The stage appends its URL to the command: "#" makes it a comment.
	res, err := Run(ctx, Config{Launch: Launch{Command: "sleep 600 #"}, Direct: true, CaseTimeout: time.Second, StartupTimeout: 3 * time.Second, Parallel: 64,
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
	found := false
	for _, e := range c.Transcript {
		if strings.Contains(e.Note, "sent nothing within its start-up allowance of 3s") {
			found = true
		}
	}
	if !found {
		t.Errorf("no note says the client sent nothing within its start-up allowance: %+v", c.Transcript)
	}
}
