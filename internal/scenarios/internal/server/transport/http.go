package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Streamable HTTP (2025-03-26 on): what a POST is answered with (status,
// content type, 202 for notifications and responses), the GET stream,
// Origin validation against DNS rebinding and the MCP-Protocol-Version
// header. Sessions are in http_sessions.go, SSE streams in
// http_sse.go, the 2026-07-28 headers in
// http_stateless_headers.go.

var _ = server.Register(
	server.Def{
		ID: "transport-http/post-content-type", Area: "transport-http", Transports: server.HTTPOnly,
		Title: "a POST carrying a request is answered 200 with application/json or text/event-stream, and the stream delivers the response",
		Requirements: []string{"transport-http.post.request-content-type", "transport-http.endpoint.single-path-post",
			"transport-http.sse.includes-response"},
		Proofs: []server.Proof{{Proxy: "ping-text-plain", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Session()
			if t.HTTP(c) == nil {
				return
			}
			s := c.S()
			id, st, err := s.Request(t.Ctx, server.SentinelMethod(t.Version()), nil)
			t.Must(err)
			obs := waitFirst(t, c, st)
			if !obs.OK() {
				t.Judge(obs)
				return
			}
			f := obs.Frame
			ct := contentType(f)
			t.Saw("the POST of %s was answered %s", server.SentinelMethod(t.Version()), statusText(f))
			if f.Status() != http.StatusOK || (ct != wire.MediaJSON && ct != wire.MediaSSE) {
				t.ViolateFirst([]string{"transport-http.post.request-content-type", "transport-http.endpoint.single-path-post"},
					"a POST carrying a request to the MCP endpoint is answered 200 with Content-Type application/json or text/event-stream",
					statusText(f))
				return
			}
			if f.IsResponseTo(id) {
				t.Pass()
				return
			}
			r := t.AnswerOn(s, st, expect.AnyResponse(id))
			if !r.OK() {
				if ct == wire.MediaSSE && t.InForce("transport-http.sse.includes-response") {
					t.Violation("transport-http.sse.includes-response", r.Expected, r.Actual)
					return
				}
				t.ViolateFirst([]string{"transport-http.post.request-content-type", "transport-http.endpoint.single-path-post"}, r.Expected, r.Actual)
				return
			}
			t.Pass()
		},
	},
	server.Def{
		ID: "transport-http/notification-202", Area: "transport-http", Transports: server.HTTPOnly,
		Title:        "a POST carrying only a notification (or a response) is answered 202 with an empty body, or refused with an HTTP error status",
		Requirements: []string{"transport-http.post.accepted-202", "transport-http.post.rejected-error-status"},
		Proofs:       []server.Proof{{Proxy: "notification-200", Good: "plain", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Session()
			h := t.HTTP(c)
			if h == nil {
				return
			}
			type probe struct {
				what string
				body []byte
				hdr  http.Header
			}
			var probes []probe
			if c.Stateless != nil {
				p, hdr := t.StatelessParams(c, spec.MethodCancelled, map[string]any{"requestId": "mcpcheck-never-sent", "reason": "mcpcheck probe"})
				b, err := jsonrpc.NewNotification(spec.MethodCancelled, p)
				t.Must(err)
				probes = append(probes, probe{"a notifications/cancelled notification", b, hdr})
			} else {
				b, err := jsonrpc.NewNotification(spec.MethodRootsListChanged, nil)
				t.Must(err)
				probes = append(probes, probe{"a notifications/roots/list_changed notification (the client declared roots.listChanged)", b, nil})
				r, err := jsonrpc.NewResponse(jsonrpc.StringID("mcpcheck-unsolicited-response"), map[string]any{})
				t.Must(err)
				probes = append(probes, probe{"a JSON-RPC response", r, nil})
			}
			for _, p := range probes {
				st, err := h.Post(t.Ctx, p.body, p.hdr)
				t.Must(err)
				obs := waitFirst(t, c, st)
				if !obs.OK() {
					t.Judge(obs)
					return
				}
				f := obs.Frame
				t.Saw("%s was answered %s", p.what, statusText(f))
				switch {
				case f.Status() == http.StatusAccepted && f.Kind == wire.KindStatus:
				case f.Status() >= 400:
				case f.Status() == http.StatusAccepted:
					t.Violation("transport-http.post.accepted-202", "202 Accepted with an empty body", fmt.Sprintf("%s was answered 202 with a body: %s", p.what, f.Describe()))
				default:
					t.Violation("transport-http.post.accepted-202", "202 Accepted with an empty body (or an HTTP error status when refused)", fmt.Sprintf("%s was answered %s", p.what, statusText(f)))
				}
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
	server.Def{
		ID: "transport-http/get-stream-or-405", Area: "transport-http", Transports: server.HTTPOnly, Eras: server.Stateful, Since: spec.V20250326,
		Title:        "a GET to the MCP endpoint opens a text/event-stream or is answered 405",
		Requirements: []string{"transport-http.get.event-stream-or-405", "transport-http.endpoint.single-path-post-get"},
		Proofs:       []server.Proof{{Proxy: "get-404", Good: "plain", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			// A session of its own without the GET stream a session
			// opens (Stateful.Listen): a server may allow one per session.
			c := t.Fresh()
			if t.HTTP(c) == nil {
				return
			}
			if _, err := c.Stateful.Handshake(t.Ctx); err != nil {
				t.Error(fmt.Errorf("the session could not be opened: %v", err))
				return
			}
			hdr := http.Header{"Accept": {wire.MediaSSE}}
			if sid := c.Conn.HTTP().SessionID(); sid != "" {
				hdr.Set(wire.HeaderSessionID, sid)
			}
			if t.Version().Compare(spec.V20250618) >= 0 {
				hdr.Set(wire.HeaderProtocolVersion, string(t.Version()))
			}
			status, rh, err := plainHead(t, http.MethodGet, hdr)
			if err != nil {
				t.Fail("an answer to GET on the MCP endpoint", "the GET failed: "+err.Error())
				return
			}
			ct := strings.ToLower(strings.TrimSpace(strings.Split(rh.Get("Content-Type"), ";")[0]))
			t.Saw("GET on the MCP endpoint was answered %d with Content-Type %q", status, ct)
			if status == http.StatusMethodNotAllowed || (status == http.StatusOK && ct == wire.MediaSSE) {
				t.Pass()
				return
			}
			t.Fail("200 with Content-Type text/event-stream, or 405 Method Not Allowed", fmt.Sprintf("HTTP %d with Content-Type %q", status, ct))
		},
	},
	// Isolated: it judges responses to its own pings on its own session's streams.
	server.Def{
		ID: "transport-http/get-stream-no-responses", Isolated: true, Area: "transport-http", Transports: server.HTTPOnly, Eras: server.Stateful, Since: spec.V20250326,
		Title:        "with a GET stream open, responses to POSTed requests come once, on their POST's stream, never on the GET stream",
		Requirements: []string{"transport-http.get.no-responses", "transport-http.streams.no-broadcast"},
		Proofs:       []server.Proof{{Fault: "response-on-get-stream", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Fresh()
			if t.HTTP(c) == nil {
				return
			}
			s := c.Stateful
			if _, err := s.Handshake(t.Ctx); err != nil { // the check opens the GET stream itself
				t.Error(fmt.Errorf("the session could not be opened: %v", err))
				return
			}
			// The check goes on as soon as the GET's status is known; a
			// server that sends no headers before its first event keeps
			// the stream silent, and silence for a window means it is open.
			wctx, cancel := context.WithTimeout(t.Ctx, t.Quiet())
			gst, status, err := c.Conn.HTTP().OpenStreamWait(wctx)
			cancel()
			if gst != "" {
				defer c.Conn.HTTP().CloseStream(gst)
			}
			switch {
			case err != nil && t.Ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded):
				t.NotApplicable("the server offers no GET stream: " + err.Error())
				return
			case err == nil && status != http.StatusOK:
				t.NotApplicable(fmt.Sprintf("the server offers no GET stream: it answered the GET with HTTP %d", status))
				return
			}
			seen := map[jsonrpc.ID]string{}
			var bad []string
			ended := "" // how the GET stream ended, if it did
			judge := func(fs []wire.Frame) {
				for _, f := range fs {
					if f.Stream == gst && ended == "" && (f.Kind == wire.KindEnd || f.Kind == wire.KindTransportError) {
						ended = statusText(f)
					}
					if !server.IsResponse(f) {
						continue
					}
					if f.Stream == gst {
						bad = append(bad, "on the GET stream: "+f.Describe())
						continue
					}
					if prev, ok := seen[f.Msg.ID]; ok && prev != f.Stream {
						bad = append(bad, fmt.Sprintf("the response to id %s came on %s and again on %s", f.Msg.ID, prev, f.Stream))
					}
					seen[f.Msg.ID] = f.Stream
				}
			}
			for i := 0; i < 3; i++ {
				r := s.Call(t.Ctx, spec.MethodPing, nil)
				if !t.JudgeReply(r) {
					return
				}
				judge(append([]wire.Frame{r.Observed.Frame}, r.Observed.Others...))
			}
			if ended != "" && len(bad) == 0 {
				// A stream that ended before the pings were answered could
				// carry none of their responses: it is no stream to judge.
				t.NotApplicable("the server closed its GET stream before the pings were answered: " + ended)
				return
			}
			q := t.WaitQuiet(s, "no response on the GET stream and no response twice", func(f wire.Frame) bool {
				if !server.IsResponse(f) {
					return false
				}
				if f.Stream == gst {
					return true
				}
				_, dup := seen[f.Msg.ID]
				return dup
			})
			if !q.OK() {
				judge([]wire.Frame{q.Frame})
			}
			if len(bad) > 0 {
				for _, b := range bad {
					if len(b) > 18 && b[:18] == "on the GET stream:" {
						t.Violation("transport-http.get.no-responses", "no JSON-RPC response on the GET-opened stream", b)
					} else {
						t.Violation("transport-http.streams.no-broadcast", "each message on exactly one stream", b)
					}
				}
				return
			}
			t.Saw("three pings were answered on their POST streams only; the GET stream carried no response")
			t.Pass()
		},
	},
	server.Def{
		ID: "transport-http/origin-403", Area: "transport-http", Transports: []wire.Transport{"streamable", "sse"},
		Title:        "a request with a foreign Origin to a local server is refused with 403 (any 4xx before 2025-11-25)",
		Requirements: []string{"transport-http.security.invalid-origin-403", "transport-http.security.validate-origin"},
		Proofs:       []server.Proof{{Fault: "origin-not-validated", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			if !loopback(t) {
				t.Untestable("which Origins a server on a non-loopback address accepts is its own policy; a foreign Origin is only certainly invalid for a local server (DNS rebinding)")
				return
			}
			c := t.Session()
			id := jsonrpc.StringID("mcpcheck-origin")
			method := server.SentinelMethod(t.Version())
			var body []byte
			hdr := http.Header{"Origin": {foreignOrigin}}
			if c.Stateless != nil {
				p, h := t.StatelessParams(c, method, nil)
				body = t.EncodeRequest(id, method, p)
				for k, v := range h {
					hdr[k] = v
				}
			} else {
				body = t.EncodeRequest(id, method, nil)
			}
			var st string
			var err error
			switch {
			case c.Conn.HTTP() != nil:
				st, err = c.Conn.HTTP().Do(t.Ctx, wire.Request{Header: hdr, Body: body})
			case c.Conn.LegacySSE() != nil:
				st, err = c.Conn.LegacySSE().Do(t.Ctx, wire.Request{Header: hdr, Body: body})
			default:
				t.NotApplicable("the check is about HTTP transports")
				return
			}
			t.Must(err)
			obs := waitFirst(t, c, st)
			if !obs.OK() {
				t.Judge(obs)
				return
			}
			f := obs.Frame
			t.Saw("a POST with Origin %s was answered %s", foreignOrigin, statusText(f))
			switch {
			case f.Status() == http.StatusForbidden:
				t.Pass()
			case f.Status() >= 400 && f.Status() < 500 && !t.InForce("transport-http.security.invalid-origin-403"):
				t.Pass()
			case f.Status() >= 400 && f.Status() < 500:
				t.Violation("transport-http.security.invalid-origin-403", "403 Forbidden for a request whose Origin is not acceptable", statusText(f))
			default:
				t.ViolateFirst([]string{"transport-http.security.invalid-origin-403", "transport-http.security.validate-origin"},
					"the request from a foreign Origin is refused (403 from 2025-11-25)", "it was served: "+statusText(f))
			}
		},
	},
	server.Def{
		ID: "transport-http/protocol-version-header-invalid", Area: "transport-http", Transports: server.HTTPOnly, Eras: server.Stateful,
		Title:        "a request whose MCP-Protocol-Version header is not a supported version gets 400",
		Requirements: []string{"transport-http.protocol-version-header.invalid-400"},
		Proofs:       []server.Proof{{Fault: "protocol-version-header-ignored", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Session()
			h := t.HTTP(c)
			if h == nil {
				return
			}
			id := jsonrpc.StringID("mcpcheck-bad-version-header")
			st := do(t, h, wire.Request{Header: http.Header{wire.HeaderProtocolVersion: {"mcpcheck-not-a-version"}}}, id, spec.MethodPing, nil)
			t.Judge(t.AnswerOn(c.S(), st, expect.HTTPStatus(st, http.StatusBadRequest)))
		},
	},
	server.Def{
		ID: "transport-http/protocol-version-header-absent", Area: "transport-http", Transports: server.HTTPOnly, Eras: server.Stateful,
		Title:        "a request of an initialized session without MCP-Protocol-Version is still served (the server assumes 2025-03-26)",
		Requirements: []string{"transport-http.protocol-version-header.default-2025-03-26"},
		Proofs:       []server.Proof{{Proxy: "require-version-header", Version: spec.V20251125, Transport: "streamable", Want: reports.Warn}},
		Body: func(t *server.T) {
			c := t.Session()
			h := t.HTTP(c)
			if h == nil {
				return
			}
			id := jsonrpc.StringID("mcpcheck-no-version-header")
			st := do(t, h, wire.Request{Omit: []string{wire.HeaderProtocolVersion}}, id, spec.MethodPing, nil)
			t.Judge(t.AnswerOn(c.S(), st, expect.Result(id, "a ping result", nil)))
		},
	},
)

func init() {
	server.Exclude(map[string]string{
		"transport-http.get.polling-behaviour":               "a GET-opened stream has no final message, and the server may end it whenever it likes (sse.server-may-close): whether it 'closed the connection without ending the stream' is the server's intent, which the wire does not show",
		"transport-http.get.unrelated-to-requests":           "whether a message on the GET stream concerns a request in progress is semantic; only progress notifications name their request (by token), and the harness does not open a GET stream while a progress-emitting request of its own is in flight",
		"transport-http.sse.messages-relate-to-request":      "whether a request or notification on a POST stream concerns the request that opened it is semantic and not marked on the wire, except for progress tokens",
		"transport-http.sse.notifications-relate-to-request": "which request a notification on a 2026-07-28 response stream belongs to is not marked on the wire (log messages and list changes carry no request id); only progress carries a token, judged by the progress checks",
		"transport-http.param-headers.integer-safe-range":    "the values mirrored into Mcp-Param headers are chosen by the client; nothing the server sends shows whether it keeps integers in the safe range",
	})
}
