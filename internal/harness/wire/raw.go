package wire

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// RawOptions says how DoRaw writes a request's body, which net/http's
// client cannot do: slowly, or under a Content-Length that is not the
// body's.
type RawOptions struct {
	// Chunk and Delay trickle the body: it is written Chunk bytes at a time,
	// each write Delay after the one before (the request head included). A
	// zero Chunk writes the body at once.
	Chunk int
	Delay time.Duration
	// DeclaredLength, when non-zero, is sent as Content-Length instead of
	// the body's real length. When it is longer than the body, the write
	// side of the connection is closed after the body, so that the target
	// sees the body end early rather than waiting for bytes that never
	// come.
	DeclaredLength int64
	// Timeout bounds the whole exchange, over https too: dialing, writing,
	// and reading the response to its end (default DefaultRawTimeout). A
	// request that got no response head in time ends with a
	// KindTransportError frame.
	Timeout time.Duration
}

// DefaultRawTimeout bounds a DoRaw exchange when RawOptions.Timeout is
// zero.
const DefaultRawTimeout = 10 * time.Second

// maxRawHead bounds the response head DoRaw reads (status line and
// headers).
const maxRawHead = 1 << 20

// maxInformational bounds the 1xx responses DoRaw skips before the final
// one.
const maxInformational = 8

// DoRaw sends r like Do, with the same default headers (the session ID,
// headers set with SetHeader, Accept and Content-Type for a POST), writing
// its body as o says. For an http:// endpoint the request is written by
// hand on a TCP connection of its own (no proxy, Connection: close), so
// the body can be trickled and its Content-Length can lie; the response
// arrives as frames tagged with the returned stream ID, as Do's do. An
// https:// endpoint gets the request through the connection's client: a
// trickled body then goes out with chunked transfer encoding, and the
// declared length is ignored (the client only sends true lengths; a raw
// TLS writer is not worth its weight for one mutator).
func (c *HTTP) DoRaw(ctx context.Context, r Request, o RawOptions) (string, error) {
	b, err := c.prepare(ctx, r)
	if err != nil {
		return "", err
	}
	return c.startRaw(b, r.Body, o)
}

// DoRaw is HTTP.DoRaw for the HTTP+SSE transport: an empty r.URL means the
// endpoint from the endpoint event, and the answer to a message arrives on
// the SSE stream as usual.
func (c *LegacySSE) DoRaw(ctx context.Context, r Request, o RawOptions) (string, error) {
	b, err := c.prepare(ctx, r)
	if err != nil {
		return "", err
	}
	return c.startRaw(b, r.Body, o)
}

// startRaw sends a built request as o says, in a goroutine whose frames go
// to the queue.
func (c *httpCore) startRaw(b built, body []byte, o RawOptions) (string, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultRawTimeout
	}
	if b.req.URL.Scheme != "http" {
		cancel := b.cancel
		timer := time.AfterFunc(o.Timeout, cancel)
		b.cancel = func() { timer.Stop(); cancel() }
		if o.Chunk > 0 && len(body) > 0 {
			// Unknown length: net/http sends it chunked and flushes each
			// chunk, so the trickle reaches the target as written.
			b.req.Body = io.NopCloser(&trickle{ctx: b.req.Context(), b: body, chunk: o.Chunk, delay: o.Delay})
			b.req.ContentLength = -1
			b.req.GetBody = nil
		}
		return c.start(b, body)
	}
	declared := int64(len(body))
	if o.DeclaredLength != 0 {
		declared = o.DeclaredLength
	}
	hdr := b.req.Header.Clone()
	hdr.Set("Host", rawHost(b.req))
	hdr.Set("Content-Length", strconv.FormatInt(declared, 10))
	hdr.Set("Connection", "close")
	c.taps.sent(Outgoing{Raw: bytes.Clone(body), Stream: b.stream, HTTP: &HTTPInfo{Method: b.req.Method, URL: b.req.URL.String(), Header: hdr}, Time: time.Now()})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer c.forget(b.stream)
		defer b.cancel()
		c.rawExchange(b, body, declared, o)
	}()
	return b.stream, nil
}

func rawHost(req *http.Request) string {
	if req.Host != "" {
		return req.Host
	}
	return req.URL.Host
}

