package conn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/spec"
)

// HTTPTarget is an HTTP endpoint, spoken to through the harness's raw HTTP
// connections (internal/harness/wire): streamable HTTP by default, the legacy
// HTTP+SSE transport of 2024-11-05 when Transport is wire.TransportSSE (see
// LegacySSETarget). Every Start is a new connection (and, for stateful
// versions, a new session after the handshake). Stream inputs are POSTed
// one line per request; HTTP mutators' requests are applied as described
// (HTTPRequest). A slow body or a lying Content-Length is written by hand
// on a TCP connection of its own (wire.HTTP.DoRaw); over https the body is
// trickled with chunked encoding and its length is always the true one.
type HTTPTarget struct {
	URL string
	// Header is added to every request (for example Authorization).
	Header http.Header
	Limits wire.Limits
	// Transport is "" or wire.TransportStreamable for streamable HTTP,
	// wire.TransportSSE for HTTP+SSE (URL is then the SSE endpoint).
	Transport wire.Transport
}

// Describe returns the URL.
func (h HTTPTarget) Describe() string { return h.URL }

// Start opens a connection; nothing is sent until the first input (an
// HTTP+SSE target opens its SSE stream and waits for the endpoint event).
func (h HTTPTarget) Start(ctx context.Context) (Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch h.Transport {
	case "", wire.TransportStreamable:
	case wire.TransportSSE:
		return h.startLegacy(ctx)
	default:
		return nil, fmt.Errorf("fuzz: %s: HTTPTarget.Transport %q is no HTTP transport; use %q or %q", h.URL, h.Transport, wire.TransportStreamable, wire.TransportSSE)
	}
	c, err := wire.NewHTTP(wire.HTTPOptions{URL: h.URL, Header: h.Header, Limits: h.Limits})
	if err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	return &HTTPConn{Client: c}, nil
}

// httpClient is what HTTPConn needs of the harness's HTTP connections
// (*wire.HTTP and *wire.LegacySSE).
type httpClient interface {
	Do(ctx context.Context, r wire.Request) (string, error)
	DoRaw(ctx context.Context, r wire.Request, o wire.RawOptions) (string, error)
	Recv(ctx context.Context) (wire.Frame, error)
	SessionID() string
	SetHeader(name, value string)
	Close() error
}

// HTTPConn adapts wire.HTTP (or wire.LegacySSE) to Conn. Send buffers
// bytes and POSTs each complete line; Recv turns response bodies (and, for
// HTTP+SSE, the events of the SSE stream) into frames.
type HTTPConn struct {
	Client httpClient
	// legacy is set for HTTP+SSE: answers arrive on the SSE stream, POSTs
	// are only acknowledged, and there is no session header to end.
	legacy  bool
	v       spec.Version
	pending []byte
	Last    string  // stream of the last request
	queue   []Frame // frames read while waiting for a response
	Dead    bool
	closed  bool
	Gets    int      // GET and subscriptions/listen streams opened
	Stray   []string // sessions the target opened for requests other than our handshake
	// raw holds the streams of hand-written requests (DoRaw) whose first
	// frame has not been seen: one that got no response at all is no sign
	// of a dead target (a lying Content-Length may leave the target
	// waiting for bytes that never come).
	RawStreams map[string]bool
}

// MaxStray bounds the stray sessions one connection collects before the
// session asks to be replaced (Close ends them).
const MaxStray = 8

// noteStray remembers a session id the target announced that is not the
// connection's own (an initialize sent without a session id, say), so that
// Close ends it too: a fuzzer must not fill the server's session table.
func (h *HTTPConn) noteStray(w *wire.Frame) {
	if h.legacy || w == nil || w.HTTP == nil {
		return
	}
	id := w.HTTP.Header.Get(wire.HeaderSessionID)
	if id == "" || id == h.Client.SessionID() {
		return
	}
	for _, s := range h.Stray {
		if s == id {
			return
		}
	}
	h.Stray = append(h.Stray, id)
}

// settle bounds how long a request waits for its response to start before
// the next request is sent, so that requests go out in order, as on stdio,
// when the target answers promptly. A target that holds a response back
// (a slow tool answered as plain JSON) does not hold up the campaign: the
// next request goes out, the liveness probe still decides whether the
// target is alive, and the late answer is judged when it comes (and
// credited to the input that asked).
const settle = 250 * time.Millisecond

