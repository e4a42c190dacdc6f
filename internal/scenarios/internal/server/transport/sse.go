package transport

import (
	"fmt"
	"net/http"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The 2024-11-05 HTTP+SSE transport: the SSE stream's first event is
// endpoint, messages are POSTed to it, and responses come on the stream.

var _ = server.Register(
	server.Def{
		ID: "transport-sse/endpoint-event-first", Area: "transport-sse", Transports: []wire.Transport{"sse"}, Unsupported: true,
		Title:        "the first event of the SSE stream is endpoint, naming the URI to POST to",
		Requirements: []string{"transport-sse.endpoint-event.on-connect"},
		Proofs:       []server.Proof{{Fault: "endpoint-not-first", Version: spec.V20241105, Transport: "sse", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Fresh()
			if c.Conn.LegacySSE() == nil {
				t.NotApplicable("the target is not reached over HTTP+SSE")
				return
			}
			obs := c.S().WaitFor(t.Ctx, expect.Options{Stream: wire.StreamSSE, Timeout: t.StepTimeout()}, expect.Matching("an endpoint event first", func(f wire.Frame) (expect.Verdict, string) {
				if f.Stream != wire.StreamSSE {
					return expect.Unrelated, ""
				}
				if f.Kind == wire.KindStatus || (f.Kind == wire.KindEmptyEvent && !f.InSSE) {
					return expect.Unrelated, ""
				}
				if f.Kind == wire.KindEndpoint && len(f.Raw) > 0 {
					return expect.Accepted, ""
				}
				return expect.Rejected, "the first event was " + f.Describe()
			}))
			if obs.OK() {
				t.Saw("endpoint event: %s", wire.Excerpt(obs.Frame.Raw, 200))
			}
			t.Judge(obs)
		},
	},
	server.Def{
		ID: "transport-sse/post-and-stream", Area: "transport-sse", Transports: []wire.Transport{"sse"},
		Title:        "a POST to the endpoint is accepted with 2xx and its response arrives on the SSE stream",
		Requirements: []string{"transport-sse.endpoints.sse-and-post"},
		Proofs:       []server.Proof{{Fault: "legacy-response-in-post", Version: spec.V20241105, Transport: "sse", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Session()
			if c.Conn.LegacySSE() == nil {
				t.NotApplicable("the target is not reached over HTTP+SSE")
				return
			}
			s := c.S()
			id, pst, err := s.Request(t.Ctx, spec.MethodPing, nil)
			t.Must(err)
			obs := s.WaitFor(t.Ctx, expect.Options{Timeout: t.StepTimeout()}, expect.AnyResponse(id))
			if !obs.OK() {
				t.Judge(obs)
				return
			}
			if obs.Frame.Stream != wire.StreamSSE {
				t.Fail("the response on the SSE stream", fmt.Sprintf("the response came on %s (%s)", obs.Frame.Stream, statusText(obs.Frame)))
				return
			}
			for _, f := range obs.Others {
				if f.Stream == pst && f.HTTP != nil && (f.Status() < 200 || f.Status() > 299) {
					t.Fail("the POST accepted with a 2xx status", "the POST was answered "+statusText(f))
					return
				}
				if f.Stream == pst && f.Status() == http.StatusAccepted {
					t.Saw("the POST was answered 202")
				}
			}
			t.Saw("the ping response arrived on the SSE stream")
			t.Pass()
		},
	},
)
