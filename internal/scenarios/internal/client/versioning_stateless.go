package client

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The versioning rules of 2026-07-28: an UnsupportedProtocolVersionError is
// answered by a retry with a supported version, and the era verdict is kept.
var _ = Register(
	Def{
		ID: "client/versioning/stateless-retry-supported", Area: "versioning", Eras: StatelessEra,
		Scenarios:    []string{StatelessScenRequestMetadata},
		Title:        "after UnsupportedProtocolVersionError the client retries with a version from error.data.supported",
		Requirements: []string{"versioning.negotiation.client-retries-supported"},
		Proofs:       []Proof{{Fault: "ignore-unsupported-version", Want: reports.Warn}, {Fault: "ignore-unsupported-version", Transport: Streamable, Want: reports.Warn}},
		Body: func(t *T) {
			n := 0
			for _, c := range t.Cases() {
				for _, a := range c.answers(stage.FromStage, stage.FromClient) {
					if !a.Found || a.Response.Msg.Error == nil || a.Response.Msg.Error.Code != jsonrpc.UnsupportedProtocolVersion {
						continue
					}
					var d mcp.UnsupportedProtocolVersionData
					_ = json.Unmarshal(a.Response.Msg.Error.Data, &d)
					n++
					var later []string
					adopted := false
					for _, m := range c.Requests("") {
						if m.Seq <= a.Response.Seq {
							continue
						}
						v := slRequestVersion(m)
						later = append(later, fmt.Sprintf("%s with %q", m.Msg.Method, v))
						if contains(d.Supported, v) {
							adopted = true
							break
						}
					}
					switch {
					case adopted:
						t.Saw("after -32022 on %s the client went on with a supported version (%s)", a.Request.Msg.Method, c.Scenario.Name)
					case len(later) == 0:
						t.Fail("a retry with a version from error.data.supported "+fmt.Sprint(d.Supported)+" (the version the client was run with is among them)",
							fmt.Sprintf("after -32022 on %s the client sent no further request; it %s (%s)", a.Request.Msg.Method, c.Exit, c.Scenario.Name))
					default:
						t.Fail("a retry with a version from error.data.supported "+fmt.Sprint(d.Supported),
							fmt.Sprintf("after -32022 on %s the client sent %s (%s)", a.Request.Msg.Method, strings.Join(later, ", "), c.Scenario.Name))
					}
				}
			}
			if !t.NeedAction(n > 0, "send a request (the stage refuses the first one with -32022)") {
				return
			}
			t.Pass()
		},
	},
	Def{
		ID: "client/versioning/stateless-era-cached", Area: "versioning", Eras: StatelessEra,
		Title:        "the client settles the server's era once per connection (HTTP origin) instead of probing with server/discover before every request",
		Requirements: []string{"versioning.compat.client-caches-era"},
		Proofs:       []Proof{{Fault: "reprobe-era", Want: reports.Warn}, {Fault: "reprobe-era", Transport: Streamable, Want: reports.Warn}},
		Body: func(t *T) {
			n := 0
			for _, c := range t.Cases() {
				// After falling back to initialize the client knows the
				// server is legacy: another probe there is a second guess.
				legacy := StatelessLegacy(c)
				inits := map[string]int{}
				for _, m := range c.Client() {
					s := c.Session(m)
					switch {
					case !legacy(m) || m.Msg.Shape != jsonrpc.KindRequest:
					case m.Msg.Method == spec.MethodInitialize:
						inits[s]++
						if inits[s] == 1 {
							n++
						}
					case m.Msg.Method == spec.MethodServerDiscover && inits[s] > 0:
						t.Fail("once a dual-era client has fallen back to initialize it keeps that verdict while the server lives",
							fmt.Sprintf("after initialize the client probed with server/discover again (%s)", Where(c, m)))
					}
				}
				// The client's initialize requests: one sent after a
				// successful discover shows the client did not take that
				// discover's answer (Claude Code under load sent its probe,
				// then initialize, and probed again when that failed), so
				// the era is settled by the next successful discover.
				var initSeqs []int
				for _, m := range c.Client() {
					if m.Msg.Shape == jsonrpc.KindRequest && m.Msg.Method == spec.MethodInitialize {
						initSeqs = append(initSeqs, m.Seq)
					}
				}
				initBetween := func(from, to int) bool {
					for _, seq := range initSeqs {
						if seq > from && seq < to {
							return true
						}
					}
					return false
				}
				for _, conn := range slConnections(c) {
					// A server/discover after the one that settled the era
					// is a second guess; the settling probe itself comes
					// before the first request, as it must.
					settled, reprobe, others, probed, settledAt := false, false, 0, 0, 0
					for i := range conn {
						m := conn[i]
						if m.Msg.Shape != jsonrpc.KindRequest {
							continue
						}
						if m.Msg.Method == spec.MethodServerDiscover {
							if settled && !initBetween(settledAt, m.Seq) {
								reprobe = true
							} else if ans, ok := c.StageAnswer(m); ok && ans.Msg.Shape == jsonrpc.KindResponse {
								settled, settledAt = true, m.Seq
							}
							continue
						}
						if settled {
							others++
							if reprobe {
								probed++
							}
						}
						reprobe = false
					}
					if others < 2 {
						continue
					}
					n++
					if probed == others {
						t.Fail("once server/discover has answered, the client keeps that verdict for the connection (HTTP origin)",
							fmt.Sprintf("each of the client's %d requests after a successful server/discover was preceded by another server/discover (%s)", others, c.Scenario.Name))
					}
				}
			}
			if n == 0 {
				t.NotApplicable("no connection saw two or more requests after a successful server/discover" + t.WhyNothing())
				return
			}
			t.Saw("%d connections without a server/discover before every request", n)
			t.Pass()
		},
	},
)
