package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/harness/expect"
	"github.com/mcpcheck/mcpcheck/harness/wire"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
)

// Helpers of the HTTP transport areas (streamable HTTP, HTTP+SSE, the
// 2026-07-28 headers, authorization): raw requests, the first frame of an
// exchange, the transport gate (the era gates, stateful and stateless,
// are lifecycle.go's).

var transportHTTPOnly = []wire.Transport{wire.TransportStreamable}

// transportHTTP returns the streamable HTTP wire of c, or ends the check
// n/a when the target is not reached over streamable HTTP.
func (t *T) transportHTTP(c *Conn) *wire.HTTP {
	h := c.Conn.HTTP()
	if h == nil {
		t.NotApplicable("the check is about the streamable HTTP transport; the target is reached over " + string(t.Transport()))
	}
	return h
}

// transportFirst accepts the first frame of the HTTP exchange stream,
// whatever it is, and hands it to judge for the verdict.
func transportFirst(stream, desc string, judge func(wire.Frame) (expect.Verdict, string)) expect.Alt {
	return expect.Matching(desc, func(f wire.Frame) (expect.Verdict, string) {
		if f.Stream != stream {
			return expect.Unrelated, ""
		}
		return judge(f)
	})
}

// transportWaitFirst waits for the first frame of stream.
func (t *T) transportWaitFirst(c *Conn, stream string) expect.Observed {
	return c.S().WaitFor(t.Ctx, expect.Options{Timeout: t.StepTimeout()}, transportFirst(stream, "the HTTP answer to the request", func(wire.Frame) (expect.Verdict, string) {
		return expect.Accepted, ""
	}))
}

// EncodeRequest encodes a JSON-RPC request.
func (t *T) EncodeRequest(id jsonrpc.ID, method string, params any) []byte {
	b, err := jsonrpc.NewRequest(id, method, params)
	t.Must(err)
	return b
}

// transportDo sends a request of method (id, params) over h as req, whose
// Body it sets, and returns the stream its answer will come on.
func (t *T) transportDo(h *wire.HTTP, req wire.Request, id jsonrpc.ID, method string, params any) string {
	req.Body = t.EncodeRequest(id, method, params)
	st, err := h.Do(t.Ctx, req)
	t.Must(err)
	return st
}

// transportStatelessParams returns params with the session's _meta merged
// in and the headers a 2026-07-28 request needs.
func (t *T) transportStatelessParams(c *Conn, method string, params any) (json.RawMessage, http.Header) {
	p, err := c.Stateless.Params(params)
	t.Must(err)
	h, err := c.Stateless.Headers(method, p)
	t.Must(err)
	return p, h
}

