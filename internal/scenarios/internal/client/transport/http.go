package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Streamable HTTP in the initialize-based versions (2025-03-26 through
// 2025-11-25) and what it shares with 2026-07-28: how the client POSTs
// (Accept, one message per POST, the body), that it copes with JSON and
// SSE answers, the session id and protocol version headers, starting over
// when the server forgets the session, ending the session, and resuming
// SSE streams (Last-Event-ID, the retry delay, polling after the server
// closed a stream). The scenarios below provoke what the generic flow
// does not: JSON answers, SSE answers, a forgotten session, a stream cut
// after its first event, and the official sse-retry scenario.

// Scenario names of this file.
const (
	scenJSON        = "mcpcheck-http-json-answers"
	scenSSE         = "mcpcheck-http-sse-answers"
	scenSessionLost = "mcpcheck-http-session-lost"
	scenStreamCut   = "mcpcheck-http-stream-cut"
	scenSSERetry    = "sse-retry"
)

// retryDelay is the retry field of the sse-retry scenario's SSE
// streams (the official suite uses 500 ms too).
const retryDelay = 500 * time.Millisecond

// HTTP header names the checks read.
const (
	hdrSession     = "Mcp-Session-Id"
	hdrVersion     = "MCP-Protocol-Version"
	hdrLastEventID = "Last-Event-ID"
)

var streamableOnly = []wire.Transport{client.Streamable}

var _ = client.RegisterScenarios(
	client.Scenario{
		Name: scenJSON, Since: spec.V20250326, Transports: streamableOnly,
		Title: "the stage answers every request POST with one application/json body, never an SSE stream",
		Stage: func(client.Env) stage.Config {
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{client.EchoTool}}, HTTP: server.HTTPOptions{JSONResponses: true}}
		},
	},
	client.Scenario{
		Name: scenSSE, Since: spec.V20250326, Transports: streamableOnly,
		Title: "the stage answers every request POST with an SSE stream, never an application/json body",
		Stage: func(client.Env) stage.Config {
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{client.EchoTool}}, Middleware: answerWithSSE}
		},
	},
	client.Scenario{
		Name: scenSessionLost, Since: spec.V20250326, Until: spec.V20251125, Transports: streamableOnly,
		Title: "after serving the first request that follows initialization the stage forgets the session: HTTP 404 for its id from then on, while a new initialize is served",
		Acts:  client.Flow + " (starting a new session when the stage forgets the first one)",
		Stage: func(client.Env) stage.Config {
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{client.EchoTool}}, Middleware: forgetSession()}
		},
	},
	client.Scenario{
		Name: scenStreamCut, Since: spec.V20250326, Until: spec.V20250618, Transports: streamableOnly,
		Title: "the stage cuts the SSE stream of a tools/call after its first event (a log message with an event id), before the result; the result waits for a GET with Last-Event-ID",
		Acts:  client.Flow + " (resuming the cut stream with GET and Last-Event-ID if the client resumes streams)",
		Stage: func(client.Env) stage.Config {
			cut := &cut{done: make(chan struct{})}
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{cut.tool()}}, Middleware: cut.middleware}
		},
	},
	client.Scenario{
		Name: scenSSERetry, Since: spec.V20251125, Until: spec.V20251125, Transports: streamableOnly,
		Title: "the official sse-retry scenario: test_reconnection's SSE stream carries a priming event with an id and retry: 500 and is closed before the result, which waits for a GET with Last-Event-ID",
		Acts:  "list the tools and call test_reconnection, resuming its stream with GET and Last-Event-ID",
		Stage: func(client.Env) stage.Config {
			return stage.Config{HTTP: server.HTTPOptions{Retry: retryDelay}}
		},
		// Done once the result of a tools/call arrived on a resumed stream.
		Done: func(c *client.Case) bool {
			calls := map[jsonrpc.ID]bool{}
			for _, m := range c.Requests(spec.MethodToolsCall) {
				calls[m.Msg.ID] = true
			}
			for _, m := range c.From(stage.FromStage) {
				if m.Msg.Shape.IsResponse() && calls[m.Msg.ID] && strings.HasPrefix(m.Stream, "get-") {
					return true
				}
			}
			return false
		},
	},
)

