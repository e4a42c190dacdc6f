package client

import (
	"net/http"
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// cancelOfInitialize runs the reference client with fault in scenario
// (2025-11-25, streamable HTTP) and requires client/cancellation/
// not-initialize to fail on its cancellation of initialize and
// client/cancellation/in-flight to pass (the cancellation names a request
// the client did send); it returns the run.
func cancelOfInitialize(t *testing.T, fault, scenario string) Result {
	t.Helper()
	res := runSuite(t, Config{Launch: referenceLaunch(t, Streamable, fault), Versions: []spec.Version{spec.V20251125},
		Only: []string{"client/cancellation/not-initialize", "client/cancellation/in-flight"}, scenarios: []string{scenario}})
	want := map[string]reports.Outcome{"client/cancellation/not-initialize": reports.Fail, "client/cancellation/in-flight": reports.Pass}
	for _, c := range res.Report.Checks {
		if w, ok := want[c.ID]; ok {
			delete(want, c.ID)
			if c.Outcome != w {
				t.Errorf("%s; want %s", describe(c), w)
			}
		}
	}
	for id := range want {
		t.Errorf("%s was not judged", id)
	}
	return res
}

// TestCancelCrossingInitializeOnTheWire: with fault
// cancel-initialize-crossing the reference client cancels its initialize
// after the result came, without the session id the result gave (as
// mcp-go's client did before it had read the result). The sessionless
// cancellation is of that initialize, which it crossed.
func TestCancelCrossingInitializeOnTheWire(t *testing.T) {
	cancelOfInitialize(t, "cancel-initialize-crossing", "initialize")
}

// TestCancelOfRefusedInitializeOnTheWire: in a protected server's
// scenario the reference client cancels its first initialize, which the
// stage refuses with 401: with fault cancel-initialize while it is
// unanswered, with fault auth-cancel-refused-initialize once the 401 came.
// Neither POST carries a token, so both are refused and neither gets a
// session. The cancellation is still of that initialize.
func TestCancelOfRefusedInitializeOnTheWire(t *testing.T) {
	for _, fault := range []string{"cancel-initialize", "auth-cancel-refused-initialize"} {
		t.Run(fault, func(t *testing.T) {
			res := cancelOfInitialize(t, fault, scAuthDefault)
			for _, c := range res.cases {
				for _, e := range c.Events {
					if e.HTTP != nil && e.HTTP.Status == http.StatusUnauthorized {
						return
					}
				}
			}
			t.Error("no request was refused with 401: the scenario did not refuse the initialize, so this test shows nothing")
		})
	}
}