// Negotiated is called by the session once the protocol version is
// settled: later POSTs carry MCP-Protocol-Version.
func (h *HTTPConn) Negotiated(v spec.Version) {
	h.v = v
	if v.Compare(spec.V20250618) >= 0 && !h.legacy { // HTTP+SSE has no such header
		h.Client.SetHeader(wire.HeaderProtocolVersion, string(v))
	}
}

func (h *HTTPConn) Send(b []byte) error {
	if h.Dead {
		return ErrClosed
	}
	h.pending = append(h.pending, b...)
	for {
		i := bytes.IndexByte(h.pending, '\n')
		if i < 0 {
			return nil
		}
		body := bytes.TrimSuffix(h.pending[:i], []byte{'\r'})
		h.pending = h.pending[i+1:]
		if len(bytes.TrimSpace(body)) == 0 {
			continue
		}
		if err := h.post(body); err != nil {
			return err
		}
	}
}

func (h *HTTPConn) post(body []byte) error {
	var extra http.Header
	if h.v.Era() == spec.Stateless {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
				URI  string `json:"uri"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &m) == nil && m.Method != "" {
			extra = http.Header{wire.HeaderMethod: {m.Method}}
			if n := m.Params.Name + m.Params.URI; n != "" {
				extra.Set(wire.HeaderName, n)
			}
		}
	}
	stream, err := h.Client.Do(context.Background(), wire.Request{Body: append([]byte(nil), body...), Header: extra})
	if err != nil {
		return fmt.Errorf("%w: %v", ErrClosed, err)
	}
	h.Last = stream
	if opensStream(body) {
		// subscriptions/listen answers with a stream that stays open,
		// maybe without a word for a long time: nothing to wait for,
		// as with a GET (and counted with them).
		h.Gets++
		return nil
	}
	h.await(stream)
	return nil
}

// opensStream reports whether body is a subscriptions/listen request.
func opensStream(body []byte) bool {
	if !bytes.Contains(body, []byte(spec.MethodSubscriptionsListen)) {
		return false
	}
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &m) == nil && m.Method == spec.MethodSubscriptionsListen
}

// await reads frames into the queue until the response to stream starts
// (or settle passes), so that the next request is not sent before the
// target has taken this one.
func (h *HTTPConn) await(stream string) { h.awaitWithin(stream, settle) }

func (h *HTTPConn) awaitWithin(stream string, d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		f, err := h.Client.Recv(ctx)
		if err != nil {
			if !errors.Is(err, context.DeadlineExceeded) {
				h.Dead = true
			}
			return
		}
		h.queue = append(h.queue, f2(f))
		if f.Stream == stream {
			return
		}
	}
}

func f2(f wire.Frame) Frame {
	return Frame{Data: f.Raw, At: f.Time, HTTPStatus: f.Status(), Stream: f.Stream, wire: &f}
}

func (h *HTTPConn) CloseSend() error {
	if len(bytes.TrimSpace(h.pending)) > 0 {
		body := h.pending
		h.pending = nil
		return h.post(body)
	}
	return nil
}

// DoHTTP applies one hostile request description.
func (h *HTTPConn) DoHTTP(q HTTPRequest) error {
	r := wire.Request{Method: q.Method, Body: q.Body, Omit: append([]string(nil), q.Omit...)}
	if len(q.Header) > 0 {
		r.Header = http.Header{}
		for _, kv := range q.Header {
			r.Header[http.CanonicalHeaderKey(kv[0])] = append(r.Header[http.CanonicalHeaderKey(kv[0])], kv[1])
		}
	}
	switch q.Session {
	case "none", "forged":
		r.Omit = append(r.Omit, wire.HeaderSessionID)
	case "expired":
		if h.legacy {
			// An HTTP+SSE session is named by the endpoint URL and ends
			// with the SSE stream, which this connection needs: the
			// request goes to the live session.
			break
		}
		// The session ends first: the request must not race the DELETE.
		stream, err := h.Client.Do(context.Background(), wire.Request{Method: http.MethodDelete})
		if err != nil {
			return fmt.Errorf("%w: %v", ErrClosed, err)
		}
		h.await(stream)
	}
	if r.Method == "" {
		r.Method = http.MethodPost
	}
	if r.Method == http.MethodPost && r.Body == nil {
		r.Body = []byte{}
	}
	var stream string
	var err error
	wait := settle
	if q.BodyChunk > 0 || q.DeclaredLength != 0 {
		o := rawOptions(q)
		stream, err = h.Client.DoRaw(context.Background(), r, o)
		if err == nil {
			if h.RawStreams == nil {
				h.RawStreams = map[string]bool{}
			}
			h.RawStreams[stream] = true
			// Wait for the trickle to end and the answer to start, so
			// that the probe does not overtake the slow request.
			wait += trickleTime(len(r.Body), o.Chunk, o.Delay)
		}
	} else {
		stream, err = h.Client.Do(context.Background(), r)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrClosed, err)
	}
	h.Last = stream
	if r.Method == http.MethodGet {
		// A GET opens a stream the server may keep open without a word
		// (an SSE stream with no event yet): nothing to wait for. The
		// streams stay open until the connection closes; the session
		// asks to be replaced after MaxGetStreams of them.
		h.Gets++
		return nil
	}
	h.awaitWithin(stream, wait)
	return nil
}

// Bounds of the hand-written requests of http/slow-body and
// http/lying-length.
const (
	// maxTrickle bounds how long a slow body takes to go out: a trickle
	// that would take longer is sent in bigger chunks.
	maxTrickle = time.Second
	// rawWait bounds the wait for the answer to a hand-written request,
	// after its body went out.
	rawWait = wire.DefaultRawTimeout
	// lieWait bounds the wait for the answer to a request that declared
	// more bytes than it sent. The write side of its connection is closed
	// after the body, so a careful target answers at once; one that keeps
	// waiting for the missing bytes is not hung (it is right to wait): it
	// gets no frame, and the liveness probe, on a connection of its own,
	// decides whether it is alive.
	lieWait = time.Second
)

// rawOptions turns a request's slow body and declared length into the
// harness's options, within the bounds above.
func rawOptions(q HTTPRequest) wire.RawOptions {
	o := wire.RawOptions{DeclaredLength: q.DeclaredLength, Timeout: rawWait}
	if q.BodyChunk > 0 && len(q.Body) > 0 {
		o.Chunk, o.Delay = q.BodyChunk, max(q.BodyDelay, 0)
		if o.Delay > 0 {
			// Every chunk goes out o.Delay after the write before it.
			if writes := maxTrickle / o.Delay; writes < 1 {
				o.Chunk, o.Delay = len(q.Body), maxTrickle
			} else if need := int64(len(q.Body)+o.Chunk-1) / int64(o.Chunk); need > int64(writes) {
				o.Chunk = (len(q.Body) + int(writes) - 1) / int(writes)
			}
		}
		o.Timeout += trickleTime(len(q.Body), o.Chunk, o.Delay)
	}
	if q.DeclaredLength > int64(len(q.Body)) {
		o.Timeout = lieWait + trickleTime(len(q.Body), o.Chunk, o.Delay)
	}
	return o
}

// trickleTime is how long a body of n bytes takes to go out chunk bytes at
// a time, each write delay after the one before.
func trickleTime(n, chunk int, delay time.Duration) time.Duration {
	if chunk <= 0 || n == 0 {
		return 0
	}
	return time.Duration((n+chunk-1)/chunk) * delay
}

// MaxGetStreams bounds the GET (and subscriptions/listen) streams one
// connection opens before the session asks to be replaced (each holds a
// TCP connection until Close).
const MaxGetStreams = 8

func (h *HTTPConn) Recv(deadline time.Time) (Frame, error) {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	for {
		var f Frame
		if len(h.queue) > 0 {
			f, h.queue = h.queue[0], h.queue[1:]
		} else {
			if h.Dead {
				return Frame{}, ErrClosed
			}
			wf, err := h.Client.Recv(ctx)
			switch {
			case errors.Is(err, context.DeadlineExceeded):
				return Frame{}, ErrDeadline
			case err != nil:
				h.Dead = true
				return Frame{}, ErrClosed
			}
			f = f2(wf)
		}
		w := f.wire
		f.wire = nil
		h.noteStray(w)
		quiet := h.RawStreams[f.Stream]
		if quiet {
			delete(h.RawStreams, f.Stream)
		}
		switch w.Kind {
		case wire.KindMessage, wire.KindGarbage:
			if w.Ack {
				continue // an HTTP+SSE POST acknowledged ("Accepted"): the answer comes on the stream
			}
			return f, nil
		case wire.KindTransportError:
			switch {
			case quiet:
				// A hand-written request that got no response in time.
			case f.Stream == h.Last || (h.legacy && f.Stream == wire.StreamSSE):
				// The newest request got no HTTP response at all, or
				// the HTTP+SSE stream broke: the server is gone.
				h.Dead = true
				return Frame{}, fmt.Errorf("%w: %v", ErrClosed, w.Err)
			}
		case wire.KindStatus:
			if w.Ack {
				continue
			}
			f.Data = nil
			return f, nil
		case wire.KindTooLong:
			f.Data, f.Problem = nil, fmt.Sprintf("a %d-byte body over the line limit was discarded", w.Size)
			return f, nil
		case wire.KindEnd:
			if h.legacy && f.Stream == wire.StreamSSE {
				// The HTTP+SSE stream carries every answer: once it
				// ended, the target can say nothing more.
				h.Dead = true
				return Frame{}, ErrClosed
			}
		}
		// Stream ends, endpoint and empty events carry no message.
	}
}

func (h *HTTPConn) Exit(time.Time) *ExitStatus { return nil }
func (h *HTTPConn) StderrTail() []byte         { return nil }

// closeWait bounds the DELETE that ends a session on Close.
const closeWait = 2 * time.Second

// Close ends the session with DELETE, as a client that no longer needs it
// should (a fuzzer that left its sessions open would fill the server's
// session table), then closes the connection. An HTTP+SSE session ends
// with its SSE stream, which closing the connection closes.
func (h *HTTPConn) Close() error {
	if h.closed {
		return nil
	}
	h.closed = true
	for _, f := range h.queue {
		h.noteStray(f.wire)
	}
	if !h.Dead && !h.legacy {
		for _, id := range h.Stray {
			ctx, cancel := context.WithTimeout(context.Background(), closeWait)
			if stream, err := h.Client.Do(ctx, wire.Request{Method: http.MethodDelete, Header: http.Header{wire.HeaderSessionID: {id}}}); err == nil {
				h.awaitWithin(stream, closeWait)
			}
			cancel()
		}
	}
	if !h.Dead && !h.legacy && h.Client.SessionID() != "" {
		ctx, cancel := context.WithTimeout(context.Background(), closeWait)
		if stream, err := h.Client.Do(ctx, wire.Request{Method: http.MethodDelete}); err == nil {
			h.awaitWithin(stream, closeWait)
		}
		cancel()
	}
	return h.Client.Close()
}

// HTTPRequest describes one hostile HTTP request for a streamable HTTP (or
// legacy SSE) target. It is a description: the runner applies it to the
// endpoint, adding what the description leaves to it (the negotiated
// session id, the protocol version header) unless told not to.
type HTTPRequest struct {
	// Method is the HTTP method ("POST", "GET", "DELETE", "PUT" ...).
	Method string `json:"method"`
	// Header lists header fields in order; the same name may appear more
	// than once (duplicated headers). Values are sent byte for byte.
	Header [][2]string `json:"header,omitempty"`
	// Omit names headers the runner would normally add and must leave out
	// (Accept, Content-Type, Mcp-Session-Id, MCP-Protocol-Version ...).
	Omit []string `json:"omit,omitempty"`
	// Session says which session id to send: "" the live one, "none" no
	// header, "forged" a made-up one (in Header), "expired" one the runner
	// has ended with DELETE first.
	Session string `json:"session,omitempty"`
	// Body is the request body.
	Body []byte `json:"body,omitempty"`
	// BodyChunk and BodyDelay trickle the body: BodyChunk bytes at a time
	// with BodyDelay between writes (a slow body). Zero sends it at once.
	BodyChunk int           `json:"bodyChunk,omitempty"`
	BodyDelay time.Duration `json:"bodyDelayNs,omitempty"`
	// DeclaredLength, when non-zero, is sent as Content-Length instead of
	// the body's real length.
	DeclaredLength int64 `json:"declaredLength,omitempty"`
}

// Detect probes h's URL once (target.Detect, bounded by to.Start for the
// whole probe and to.Step for each request) and returns h speaking the
// transport found there, Streamable HTTP or HTTP+SSE, with the evidence
// for it.
func (h HTTPTarget) Detect(ctx context.Context, to target.Timeouts) (HTTPTarget, []string, error) {
	to = to.WithDefaults()
	dctx, cancel := context.WithTimeout(ctx, to.Start)
	defer cancel()
	d, err := target.Detect(dctx, wire.HTTPOptions{URL: h.URL, Header: h.Header}, to.Step)
	if err != nil {
		return h, nil, err
	}
	h.Transport = wire.TransportStreamable
	if d.Transport == target.SSE {
		h.Transport = wire.TransportSSE
	}
	return h, d.Evidence, nil
}