var _ = client.Register(
	client.Def{
		ID: "client/transport-http/post-accept", Area: "transport-http", Since: spec.V20250326, Transports: streamableOnly,
		Title:        "every POST of the client lists both application/json and text/event-stream in Accept",
		Requirements: []string{"transport-http.post.accept-both-types"},
		Proofs:       []client.Proof{{Fault: "post-accept-json-only", Transport: client.Streamable, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				ep := endpoint(c)
				for _, e := range c.HTTPRequests() {
					if e.HTTP.Method != http.MethodPost || pathOf(e) != ep || !isRPC(e) {
						continue
					}
					n++
					if !listsType(e.HTTP.Header, "application/json") || !listsType(e.HTTP.Header, "text/event-stream") {
						bad++
						if bad <= 10 {
							t.Fail("Accept lists application/json and text/event-stream on every POST",
								fmt.Sprintf("%s carried Accept %q (%s)", describe(e), strings.Join(e.HTTP.Header.Values("Accept"), ", "), c.Scenario.Name))
						}
					}
				}
			}
			t.Settle(n, bad, "the client POSTed no message", "%d POSTs, each accepting JSON and SSE")
		},
	},
	client.Def{
		ID: "client/transport-http/get-accept", Area: "transport-http", Since: spec.V20250326, Until: spec.V20251125, Transports: streamableOnly,
		Title:        "every GET of the client to the MCP endpoint lists text/event-stream in Accept",
		Requirements: []string{"transport-http.get.accept-event-stream"},
		Proofs:       []client.Proof{{Fault: "get-accept-json-only", Transport: client.Streamable, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				ep := endpoint(c)
				for _, e := range c.HTTPRequests() {
					if e.HTTP.Method != http.MethodGet || pathOf(e) != ep || ep == "" {
						continue
					}
					n++
					if !listsType(e.HTTP.Header, "text/event-stream") {
						bad++
						if bad <= 10 {
							t.Fail("Accept lists text/event-stream on every GET to the MCP endpoint",
								fmt.Sprintf("%s carried Accept %q (%s)", describe(e), strings.Join(e.HTTP.Header.Values("Accept"), ", "), c.Scenario.Name))
						}
					}
				}
			}
			t.Settle(n, bad, "the client sent no GET to the MCP endpoint (it may do without the stream for server messages)", "%d GETs, each accepting SSE")
		},
	},
	client.Def{
		ID: "client/transport-http/post-only", Area: "transport-http", Since: spec.V20250326, Transports: streamableOnly,
		Title:        "the client sends every JSON-RPC message in an HTTP POST of its own to the MCP endpoint",
		Requirements: []string{"transport-http.post.one-message-per-post"},
		Proofs:       []client.Proof{{Fault: "tools-list-via-put", Transport: client.Streamable, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				ep := endpoint(c)
				for _, e := range c.HTTPRequests() {
					if !isRPC(e) {
						continue
					}
					n++
					var why string
					switch {
					case e.HTTP.Method != http.MethodPost:
						why = fmt.Sprintf("%s carried a JSON-RPC message with HTTP %s", describe(e), e.HTTP.Method)
					case pathOf(e) != ep:
						why = fmt.Sprintf("%s went to %s, not to the MCP endpoint %s", describe(e), pathOf(e), ep)
					}
					if why != "" {
						bad++
						if bad <= 10 {
							t.Fail("every message goes in a POST to the MCP endpoint", why+" ("+c.Scenario.Name+")")
						}
					}
				}
			}
			t.Settle(n, bad, "the client sent no message over HTTP", "%d messages, each POSTed to the MCP endpoint")
		},
	},
	client.Def{
		ID: "client/transport-http/post-body", Area: "transport-http", Since: spec.V20250326, Until: spec.V20251125, Transports: streamableOnly,
		Title:        "the body of each POST is one JSON-RPC message (in 2025-03-26 also a batch of requests and notifications, or of responses)",
		Requirements: []string{"transport-http.post.body-single-message", "transport-http.post.body-single-or-batch"},
		Proofs: []client.Proof{
			{Fault: "batch-post", Version: spec.V20251125, Transport: client.Streamable, Want: reports.Fail},
			{Fault: "mixed-batch-post", Version: spec.V20250326, Transport: client.Streamable, Want: reports.Fail},
		},
		Body: func(t *client.T) {
			batches := t.Version() == spec.V20250326
			n, bad := 0, 0
			for _, c := range t.Cases() {
				ep := endpoint(c)
				for _, e := range c.HTTPRequests() {
					if e.HTTP.Method != http.MethodPost || pathOf(e) != ep || e.Kind == wire.KindHTTPRequest || e.Kind == wire.KindTooLong {
						continue
					}
					n++
					why := bodyProblem(e, batches)
					if why == "" {
						continue
					}
					bad++
					if bad <= 10 {
						expected := "a POST body is exactly one JSON-RPC request, notification or response, never a batch"
						if batches {
							expected = "a POST body is one JSON-RPC message, or a batch of requests and notifications, or a batch of responses"
						}
						t.Fail(expected, fmt.Sprintf("%s: %s (%s)", why, wire.Excerpt(e.Raw, 200), c.Scenario.Name))
					}
				}
			}
			t.Settle(n, bad, "the client POSTed no body to the MCP endpoint", "%d POST bodies, each well formed")
		},
	},
	client.Def{
		ID: "client/transport-http/json-and-sse", Area: "transport-http", Since: spec.V20250326, Transports: streamableOnly,
		Scenarios:    []string{scenJSON, scenSSE},
		Title:        "the client copes with application/json answers to its requests as well as with SSE streams",
		Requirements: []string{"transport-http.post.client-handles-json-and-sse"},
		Proofs:       []client.Proof{{Fault: "json-answers-unread", Transport: client.Streamable, Want: reports.Fail}},
		Body: func(t *client.T) {
			var js, ss *client.Case
			for _, c := range t.Cases() {
				switch c.Scenario.Name {
				case scenJSON:
					js = c
				case scenSSE:
					ss = c
				}
			}
			if js == nil || ss == nil {
				t.Untestable("the scenarios with JSON answers and with SSE answers did not both run")
				return
			}
			jl, jwhy := progressOf(js)
			sl, swhy := progressOf(ss)
			if !t.NeedAction(jl > 0 || sl > 0, "go on after the answer to its first request") {
				return
			}
			jn, _ := answerKinds(js)
			_, sn := answerKinds(ss)
			judged := 0
			if jn > 0 {
				judged++
				if jl < sl {
					t.Fail("the client goes on after application/json answers as it does after SSE ones",
						fmt.Sprintf("answered with application/json (%s) the client %s; answered with SSE streams (%s) it %s", scenJSON, jwhy, scenSSE, swhy))
				}
			}
			if sn > 0 {
				judged++
				if sl < jl {
					t.Fail("the client goes on after SSE answers as it does after application/json ones",
						fmt.Sprintf("answered with SSE streams (%s) the client %s; answered with application/json (%s) it %s", scenSSE, swhy, scenJSON, jwhy))
				}
			}
			if judged < 2 {
				t.Untestable(fmt.Sprintf("the stage did not answer both ways: %d application/json answers in %s, %d SSE answers in %s", jn, scenJSON, sn, scenSSE))
				return
			}
			t.Saw("answered with application/json the client %s; answered with SSE it %s", jwhy, swhy)
			t.Pass()
		},
	},
	client.Def{
		ID: "client/transport-http/protocol-version-header", Area: "transport-http", Since: spec.V20250618, Until: spec.V20251125, Transports: streamableOnly,
		Title:        "every HTTP request of the client after initialization carries MCP-Protocol-Version",
		Requirements: []string{"transport-http.protocol-version-header.client-sends"},
		Proofs:       []client.Proof{{Fault: "get-without-protocol-version", Transport: client.Streamable, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			afterInitialize(t, true, func(c *client.Case, e stage.Event, _ *sessionOf) {
				n++
				if e.HTTP.Header.Get(hdrVersion) == "" {
					bad++
					if bad <= 10 {
						t.Fail("MCP-Protocol-Version on every request after initialization",
							fmt.Sprintf("%s had no MCP-Protocol-Version header (%s)", describe(e), c.Scenario.Name))
					}
				}
			})
			t.Settle(n, bad, "the client sent no HTTP request after initialization", "%d requests after initialization, each with MCP-Protocol-Version")
		},
	},
	client.Def{
		ID: "client/transport-http/protocol-version-negotiated", Area: "transport-http", Since: spec.V20250618, Until: spec.V20251125, Transports: streamableOnly,
		Title:        "the MCP-Protocol-Version the client sends is the version the initialize exchange agreed",
		Requirements: []string{"transport-http.protocol-version-header.negotiated-value"},
		Proofs:       []client.Proof{{Fault: "protocol-version-not-negotiated", Transport: client.Streamable, Want: reports.Warn}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			afterInitialize(t, true, func(c *client.Case, e stage.Event, s *sessionOf) {
				got := e.HTTP.Header.Get(hdrVersion)
				if s == nil || s.version == "" || got == "" {
					return
				}
				n++
				if strings.TrimSpace(got) != string(s.version) {
					bad++
					if bad <= 10 {
						t.Fail("MCP-Protocol-Version names the negotiated version "+string(s.version),
							fmt.Sprintf("%s carried MCP-Protocol-Version %q (%s)", describe(e), got, c.Scenario.Name))
					}
				}
			})
			t.Settle(n, bad, "the client sent no MCP-Protocol-Version header in an initialized session", "%d requests, each naming the negotiated version")
		},
	},
	client.Def{
		ID: "client/transport-http/session-id", Area: "transport-http", Since: spec.V20250326, Until: spec.V20251125, Transports: streamableOnly,
		Title:        "once initialize returned an Mcp-Session-Id, every later request of the client carries it",
		Requirements: []string{"transport-http.session.client-echoes-id"},
		Proofs:       []client.Proof{{Fault: "get-without-session-id", Transport: client.Streamable, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			afterInitialize(t, false, func(c *client.Case, e stage.Event, s *sessionOf) {
				n++
				sid := e.HTTP.Header.Get(hdrSession)
				why := ""
				switch {
				case sid == "":
					why = fmt.Sprintf("%s had no Mcp-Session-Id header", describe(e))
				case s == nil:
					why = fmt.Sprintf("%s carried Mcp-Session-Id %q, which the stage had not issued", describe(e), sid)
				}
				if why != "" {
					bad++
					if bad <= 10 {
						t.Fail("the session id the stage issued at initialization on every later request", why+" ("+c.Scenario.Name+")")
					}
				}
			})
			t.Settle(n, bad, "the stage issued no session id, or the client sent nothing after initialization", "%d requests after initialization, each with its session id")
		},
	},
	client.Def{
		ID: "client/transport-http/session-404", Area: "transport-http", Since: spec.V20250326, Until: spec.V20251125, Transports: streamableOnly,
		Scenarios:    []string{scenSessionLost},
		Title:        "after HTTP 404 to a request with a session id, the client starts over with an initialize that carries no session id",
		Requirements: []string{"transport-http.session.client-reinitializes-on-404"},
		Proofs:       []client.Proof{{Fault: "reinitialize-with-old-session", Transport: client.Streamable, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				ep := endpoint(c)
				reqs := c.HTTPRequests()
				seen := map[string]bool{}
				for _, e := range reqs {
					sid := e.HTTP.Header.Get(hdrSession)
					if e.HTTP.Method != http.MethodPost || pathOf(e) != ep || sid == "" || seen[sid] || !e.IsMessage() || e.Msg.Shape != jsonrpc.KindRequest {
						continue
					}
					head, ok := headOf(c, e)
					if !ok || head.HTTP.Status != http.StatusNotFound {
						continue
					}
					seen[sid] = true
					n++
					var next *stage.Event
					for i := range reqs {
						x := &reqs[i]
						if x.Seq > head.Seq && x.HTTP.Method == http.MethodPost && x.IsMessage() && x.Msg.Method == spec.MethodInitialize && x.Msg.Shape == jsonrpc.KindRequest {
							next = x
							break
						}
					}
					switch {
					case next == nil:
						bad++
						t.Fail("a new initialize, without a session id, after HTTP 404 for the session",
							fmt.Sprintf("after HTTP 404 to %s with session %q the client sent no new initialize (%s; the client %s)", describe(e), sid, c.Scenario.Name, c.Exit))
					case next.HTTP.Header.Get(hdrSession) != "":
						bad++
						t.Fail("the new initialize after HTTP 404 carries no Mcp-Session-Id",
							fmt.Sprintf("after HTTP 404 to %s with session %q the new initialize carried Mcp-Session-Id %q (%s)", describe(e), sid, next.HTTP.Header.Get(hdrSession), c.Scenario.Name))
					}
				}
			}
			if !t.NeedAction(n > 0, "make a second request after initialization (the stage forgets the session after serving the first)") {
				return
			}
			t.Settle(n, bad, "", "%d forgotten sessions, each followed by a fresh initialize")
		},
	},
	client.Def{
		ID: "client/transport-http/session-delete", Area: "transport-http", Since: spec.V20250326, Until: spec.V20251125, Transports: streamableOnly,
		Scenarios:    []string{"initialize", "tools_call", scenJSON, scenSSE},
		Title:        "a client that is done with its session (it exits by itself) ends it with HTTP DELETE and the session id",
		Requirements: []string{"transport-http.session.client-deletes-when-done"},
		Proofs:       []client.Proof{{Fault: "no-session-delete", Transport: client.Streamable, Want: reports.Warn}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				issued := issued(c)
				if len(issued) == 0 {
					continue
				}
				last := issued[len(issued)-1]
				ep := endpoint(c)
				gone, deleted := false, false
				for _, e := range c.HTTPRequests() {
					if e.HTTP.Header.Get(hdrSession) != last.id || pathOf(e) != ep {
						continue
					}
					if e.HTTP.Method == http.MethodDelete {
						deleted = true
					} else if head, ok := headOf(c, e); ok && head.HTTP.Status == http.StatusNotFound {
						gone = true
					}
				}
				// A DELETE is the duty done, however the client ended (Codex
				// 0.171.0 deletes its session, then 'codex exec' exits 1
				// because the census's model answers 400). Without one, only a
				// client that ended by itself with status 0 was surely done
				// with the session.
				if gone || !deleted && (c.ExitCode != 0 || c.TimedOut || c.Stopped || len(c.Notes(client.NoteHarnessStop)) > 0) {
					continue // gone: the stage had ended the session itself
				}
				n++
				if !deleted {
					bad++
					t.Fail("HTTP DELETE with the session id when the client is done with the session",
						fmt.Sprintf("the client %s without sending DELETE for session %q (%s)", c.Exit, last.id, c.Scenario.Name))
				}
			}
			if !t.NeedAction(n > 0, "send DELETE for its session, or exit by itself (status 0) after its flow, done with it") {
				return
			}
			t.Settle(n, bad, "", "%d sessions, each ended with DELETE")
		},
	},
	client.Def{
		ID: "client/transport-http/resume-last-event-id", Area: "transport-http", Since: spec.V20250326, Until: spec.V20251125, Transports: streamableOnly,
		Scenarios:    []string{scenStreamCut, scenSSERetry},
		Title:        "a client resuming an SSE stream sends GET with Last-Event-ID set to the last event id that stream carried",
		Requirements: []string{"transport-http.resume.client-get-last-event-id"},
		Proofs:       []client.Proof{{Fault: "stale-last-event-id", Transport: client.Streamable, Want: reports.Warn}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				ep := endpoint(c)
				for _, e := range c.HTTPRequests() {
					last := e.HTTP.Header.Get(hdrLastEventID)
					if e.HTTP.Method != http.MethodGet || pathOf(e) != ep || last == "" {
						continue
					}
					n++
					want, ok := lastIDBefore(c, last, e.Seq)
					why := ""
					switch {
					case !ok:
						why = fmt.Sprintf("%s resumed from %q, an event id the stage never sent", describe(e), last)
					case want != last:
						why = fmt.Sprintf("%s resumed from %q, but the last event id that stream carried was %q", describe(e), last, want)
					}
					if why != "" {
						bad++
						if bad <= 10 {
							t.Fail("Last-Event-ID names the last event id the client received on the stream it resumes", why+" ("+c.Scenario.Name+")")
						}
					}
				}
			}
			if !t.NeedAction(n > 0, "resume the SSE stream the stage ended before its response (GET with Last-Event-ID)") {
				return
			}
			t.Settle(n, bad, "", "%d resumptions, each from the last event id received")
		},
	},
	client.Def{
		ID: "client/transport-http/sse-retry-wait", Area: "transport-http", Since: spec.V20251125, Until: spec.V20251125, Transports: streamableOnly,
		Scenarios:    []string{scenSSERetry},
		Title:        "after the stage closed an SSE stream the client waits at least the retry delay before reconnecting",
		Requirements: []string{"transport-http.sse.client-honours-retry"},
		Proofs:       []client.Proof{{Fault: "sse-retry-ignored", Transport: client.Streamable, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				cuts := cutStreams(c)
				for _, cut := range cuts {
					get, ok := reconnect(c, cut, cuts)
					if !ok || !cut.hasRetry {
						continue
					}
					n++
					wait := get.Time.Sub(cut.end.Time)
					if wait < cut.retry {
						bad++
						t.Fail(fmt.Sprintf("a reconnection no sooner than the retry delay (%v) after the stream closed", cut.retry),
							fmt.Sprintf("%s came %v after the stage closed the stream of %s (%s)", describe(get), wait.Round(time.Millisecond), describe(cut.post), c.Scenario.Name))
					} else {
						t.Saw("reconnected %v after the stream closed (retry %v)", wait.Round(time.Millisecond), cut.retry)
					}
				}
			}
			if !t.NeedAction(n > 0, "reconnect with GET and Last-Event-ID after the stage closed the stream of test_reconnection") {
				return
			}
			t.Settle(n, bad, "", "")
		},
	},
	client.Def{
		ID: "client/transport-http/sse-poll", Area: "transport-http", Since: spec.V20251125, Until: spec.V20251125, Transports: streamableOnly,
		Scenarios:    []string{scenSSERetry},
		Title:        "when the stage closes an SSE stream before its response, the client reconnects with GET and Last-Event-ID",
		Requirements: []string{"transport-http.sse.client-polls-after-close"},
		Proofs:       []client.Proof{{Fault: "sse-event-ids-ignored", Transport: client.Streamable, Want: reports.Warn}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, cut := range cutStreams(c) {
					if cancelled(c, cut.post.Msg.ID) {
						continue
					}
					n++
					if _, ok := anyResumeAfter(c, cut.end.Seq); !ok {
						bad++
						t.Fail("a GET with Last-Event-ID after the stage closed the stream before its response",
							fmt.Sprintf("the stage closed the SSE stream of %s after event %s and the client never reconnected to it (%s; the client %s)", describe(cut.post), cut.lastID, c.Scenario.Name, c.Exit))
					}
				}
			}
			if !t.NeedAction(n > 0, "call test_reconnection (the stage then closes its stream early)") {
				return
			}
			t.Settle(n, bad, "", "%d closed streams, each polled again")
		},
	},
)

