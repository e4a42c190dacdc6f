package transport

import (
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

// SSE streams of streamable HTTP: the priming event, event-id uniqueness,
// closing after the response, resumption with Last-Event-ID replaying
// only the stream it names, and the 2026-07-28 response-stream rules.

// httpSSEExchange sends a request and collects every frame of its POST
// stream up to and including the response. sse is false when the server
// answered with JSON.
func httpSSEExchange(t *server.T, c *server.Conn, method string) (id jsonrpc.ID, stream string, frames []wire.Frame, sse bool, obs expect.Observed) {
	s := c.S()
	id, stream, err := s.Request(t.Ctx, method, nil)
	t.Must(err)
	obs = t.AnswerOn(s, stream, expect.AnyResponse(id))
	for _, f := range append(append([]wire.Frame(nil), obs.Others...), obs.Frame) {
		if f.Stream == stream {
			frames = append(frames, f)
			if f.InSSE {
				sse = true
			}
		}
	}
	return
}

var _ = server.Register(
	server.Def{
		ID: "transport-http/sse-priming-event", Area: "transport-http", Transports: server.HTTPOnly, Eras: server.Stateful,
		Title:        "an SSE stream opened for a POST starts with an event that has an id and empty data",
		Requirements: []string{"transport-http.sse.prime-event-id"},
		Proofs:       []server.Proof{{Proxy: "strip-priming", Good: "plain", Version: spec.V20251125, Transport: "streamable", Want: reports.Warn}},
		Body: func(t *server.T) {
			c := t.Session()
			if t.HTTP(c) == nil {
				return
			}
			_, _, frames, sse, obs := httpSSEExchange(t, c, spec.MethodPing)
			if !obs.OK() {
				t.Judge(obs)
				return
			}
			if !sse {
				t.NotApplicable("the server answered the POST with application/json: no SSE stream to prime")
				return
			}
			f := frames[0]
			t.Saw("the first event of the stream: %s (id %q)", f.Describe(), f.EventID)
			if f.Kind == wire.KindEmptyEvent && f.HasEventID && f.EventID != "" {
				t.Pass()
				return
			}
			t.Fail("a first event with an id and an empty data field", fmt.Sprintf("the first event was %s (has id: %v)", f.Describe(), f.HasEventID))
		},
	},
	server.Def{
		ID: "transport-http/sse-event-ids-unique", Area: "transport-http", Transports: server.HTTPOnly, Eras: server.Stateful, Since: spec.V20250326,
		Title:        "SSE event ids never repeat across the streams of a session",
		Requirements: []string{"transport-http.resume.event-id-unique"},
		Proofs:       []server.Proof{{Proxy: "dup-event-ids", Good: "plain", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Session()
			if t.HTTP(c) == nil {
				return
			}
			seen := map[string]string{}
			n := 0
			for i := 0; i < 4; i++ {
				_, st, frames, _, obs := httpSSEExchange(t, c, spec.MethodPing)
				if !obs.OK() {
					t.Judge(obs)
					return
				}
				for _, f := range frames {
					if !f.HasEventID || f.EventID == "" {
						continue
					}
					n++
					if prev, ok := seen[f.EventID]; ok {
						t.Fail("every SSE event id unique within the session", fmt.Sprintf("event id %q appeared on %s and again on %s", f.EventID, prev, st))
						return
					}
					seen[f.EventID] = st
				}
			}
			if n == 0 {
				t.NotApplicable("the server put no event ids on its streams (ids are optional)")
				return
			}
			t.Saw("%d event ids on 4 POST streams, all distinct", n)
			t.Pass()
		},
	},
	server.Def{
		ID: "transport-http/sse-close-after-response", Area: "transport-http", Transports: server.HTTPOnly, Since: spec.V20250326,
		Title:        "a POST's SSE stream ends once the response has been sent",
		Requirements: []string{"transport-http.sse.close-after-response"},
		Proofs:       []server.Proof{{Proxy: "sse-hold-open", Version: spec.V20251125, Transport: "streamable", Want: reports.Warn}},
		Body: func(t *server.T) {
			c := t.Session()
			if t.HTTP(c) == nil {
				return
			}
			_, st, frames, sse, obs := httpSSEExchange(t, c, server.SentinelMethod(t.Version()))
			if !obs.OK() {
				t.Judge(obs)
				return
			}
			if !sse {
				t.NotApplicable("the server answered with application/json: no SSE stream")
				return
			}
			for _, f := range frames {
				if f.Kind == wire.KindEnd {
					t.Pass()
					return
				}
			}
			t.Judge(c.S().WaitFor(t.Ctx, expect.Options{Timeout: t.StepTimeout()}, expect.StreamEnd(st)))
		},
	},
	server.Def{
		ID: "transport-http/resume-same-stream", Area: "transport-http", Transports: server.HTTPOnly, Eras: server.Stateful, Since: spec.V20250326,
		Title:        "a GET with Last-Event-ID replays only the stream that event id belongs to",
		Requirements: []string{"transport-http.resume.no-cross-stream-replay", "transport-http.resume.event-id-identifies-stream"},
		Proofs:       []server.Proof{{Fault: "replay-all-streams", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Session()
			h := t.HTTP(c)
			if h == nil {
				return
			}
			t.Taint()
			_, _, fa, sse, obs := httpSSEExchange(t, c, spec.MethodPing)
			if !obs.OK() {
				t.Judge(obs)
				return
			}
			if !sse {
				t.NotApplicable("the server answered with application/json: no SSE stream to resume")
				return
			}
			last := ""
			for _, f := range fa {
				if f.HasEventID && f.EventID != "" {
					last = f.EventID
					break
				}
			}
			if last == "" {
				t.NotApplicable("the server's events carry no ids, so no stream can be resumed (resumption is optional)")
				return
			}
			idB, _, _, _, obsB := httpSSEExchange(t, c, spec.MethodPing)
			if !obsB.OK() {
				t.Judge(obsB)
				return
			}
			rst, err := h.Resume(t.Ctx, last)
			t.Must(err)
			defer h.CloseStream(rst)
			first := waitFirst(t, c, rst)
			if !first.OK() {
				t.Judge(first)
				return
			}
			if first.Frame.Status() != http.StatusOK {
				t.NotApplicable(fmt.Sprintf("the server does not resume the stream (resumption is optional): %s", statusText(first.Frame)))
				return
			}
			foreign := func(f wire.Frame) bool {
				return f.Stream == rst && f.Kind == wire.KindMessage && f.Msg.Method == "" && f.Msg.ID == idB
			}
			if foreign(first.Frame) {
				t.Fail("only events of the stream of Last-Event-ID "+last, "the resumed stream carried the response to another request: "+first.Frame.Describe())
				return
			}
			t.Judge(c.S().WaitFor(t.Ctx, expect.Options{Timeout: t.Quiet()},
				expect.Never(fmt.Sprintf("no replay of the response to %s, which belongs to another stream", idB), foreign),
				expect.StreamEnd(rst),
				expect.Silence("nothing from another stream within "+t.Quiet().String())))
		},
	},
	server.Def{
		ID: "transport-http/sse-x-accel-buffering", Area: "transport-http", Transports: server.HTTPOnly, Passive: true,
		Title:        "every SSE response stream carries X-Accel-Buffering: no",
		Requirements: []string{"transport-http.sse.x-accel-buffering"},
		Proofs:       []server.Proof{{Proxy: "strip-accel-buffering", Good: "plain", Version: spec.V20260728, Transport: "streamable", Also: []string{"subscriptions/listen-ack"}, Want: reports.Warn}},
		Body: func(t *server.T) {
			done := map[string]bool{}
			t.JudgeObserved(server.PassiveRule{
				Expected: "X-Accel-Buffering: no on every SSE response",
				Limit:    1,
				None:     "the server opened no SSE stream during the run",
				Saw:      "%d SSE responses, all with X-Accel-Buffering: no",
			}, func(o server.Observation) (bool, string) {
				if o.HTTP == nil || contentType(o.Frame) != wire.MediaSSE || done[fmt.Sprint(o.Conn, o.Stream)] {
					return false, ""
				}
				done[fmt.Sprint(o.Conn, o.Stream)] = true
				if v := strings.ToLower(strings.TrimSpace(o.HTTP.Header.Get("X-Accel-Buffering"))); v != "no" {
					return true, fmt.Sprintf("the SSE response of %s on connection %d had X-Accel-Buffering %q", o.Stream, o.Conn, v)
				}
				return true, ""
			})
		},
	},
	server.Def{
		ID: "transport-http/no-requests-on-response-streams", Area: "transport-http", Transports: server.HTTPOnly, Passive: true, Eras: server.Stateless,
		Title:        "in 2026-07-28 no JSON-RPC request arrives on a response stream",
		Requirements: []string{"transport-http.sse.no-server-requests"},
		Proofs:       []server.Proof{{Fault: "stateless-stream-request", Version: spec.V20260728, Transport: "streamable", Also: []string{"discovery/discover-result"}, Want: reports.Fail}},
		Body: func(t *server.T) {
			t.JudgeObserved(server.PassiveRule{
				Expected: "responses and notifications only on response streams",
				Limit:    1,
				None:     "nothing was received over HTTP",
			}, func(o server.Observation) (bool, string) {
				if o.Kind != wire.KindMessage || o.HTTP == nil {
					return false, ""
				}
				if o.Msg.Method != "" && !o.Msg.ID.IsZero() {
					return true, fmt.Sprintf("a request on %s: %s", o.Stream, o.Describe())
				}
				return true, ""
			})
		},
	},
)

var _ = server.Register(
	server.Def{
		ID: "transport-http/sse-cut-streams", Area: "transport-http", Transports: server.HTTPOnly, Eras: server.Stateful, Since: spec.V20250326,
		Title:        "a POST's SSE stream is not ended before its response (2025-03-26, 2025-06-18); from 2025-11-25 a stream cut early carries a retry field first",
		Requirements: []string{"transport-http.sse.keep-open-until-response", "transport-http.sse.retry-before-close"},
		Proofs: []server.Proof{
			{Proxy: "sse-cut", Version: spec.V20250618, Transport: "streamable", Want: reports.Warn},
			{Proxy: "sse-cut", Version: spec.V20251125, Transport: "streamable", Want: reports.Warn},
		},
		Body: func(t *server.T) {
			c := t.Session()
			if t.HTTP(c) == nil {
				return
			}
			methods := []string{spec.MethodPing, spec.MethodPing, spec.MethodPing}
			if t.HasCapability("tools") {
				methods = append(methods, spec.MethodToolsList)
			}
			streams, cut := 0, 0
			for _, m := range methods {
				_, st, frames, sse, obs := httpSSEExchange(t, c, m)
				if !sse {
					continue
				}
				streams++
				if obs.OK() {
					continue
				}
				if obs.Status != expect.Ended {
					t.Judge(obs)
					return
				}
				cut++
				retry := false
				for _, f := range frames {
					retry = retry || f.HasRetry
				}
				switch {
				case t.InForce("transport-http.sse.keep-open-until-response"):
					t.Violation("transport-http.sse.keep-open-until-response", "the stream kept open until the response was sent", fmt.Sprintf("the %s stream %s ended before its response", m, st))
				case !retry:
					t.Violation("transport-http.sse.retry-before-close", "an event with a retry field before the connection is closed early", fmt.Sprintf("the %s stream %s ended before its response without a retry field", m, st))
				}
			}
			if streams == 0 {
				t.NotApplicable("the server answered with application/json: no SSE stream")
				return
			}
			if t.Open() {
				t.Saw("%d SSE streams, %d cut before the response", streams, cut)
				t.Pass()
			}
		},
	},
)
