package session

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The standalone GET stream of streamable HTTP, as a client opens it
// after initialization: where a server sends the requests and
// notifications that belong to no request of the client.

// listenWait bounds how long Listen waits for the answer to its GET: a
// server that sends the response head of its GET stream only with its
// first event is not waited for longer (the stream stays open).
const listenWait = 2 * time.Second

// Listen opens the standalone GET stream of an initialized streamable
// HTTP session whose client declared roots, sampling or elicitation, as
// real clients do after initialization (in every stateful version the
// session speaks over that transport, 2024-11-05 included: the transport,
// not the version, decides where a server's requests can go):
// a server may send its requests there (Playwright's MCP server asks for
// roots on it and holds its tool calls until they are answered), and
// they are answered on arrival like those on POST streams. It waits for
// the GET's response head (at most listenWait, within the session's
// Timeout) so that a request sent next finds the stream in place. The
// stream's frames arrive through Recv like any other; it is read within
// the connection's limits and closed with the connection (or by Detach).
//
// It returns the stream and the GET's status (0 when none came within
// the wait), or "" and 0 when the session opens none: another transport
// or version, a client that declared none of those capabilities, or a
// GET stream already open on the connection. A target that declines the
// stream (405, which the transport allows) leaves the session without
// one; that is no error.
func (s *Stateful) Listen(ctx context.Context) (stream string, status int) {
	h, ok := s.raw.(*wire.HTTP)
	v := s.Version()
	caps := s.cfg.Capabilities
	if !ok || v.Era() != spec.Stateful ||
		(caps.Roots == nil && caps.Sampling == nil && caps.Elicitation == nil) || h.GetStream() != "" {
		return "", 0
	}
	wctx, cancel := context.WithTimeout(ctx, min(listenWait, s.cfg.Timeout))
	defer cancel()
	st, status, _ := s.openStreamWait(wctx, h)
	return st, status
}

// OpenStreamWait opens the GET stream of a streamable HTTP session like
// OpenStream and waits (bounded by ctx) for the target's response head,
// so that a request sent next finds the stream in place; it returns the
// stream and the GET's status (405: the target offers none; 0 when no
// head came within ctx and the GET is still waiting). When the
// connection's GET stream is open already (Listen), it returns that one
// with status 200 and asks for no second. The stream it opens becomes
// the session's listener, as Listen's does: a response on it answers no
// request of the session (see core.onListener).
func (s *Stateful) OpenStreamWait(ctx context.Context) (string, int, error) {
	h, ok := s.raw.(*wire.HTTP)
	if !ok {
		return "", 0, fmt.Errorf("session: the GET stream exists only on streamable HTTP, not %s", s.raw.Transport())
	}
	if st := h.GetStream(); st != "" {
		return st, http.StatusOK, nil
	}
	return s.openStreamWait(ctx, h)
}

// openStreamWait opens the GET stream, waits for its head, and listens
// on it while the target holds it open.
func (s *Stateful) openStreamWait(ctx context.Context, h *wire.HTTP) (string, int, error) {
	st, status, err := h.OpenStreamWait(ctx)
	if st == "" || h.GetStream() != st {
		return "", status, err // declined, or no answer and the GET ended
	}
	s.listenOn(st)
	return st, status, err
}

// Listening is the stream Listen opened, "" when it opened none.
func (s *Stateful) Listening() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listening
}

// Detach removes the session from the connection (see core.Detach) and
// closes the GET stream it opened, whose requests it would no longer
// answer.
func (s *Stateful) Detach() {
	s.core.Detach()
	if st := s.Listening(); st != "" {
		if h, ok := s.raw.(*wire.HTTP); ok {
			h.CloseStream(st)
		}
	}
}