// pathOf is the path of an HTTP request event's URL (the stage records it
// without the case's prefix).
func pathOf(e stage.Event) string {
	u, err := url.Parse(e.HTTP.URL)
	if err != nil {
		return e.HTTP.URL
	}
	return u.Path
}

// isRPC reports whether a client HTTP request carries something shaped
// like JSON-RPC (a message or a batch), as opposed to no body or another
// JSON document (an OAuth registration, say).
func isRPC(e stage.Event) bool {
	return e.Kind == wire.KindMessage && (e.Msg.Shape != jsonrpc.KindInvalid || e.Msg.Has(jsonrpc.ReasonBatch) || e.Msg.Has(jsonrpc.ReasonEmptyBatch))
}

// endpoint is the path of the MCP endpoint in a case: where the client
// POSTed its first JSON-RPC message ("" when it POSTed none).
func endpoint(c *client.Case) string {
	for _, e := range c.HTTPRequests() {
		if e.HTTP.Method == http.MethodPost && isRPC(e) {
			return pathOf(e)
		}
	}
	return ""
}

// describe names a client HTTP request for reports: "POST (tools/list
// request, post-3)", "GET (get-1)".
func describe(e stage.Event) string {
	what := e.Stream
	if e.IsMessage() {
		switch {
		case e.Msg.Method != "" && e.Msg.Shape == jsonrpc.KindRequest:
			what = e.Msg.Method + " request, " + what
		case e.Msg.Method != "":
			what = e.Msg.Method + ", " + what
		case e.Msg.Has(jsonrpc.ReasonBatch):
			what = "a batch, " + what
		case e.Msg.Shape.IsResponse():
			what = "a response, " + what
		}
	}
	return e.HTTP.Method + " (" + what + ")"
}

