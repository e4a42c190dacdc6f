package server

import (
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestReplayedRequestIsNoReusedID: the TS SDK's streamable HTTP server,
// resumed with Last-Event-ID, replays a roots/list request it had sent on
// another stream, under the same SSE event ID; the interop run under load
// failed base.request.id-unique-in-session on it. The same event again is
// the same request, not a second one under a used id. The controls: the
// same id in a new event (or with no event ID), or the same event ID
// carrying another message, is judged as a reuse, and the same request
// on another connection (another session) is no reuse.
func TestReplayedRequestIsNoReusedID(t *testing.T) {
	const roots = `{"method":"roots/list","jsonrpc":"2.0","id":0}`
	frame := func(conn int, raw, eventID string) Observation {
		f := wire.Frame{Kind: wire.KindMessage, Raw: []byte(raw), Msg: jsonrpc.Decode([]byte(raw)), Stream: "get-3", InSSE: true}
		if eventID != "" {
			f.EventID, f.HasEventID = eventID, true
		}
		return Observation{Frame: f, Conn: conn}
	}
	v := spec.V20250618
	for _, c := range []struct {
		name  string
		obs   []Observation
		n     int
		reuse bool
	}{
		{"the same event replayed on a resumed stream", []Observation{frame(16, roots, "ev-1"), frame(16, roots, "ev-1")}, 1, false},
		{"the same request on two connections", []Observation{frame(1, roots, "ev-1"), frame(5, roots, "ev-1")}, 2, false},
		{"the id again in a new event", []Observation{frame(16, roots, "ev-1"), frame(16, roots, "ev-2")}, 2, true},
		{"the id again without event IDs", []Observation{frame(16, roots, ""), frame(16, roots, "")}, 2, true},
		{"another message under the same event ID", []Observation{frame(16, roots, "ev-1"), frame(16, `{"method":"ping","jsonrpc":"2.0","id":0}`, "ev-1")}, 2, true},
	} {
		n, breaches := serverRequestIDs(v, c.obs)
		reused := false
		for _, b := range breaches {
			reused = reused || strings.Contains(b.Requirement, "id-unique-in-session") || strings.Contains(b.Rule, "reuse")
		}
		if n != c.n || reused != c.reuse {
			t.Errorf("%s: %d requests judged, reuse found %v (%v); want %d and %v", c.name, n, reused, breaches, c.n, c.reuse)
		}
	}
}
