package client

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/harness/stage"
	"github.com/mcpcheck/mcpcheck/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec/mcp"
)

// The Streamable HTTP binding of 2026-07-28: what every POST carries.
var _ = Register(
	Def{
		ID: "client/transport-http/stateless-version-header", Area: "transport-http", Eras: StatelessEra, Transports: StatelessHTTP,
		Title:        "every request POST carries MCP-Protocol-Version, equal to the body's _meta protocolVersion",
		Requirements: []string{"transport-http.protocol-version-header.on-every-post", "transport-http.protocol-version-header.matches-meta"},
		Proofs: []Proof{{Fault: "http-no-version-header", Transport: Streamable, Want: reports.Fail},
			{Fault: "http-version-header-mismatch", Transport: Streamable, Want: reports.Fail}},
		Body: func(t *T) {
			slEachRequestPOST(t, "%d request POSTs, each with a matching MCP-Protocol-Version", func(c *Case, e stage.Event) {
				hv := e.HTTP.Header.Values("Mcp-Protocol-Version")
				if len(hv) == 0 {
					t.Violation("transport-http.protocol-version-header.on-every-post", "every POST carries an MCP-Protocol-Version header",
						fmt.Sprintf("POST of %s without it (%s)", e.Msg.Method, at(c, e)))
					return
				}
				if mv, ok := metaVersion(e); ok && (len(hv) != 1 || hv[0] != mv) {
					t.Violation("transport-http.protocol-version-header.matches-meta", "the MCP-Protocol-Version header equals _meta io.modelcontextprotocol/protocolVersion",
						fmt.Sprintf("POST of %s: header %q, _meta %q (%s)", e.Msg.Method, strings.Join(hv, ", "), mv, at(c, e)))
				}
			})
		},
	},
	Def{
		ID: "client/transport-http/stateless-standard-headers", Area: "transport-http", Eras: StatelessEra, Transports: StatelessHTTP,
		Title:        "every request POST carries Mcp-Method (its method), and tools/call, prompts/get and resources/read carry Mcp-Name (the name or uri)",
		Requirements: []string{"transport-http.headers.standard-required"},
		Proofs:       []Proof{{Fault: "http-no-name-header", Transport: Streamable, Want: reports.Fail}},
		Body: func(t *T) {
			slEachRequestPOST(t, "%d request POSTs with matching Mcp-Method and Mcp-Name", func(c *Case, e stage.Event) {
				if hm := e.HTTP.Header.Values("Mcp-Method"); len(hm) != 1 || hm[0] != e.Msg.Method {
					t.Fail("Mcp-Method carries the request's method", fmt.Sprintf("POST of %s with Mcp-Method %q (%s)", e.Msg.Method, strings.Join(hm, ", "), at(c, e)))
				}
				want, named := slNameTarget(e)
				if !named {
					return
				}
				hn := e.HTTP.Header.Values("Mcp-Name")
				if len(hn) != 1 {
					t.Fail("Mcp-Name carries params.name (tools/call, prompts/get) or params.uri (resources/read)",
						fmt.Sprintf("POST of %s %q with Mcp-Name %q (%s)", e.Msg.Method, want, strings.Join(hn, ", "), at(c, e)))
					return
				}
				if got, err := mcp.DecodeHeaderValue(hn[0]); err != nil || got != want {
					t.Fail("Mcp-Name carries params.name (tools/call, prompts/get) or params.uri (resources/read), base64 in the =?base64?…?= form when not plain ASCII",
						fmt.Sprintf("POST of %s %q with Mcp-Name %q (%s)", e.Msg.Method, want, hn[0], at(c, e)))
				}
			})
		},
	},
	Def{
		ID: "client/transport-http/stateless-metadata-headers", Area: "transport-http", Eras: StatelessEra, Transports: StatelessHTTP,
		Title:        "every request POST carries the request-metadata headers MCP-Protocol-Version, Mcp-Method and, where it applies, Mcp-Name",
		Requirements: []string{"transport-http.post.metadata-headers"},
		Proofs:       []Proof{{Fault: "http-no-method-header", Transport: Streamable, Want: reports.Fail}},
		Body: func(t *T) {
			slEachRequestPOST(t, "%d request POSTs, none missing a request-metadata header", func(c *Case, e stage.Event) {
				need := []string{"MCP-Protocol-Version", "Mcp-Method"}
				if _, named := slNameTarget(e); named {
					need = append(need, "Mcp-Name")
				}
				var missing []string
				for _, h := range need {
					if len(e.HTTP.Header.Values(h)) == 0 {
						missing = append(missing, h)
					}
				}
				if len(missing) > 0 {
					t.Fail("every request POST carries "+strings.Join(need, ", "), fmt.Sprintf("POST of %s without %s (%s)", e.Msg.Method, strings.Join(missing, ", "), at(c, e)))
				}
			})
		},
	},
	Def{
		ID: "client/transport-http/stateless-post-body", Area: "transport-http", Eras: StatelessEra, Transports: StatelessHTTP,
		Title:        "every POST body is exactly one JSON-RPC request or notification",
		Requirements: []string{"transport-http.post.body-request-or-notification"},
		Proofs:       []Proof{{Fault: "http-post-batch", Transport: Streamable, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, e := range slMCPPOSTs(c) {
					n++
					why := ""
					switch {
					case e.Kind == wire.KindHTTPRequest:
						why = "an empty body"
					case e.Kind != wire.KindMessage:
						why = "a body that is no JSON-RPC message: " + wire.Excerpt(e.Raw, 120)
					case e.Msg.Has(jsonrpc.ReasonBatch):
						why = "a batch array: " + Excerpt(e)
					case e.Msg.Shape.IsResponse():
						why = "a response: " + Excerpt(e)
					case e.Msg.Shape != jsonrpc.KindRequest && e.Msg.Shape != jsonrpc.KindNotification:
						why = "neither a request nor a notification: " + Excerpt(e)
					}
					if why != "" {
						bad++
						t.Fail("one JSON-RPC request or notification per POST", fmt.Sprintf("a POST with %s (%s)", why, at(c, e)))
					}
				}
			}
			t.Settle(n, bad, "the client sent no 2026-07-28 POST", "%d POSTs, each one request or notification")
		},
	},
	Def{
		ID: "client/transport-http/stateless-no-responses", Area: "transport-http", Eras: StatelessEra, Transports: StatelessHTTP,
		Title:        "the client never POSTs a JSON-RPC response",
		Requirements: []string{"transport-http.post.client-no-responses"},
		Proofs:       []Proof{{Fault: "http-stray-response", Transport: Streamable, Want: reports.Fail}},
		Body:         slNoResponses,
	},
	Def{
		ID: "client/transport-http/stateless-inspect-400-body", Area: "transport-http", Eras: StatelessEra, Transports: StatelessHTTP,
		Scenarios:    []string{StatelessScenRequestMetadata},
		Title:        "on HTTP 400 with a 2026-07-28 error in the body the client does not fall back to initialize",
		Requirements: []string{"transport-http.compat.inspect-400-body"},
		Proofs:       []Proof{{Fault: "fallback-on-modern-400", Transport: Streamable, Want: reports.Warn}},
		Body: func(t *T) {
			n := 0
			for _, c := range t.Cases() {
				for _, e := range c.From(stage.FromStage) {
					if e.HTTP == nil || e.HTTP.Status != http.StatusBadRequest || e.Msg.Error == nil || !slModernError(e.Msg.Error.Code) {
						continue
					}
					n++
					for _, m := range c.Requests(spec.MethodInitialize) {
						if m.Seq > e.Seq {
							t.Fail("a 400 whose body is a 2026-07-28 error ("+jsonrpc.CodeName(e.Msg.Error.Code)+") means a modern server: retry or correct the request, do not fall back to initialize",
								fmt.Sprintf("after HTTP 400 with error %d the client sent initialize: %s (%s)", e.Msg.Error.Code, Excerpt(m), at(c, m)))
							break
						}
					}
				}
			}
			if !t.NeedAction(n > 0, "send a request (the stage refuses the first one with HTTP 400 and -32022)") {
				return
			}
			t.Saw("%d HTTP 400 answers with a modern error, none followed by initialize", n)
			t.Pass()
		},
	},
	Def{
		ID: "client/transport-http/stateless-header-name-case", Area: "transport-http", Eras: StatelessEra, Transports: StatelessHTTP,
		Scenarios:    []string{StatelessScenFlow, StatelessScenHeaderCase},
		Title:        "the client reads response headers whatever the letter case of their names",
		Requirements: []string{"transport-http.headers.case-insensitive-names"},
		Unprovable:   "the reference client reads HTTP through Go's net/http, which canonicalizes header names while parsing a response, so no switch can make it look a name up case-sensitively; the check compares the client's progress with response header names in unusual case against the baseline",
		Body: func(t *T) {
			cs := slCasesByName(t)
			c := cs[StatelessScenHeaderCase]
			if c == nil {
				t.NotApplicable("the header-case scenario did not run")
				return
			}
			ok, why := slCompareWithFlow(cs[StatelessScenFlow], c)
			if why != "" {
				t.Untestable(why) // a whole sentence already, naming its scenario
				return
			}
			if !ok {
				t.Fail("with header names in unusual case (cONTENT-tYPE) the client still reads the answers and calls "+slEchoTool+" as in "+StatelessScenFlow,
					fmt.Sprintf("the client never called %s in %s (it %s)", slEchoTool, c.Scenario.Name, c.Exit))
				return
			}
			t.Saw("with header names in inverted case the client went on to call %s", slEchoTool)
			t.Pass()
		},
	},
	Def{
		ID: "client/transport-http/stateless-param-header-integers", Area: "transport-http", Eras: StatelessEra, Transports: StatelessHTTP,
		Title:        "an integer argument mirrored into an Mcp-Param-* header is within the JavaScript safe range",
		Requirements: []string{"transport-http.param-headers.integer-safe-range"},
		Proofs:       []Proof{{Fault: "param-header-unsafe-integer", Transport: Streamable, Want: reports.Fail}},
		Body: func(t *T) {
			n := 0
			for _, c := range t.Cases() {
				schemas := slToolSchemas(c)
				slRequestPOSTs(c, func(e stage.Event) {
					if e.Msg.Method != spec.MethodToolsCall {
						return
					}
					hp, err := mcp.HeaderParams(schemas[slTarget(e)])
					if err != nil {
						return
					}
					args := slParams(e)["arguments"]
					for _, p := range hp {
						if p.Type != "integer" {
							continue
						}
						vals := e.HTTP.Header.Values(p.Header())
						if len(vals) == 0 && len(slValueAt(args, p.Path)) == 0 {
							continue
						}
						n++
						for _, v := range vals {
							text, err := mcp.DecodeHeaderValue(v)
							if err != nil {
								text = v
							}
							if i, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64); err == nil && i <= slMaxSafeInteger && i >= -slMaxSafeInteger {
								continue
							}
							t.Fail("an integer header value between -(2^53-1) and 2^53-1",
								fmt.Sprintf("tools/call %s sent %s: %s (%s)", slTarget(e), p.Header(), v, at(c, e)))
						}
					}
				})
			}
			if n == 0 {
				slUntestableIn(t, StatelessScenCustomHeaders, "call a tool whose integer argument is mirrored into a header (test_custom_headers with the context's arguments)")
				return
			}
			t.Saw("%d integer header arguments, none beyond the safe range", n)
			t.Pass()
		},
	},
	Def{
		ID: "client/transport-http/stateless-base64-sentinel", Area: "transport-http", Eras: StatelessEra, Transports: StatelessHTTP,
		Title:        "base64 header values use exactly the lowercase markers =?base64? and ?=",
		Requirements: []string{"transport-http.param-headers.sentinel-lowercase"},
		Proofs:       []Proof{{Fault: "http-uppercase-sentinel", Transport: Streamable, Want: reports.Fail}},
		Body: func(t *T) {
			n := 0
			for _, c := range t.Cases() {
				schemas := slToolSchemas(c)
				slRequestPOSTs(c, func(e stage.Event) {
					for name, vals := range e.HTTP.Header {
						if name != "Mcp-Name" && !strings.HasPrefix(name, "Mcp-Param-") {
							continue
						}
						for _, v := range vals {
							if !slLooksLikeSentinel(v) {
								continue
							}
							if !strings.HasPrefix(v, "=?base64?") {
								if plain, ok := slHeaderSource(e, name, schemas); ok && plain == v {
									continue // a plain value that merely looks like the sentinel in another case
								}
							}
							n++
							if strings.HasPrefix(v, "=?base64?") {
								continue
							}
							t.Fail("the base64 form is =?base64?…?= in exactly this (lowercase) spelling",
								fmt.Sprintf("%s %s: %s (%s)", e.Msg.Method, name, v, at(c, e)))
						}
					}
				})
			}
			if n == 0 {
				slUntestableIn(t, StatelessScenCustomHeaders, "send a header value that needs base64 (test_custom_headers with the context's arguments)")
				return
			}
			t.Saw("%d base64 header values, all with the lowercase markers", n)
			t.Pass()
		},
	},
)