// listsType reports whether the Accept headers of h name media type
// typ (with a q above zero); wildcards do not name it.
func listsType(h http.Header, typ string) bool {
	for _, v := range h.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || mt != typ {
				continue
			}
			if q, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(q, 64); err == nil && f <= 0 {
					continue
				}
			}
			return true
		}
	}
	return false
}

// bodyProblem says what is wrong with the body of a POST ("" for
// nothing): one message is right; a batch is right only where batches is
// set, and then only of requests and notifications, or of responses.
func bodyProblem(e stage.Event, batches bool) string {
	switch {
	case e.Kind == wire.KindGarbage:
		return "the body is not one JSON value"
	case e.Msg.Has(jsonrpc.ReasonEmptyBatch):
		return "the body is an empty array"
	case !e.Msg.Has(jsonrpc.ReasonBatch):
		return ""
	case !batches:
		return "the body is a batch array"
	}
	msgs, _ := jsonrpc.DecodeBatch(e.Raw)
	calls, responses := 0, 0
	for _, m := range msgs {
		switch {
		case m.Shape == jsonrpc.KindRequest || m.Shape == jsonrpc.KindNotification:
			calls++
		case m.Shape.IsResponse():
			responses++
		default:
			return "the batch holds an element that is neither a request, a notification nor a response"
		}
	}
	if calls > 0 && responses > 0 {
		return "the batch mixes requests or notifications with responses"
	}
	return ""
}

