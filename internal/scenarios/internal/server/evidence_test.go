package server

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
)

// assertEvidence (issue 27) holds a failing or warning check, as each
// proof (TestProofs) makes one fire, to the evidence reports show of it
// (reports.EvidenceOf): it holds what the target sent that the verdict is
// about, or the request no answer came to and the wait; and the request
// that provoked it whenever the check sent any. A passive check, which
// judges frames other checks provoked, shows those frames on their
// connections with what mcpcheck sent that provoked them
// (passiveEvidence); a check that judges the version's handshake or
// another check's tools listing cites it (T.cite); a plain HTTP probe is
// recorded like any exchange (recordPlainRequest). Every check that has
// a proof is held to this, none excepted.
func assertEvidence(t *testing.T, c reports.Check) {
	t.Helper()
	if c.Outcome != reports.Fail && c.Outcome != reports.Warn {
		return
	}
	ev := reports.EvidenceOf(c)
	var sent, received, provoked bool
	for _, e := range ev.Events {
		sent = sent || e.Direction == reports.Sent
		received = received || e.Direction == reports.Received && (e.Raw != "" || e.HTTP != nil && e.HTTP.Status != 0)
	}
	for _, e := range c.Transcript {
		provoked = provoked || e.Direction == reports.Sent
	}
	switch {
	case len(ev.Events) == 0:
		t.Errorf("%s: no evidence for the %s (transcript of %d events): %s", c.Key(), c.Outcome, len(c.Transcript), c.Actual)
	case !received && len(ev.Unanswered) == 0:
		t.Errorf("%s: the evidence holds neither what the target sent nor a request it did not answer: %+v", c.Key(), ev.Events)
	case provoked && !sent:
		t.Errorf("%s: the evidence lacks the request that provoked the verdict: %+v", c.Key(), ev.Events)
	}
}
