package server

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
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
		ID: "logging/request-scoped", Area: "logging", Passive: true, Eras: Stateless,
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
						where := "no request in progress on " + SessionText(o) + " named one"
						if o.Place.Opener != "" {
							where = fmt.Sprintf("it came on %s, the stream of a %s request without one", o.Stream, o.Place.Opener)
						}
						t.Violation("logging.per-request.silent-without-level", "log notifications only for a request whose _meta names io.modelcontextprotocol/logLevel", fmt.Sprintf("%s: %s", where, wire.Excerpt(o.Raw, 200)))
					}
				case LogListen:
					bad++
					if bad <= 3 {
						t.Violation("logging.per-request.only-on-request-stream", "log notifications only on the stream of the request that asked for them", fmt.Sprintf("on a subscriptions/listen stream (%s, %s): %s", o.Stream, SessionText(o), wire.Excerpt(o.Raw, 200)))
					}
				}
			}
			switch {
			case bad > 0:
			case n == 0:
				t.ObservedUnjudged("the server sent no log notification that could be placed in this run", true)
			default:
				t.Saw("%d log notifications, each for a request in progress that named a logLevel", n)
				t.Pass()
			}
		},
	},
)

var _ = Register(
	// Isolated: it opens a listen stream of its own and judges only where
	// the logs of its own request go (a log on its listen stream, whoever
	// caused it, breaks the rule it judges); it announces nothing.
	Def{
		ID: "logging/per-request-stream", Isolated: true, Area: "logging", Eras: Stateless, Labels: []string{Fixture("test_tool_with_logging")},
		Title:        "in 2026-07-28 a request's log notifications go only to its own stream, never to a subscriptions/listen stream",
		Requirements: []string{"logging.per-request.only-on-request-stream"},
		Proofs:       []Proof{{Fault: "log-on-listen-stream", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			name, ok := loggingFixture(t)
			if !ok {
				return
			}
			filter, _, ok := subsFilter(t)
			if !ok {
				return
			}
			c := t.Session()
			_, mine, stop, ok := subsOpen(t, c, filter)
			defer stop()
			if !ok {
				return
			}
			r := t.CallTool(c.S(), name, nil, map[string]any{mcpLogLevel: "debug"})
			if !r.OK() {
				t.JudgeReply(r)
				return
			}
			frames := append(r.Observed.Others, r.Observed.Frame)
			misplaced := func(f wire.Frame) bool { return isLog(f) && mine(f) }
			late := c.S().WaitFor(t.Ctx, expect.Options{Timeout: t.Quiet()}, expect.Never("a log notification on the listen stream", misplaced), expect.Silence("no more logs"))
			frames = append(frames, late.Frame)
			frames = append(frames, late.Others...)
			own := 0
			for _, f := range frames {
				if !isLog(f) {
					continue
				}
				if mine(f) {
					t.Fail("log notifications of "+name+" only on its own response stream", "a log notification arrived on the subscriptions/listen stream: "+f.Describe())
					return
				}
				own++
			}
			if own == 0 {
				t.Untestable(name + " sent no log notification at level debug, so there was nothing to place")
				return
			}
			t.Saw("%d log notification(s), none on the listen stream", own)
			t.Pass()
		},
	},
)
