package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// AutoHTTP starts as streamable HTTP and falls back to the 2024-11-05
// HTTP+SSE transport when the server refuses the POST of initialize with
// HTTP 400, 404 or 405, as the specification's backwards-compatibility
// section describes: it then opens the SSE stream with GET, waits for the
// endpoint event and sends initialize there.
//
// Concurrency: as Conn.
type AutoHTTP struct {
	o  HTTPOptions
	in *inbox
	s  *StreamableHTTP

	mu     sync.Mutex
	legacy *LegacySSE
	done   bool // the choice is made
}

// NewAutoHTTP returns the transport; nothing is sent until Send.
func NewAutoHTTP(o HTTPOptions) (*AutoHTTP, error) {
	in := newInbox(64)
	s, err := newStreamable(o, in)
	if err != nil {
		return nil, err
	}
	return &AutoHTTP{o: o, in: in, s: s}, nil
}

// Legacy reports whether the transport fell back to HTTP+SSE.
func (a *AutoHTTP) Legacy() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.legacy != nil
}

// Streamable returns the streamable HTTP transport underneath (for
// SetStateless and SessionID).
func (a *AutoHTTP) Streamable() *StreamableHTTP { return a.s }

// SetProtocolVersion passes v to the streamable transport.
func (a *AutoHTTP) SetProtocolVersion(v string) { a.s.SetProtocolVersion(v) }

// Send sends msg, deciding the transport on the first initialize.
func (a *AutoHTTP) Send(ctx context.Context, msg []byte) error {
	a.mu.Lock()
	legacy, done := a.legacy, a.done
	a.mu.Unlock()
	if legacy != nil {
		return legacy.Send(ctx, msg)
	}
	if done {
		return a.s.Send(ctx, msg)
	}
	m := jsonrpc.Decode(msg)
	if m.Method != spec.MethodInitialize {
		return a.s.Send(ctx, msg)
	}
	err := a.s.send(ctx, msg, true)
	var se *StatusError
	if err == nil || !errors.As(err, &se) {
		if err == nil {
			a.mu.Lock()
			a.done = true
			a.mu.Unlock()
		}
		return err
	}
	switch se.Code {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
	default:
		return err
	}
	a.o.logf("POST initialize got HTTP %d; trying the 2024-11-05 HTTP+SSE transport (GET %s)", se.Code, a.o.URL)
	l, lerr := dialLegacy(ctx, a.o, a.in)
	if lerr != nil {
		return fmt.Errorf("transport: %s is neither streamable HTTP (POST initialize got HTTP %d) nor HTTP+SSE (%v)", a.o.URL, se.Code, lerr)
	}
	a.mu.Lock()
	a.legacy, a.done = l, true
	a.mu.Unlock()
	return l.Send(ctx, msg)
}

// Recv returns the next message of whichever transport is in use.
func (a *AutoHTTP) Recv(ctx context.Context) ([]byte, error) { return a.in.recv(ctx) }

// Close closes the transport in use.
func (a *AutoHTTP) Close() error {
	a.mu.Lock()
	legacy := a.legacy
	a.mu.Unlock()
	if legacy != nil {
		legacy.Close()
	}
	return a.s.Close()
}

// SetStateless passes b to the streamable transport.
func (a *AutoHTTP) SetStateless(b bool) { a.s.SetStateless(b) }
