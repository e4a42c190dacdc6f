// Package transport holds the server suite's checks of the transport
// areas (transport-http: streamable HTTP, its sessions, SSE streams and
// the 2026-07-28 stateless HTTP statuses and headers; transport-sse: the
// 2024-11-05 HTTP+SSE transport; transport-stdio) and the helpers only
// they use; initialising it registers them into the suite's registry
// (internal/scenarios/internal/server). http.go reads as transport_http.go in the
// naming rule, and so on.
package transport

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// first accepts the first frame of the HTTP exchange stream,
// whatever it is, and hands it to judge for the verdict.
func first(stream, desc string, judge func(wire.Frame) (expect.Verdict, string)) expect.Alt {
	return expect.Matching(desc, func(f wire.Frame) (expect.Verdict, string) {
		if f.Stream != stream {
			return expect.Unrelated, ""
		}
		return judge(f)
	})
}

// waitFirst waits for the first frame of stream.
func waitFirst(t *server.T, c *server.Conn, stream string) expect.Observed {
	return c.S().WaitFor(t.Ctx, expect.Options{Timeout: t.StepTimeout()}, first(stream, "the HTTP answer to the request", func(wire.Frame) (expect.Verdict, string) {
		return expect.Accepted, ""
	}))
}

// do sends a request of method (id, params) over h as req, whose
// Body it sets, and returns the stream its answer will come on.
func do(t *server.T, h *wire.HTTP, req wire.Request, id jsonrpc.ID, method string, params any) string {
	req.Body = t.EncodeRequest(id, method, params)
	st, err := h.Do(t.Ctx, req)
	t.Must(err)
	return st
}

// contentType is the media type of a frame's HTTP response.
func contentType(f wire.Frame) string {
	if f.HTTP == nil {
		return ""
	}
	ct := f.HTTP.Header.Get("Content-Type")
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

// loopback reports whether the target URL names a loopback host:
// for such a server a foreign Origin or Host is a DNS-rebinding attempt by
// any reasonable policy.
func loopback(t *server.T) bool {
	u, err := url.Parse(t.Target().URL)
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

// statusText renders a frame's status for Actual texts.
func statusText(f wire.Frame) string {
	if f.HTTP == nil {
		return f.Describe()
	}
	return fmt.Sprintf("HTTP %d (%s): %s", f.Status(), contentType(f), f.Describe())
}

// plainHead sends one request to the MCP endpoint with a plain
// HTTP client (the target's configured headers, then hdr) and returns the
// status and headers as soon as they arrive, closing the body: for a GET
// stream that opens without sending an event, which the wire connection
// only reports once an event comes.
func plainHead(t *server.T, method string, hdr http.Header) (status int, header http.Header, err error) {
	err = t.PlainDo(method, t.Target().URL, nil, hdr, true, func(resp *http.Response) {
		status, header = resp.StatusCode, resp.Header
	})
	return status, header, err
}

// foreignOrigin is an Origin no local server may accept.
const foreignOrigin = "http://mcpcheck-rebinding.invalid"
