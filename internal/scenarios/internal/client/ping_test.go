package client

import (
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestServerRequestsBatchComesLast: in 2025-03-26 the stage's batch of two
// pings follows every other request and notification of
// mcpcheck-server-requests (only one more ping comes after it). go-sdk
// v1.8.0 drops the connection on a batch; when the batch came first, its
// ping, cancellation and roots checks ended untestable ("every ping came
// after the client left its batch unanswered"). The reference client with
// batch-ignored still fails client/base/batch-answered, and its pings and
// roots are judged.
func TestServerRequestsBatchComesLast(t *testing.T) {
	res := runSuite(t, Config{Launch: referenceLaunch(t, Stdio, "batch-ignored"), Verbose: true, Versions: []spec.Version{spec.V20250326},
		Only: []string{"client/base/batch-answered", "client/ping/answers"}})
	if len(res.Report.Checks) != 2 {
		t.Fatalf("%d checks ran, want 2", len(res.Report.Checks))
	}
	for _, c := range res.Report.Checks {
		want := reports.Pass
		if c.ID == "client/base/batch-answered" {
			want = reports.Fail
		}
		if c.Outcome != want {
			t.Errorf("%s, want %s", describe(c), want)
		}
		if c.ID != "client/base/batch-answered" {
			continue
		}
		// The stage's messages in order: every request and notification
		// but the last ping before the batch.
		var sent []string
		for _, e := range c.Transcript {
			if e.Direction != reports.Sent || e.Raw == "" {
				continue
			}
			switch raw := e.Raw; {
			case strings.HasPrefix(raw, "["):
				sent = append(sent, "batch")
			case strings.Contains(raw, `"method":"ping"`):
				sent = append(sent, "ping")
			case strings.Contains(raw, `"method":"roots/list"`):
				sent = append(sent, "roots/list")
			case strings.Contains(raw, `"method":"notifications/cancelled"`):
				sent = append(sent, "cancelled")
			}
		}
		got := strings.Join(sent, " ")
		if !strings.HasSuffix(got, "batch ping") || strings.Count(got, "batch") != 1 || !strings.Contains(got, "roots/list") || !strings.Contains(got, "cancelled") {
			t.Errorf("the stage sent, in order: %s; want every request and notification before the one batch, one ping after it", got)
		}
	}
}
