package server

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

// The probes of the switches of faults_unprompted.go: a client that
// declares nothing completes the handshake and pings; what arrives before
// the answer to the ping was sent on the server's own initiative.
func init() {
	faultProbes[FaultUnpromptedClientRequest] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		_, before := f.call("ping", nil)
		return ffHasMethod(before, "sampling/createMessage") && ffHasMethod(before, "roots/list") && ffHasMethod(before, "elicitation/create")
	}
	faultProbes[FaultUnsubscribedResourceUpdated] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		_, before := f.call("ping", nil)
		return ffHasMethod(before, "notifications/resources/updated")
	}
	faultProbes[FaultUnpromptedProgress] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		_, before := f.call("ping", nil)
		return ffHasMethod(before, "notifications/progress")
	}
}

// TestUnpromptedRequestsSpareDeclaredCapabilities: under
// FaultUnpromptedClientRequest a client that declared sampling, roots and
// elicitation is asked nothing; the fault breaks only the sessions whose
// client did not declare.
func TestUnpromptedRequestsSpareDeclaredCapabilities(t *testing.T) {
	s := newTestServer(t, Options{Faults: []string{FaultUnpromptedClientRequest}})
	f := ffStart(t, s)
	f.init(spec.V20251125, map[string]any{"sampling": map[string]any{}, "roots": map[string]any{}, "elicitation": map[string]any{}})
	_, before := f.call("ping", nil)
	for _, m := range before {
		t.Errorf("a client that declared everything got %s", m.Raw)
	}
}
