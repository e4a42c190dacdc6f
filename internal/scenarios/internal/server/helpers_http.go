package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// HTTP helpers the areas share (the transport areas, authorization, the
// 2026-07-28 base checks, the checks that need the GET stream): raw
// requests on a plain HTTP client, recorded in the check's transcript, a
// session's HTTP wire and 2026-07-28 params and headers, the transport
// gate (the era gates, stateful and stateless, are lifecycle.go's). The
// helpers only the transport areas use are in package transport.

var HTTPOnly = []wire.Transport{wire.TransportStreamable}

// HTTP returns the streamable HTTP wire of c, or ends the check
// n/a when the target is not reached over streamable HTTP.
func (t *T) HTTP(c *Conn) *wire.HTTP {
	h := c.Conn.HTTP()
	if h == nil {
		t.NotApplicable("the check is about the streamable HTTP transport; the target is reached over " + string(t.Transport()))
	}
	return h
}

// EncodeRequest encodes a JSON-RPC request.
func (t *T) EncodeRequest(id jsonrpc.ID, method string, params any) []byte {
	b, err := jsonrpc.NewRequest(id, method, params)
	t.Must(err)
	return b
}

// StatelessParams returns params with the session's _meta merged
// in and the headers a 2026-07-28 request needs.
func (t *T) StatelessParams(c *Conn, method string, params any) (json.RawMessage, http.Header) {
	p, err := c.Stateless.Params(params)
	t.Must(err)
	h, err := c.Stateless.Headers(method, p)
	t.Must(err)
	return p, h
}

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
	base, err := t.Target().HTTPHeader()
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
	return t.PlainSend(req, body, read)
}

// PlainSend sends req, whose body is body, on the plain HTTP client and
// hands the response to read before its body is closed; the exchange
// goes in the check's transcript (what read read of the body, bounded).
func (t *T) PlainSend(req *http.Request, body []byte, read func(*http.Response)) error {
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
// connection (PlainSend) in its transcript, so
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
