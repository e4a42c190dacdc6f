package server

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Ping (2024-11-05..2025-11-25; removed in 2026-07-28).

// emptyResult accepts a result that is {} (a _meta member is tolerated).
func emptyResult(raw json.RawMessage) error {
	if ok, why := emptyObject(raw); !ok {
		return fmt.Errorf("%s, not an empty object", why)
	}
	return nil
}

var _ = Register(
	Def{
		ID: "ping/empty-result", Area: "ping",
		Title:        "ping is answered promptly with an empty result",
		Requirements: []string{"ping.response.prompt-empty-result"},
		Proofs: []Proof{
			{Fault: "ping-nonempty-result", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "ping-nonempty-result", Version: spec.V20241105, Transport: "sse", Want: reports.Fail},
		},
		Body: func(t *T) {
			c := t.Session()
			s := c.Stateful
			id, st, err := s.Request(t.Ctx, spec.MethodPing, nil)
			t.Must(err)
			t.Judge(t.AnswerOn(s, st, expect.Result(id, "an empty object {}", emptyResult)))
		},
	},
	Def{
		ID: "ping/before-initialize", Area: "ping", Eras: Stateful, Unsupported: true,
		Title:        "ping before initialize is answered with an empty result (pings are allowed then)",
		Requirements: []string{"ping.response.prompt-empty-result"},
		Proofs:       []Proof{{Fault: "ping-nonempty-result", Version: spec.V20241105, Transport: "sse", Want: reports.Fail}},
		Body: func(t *T) {
			// Over streamable HTTP a server that uses sessions refuses a
			// request without Mcp-Session-Id (other than initialize) with
			// 400 (transport-http.session.missing-id-400): a ping before
			// initialize has no session to belong to there, so that 400
			// leaves the rule untested. A server without sessions must
			// still answer it.
			// The pooled session is borrowed over stdio too: a target
			// whose handshake fails ends the check at once (its
			// precondition), where a fresh connection would wait out the
			// start-up allowance for a ping answered with the wrong id.
			sessions := false
			if h := t.Session().Conn.HTTP(); h != nil && t.Transport() == "streamable" {
				sessions = h.SessionID() != ""
			}
			c := t.Fresh()
			s := c.Stateful
			id, st, err := s.Request(t.Ctx, spec.MethodPing, nil)
			t.Must(err)
			alts := []expect.Alt{expect.Result(id, "an empty object {}", emptyResult)}
			if sessions {
				// 400 is what the transport asks for; another 4xx breaks
				// that SHOULD (transport-http/session-missing-id-400 judges it), not
				// the ping rule.
				alts = append(alts, expect.HTTPStatus(st, http.StatusBadRequest, http.StatusNotFound, http.StatusUnauthorized, http.StatusForbidden, http.StatusMethodNotAllowed, http.StatusNotAcceptable, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity))
			}
			obs := t.AnswerOn(s, st, alts...)
			if obs.OK() && obs.Alt == 1 {
				t.NotApplicable("the server uses HTTP sessions and refused the session-less ping with an HTTP error status, as the streamable HTTP transport lets it; a ping before initialize cannot be sent inside a session")
				return
			}
			t.Judge(obs)
		},
	},
)