// headOf returns the first event of the stage's answer to the client's
// HTTP request e (it carries the status and headers).
func headOf(c *client.Case, e stage.Event) (stage.Event, bool) {
	for _, x := range c.Events {
		if x.From == stage.FromStage && x.Stream == e.Stream && x.HTTP != nil {
			return x, true
		}
	}
	return stage.Event{}, false
}

// sessionOf is a session the stage issued in answer to an initialize POST.
type sessionOf struct {
	id string
	// seq is the first stage event that carried the id.
	seq int
	// version is what the initialize result agreed ("" when it failed).
	version spec.Version
	// done is the seq of the event from which the client is done with
	// the session (0 while it is not): the initialize result failed or
	// named no released revision (the client must not go on in it), or
	// the client ended it with DELETE. A request without a session id
	// after that is a new connection (a fallback transport, a new
	// session), judged as new, not as a later request of this one.
	done int
}

// issued returns the sessions the stage issued, in order.
func issued(c *client.Case) []sessionOf {
	inits := map[string]bool{}
	for _, e := range c.HTTPRequests() {
		if e.HTTP.Method == http.MethodPost && e.IsMessage() && e.Msg.Method == spec.MethodInitialize && e.Msg.Shape == jsonrpc.KindRequest {
			inits[e.Stream] = true
		}
	}
	idx := map[string]int{}
	var out []sessionOf
	for _, e := range c.Events {
		if e.From != stage.FromStage || e.HTTP == nil || !inits[e.Stream] || e.HTTP.Status/100 != 2 {
			continue
		}
		sid := e.HTTP.Header.Get(hdrSession)
		if sid == "" {
			continue
		}
		i, ok := idx[sid]
		if !ok {
			i = len(out)
			idx[sid] = i
			out = append(out, sessionOf{id: sid, seq: e.Seq})
		}
		if e.IsMessage() && e.Msg.Shape == jsonrpc.KindResponse {
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(e.Msg.Result, &r) == nil {
				out[i].version = spec.Version(r.ProtocolVersion)
			}
			if !out[i].version.Known() && out[i].done == 0 {
				out[i].done = e.Seq // a revision no client implements: refused
			}
		}
		if e.IsMessage() && e.Msg.Shape == jsonrpc.KindErrorResponse && out[i].done == 0 {
			out[i].done = e.Seq // no session from the client's side
		}
	}
	for _, e := range c.HTTPRequests() {
		if e.HTTP.Method != http.MethodDelete {
			continue
		}
		if i, ok := idx[e.HTTP.Header.Get(hdrSession)]; ok && out[i].done == 0 && out[i].seq < e.Seq {
			out[i].done = e.Seq
		}
	}
	return out
}

