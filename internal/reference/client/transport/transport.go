// Package transport carries JSON-RPC messages between the reference client
// and an MCP server: stdio (a child process), streamable HTTP (stateful,
// 2025-03-26 to 2025-11-25, and stateless, 2026-07-28), the legacy HTTP+SSE
// transport of 2024-11-05, and an automatic HTTP dialer that falls back from
// streamable HTTP to HTTP+SSE the way the specification describes.
//
// Every transport implements Conn. Messages are raw bytes: the transport
// neither trusts nor rewrites them beyond what framing requires, and every
// read from the server is bounded in size; waiting is bounded by the
// contexts the caller passes and by Close.
package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// DefaultMaxMessage is the largest single message a transport accepts from
// a server when its options give no limit: 16 MiB.
const DefaultMaxMessage = 16 << 20

// Conn is one connection to an MCP server.
//
// Concurrency contract: Send may be called from any number of goroutines at
// once. Recv must be called from one goroutine at a time (the client's
// reader loop). Close may be called at any time, from any goroutine, more
// than once; it makes blocked and later Send and Recv calls return.
type Conn interface {
	// Send delivers one JSON-RPC message to the server. ctx bounds the
	// delivery (for HTTP, until the response headers arrive). A nil error
	// means the server took the message; answers arrive through Recv.
	Send(ctx context.Context, msg []byte) error
	// Recv returns the next message from the server. It returns a
	// *DroppedError for input it had to discard and a *RequestError for a
	// request that can no longer be answered; both are not fatal and Recv
	// may be called again. Any other error (io.EOF when the server ended
	// the connection, ErrClosed after Close) is final.
	Recv(ctx context.Context) ([]byte, error)
	// Close ends the connection and releases its resources (processes,
	// streams, HTTP sessions).
	Close() error
}

// ProtocolVersionSetter is implemented by transports that carry the
// negotiated protocol version outside the messages (the HTTP transports put
// it in the MCP-Protocol-Version header). The client calls it after
// initialization.
type ProtocolVersionSetter interface {
	SetProtocolVersion(v string)
}

// ErrClosed is returned by Send and Recv after Close.
var ErrClosed = errors.New("transport: the connection is closed")

// ErrSessionExpired is returned by Send when an HTTP server answers 404 to a
// request that carried a session id: the session is gone and the client
// must initialize again (the transport has already forgotten the id).
var ErrSessionExpired = errors.New("transport: the server no longer knows the session (HTTP 404); initialize a new session")

// DroppedError reports input from the server that the transport discarded
// (a line that was too long, an SSE event that was not a message, a body
// that could not be read). Recv returns it so the client can say what the
// server did; the connection stays usable.
type DroppedError struct {
	// What says what was dropped and why.
	What string
}

func (e *DroppedError) Error() string { return "transport: dropped input from the server: " + e.What }

// RequestError reports that the request with ID cannot be answered any
// more, for example because the SSE stream carrying its response ended and
// could not be resumed. The client fails that request with Err.
type RequestError struct {
	ID  jsonrpc.ID
	Err error
}

func (e *RequestError) Error() string {
	return fmt.Sprintf("transport: request %s: %v", e.ID, e.Err)
}

func (e *RequestError) Unwrap() error { return e.Err }

// StatusError is an HTTP answer with a status the transport could not use.
type StatusError struct {
	// Method and URL say which request got the answer.
	Method, URL string
	// Code is the HTTP status code.
	Code int
	// Header is the response header (WWW-Authenticate and so on).
	Header http.Header
	// Body is the start of the response body (at most 4 KiB).
	Body []byte
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("transport: %s %s: the server answered HTTP %d %s", e.Method, e.URL, e.Code, http.StatusText(e.Code))
	if len(e.Body) > 0 {
		msg += fmt.Sprintf(" with body %q", truncate(e.Body, 200))
	}
	return msg
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// headersKey is the context key of WithHeaders.
type headersKey struct{}

// WithHeaders returns a context that makes the HTTP transports add h to the
// POST that carries the message sent with it (the 2026-07-28 Mcp-Param-*
// headers, for example). Other transports ignore it.
func WithHeaders(ctx context.Context, h http.Header) context.Context {
	return context.WithValue(ctx, headersKey{}, h)
}

func headersFrom(ctx context.Context) http.Header {
	h, _ := ctx.Value(headersKey{}).(http.Header)
	return h
}

// heldKey is the context key of WithHeldBody.
type heldKey struct{}

// HeldBody holds back the end of a POST's body, as a client that streams
// its body (chunked) may: Started is closed once the HTTP transport has
// taken all of the body but its last byte (its headers have gone out
// before), and the body ends only when Release is closed (or the send's
// context ends). A fault uses it to send a message on another connection
// while a request is visibly under way but not yet whole.
type HeldBody struct {
	Started, Release chan struct{}
}

// WithHeldBody returns a context that makes the streamable HTTP transport
// hold back the end of the body of the POST sent with it (see HeldBody).
// Other transports ignore it.
func WithHeldBody(ctx context.Context, h *HeldBody) context.Context {
	return context.WithValue(ctx, heldKey{}, h)
}

// heldReader is a body that stops before its last byte until released.
type heldReader struct {
	ctx  context.Context
	h    *HeldBody
	b    []byte
	once sync.Once
}

func (r *heldReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	if len(r.b) == 1 {
		r.once.Do(func() { close(r.h.Started) })
		select {
		case <-r.h.Release:
		case <-r.ctx.Done():
			return 0, r.ctx.Err()
		}
	}
	n := copy(p, r.b[:max(1, len(r.b)-1)])
	r.b = r.b[n:]
	return n, nil
}

// item is one entry of an inbox: a message or a non-fatal error.
type item struct {
	msg []byte
	err error
}

// inbox is the bounded queue between a transport's readers and Recv. Readers
// block when it is full, so a flooding server is slowed down, not buffered.
type inbox struct {
	ch       chan item
	done     chan struct{}
	failOnce sync.Once
	mu       sync.Mutex
	err      error // final error, set once
}

func newInbox(size int) *inbox {
	return &inbox{ch: make(chan item, size), done: make(chan struct{})}
}

// put queues it; it returns false when the inbox has failed or stop is done.
func (b *inbox) put(stop <-chan struct{}, it item) bool {
	select {
	case b.ch <- it:
		return true
	case <-b.done:
		return false
	case <-stop:
		return false
	}
}

// fail records the final error; later calls are ignored.
func (b *inbox) fail(err error) {
	b.failOnce.Do(func() {
		b.mu.Lock()
		b.err = err
		b.mu.Unlock()
		close(b.done)
	})
}

func (b *inbox) finalErr() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// recv returns queued items first, then the final error.
func (b *inbox) recv(ctx context.Context) ([]byte, error) {
	select {
	case it := <-b.ch:
		return it.msg, it.err
	default:
	}
	select {
	case it := <-b.ch:
		return it.msg, it.err
	case <-b.done:
		// Drain what arrived before the failure.
		select {
		case it := <-b.ch:
			return it.msg, it.err
		default:
		}
		return nil, b.finalErr()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readLimited reads at most max bytes of r and reports whether there was more.
func readLimited(r io.Reader, max int64) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if int64(len(b)) > max {
		return b[:max], true, err
	}
	return b, false, err
}
