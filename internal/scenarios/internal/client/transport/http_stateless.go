package transport

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The Streamable HTTP binding of 2026-07-28: what every POST carries.
var _ = client.Register(
	client.Def{
		ID: "client/transport-http/stateless-version-header", Area: "transport-http", Eras: client.StatelessEra, Transports: client.StatelessHTTP,
		Title:        "every request POST carries MCP-Protocol-Version, equal to the body's _meta protocolVersion",
		Requirements: []string{"transport-http.protocol-version-header.on-every-post", "transport-http.protocol-version-header.matches-meta"},
		Proofs: []client.Proof{{Fault: "http-no-version-header", Transport: client.Streamable, Want: reports.Fail},
			{Fault: "http-version-header-mismatch", Transport: client.Streamable, Want: reports.Fail}},
		Body: func(t *client.T) {
			eachRequestPOST(t, "%d request POSTs, each with a matching MCP-Protocol-Version", func(c *client.Case, e stage.Event) {
				hv := e.HTTP.Header.Values("Mcp-Protocol-Version")
				if len(hv) == 0 {
					t.Violation("transport-http.protocol-version-header.on-every-post", "every POST carries an MCP-Protocol-Version header",
						fmt.Sprintf("POST of %s without it (%s)", e.Msg.Method, client.Where(c, e)))
					return
				}
				if mv, ok := client.MetaVersion(e); ok && (len(hv) != 1 || hv[0] != mv) {
					t.Violation("transport-http.protocol-version-header.matches-meta", "the MCP-Protocol-Version header equals _meta io.modelcontextprotocol/protocolVersion",
						fmt.Sprintf("POST of %s: header %q, _meta %q (%s)", e.Msg.Method, strings.Join(hv, ", "), mv, client.Where(c, e)))
				}
			})
		},
	},
	client.Def{
		ID: "client/transport-http/stateless-standard-headers", Area: "transport-http", Eras: client.StatelessEra, Transports: client.StatelessHTTP,
		Title:        "every request POST carries Mcp-Method (its method), and tools/call, prompts/get and resources/read carry Mcp-Name (the name or uri)",
		Requirements: []string{"transport-http.headers.standard-required"},
		Proofs:       []client.Proof{{Fault: "http-no-name-header", Transport: client.Streamable, Want: reports.Fail}},
		Body: func(t *client.T) {
			eachRequestPOST(t, "%d request POSTs with matching Mcp-Method and Mcp-Name", func(c *client.Case, e stage.Event) {
				if hm := e.HTTP.Header.Values("Mcp-Method"); len(hm) != 1 || hm[0] != e.Msg.Method {
					t.Fail("Mcp-Method carries the request's method", fmt.Sprintf("POST of %s with Mcp-Method %q (%s)", e.Msg.Method, strings.Join(hm, ", "), client.Where(c, e)))
				}
				want, named := client.StatelessNameTarget(e)
				if !named {
					return
				}
				hn := e.HTTP.Header.Values("Mcp-Name")
				if len(hn) != 1 {
					t.Fail("Mcp-Name carries params.name (tools/call, prompts/get) or params.uri (resources/read)",
						fmt.Sprintf("POST of %s %q with Mcp-Name %q (%s)", e.Msg.Method, want, strings.Join(hn, ", "), client.Where(c, e)))
					return
				}
				if got, err := mcp.DecodeHeaderValue(hn[0]); err != nil || got != want {
					t.Fail("Mcp-Name carries params.name (tools/call, prompts/get) or params.uri (resources/read), base64 in the =?base64?…?= form when not plain ASCII",
						fmt.Sprintf("POST of %s %q with Mcp-Name %q (%s)", e.Msg.Method, want, hn[0], client.Where(c, e)))
				}
			})
		},
	},
	client.Def{
		ID: "client/transport-http/stateless-metadata-headers", Area: "transport-http", Eras: client.StatelessEra, Transports: client.StatelessHTTP,
		Title:        "every request POST carries the request-metadata headers MCP-Protocol-Version, Mcp-Method and, where it applies, Mcp-Name",
		Requirements: []string{"transport-http.post.metadata-headers"},
		Proofs:       []client.Proof{{Fault: "http-no-method-header", Transport: client.Streamable, Want: reports.Fail}},
		Body: func(t *client.T) {
			eachRequestPOST(t, "%d request POSTs, none missing a request-metadata header", func(c *client.Case, e stage.Event) {
				need := []string{"MCP-Protocol-Version", "Mcp-Method"}
				if _, named := client.StatelessNameTarget(e); named {
					need = append(need, "Mcp-Name")
				}
				var missing []string
				for _, h := range need {
					if len(e.HTTP.Header.Values(h)) == 0 {
						missing = append(missing, h)
					}
				}
				if len(missing) > 0 {
					t.Fail("every request POST carries "+strings.Join(need, ", "), fmt.Sprintf("POST of %s without %s (%s)", e.Msg.Method, strings.Join(missing, ", "), client.Where(c, e)))
				}
			})
		},
	},
	client.Def{
		ID: "client/transport-http/stateless-post-body", Area: "transport-http", Eras: client.StatelessEra, Transports: client.StatelessHTTP,
		Title:        "every POST body is exactly one JSON-RPC request or notification",
		Requirements: []string{"transport-http.post.body-request-or-notification"},
		Proofs:       []client.Proof{{Fault: "http-post-batch", Transport: client.Streamable, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, e := range mcpPOSTs(c) {
					n++
					why := ""
					switch {
					case e.Kind == wire.KindHTTPRequest:
						why = "an empty body"
					case e.Kind != wire.KindMessage:
						why = "a body that is no JSON-RPC message: " + wire.Excerpt(e.Raw, 120)
					case e.Msg.Has(jsonrpc.ReasonBatch):
						why = "a batch array: " + client.Excerpt(e)
					case e.Msg.Shape.IsResponse():
						why = "a response: " + client.Excerpt(e)
					case e.Msg.Shape != jsonrpc.KindRequest && e.Msg.Shape != jsonrpc.KindNotification:
						why = "neither a request nor a notification: " + client.Excerpt(e)
					}
					if why != "" {
						bad++
						t.Fail("one JSON-RPC request or notification per POST", fmt.Sprintf("a POST with %s (%s)", why, client.Where(c, e)))
					}
				}
			}
			t.Settle(n, bad, "the client sent no 2026-07-28 POST", "%d POSTs, each one request or notification")
		},
	},
	client.Def{
		ID: "client/transport-http/stateless-no-responses", Area: "transport-http", Eras: client.StatelessEra, Transports: client.StatelessHTTP,
		Title:        "the client never POSTs a JSON-RPC response",
		Requirements: []string{"transport-http.post.client-no-responses"},
		Proofs:       []client.Proof{{Fault: "http-stray-response", Transport: client.Streamable, Want: reports.Fail}},
		Body:         client.StatelessNoResponses,
	},
	client.Def{
		ID: "client/transport-http/stateless-inspect-400-body", Area: "transport-http", Eras: client.StatelessEra, Transports: client.StatelessHTTP,
		Scenarios:    []string{client.StatelessScenRequestMetadata},
		Title:        "on HTTP 400 with a 2026-07-28 error in the body the client does not fall back to initialize",
		Requirements: []string{"transport-http.compat.inspect-400-body"},
		Proofs:       []client.Proof{{Fault: "fallback-on-modern-400", Transport: client.Streamable, Want: reports.Warn}},
		Body: func(t *client.T) {
			n := 0
			for _, c := range t.Cases() {
				for _, e := range c.From(stage.FromStage) {
					if e.HTTP == nil || e.HTTP.Status != http.StatusBadRequest || e.Msg.Error == nil || !modernError(e.Msg.Error.Code) {
						continue
					}
					n++
					for _, m := range c.Requests(spec.MethodInitialize) {
						if m.Seq > e.Seq {
							t.Fail("a 400 whose body is a 2026-07-28 error ("+jsonrpc.CodeName(e.Msg.Error.Code)+") means a modern server: retry or correct the request, do not fall back to initialize",
								fmt.Sprintf("after HTTP 400 with error %d the client sent initialize: %s (%s)", e.Msg.Error.Code, client.Excerpt(m), client.Where(c, m)))
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
	client.Def{
		ID: "client/transport-http/stateless-header-name-case", Area: "transport-http", Eras: client.StatelessEra, Transports: client.StatelessHTTP,
		Scenarios:    []string{client.StatelessScenFlow, client.StatelessScenHeaderCase},
		Title:        "the client reads response headers whatever the letter case of their names",
		Requirements: []string{"transport-http.headers.case-insensitive-names"},
		Unprovable:   "the reference client reads HTTP through Go's net/http, which canonicalizes header names while parsing a response, so no switch can make it look a name up case-sensitively; the check compares the client's progress with response header names in unusual case against the baseline",
		Body: func(t *client.T) {
			cs := client.StatelessCasesByName(t)
			c := cs[client.StatelessScenHeaderCase]
			if c == nil {
				t.NotApplicable("the header-case scenario did not run")
				return
			}
			ok, why := client.StatelessCompareWithFlow(cs[client.StatelessScenFlow], c)
			if why != "" {
				t.Untestable(why) // a whole sentence already, naming its scenario
				return
			}
			if !ok {
				t.Fail("with header names in unusual case (cONTENT-tYPE) the client still reads the answers and calls "+client.StatelessEchoTool+" as in "+client.StatelessScenFlow,
					fmt.Sprintf("the client never called %s in %s (it %s)", client.StatelessEchoTool, c.Scenario.Name, c.Exit))
				return
			}
			t.Saw("with header names in inverted case the client went on to call %s", client.StatelessEchoTool)
			t.Pass()
		},
	},
	client.Def{
		ID: "client/transport-http/stateless-param-header-integers", Area: "transport-http", Eras: client.StatelessEra, Transports: client.StatelessHTTP,
		Title:        "an integer argument mirrored into an Mcp-Param-* header is within the JavaScript safe range",
		Requirements: []string{"transport-http.param-headers.integer-safe-range"},
		Proofs:       []client.Proof{{Fault: "param-header-unsafe-integer", Transport: client.Streamable, Want: reports.Fail}},
		Body: func(t *client.T) {
			n := 0
			for _, c := range t.Cases() {
				schemas := toolSchemas(c)
				requestPOSTs(c, func(e stage.Event) {
					if e.Msg.Method != spec.MethodToolsCall {
						return
					}
					hp, err := mcp.HeaderParams(schemas[client.StatelessTarget(e)])
					if err != nil {
						return
					}
					args := client.StatelessParams(e)["arguments"]
					for _, p := range hp {
						if p.Type != "integer" {
							continue
						}
						vals := e.HTTP.Header.Values(p.Header())
						if len(vals) == 0 && len(valueAt(args, p.Path)) == 0 {
							continue
						}
						n++
						for _, v := range vals {
							text, err := mcp.DecodeHeaderValue(v)
							if err != nil {
								text = v
							}
							if i, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64); err == nil && i <= maxSafeInteger && i >= -maxSafeInteger {
								continue
							}
							t.Fail("an integer header value between -(2^53-1) and 2^53-1",
								fmt.Sprintf("tools/call %s sent %s: %s (%s)", client.StatelessTarget(e), p.Header(), v, client.Where(c, e)))
						}
					}
				})
			}
			if n == 0 {
				client.StatelessUntestableIn(t, client.StatelessScenCustomHeaders, "call a tool whose integer argument is mirrored into a header (test_custom_headers with the context's arguments)")
				return
			}
			t.Saw("%d integer header arguments, none beyond the safe range", n)
			t.Pass()
		},
	},
	client.Def{
		ID: "client/transport-http/stateless-base64-sentinel", Area: "transport-http", Eras: client.StatelessEra, Transports: client.StatelessHTTP,
		Title:        "base64 header values use exactly the lowercase markers =?base64? and ?=",
		Requirements: []string{"transport-http.param-headers.sentinel-lowercase"},
		Proofs:       []client.Proof{{Fault: "http-uppercase-sentinel", Transport: client.Streamable, Want: reports.Fail}},
		Body: func(t *client.T) {
			n := 0
			for _, c := range t.Cases() {
				schemas := toolSchemas(c)
				requestPOSTs(c, func(e stage.Event) {
					for name, vals := range e.HTTP.Header {
						if name != "Mcp-Name" && !strings.HasPrefix(name, "Mcp-Param-") {
							continue
						}
						for _, v := range vals {
							if !looksLikeSentinel(v) {
								continue
							}
							if !strings.HasPrefix(v, "=?base64?") {
								if plain, ok := headerSource(e, name, schemas); ok && plain == v {
									continue // a plain value that merely looks like the sentinel in another case
								}
							}
							n++
							if strings.HasPrefix(v, "=?base64?") {
								continue
							}
							t.Fail("the base64 form is =?base64?…?= in exactly this (lowercase) spelling",
								fmt.Sprintf("%s %s: %s (%s)", e.Msg.Method, name, v, client.Where(c, e)))
						}
					}
				})
			}
			if n == 0 {
				client.StatelessUntestableIn(t, client.StatelessScenCustomHeaders, "send a header value that needs base64 (test_custom_headers with the context's arguments)")
				return
			}
			t.Saw("%d base64 header values, all with the lowercase markers", n)
			t.Pass()
		},
	},
)

// The stateless era's helpers only these checks use.

// maxSafeInteger is the largest integer JavaScript holds exactly.
const maxSafeInteger = 1<<53 - 1

// eachRequestPOST calls judge with every POST of a 2026-07-28 request (not
// a notification: this revision defines no headers for those) in the
// check's cases, and settles the check on how many there were.
func eachRequestPOST(t *client.T, saw string, judge func(c *client.Case, e stage.Event)) {
	n := 0
	for _, c := range t.Cases() {
		requestPOSTs(c, func(e stage.Event) {
			n++
			judge(c, e)
		})
	}
	t.Settle(n, 0, "the client sent no 2026-07-28 request over HTTP", saw)
}

func requestPOSTs(c *client.Case, f func(e stage.Event)) {
	for _, e := range mcpPOSTs(c) {
		if e.Kind != wire.KindMessage || e.Msg.Shape != jsonrpc.KindRequest || e.Msg.Has(jsonrpc.ReasonBatch) {
			continue
		}
		f(e)
	}
}

// mcpPOSTs returns the client's POSTs to the MCP endpoint outside legacy
// sessions.
func mcpPOSTs(c *client.Case) []stage.Event {
	legacy, ep := client.StatelessLegacy(c), client.StatelessEndpoint(c)
	var out []stage.Event
	for _, e := range c.HTTPRequests() {
		if e.HTTP.Method == http.MethodPost && client.StatelessPath(e) == ep && !legacy(e) {
			out = append(out, e)
		}
	}
	return out
}

// headerSource returns the text the header name carries before encoding:
// the Mcp-Name target, or the tools/call argument an Mcp-Param-* header
// mirrors according to the tool's listed inputSchema.
func headerSource(e stage.Event, name string, schemas map[string]json.RawMessage) (string, bool) {
	if name == "Mcp-Name" {
		return client.StatelessNameTarget(e)
	}
	if e.Msg.Method != spec.MethodToolsCall {
		return "", false
	}
	hp, err := mcp.HeaderParams(schemas[client.StatelessTarget(e)])
	if err != nil {
		return "", false
	}
	for _, p := range hp {
		if http.CanonicalHeaderKey(p.Header()) == name {
			text, ok, err := mcp.HeaderArgValue(valueAt(client.StatelessParams(e)["arguments"], p.Path))
			return text, ok && err == nil
		}
	}
	return "", false
}

// looksLikeSentinel reports whether v has the base64 markers in any
// letter case.
func looksLikeSentinel(v string) bool {
	const prefix, suffix = "=?base64?", "?="
	return len(v) >= len(prefix)+len(suffix) && strings.EqualFold(v[:len(prefix)], prefix) && strings.HasSuffix(v, suffix)
}

// toolSchemas maps the tools the stage listed in c to their
// inputSchema.
func toolSchemas(c *client.Case) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, m := range c.Requests(spec.MethodToolsList) {
		ans, ok := c.StageAnswer(m)
		if !ok || ans.Msg.Shape != jsonrpc.KindResponse {
			continue
		}
		var r struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		_ = json.Unmarshal(ans.Msg.Result, &r)
		for _, tl := range r.Tools {
			out[tl.Name] = tl.InputSchema
		}
	}
	return out
}

// valueAt follows path through nested argument objects.
func valueAt(args json.RawMessage, path []string) json.RawMessage {
	cur := args
	for _, step := range path {
		var obj map[string]json.RawMessage
		if json.Unmarshal(cur, &obj) != nil {
			return nil
		}
		cur = obj[step]
		if cur == nil {
			return nil
		}
	}
	return cur
}

// modernError reports whether code is one of the errors 2026-07-28
// introduced, which only a modern server sends.
func modernError(code int64) bool {
	switch code {
	case jsonrpc.UnsupportedProtocolVersion, jsonrpc.HeaderMismatch, jsonrpc.MissingRequiredClientCapability:
		return true
	}
	return false
}