// abandoned reports whether e, a client request, starts a new
// connection rather than continuing a session: it carries no session id
// and the session the stage issued last before it is one the client was
// done with (sessionOf.done), or it belongs to an HTTP+SSE connection
// (a fallback to the 2024-11-05 transport, which has no Mcp-Session-Id).
func abandoned(c *client.Case, e stage.Event, issued []sessionOf) bool {
	if strings.HasPrefix(c.Session(e), "sse-") {
		return true
	}
	if e.HTTP.Header.Get(hdrSession) != "" {
		return false
	}
	var cur *sessionOf
	for i := range issued {
		if issued[i].seq < e.Seq {
			cur = &issued[i]
		}
	}
	return cur != nil && cur.done > 0 && cur.done < e.Seq
}

// afterInitialize calls judge for every client request to the MCP
// endpoint after the stage first issued a session id, except initialize
// POSTs (a new session starts without one), with the issued session the
// request names (nil when it names none the stage had issued before it).
// A dual-era client's server/discover probe (Case.IsDiscoverProbe) opens
// a session too and is skipped like initialize, and so is a request that
// starts a new connection after the client left its session (abandoned:
// a fallback to HTTP+SSE after refusing the revision the result named).
// With used set it starts only at the client's first message after that
// other than initialize: a client that could not take the initialize
// result (it went no further) has no negotiated version to send.
func afterInitialize(t *client.T, used bool, judge func(c *client.Case, e stage.Event, s *sessionOf)) {
	for _, c := range t.Cases() {
		issued := issued(c)
		if len(issued) == 0 {
			continue
		}
		ep := endpoint(c)
		start := issued[0].seq
		if used {
			start = -1
			for _, e := range c.HTTPRequests() {
				if e.Seq > issued[0].seq && e.HTTP.Method == http.MethodPost && pathOf(e) == ep && isRPC(e) && e.Msg.Method != spec.MethodInitialize {
					start = e.Seq
					break
				}
			}
			if start < 0 {
				continue
			}
		}
		for _, e := range c.HTTPRequests() {
			if e.Seq < start || pathOf(e) != ep {
				continue
			}
			if e.HTTP.Method == http.MethodPost && e.IsMessage() && (e.Msg.Method == spec.MethodInitialize || c.IsDiscoverProbe(e)) {
				continue // a new session (or a dual-era client's probe for one) starts without an id
			}
			if abandoned(c, e, issued) {
				continue // a new connection after the client left the session
			}
			if c.BeforeInitializeResult(e) {
				// Sent while its session's initialize was unanswered: the
				// client could not know the version, nor (over JSON) the
				// session id; the lifecycle checks judge such messages.
				continue
			}
			var s *sessionOf
			sid := e.HTTP.Header.Get(hdrSession)
			for i := range issued {
				if issued[i].id == sid && issued[i].seq < e.Seq {
					s = &issued[i]
				}
			}
			judge(c, e, s)
		}
	}
}