// transportContentType is the media type of a frame's HTTP response.
func transportContentType(f wire.Frame) string {
	if f.HTTP == nil {
		return ""
	}
	ct := f.HTTP.Header.Get("Content-Type")
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

// transportLoopback reports whether the target URL names a loopback host:
// for such a server a foreign Origin or Host is a DNS-rebinding attempt by
// any reasonable policy.
func (t *T) transportLoopback() bool {
	u, err := url.Parse(t.vr.r.target.URL)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// transportStatusText renders a frame's status for Actual texts.
func transportStatusText(f wire.Frame) string {
	if f.HTTP == nil {
		return f.Describe()
	}
	return fmt.Sprintf("HTTP %d (%s): %s", f.Status(), transportContentType(f), f.Describe())
}

// transportForeignOrigin is an Origin no local server may accept.
const transportForeignOrigin = "http://mcpcheck-rebinding.invalid"

// plainClient sends the requests checks make outside a wire connection:
// the client the connections use (no redirects followed, response headers
// bounded), shared so that its idle connections are reused.
var plainClient = wire.NewClient(wire.Limits{})

// PlainDo sends one request to u on a plain HTTP client that
// follows no redirects, within the step timeout, with the target's
// configured headers (Authorization left out unless auth is set), then
// hdr, and hands the response to read before its body is closed.
func (t *T) PlainDo(method, u string, body []byte, hdr http.Header, auth bool, read func(*http.Response)) error {
	ctx, cancel := context.WithTimeout(t.Ctx, t.StepTimeout())
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	base, err := t.vr.r.target.HTTPHeader()
	if err != nil {
		return err
	}
	for k, v := range base {
		if auth || !strings.EqualFold(k, "Authorization") {
			req.Header[k] = v
		}
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	t.recordPlainRequest(req, body)
	resp, err := plainClient.Do(req)
	if err != nil {
		err = wire.HeaderError(err, plainClient)
		t.recordPlainResponse(req, nil, nil, err)
		return err
	}
	defer resp.Body.Close()
	kept := &prefixBuffer{max: plainKeptBytes}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(resp.Body, kept), resp.Body}
	read(resp)
	t.recordPlainResponse(req, resp, kept.b, nil)
	return nil
}

// plainStream names, in transcripts, the exchanges a check makes on the
// plain HTTP client, outside any session.
const plainStream = "plain"

// plainKeptBytes bounds what a transcript keeps of a plain HTTP answer's
// body (what the check read of it).
const plainKeptBytes = 4 << 10

// recordPlainRequest puts a request a check sends outside a wire
// connection (PlainDo, headersPlainPost) in its transcript, so
// that its report shows the exchange its verdict rests on.
func (t *T) recordPlainRequest(req *http.Request, body []byte) {
	t.rec.SentOn(0, wire.Outgoing{Raw: body, Stream: plainStream, Time: time.Now(),
		HTTP: &wire.HTTPInfo{Method: req.Method, URL: req.URL.String(), Header: req.Header.Clone()}})
}

// recordPlainResponse puts the answer to a plain request in the
// transcript: its status and headers and the start of what the check
// read of its body, or the error that left it without one.
func (t *T) recordPlainResponse(req *http.Request, resp *http.Response, body []byte, err error) {
	f := wire.Frame{Stream: plainStream, Time: time.Now()}
	switch {
	case resp == nil:
		f.Kind, f.Err = wire.KindTransportError, err
	case len(body) == 0:
		f.Kind = wire.KindStatus
	default:
		f.Kind, f.Raw = wire.KindMessage, body
	}
	if resp != nil {
		f.HTTP = &wire.HTTPInfo{Method: req.Method, URL: req.URL.String(), Status: resp.StatusCode, Header: resp.Header.Clone()}
	}
	t.rec.ReceivedOn(0, f)
}

// prefixBuffer keeps the first max bytes written to it.
type prefixBuffer struct {
	b   []byte
	max int
}

func (p *prefixBuffer) Write(b []byte) (int, error) {
	if n := p.max - len(p.b); n > 0 {
		p.b = append(p.b, b[:min(n, len(b))]...)
	}
	return len(b), nil
}

// transportPlainHead sends one request to the MCP endpoint with a plain
// HTTP client (the target's configured headers, then hdr) and returns the
// status and headers as soon as they arrive, closing the body: for a GET
// stream that opens without sending an event, which the wire connection
// only reports once an event comes.
func (t *T) transportPlainHead(method string, hdr http.Header) (status int, header http.Header, err error) {
	err = t.PlainDo(method, t.vr.r.target.URL, nil, hdr, true, func(resp *http.Response) {
		status, header = resp.StatusCode, resp.Header
	})
	return status, header, err
}

// transportGetStream opens the GET stream of c's streamable HTTP session
// (2025-03-26 through 2025-11-25) and waits until the target has answered
// it, for checks that need the server's requests and notifications: a
// server that answers POSTs with plain JSON can send them nowhere else.
// Elsewhere, or when the target offers no GET stream, it does nothing.
// The session is tainted: it now holds the session's one GET stream.
func (t *T) transportGetStream(c *Conn) {
	h := c.Conn.HTTP()
	if h == nil || t.Version().Era() != spec.Stateful {
		return
	}
	t.Taint()
	if st := h.GetStream(); st != "" {
		// The session opened it after initialization (Stateful.Listen);
		// a server may allow only one.
		t.Note("the session's GET stream %s is open for the server's requests and notifications", st)
		return
	}
	ctx, cancel := context.WithTimeout(t.Ctx, t.StepTimeout())
	defer cancel()
	// Through the session, which then listens on it as on the stream
	// Listen opens: a copy of a response there answers none of its waits.
	st, status, err := c.Stateful.OpenStreamWait(ctx)
	switch {
	case err != nil:
		t.Note("no GET stream: %v", err)
	case status != http.StatusOK:
		t.Note("the GET stream request was answered %d; server messages can only come on POST streams", status)
	default:
		t.Note("opened the GET stream %s for the server's requests and notifications", st)
	}
}
