package transport

import (
	"fmt"
	"net/http"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Responses on the streams they belong to (streamable HTTP, 2025-03-26 ..
// 2025-11-25), judged over every session of the run: a response comes on
// the stream of the POST that carried its request, never on a stream a
// plain GET opened, and once. A GET with Last-Event-ID resumes a stream
// and may replay what belonged to it, responses included, so resumed
// streams are not held to either rule (transport-http/resume-same-stream judges
// what they replay).

var _ = server.Register(
	server.Def{
		ID: "transport-http/responses-on-own-streams", Area: "transport-http", Passive: true, Transports: server.HTTPOnly, Eras: server.Stateful, Since: spec.V20250326,
		Title:        "every response of the run came on its request's POST stream, once, and none on a GET stream that resumed nothing",
		Requirements: []string{"transport-http.get.no-responses", "transport-http.streams.no-broadcast"},
		Proofs: []server.Proof{
			{Fault: "response-on-get-stream", Version: spec.V20251125, Transport: "streamable", Also: []string{"progress/no-token-no-progress"}, Want: reports.Fail},
			{Fault: "response-on-get-stream", Version: spec.V20250618, Transport: "streamable", Also: []string{"progress/no-token-no-progress"}, Want: reports.Fail},
			{Fault: "response-on-get-stream", Version: spec.V20250326, Transport: "streamable", Also: []string{"progress/no-token-no-progress"}, Want: reports.Fail},
		},
		Body: func(t *server.T) {
			obs, _ := t.Observed()
			n, bad, wrong, declined := 0, 0, 0, 0
			for _, o := range obs {
				if !server.IsResponse(o.Frame) || o.HTTP == nil || o.Place.Stream == server.StreamResumed || o.Place.Stream == server.StreamUnknown {
					continue
				}
				if o.Place.Stream == server.StreamGet && !openedGetStream(o.Frame) {
					// The body of a GET the server declined (HTTP 405
					// with a JSON-RPC error, as the spec lets it decline
					// the stream): no stream was opened, so nothing in it
					// was sent on one.
					declined++
					continue
				}
				n++
				if o.Place.WrongID {
					// On its own POST's stream, with another id than its
					// message's: an id-echo fault (base/invalid-ids and
					// the other id checks), not the response to whichever
					// request that id names.
					wrong++
					continue
				}
				what := fmt.Sprintf("the response to %s (id %s, sent on %s) on %s of %s: %s", server.NonEmpty(o.Answers, "a request"), server.IDText(o.Frame), server.NonEmpty(o.Place.RequestStream, "an unknown stream"), o.Stream, server.SessionText(o), wire.Excerpt(o.Raw, 160))
				if o.Place.Stream == server.StreamGet {
					bad++
					t.Violation("transport-http.get.no-responses", "no JSON-RPC response on a stream a GET opened (unless it resumes an earlier stream)", what)
				}
				if o.Place.AnsweredOn != "" && o.Place.AnsweredOn != o.Stream {
					bad++
					t.Violation("transport-http.streams.no-broadcast", "each response on one stream only", fmt.Sprintf("%s, after it had come on %s", what, o.Place.AnsweredOn))
				}
				if bad >= 6 {
					break
				}
			}
			if declined > 0 {
				t.Saw("%d JSON-RPC bodies of GETs the server declined (no 200 text/event-stream), judged as no stream", declined)
			}
			switch {
			case bad > 0:
			case n == 0:
				t.ObservedUnjudged("no response was received over streamable HTTP in this run", true)
			default:
				t.Saw("%d responses, each once on its request's stream", n)
				if wrong > 0 {
					t.Saw("%d of them with another id than the message their POST carried (an id-echo fault the id checks judge, not the response to the request that id names)", wrong)
				}
				t.Pass()
			}
		},
	},
)

// openedGetStream reports whether f came on the stream a GET opened: an
// SSE event of a GET answered 200 (text/event-stream). Any other answer
// to a GET (405 declining the stream, with or without a JSON body) opened
// none.
func openedGetStream(f wire.Frame) bool {
	return f.InSSE && f.Status() == http.StatusOK
}