// progressOf says how far a client got on the stage's answers in a case:
// 0 it built on none, 1 it went on after an answered request (the
// initialized notification or a further request), 2 it called a tool a
// tools/list answer of the stage named. The text says so in words.
func progressOf(c *client.Case) (int, string) {
	listed := map[string]bool{}
	answered := 0
	for _, m := range c.From(stage.FromStage) {
		if m.Msg.Shape != jsonrpc.KindResponse {
			continue
		}
		answered++
		var r struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if json.Unmarshal(m.Msg.Result, &r) == nil {
			for _, tl := range r.Tools {
				listed[tl.Name] = true
			}
		}
	}
	if answered == 0 {
		return 0, "got no successful answer"
	}
	level, why := 0, "went no further after the answers to its first requests"
	for _, m := range c.Client() {
		if m.Msg.Shape != jsonrpc.KindRequest && m.Msg.Shape != jsonrpc.KindNotification {
			continue
		}
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(m.Msg.Params, &p)
		switch m.Msg.Method {
		case spec.MethodToolsCall:
			if listed[p.Name] {
				return 2, "called tool " + strconv.Quote(p.Name) + ", which the stage had listed"
			}
		case spec.MethodInitialize, spec.MethodServerDiscover, spec.MethodPing, spec.MethodCancelled:
			continue
		}
		if level == 0 {
			level, why = 1, "went on with "+m.Msg.Method+" but called no listed tool"
		}
	}
	return level, why
}

// answerKinds counts the stage's responses to the client that came as
// a JSON body and on SSE streams.
func answerKinds(c *client.Case) (jsonBodies, sse int) {
	for _, m := range c.From(stage.FromStage) {
		if !m.Msg.Shape.IsResponse() || m.HTTP == nil {
			continue
		}
		if m.InSSE {
			sse++
		} else {
			jsonBodies++
		}
	}
	return jsonBodies, sse
}

// cutStreamOf is the SSE stream of a request POST that the stage ended
// before it carried the response, after sending event ids on it.
type cutStreamOf struct {
	post, end stage.Event
	ids       map[string]bool
	lastID    string
	retry     time.Duration
	hasRetry  bool
}

// cutStreams returns the request POSTs of a case whose SSE streams the
// stage ended early.
func cutStreams(c *client.Case) []cutStreamOf {
	var out []cutStreamOf
	for _, e := range c.HTTPRequests() {
		if e.HTTP.Method != http.MethodPost || !e.IsMessage() || e.Msg.Shape != jsonrpc.KindRequest {
			continue
		}
		cut := cutStreamOf{post: e, ids: map[string]bool{}}
		ended, answered := false, false
		for _, x := range c.Events {
			if x.From != stage.FromStage || x.Stream != e.Stream || !x.InSSE {
				continue
			}
			if x.HasEventID {
				cut.ids[x.EventID] = true
				cut.lastID = x.EventID
			}
			if x.HasRetry {
				cut.retry, cut.hasRetry = x.Retry, true
			}
			if x.IsMessage() && x.Msg.Shape.IsResponse() && x.Msg.ID == e.Msg.ID {
				answered = true
			}
			if x.Kind == wire.KindEnd {
				cut.end, ended = x, true
			}
		}
		if ended && !answered && len(cut.ids) > 0 {
			out = append(out, cut)
		}
	}
	return out
}

// reconnect returns the client's first GET after the cut stream ended
// that resumes it: Last-Event-ID one of its ids, or else one no other cut
// stream carried.
func reconnect(c *client.Case, cut cutStreamOf, all []cutStreamOf) (stage.Event, bool) {
	var fallback *stage.Event
	for _, e := range c.HTTPRequests() {
		last := e.HTTP.Header.Get(hdrLastEventID)
		if e.Seq < cut.end.Seq || e.HTTP.Method != http.MethodGet || last == "" {
			continue
		}
		if cut.ids[last] {
			return e, true
		}
		other := false
		for _, o := range all {
			other = other || o.ids[last]
		}
		if !other && fallback == nil {
			e := e
			fallback = &e
		}
	}
	if fallback != nil {
		return *fallback, true
	}
	return stage.Event{}, false
}

// anyResumeAfter returns the client's first GET with Last-Event-ID
// after event seq.
func anyResumeAfter(c *client.Case, seq int) (stage.Event, bool) {
	for _, e := range c.HTTPRequests() {
		if e.Seq > seq && e.HTTP.Method == http.MethodGet && e.HTTP.Header.Get(hdrLastEventID) != "" {
			return e, true
		}
	}
	return stage.Event{}, false
}

// cancelled reports whether the client cancelled its request id.
func cancelled(c *client.Case, id jsonrpc.ID) bool {
	for _, m := range c.Notifications(spec.MethodCancelled) {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Msg.Params, &p) == nil && bytes.Equal(bytes.TrimSpace(p.RequestID), []byte(id.String())) {
			return true
		}
	}
	return false
}

// lastIDBefore finds the stream on which the stage last sent event id
// before event seq and returns the last event id that stream carried up
// to its end (or up to seq, when it was still open); false when the stage
// never sent the id.
func lastIDBefore(c *client.Case, id string, seq int) (string, bool) {
	streamOf := ""
	for _, x := range c.Events {
		if x.Seq < seq && x.From == stage.FromStage && x.InSSE && x.HasEventID && x.EventID == id {
			streamOf = x.Stream
		}
	}
	if streamOf == "" {
		return "", false
	}
	last := ""
	for _, x := range c.Events {
		if x.Seq >= seq || x.From != stage.FromStage || x.Stream != streamOf {
			continue
		}
		if x.HasEventID {
			last = x.EventID
		}
		if x.Kind == wire.KindEnd {
			break
		}
	}
	return last, true
}

