package transport

import (
	"fmt"
	"net/http"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Streamable HTTP sessions (2025-03-26 through 2025-11-25): the shape of
// Mcp-Session-Id, 400 for a request without it, 404 once the session has
// ended. A server that assigns no session id makes these checks n/a.

// httpSessionID returns the session id the server assigned on c, or ends
// the check n/a.
func httpSessionID(t *server.T, c *server.Conn) (*wire.HTTP, string) {
	h := t.HTTP(c)
	if h == nil {
		return nil, ""
	}
	sid := h.SessionID()
	if sid == "" {
		t.NotApplicable("the server assigned no Mcp-Session-Id (sessions are optional)")
		return nil, ""
	}
	return h, sid
}

var _ = server.Register(
	server.Def{
		ID: "transport-http/session-id", Area: "transport-http", Transports: server.HTTPOnly, Eras: server.Stateful, Since: spec.V20250326,
		Title:        "Mcp-Session-Id is visible ASCII (0x21-0x7E) and differs between sessions",
		Requirements: []string{"transport-http.session.id-visible-ascii", "transport-http.session.id-unique-secure"},
		Proofs:       []server.Proof{{Fault: "session-id-not-ascii", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Session()
			_, sid := httpSessionID(t, c)
			if sid == "" {
				return
			}
			for i := 0; i < len(sid); i++ {
				if sid[i] < 0x21 || sid[i] > 0x7e {
					t.Violation("transport-http.session.id-visible-ascii", "a session id of visible ASCII characters only (0x21 to 0x7E)",
						fmt.Sprintf("Mcp-Session-Id %q has byte 0x%02x at offset %d", sid, sid[i], i))
					return
				}
			}
			f := t.Fresh()
			if _, err := f.Stateful.Open(t.Ctx); err != nil {
				t.Error(fmt.Errorf("a second session could not be opened: %v", err))
				return
			}
			other := f.Conn.HTTP().SessionID()
			t.Saw("two sessions got ids %q and %q", sid, other)
			if other == sid {
				t.Violation("transport-http.session.id-unique-secure", "each session gets its own id", fmt.Sprintf("two sessions both got Mcp-Session-Id %q", sid))
				return
			}
			t.Pass()
		},
	},
	server.Def{
		ID: "transport-http/session-missing-id-400", Area: "transport-http", Transports: server.HTTPOnly, Eras: server.Stateful, Since: spec.V20250326,
		Title:        "a server that uses sessions answers a request without Mcp-Session-Id with 400",
		Requirements: []string{"transport-http.session.missing-id-400"},
		Proofs:       []server.Proof{{Proxy: "status-404", Good: "plain", Version: spec.V20251125, Transport: "streamable", Want: reports.Warn}},
		Body: func(t *server.T) {
			c := t.Session()
			h, sid := httpSessionID(t, c)
			if sid == "" {
				return
			}
			// tools/list, not ping: a server may serve ping before
			// initialize. The rule binds servers that require a session;
			// one that serves the session-less request (or opens a new
			// session for it) does not require one.
			id := jsonrpc.StringID("mcpcheck-no-session")
			st := do(t, h, wire.Request{Omit: []string{wire.HeaderSessionID}}, id, spec.MethodToolsList, nil)
			obs := t.AnswerOn(c.S(), st, expect.HTTPStatus(st, http.StatusBadRequest), expect.WithStatus(expect.AnyResponse(id), http.StatusOK))
			if obs.OK() && obs.Alt == 1 && obs.Frame.Status() < 300 {
				// Answered at the JSON-RPC level, result or error (some
				// servers treat a session-less POST as a new, not yet
				// initialized session): the server did not refuse the
				// request for lack of the header, so the rule, which
				// binds servers that require it, is not engaged.
				t.NotApplicable("the server answered the request without Mcp-Session-Id at the JSON-RPC level (" + obs.Frame.Describe() + "), not as a transport refusal, so it does not require the header for it")
				return
			}
			t.Judge(obs)
		},
	},
	server.Def{
		ID: "transport-http/session-terminated-404", Area: "transport-http", Transports: server.HTTPOnly, Eras: server.Stateful, Since: spec.V20250326,
		Title:        "after DELETE ends a session (200/204; 405 refuses), a request with the old Mcp-Session-Id gets 404",
		Requirements: []string{"transport-http.session.terminated-404"},
		Proofs:       []server.Proof{{Fault: "terminated-session-served", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Fresh()
			if t.HTTP(c) == nil {
				return
			}
			if _, err := c.Stateful.Open(t.Ctx); err != nil {
				t.Error(fmt.Errorf("the session could not be opened: %v", err))
				return
			}
			h, sid := httpSessionID(t, c)
			if sid == "" {
				return
			}
			dst, err := c.Stateful.Terminate(t.Ctx)
			t.Must(err)
			d := waitFirst(t, c, dst)
			if !d.OK() {
				t.Judge(d)
				return
			}
			t.Saw("DELETE was answered %s", statusText(d.Frame))
			switch st := d.Frame.Status(); {
			case st == http.StatusMethodNotAllowed:
				t.Untestable("the server refuses client-initiated termination with 405 (allowed), so an ended session cannot be provoked")
				return
			case st < 200 || st > 299:
				t.Untestable(fmt.Sprintf("DELETE of the session was answered %d, so it is not known to have ended", st))
				return
			}
			id := jsonrpc.StringID("mcpcheck-after-delete")
			st := do(t, h, wire.Request{Header: http.Header{wire.HeaderSessionID: {sid}}}, id, spec.MethodPing, nil)
			t.Judge(t.AnswerOn(c.S(), st, expect.HTTPStatus(st, http.StatusNotFound)))
		},
	},
)