// rawExchange writes the request by hand and reads the response.
func (c *httpCore) rawExchange(b built, body []byte, declared int64, o RawOptions) {
	ctx := b.req.Context()
	deadline := time.Now().Add(o.Timeout)
	fail := func(err error) {
		if c.ctx.Err() != nil {
			return // closed
		}
		if ctx.Err() != nil {
			err = errors.New("the stream was closed by mcpcheck before a response arrived")
		}
		if b.onHead != nil {
			b.onHead(nil)
		}
		c.emit(Frame{Kind: KindTransportError, Stream: b.stream, Err: fmt.Errorf("%s %s (Content-Length %d, body %d bytes): %w", b.req.Method, b.req.URL, declared, len(body), err)})
	}
	addr := b.req.URL.Host
	if b.req.URL.Port() == "" {
		addr = net.JoinHostPort(b.req.URL.Hostname(), "80")
	}
	d := net.Dialer{Deadline: deadline}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		fail(err)
		return
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()
	_ = conn.SetDeadline(deadline)

	var head bytes.Buffer
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\n", b.req.Method, b.req.URL.RequestURI(), rawHost(b.req))
	// Header.Write turns CR and LF in values into spaces and skips invalid
	// names: a header cannot smuggle in another.
	_ = b.req.Header.WriteSubset(&head, map[string]bool{"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Connection": true})
	fmt.Fprintf(&head, "Content-Length: %d\r\nConnection: close\r\n\r\n", declared)
	werr := c.writeRaw(ctx, conn, head.Bytes(), body, o)
	if werr == nil && declared > int64(len(body)) {
		if cw, ok := conn.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
	}
	// Even when a write failed the target may have answered (a 413 before
	// the body was read): read what it said.
	hl := &headLimit{r: conn, n: maxRawHead}
	br := bufio.NewReader(hl)
	var resp *http.Response
	for i := 0; ; i++ {
		resp, err = http.ReadResponse(br, b.req)
		if err != nil {
			if werr != nil {
				err = fmt.Errorf("%w (writing the request failed first: %v)", err, werr)
			}
			fail(err)
			return
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols || i == maxInformational {
			break
		}
		resp.Body.Close() // a 1xx has no body: the final response follows
	}
	hl.body = true // the head is read: the body is bounded by its readers
	defer resp.Body.Close()
	c.response(b, resp)
}

// writeRaw writes the head and the body, trickled as o says.
func (c *httpCore) writeRaw(ctx context.Context, conn net.Conn, head, body []byte, o RawOptions) error {
	if o.Chunk <= 0 || len(body) == 0 {
		_, err := conn.Write(append(head, body...))
		return err
	}
	if _, err := conn.Write(head); err != nil {
		return err
	}
	for len(body) > 0 {
		if err := sleepCtx(ctx, o.Delay); err != nil {
			return err
		}
		n := min(o.Chunk, len(body))
		if _, err := conn.Write(body[:n]); err != nil {
			return err
		}
		body = body[n:]
	}
	return nil
}

// headLimit fails a read once more than n bytes were read before body is
// set: it bounds the response head, which http.ReadResponse reads without
// a limit. The body is bounded by readBody and the SSE reader.
type headLimit struct {
	r    io.Reader
	n    int
	body bool
}

func (h *headLimit) Read(p []byte) (int, error) {
	if h.body {
		return h.r.Read(p)
	}
	if h.n <= 0 {
		return 0, fmt.Errorf("the response head is longer than %d bytes", maxRawHead)
	}
	if len(p) > h.n {
		p = p[:h.n]
	}
	n, err := h.r.Read(p)
	h.n -= n
	return n, err
}

// trickle reads b chunk bytes at a time, each read after delay.
type trickle struct {
	ctx   context.Context
	b     []byte
	chunk int
	delay time.Duration
}

func (t *trickle) Read(p []byte) (int, error) {
	if len(t.b) == 0 {
		return 0, io.EOF
	}
	if err := sleepCtx(t.ctx, t.delay); err != nil {
		return 0, err
	}
	n := copy(p[:min(len(p), t.chunk)], t.b)
	t.b = t.b[n:]
	return n, nil
}

// sleepCtx waits d, or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