// answerWithSSE is the middleware of scenSSE: a 200
// application/json answer of the engine (2026-07-28 answers plain
// requests so) goes out as an SSE stream of one message event instead.
func answerWithSSE(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &sseWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		sw.finish()
	})
}

// sseWriter holds back a 200 application/json answer and sends it as one
// SSE event when the handler is done; anything else passes through.
type sseWriter struct {
	http.ResponseWriter
	wrote, hold bool
	body        bytes.Buffer
}

func (w *sseWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	mt, _, _ := mime.ParseMediaType(w.Header().Get("Content-Type"))
	if code == http.StatusOK && mt == "application/json" {
		w.hold = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *sseWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.hold {
		return w.body.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes on, except while an answer is held back.
func (w *sseWriter) Flush() {
	if w.hold {
		return
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *sseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *sseWriter) finish() {
	if !w.hold {
		return
	}
	h := w.ResponseWriter.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Del("Content-Length")
	w.ResponseWriter.WriteHeader(http.StatusOK)
	var ev bytes.Buffer
	ev.WriteString("event: message\n")
	for _, line := range bytes.Split(bytes.TrimRight(w.body.Bytes(), "\r\n"), []byte("\n")) {
		ev.WriteString("data: ")
		ev.Write(bytes.TrimRight(line, "\r"))
		ev.WriteString("\n")
	}
	ev.WriteString("\n")
	_, _ = w.ResponseWriter.Write(ev.Bytes())
}

// forgetSession is the middleware of scenSessionLost: the first session
// id whose request after initialization the engine answers successfully
// is forgotten as that answer starts, and every later request carrying it
// gets HTTP 404; other sessions, a new initialize among them, are served.
func forgetSession() func(http.Handler) http.Handler {
	var mu sync.Mutex
	forgotten := ""
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sid := r.Header.Get(hdrSession)
			mu.Lock()
			gone, armed := sid != "" && sid == forgotten, forgotten == ""
			mu.Unlock()
			if gone {
				body, _ := io.ReadAll(r.Body)
				id := jsonrpc.ID{}
				if m := jsonrpc.Decode(body); m.Kind == jsonrpc.KindRequest {
					id = m.ID
				}
				b, _ := jsonrpc.NewErrorResponse(id, -32001, "Session not found: the mcpcheck stage has forgotten this session; initialize a new one", nil)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write(b)
				return
			}
			if !armed || r.Method != http.MethodPost || sid == "" {
				next.ServeHTTP(w, r)
				return
			}
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if m := jsonrpc.Decode(body); m.Kind != jsonrpc.KindRequest || m.Method == spec.MethodInitialize {
				next.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(&statusWriter{ResponseWriter: w, onStatus: func(code int) {
				if code/100 == 2 {
					mu.Lock()
					if forgotten == "" {
						forgotten = sid
					}
					mu.Unlock()
				}
			}}, r)
		})
	}
}

// statusWriter reports the status of an answer before it goes out.
type statusWriter struct {
	http.ResponseWriter
	onStatus func(int)
	wrote    bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		w.onStatus(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes on.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// cut plays scenStreamCut: its tool logs a message, then waits (at most
// AskTimeout) until the middleware has delivered that event and cut the
// stream, and answers; the answer waits in the engine's event store.
type cut struct {
	once sync.Once
	done chan struct{}
}

func (cut *cut) tool() server.Tool {
	return server.Tool{
		Def: mcp.Tool{Name: "echo_after_log", Description: "Logs a message, then echoes its text", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		Run: func(c *server.Call) (any, error) {
			c.Notify(spec.MethodLoggingMessage, map[string]any{"level": "info", "logger": "mcpcheck", "data": "the stage cuts this stream after this event"})
			timer := time.NewTimer(client.AskTimeout)
			defer timer.Stop()
			select {
			case <-cut.done:
			case <-timer.C:
			case <-c.Context().Done():
			}
			var s string
			_ = json.Unmarshal(c.Arguments()["text"], &s)
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text(s)}}, nil
		},
	}
}

// middleware cuts the SSE stream of every tools/call after the first
// flush that delivered an event with an id: from then on writes fail, so
// the engine ends the stream with the rest of its events stored.
func (cut *cut) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if jsonrpc.Decode(body).Method != spec.MethodToolsCall {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(&cutWriter{ResponseWriter: w, cut: cut}, r)
	})
}

// errStreamCut is what writes on a cut stream return.
var errStreamCut = fmt.Errorf("stage: the scenario %s cut this stream", scenStreamCut)

// cutWriter passes an SSE stream through until a flush has delivered
// an event with an id, then fails every write.
type cutWriter struct {
	http.ResponseWriter
	cut    *cut
	withID bool
	cutOff bool
}

func (w *cutWriter) Write(b []byte) (int, error) {
	if w.cutOff {
		return 0, errStreamCut
	}
	if bytes.HasPrefix(b, []byte("id:")) || bytes.Contains(b, []byte("\nid:")) {
		w.withID = true
	}
	return w.ResponseWriter.Write(b)
}

// Flush delivers what was written; after an event with an id it cuts.
func (w *cutWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.cutOff {
		f.Flush()
	}
	if w.withID && !w.cutOff {
		w.cutOff = true
		w.cut.once.Do(func() { close(w.cut.done) })
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *cutWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
