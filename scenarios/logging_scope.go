package scenarios

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Request-scoped logging over the whole run (2026-07-28): every log
// message the server sent, on any session, belongs to a request that
// named a logLevel. Over HTTP that request is the one whose POST opened
// the stream the message came on; over stdio, where a request's messages
// come before its response, it is one still in progress. A message on a
// subscriptions/listen stream (over stdio: one carrying a subscriptionId)
// belongs to no request. Messages the ledger cannot place are not judged.
// Below the requested level nothing is judged: the specification only
// allows messages at or above it, it states no duty.

var _ = Register(
	Def{
		ID: "logging/request-scoped", Area: "logging", Passive: true, Eras: stateless,
		Title:        "in 2026-07-28 every log notification of the run belongs to a request in progress that named a logLevel, and none comes on a subscriptions/listen stream",
		Requirements: []string{"logging.per-request.silent-without-level", "logging.per-request.only-on-request-stream"},
		Proofs: []Proof{
			{Fault: "log-without-level", Version: spec.V20260728, Also: []string{"logging/silent-without-level"}, Want: reports.Fail},
			{Fault: "log-without-level", Version: spec.V20260728, Transport: "streamable", Also: []string{"logging/silent-without-level"}, Want: reports.Fail},
			{Fault: "log-on-listen-stream", Version: spec.V20260728, Also: []string{"logging/per-request-stream"}, Want: reports.Fail},
			{Fault: "log-on-listen-stream", Version: spec.V20260728, Transport: "streamable", Also: []string{"logging/per-request-stream"}, Want: reports.Fail},
		},
		Body: func(t *T) {
			obs, _ := t.Observed()
			n, bad := 0, 0
			for _, o := range obs {
				if !isLog(o.Frame) || o.Place.Log == LogUntracked {
					continue
				}
				n++
				switch o.Place.Log {
				case LogNoLevel:
					bad++
					if bad <= 3 {
						where := "no request in progress on " + sessionText(o) + " named one"
						if o.Place.Opener != "" {
							where = fmt.Sprintf("it came on %s, the stream of a %s request without one", o.Stream, o.Place.Opener)
						}
						t.Violation("logging.per-request.silent-without-level", "log notifications only for a request whose _meta names io.modelcontextprotocol/logLevel", fmt.Sprintf("%s: %s", where, wire.Excerpt(o.Raw, 200)))
					}
				case LogListen:
					bad++
					if bad <= 3 {
						t.Violation("logging.per-request.only-on-request-stream", "log notifications only on the stream of the request that asked for them", fmt.Sprintf("on a subscriptions/listen stream (%s, %s): %s", o.Stream, sessionText(o), wire.Excerpt(o.Raw, 200)))
					}
				}
			}
			switch {
			case bad > 0:
			case n == 0:
				t.observedUnjudged("the server sent no log notification that could be placed in this run", true)
			default:
				t.Saw("%d log notifications, each for a request in progress that named a logLevel", n)
				t.Pass()
			}
		},
	},
)
