package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/mcpcheck/mcpcheck/harness/stage"
	"github.com/mcpcheck/mcpcheck/harness/wire"
	"github.com/mcpcheck/mcpcheck/reference/server"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec/mcp"
)

// The stateless era (2026-07-28): what every client request carries
// (_meta, and on HTTP the request-metadata headers), which message kinds a
// client may send at all, how it reads resultType, how it negotiates the
// version without a handshake and how it opens a stdio connection.
//
// Most checks here judge every 2026-07-28 scenario. Those about a reaction
// (a refused version, results without or with an unknown resultType,
// response headers in unusual letter case, another server identity) judge
// a scenario that provokes it, and the comparative ones hold the client to
// what it did in the baseline scenario mcpcheck-stateless-flow, which
// serves the same single tool in the ordinary way.

// Names of the stateless-era scenarios of this file.
const (
	slScenFlow               = "mcpcheck-stateless-flow"
	slScenResultAbsent       = "mcpcheck-result-type-absent"
	slScenResultUnknown      = "mcpcheck-result-type-unknown"
	slScenResultUnnegot      = "mcpcheck-result-type-unnegotiated"
	slScenIdentity           = "mcpcheck-server-identity"
	slScenHeaderCase         = "mcpcheck-http-header-case"
	slScenRequestMetadata    = "request-metadata"
	slScenStandardHeaders    = "http-standard-headers"
	slScenCustomHeaders      = "http-custom-headers"
	slScenInvalidToolHeaders = "http-invalid-tool-headers"
	slUnknownResultType      = "partial"
	slUnnegotiatedResult     = "task"
	slTasksExtension         = "io.modelcontextprotocol/tasks"
	slOtherServerName        = "mcpcheck-other-server"
	slStageServerName        = "mcp-conformance-test-server"
	slEchoTool               = "echo"
	slMaxSafeInteger         = 1<<53 - 1
)

var (
	slEra   = []spec.Era{spec.Stateless}
	slHTTP  = []string{Streamable}
	slStdio = []string{Stdio}
)

// slFlowStage serves the echo tool and nothing else: the baseline of the
// comparative checks, and the base of the scenarios compared with it.
func slFlowStage() stage.Config {
	return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{echoTool}}}
}

// slTools is what a tools/list result of the stage lists in the
// scenarios whose Director answers it.
func slTools() map[string]any {
	return map[string]any{"tools": []mcp.Tool{echoTool.Def}}
}

var _ = RegisterScenarios(
	Scenario{
		Name: slScenFlow, Eras: slEra,
		Title: "a 2026-07-28 server with one tool, echo, served as usual (the baseline the result-type, header-case and identity scenarios are compared with)",
		Stage: func(Env) stage.Config { return slFlowStage() },
	},
	Scenario{
		Name: slScenResultAbsent, Eras: slEra,
		Title: "as the baseline, but no result carries resultType, as a server of an earlier version would answer",
		Stage: func(Env) stage.Config {
			cfg := slFlowStage()
			cfg.Server.Rewrite = func(o server.Outgoing) [][]byte { return [][]byte{slStripResultType(o.Msg)} }
			return cfg
		},
	},
	Scenario{
		Name: slScenResultUnknown, Eras: slEra,
		Title: `as the baseline, but tools/list is answered with resultType "` + slUnknownResultType + `", which no version or extension defines`,
		Stage: func(Env) stage.Config {
			cfg := slFlowStage()
			cfg.Server.Director = func(c *server.Call) (any, error, bool) {
				if c.Method() != spec.MethodToolsList {
					return nil, nil, false
				}
				res := slTools()
				res["resultType"] = slUnknownResultType
				return res, nil, true
			}
			return cfg
		},
	},
	Scenario{
		Name: slScenResultUnnegot, Eras: slEra,
		Title: `as the baseline, but tools/list is answered with resultType "` + slUnnegotiatedResult + `" of the tasks extension, which the client did not negotiate`,
		Stage: func(Env) stage.Config {
			cfg := slFlowStage()
			cfg.Server.Director = func(c *server.Call) (any, error, bool) {
				if c.Method() != spec.MethodToolsList || slDeclaresExtension(c.ClientCapabilities(), slTasksExtension) {
					return nil, nil, false
				}
				res := slTools()
				res["resultType"] = slUnnegotiatedResult
				return res, nil, true
			}
			return cfg
		},
	},
	Scenario{
		Name: slScenIdentity, Eras: slEra,
		Title: "as the baseline, but the server names itself " + slOtherServerName + " 0.0.1 in the serverInfo of its results",
		Stage: func(Env) stage.Config {
			cfg := slFlowStage()
			cfg.Server.Info = &mcp.Implementation{Name: slOtherServerName, Version: "0.0.1"}
			return cfg
		},
	},
	Scenario{
		Name: slScenHeaderCase, Eras: slEra, Transports: slHTTP,
		Title: "as the baseline, but every response header name is sent in unusual letter case (cONTENT-tYPE)",
		Stage: func(Env) stage.Config {
			cfg := slFlowStage()
			cfg.Middleware = slOddHeaderCase
			return cfg
		},
	},
	Scenario{
		Name: slScenRequestMetadata, Eras: slEra,
		Title: "the stage refuses the client's first request with UnsupportedProtocolVersionError (-32022, HTTP 400) naming 2026-07-28 as supported, then serves the echo tool",
		Acts:  "connect and list the tools; the first request is refused with -32022, so retry it with a version from error.data.supported",
		Stage: func(env Env) stage.Config {
			var refused atomic.Bool
			cfg := slFlowStage()
			cfg.Server.Director = func(c *server.Call) (any, error, bool) {
				if !refused.CompareAndSwap(false, true) {
					return nil, nil, false
				}
				requested, _, _ := c.Meta().ProtocolVersion()
				return nil, &server.Error{Code: jsonrpc.UnsupportedProtocolVersion, Message: "Unsupported protocol version (mcpcheck refuses every first request)",
					Data: mcp.UnsupportedProtocolVersionData{Supported: []string{string(env.Version)}, Requested: requested}, HTTPStatus: http.StatusBadRequest}, true
			}
			return cfg
		},
	},
	Scenario{
		Name: slScenStandardHeaders, Eras: slEra, Transports: slHTTP,
		Title: "tools test_headers and my-hyphenated-tool, two resources and the prompt test_prompt: every request's Mcp-Method and Mcp-Name headers show",
		Acts:  "list and call every tool, list and read every resource, list and get every prompt",
		Stage: func(Env) stage.Config {
			return stage.Config{Server: server.Options{NoFixtures: true,
				Tools: []server.Tool{slTool("test_headers", `{"type":"object","properties":{}}`), slTool("my-hyphenated-tool", `{"type":"object","properties":{}}`)},
				Resources: []server.Resource{
					{Def: mcp.Resource{URI: "file:///path/to/file%20name.txt", Name: "file name", MimeType: "text/plain"}},
					{Def: mcp.Resource{URI: "https://example.com/resource?id=123", Name: "resource 123", MimeType: "text/plain"}},
				},
				Prompts: []server.Prompt{{Def: mcp.Prompt{Name: "test_prompt", Description: "A prompt without arguments"}}},
			}}
		},
	},
	Scenario{
		Name: slScenCustomHeaders, Eras: slEra, Transports: slHTTP,
		Title: "tools whose inputSchema mirrors arguments into Mcp-Param-* headers (x-mcp-header); MCP_CONFORMANCE_CONTEXT lists the calls to make, with values that need base64 and an integer outside the safe range",
		Acts:  "call the tools of MCP_CONFORMANCE_CONTEXT.toolCalls with their arguments, in order",
		Stage: func(Env) stage.Config {
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{
				slTool("test_custom_headers", slCustomHeadersSchema),
				slTool("test_custom_headers_null", `{"type":"object","properties":{"maybe":{"type":"string","x-mcp-header":"Maybe"}}}`),
			}}}
		},
		Context: func(Env, *stage.Case) string { return slCustomHeadersContext },
	},
	Scenario{
		Name: slScenInvalidToolHeaders, Eras: slEra, Transports: slHTTP,
		Title: "valid_tool and ten tools whose x-mcp-header annotations break the rules (which an HTTP client leaves out of its tool list)",
		Acts:  "list the tools and call valid_tool, none of the invalid_* tools",
		Stage: func(Env) stage.Config {
			tools := []server.Tool{slTool("valid_tool", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)}
			for _, bad := range slInvalidHeaderTools {
				tools = append(tools, slTool(bad[0], bad[1]))
			}
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: tools}}
		},
	},
)

// slCustomHeadersSchema annotates a string, a second string, an integer and a
// boolean; float_val and query are not mirrored.
const slCustomHeadersSchema = `{"type":"object","properties":{
"region":{"type":"string","x-mcp-header":"Region"},
"text":{"type":"string","x-mcp-header":"Text"},
"int_val":{"type":"integer","x-mcp-header":"Int-Val"},
"flag":{"type":"boolean","x-mcp-header":"Flag"},
"float_val":{"type":"number"},
"query":{"type":"string"}}}`

// slCustomHeadersContext is MCP_CONFORMANCE_CONTEXT of http-custom-headers:
// plain values, values that need base64 (non-ASCII, padding, a value that
// looks like the sentinel), a null, and last an integer beyond the
// JavaScript safe range, which no header may carry.
const slCustomHeadersContext = `{"name":"http-custom-headers","toolCalls":[
{"name":"test_custom_headers","arguments":{"region":"us-west1","text":"Hello, 世界","int_val":42,"flag":true,"float_val":1.5,"query":"SELECT 1"}},
{"name":"test_custom_headers","arguments":{"region":" padded ","text":"=?base64?literal?=","int_val":-7,"flag":false}},
{"name":"test_custom_headers_null","arguments":{"maybe":null}},
{"name":"test_custom_headers","arguments":{"region":"eu","int_val":100000000000000000}}]}`

// slInvalidHeaderTools are the invalid_* tools of http-invalid-tool-headers:
// name and inputSchema.
var slInvalidHeaderTools = [][2]string{
	{"invalid_empty_name", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`},
	{"invalid_object_type", `{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"Obj"}}}`},
	{"invalid_array_type", `{"type":"object","properties":{"a":{"type":"array","x-mcp-header":"Arr"}}}`},
	{"invalid_null_type", `{"type":"object","properties":{"a":{"type":"null","x-mcp-header":"Nul"}}}`},
	{"invalid_duplicate_same_case", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"Region"}}}`},
	{"invalid_duplicate_different_case", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"REGION"}}}`},
	{"invalid_space", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"My Header"}}}`},
	{"invalid_colon", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"My:Header"}}}`},
	{"invalid_non_ascii", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Régión"}}}`},
	{"invalid_control_char", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"My\u0001Header"}}}`},
}

// slTool is a tool with the given inputSchema that answers with its
// own name.
func slTool(name, schema string) server.Tool {
	return server.Tool{Def: mcp.Tool{Name: name, Description: "mcpcheck tool " + name, InputSchema: json.RawMessage(schema)}}
}

// slStripResultType removes resultType from a result message.
func slStripResultType(msg []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil || m["result"] == nil {
		return msg
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(m["result"], &res) != nil {
		return msg
	}
	if _, ok := res["resultType"]; !ok {
		return msg
	}
	delete(res, "resultType")
	m["result"], _ = json.Marshal(res)
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

// slOddHeaderCase sends every response header name in inverted letter case
// (Content-Type becomes cONTENT-tYPE), so that a client that looks header
// names up case-sensitively misses them.
func slOddHeaderCase(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&slOddCaseWriter{ResponseWriter: w}, r)
	})
}

type slOddCaseWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *slOddCaseWriter) WriteHeader(status int) {
	if !w.wrote {
		w.wrote = true
		h := w.ResponseWriter.Header()
		for k, v := range h {
			odd := slInvertCase(k)
			if odd == k || v == nil {
				continue
			}
			delete(h, k)
			h[odd] = v
			// A nil value under the canonical name stops net/http from
			// adding its own (a sniffed Content-Type) next to ours.
			h[k] = nil
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *slOddCaseWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *slOddCaseWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the writer underneath.
func (w *slOddCaseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func slInvertCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = c - 'a' + 'A'
		case c >= 'A' && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}

func slDeclaresExtension(caps mcp.ClientCapabilities, id string) bool {
	_, ok := caps.Extensions[id]
	return ok
}

// The base layer of 2026-07-28: _meta on every request, the directions
// messages travel, resultType, and neutrality towards the server's name.
var _ = Register(
	Def{
		ID: "client/base/request-meta", Area: "base", Eras: slEra,
		Title:        "every request carries _meta protocolVersion (a string) and clientCapabilities (an object)",
		Requirements: []string{"base.meta.required-request-fields"},
		Proofs:       []Proof{{Fault: "meta-no-capabilities", Want: reports.Fail}, {Fault: "meta-no-capabilities", Transport: Streamable, Want: reports.Fail}},
		Body: func(t *T) {
			t.EachMessage(Rule{Expected: "params._meta carries io.modelcontextprotocol/protocolVersion (a string) and io.modelcontextprotocol/clientCapabilities (an object)",
				None: "the client sent no 2026-07-28 request", Saw: "%d requests, each with protocolVersion and clientCapabilities in _meta"},
				slModernRequest(func(c *Case, m Msg) string {
					var missing []string
					meta := metaOf(m)
					if !slIsString(meta[mcp.MetaProtocolVersion]) {
						missing = append(missing, "protocolVersion "+slDescribeRaw(meta[mcp.MetaProtocolVersion]))
					}
					if !slIsObject(meta[mcp.MetaClientCapabilities]) {
						missing = append(missing, "clientCapabilities "+slDescribeRaw(meta[mcp.MetaClientCapabilities]))
					}
					if len(missing) == 0 {
						return ""
					}
					return fmt.Sprintf("%s (%s): %s; %s", m.Msg.Method, at(c, m), strings.Join(missing, ", "), excerpt(m))
				}))
		},
	},
	Def{
		ID: "client/base/client-info", Area: "base", Eras: slEra,
		Title:        "every request names the client in _meta io.modelcontextprotocol/clientInfo",
		Requirements: []string{"base.meta.client-info-on-requests"},
		Proofs:       []Proof{{Fault: "meta-no-client-info", Want: reports.Warn}},
		Body: func(t *T) {
			t.EachMessage(Rule{Expected: "params._meta carries io.modelcontextprotocol/clientInfo with a name and a version",
				None: "the client sent no 2026-07-28 request", Saw: "%d requests, each with clientInfo"},
				slModernRequest(func(c *Case, m Msg) string {
					raw := metaOf(m)[mcp.MetaClientInfo]
					var info struct {
						Name    *string `json:"name"`
						Version *string `json:"version"`
					}
					if raw != nil && json.Unmarshal(raw, &info) == nil && info.Name != nil && info.Version != nil {
						return ""
					}
					return fmt.Sprintf("%s (%s) has clientInfo %s", m.Msg.Method, at(c, m), slDescribeRaw(raw))
				}))
		},
	},
	Def{
		ID: "client/base/stateless-directions", Area: "base", Eras: slEra,
		Title:        "the client sends requests and notifications only, never a JSON-RPC response",
		Requirements: []string{"base.transport.binding-delivery-directions"},
		Proofs:       []Proof{{Fault: "stateless-stray-response", Want: reports.Fail}},
		Body:         slNoResponses,
	},
	Def{
		ID: "client/base/result-type-absent", Area: "base", Eras: slEra,
		Scenarios:    []string{slScenFlow, slScenResultAbsent, mrtrScenario},
		Title:        "a result without resultType is used as a complete one",
		Requirements: []string{"base.result-type.absent-means-complete"},
		Proofs:       []Proof{{Fault: "absent-result-type-invalid", Want: reports.Fail}},
		Body: func(t *T) {
			cs := slCasesByName(t)
			n := 0
			if c := cs[slScenResultAbsent]; c != nil {
				switch ok, why := slCompareWithFlow(cs[slScenFlow], c); {
				case why != "":
					t.Saw("%s", why)
				case ok:
					n++
					t.Saw("without resultType the client went on to call %s, as in the baseline (%s)", slEchoTool, c.Scenario.Name)
				default:
					n++
					t.Fail("results without resultType are complete results: the client uses the tools/list result and calls "+slEchoTool+" as it did in "+slScenFlow,
						fmt.Sprintf("the client never called %s in %s, where no result carries resultType (it %s)", slEchoTool, c.Scenario.Name, c.Exit))
				}
			}
			if c := cs[mrtrScenario]; c != nil {
				for _, req := range slToolCalls(c, mrtrNoResultType) {
					ans, ok := c.StageAnswer(req)
					if !ok || ans.Msg.Shape != jsonrpc.KindResponse {
						continue
					}
					n++
					t.Saw("the client got %s's result without resultType (%s)", mrtrNoResultType, c.Scenario.Name)
					for _, later := range c.Requests(spec.MethodToolsCall) {
						if later.Seq > ans.Seq && slTarget(later) == mrtrNoResultType && slHasMRTRFields(later) {
							t.Fail("a result without resultType is complete: no input_required retry follows it",
								fmt.Sprintf("after the result of %s without resultType the client retried it with inputResponses or requestState: %s (%s)", mrtrNoResultType, excerpt(later), at(c, later)))
							break
						}
					}
					break
				}
			}
			if n == 0 {
				t.NeedAction(false, "call "+slEchoTool+" after a tools/list result without resultType, or call "+mrtrNoResultType)
				return
			}
			t.Pass()
		},
	},
	Def{
		ID: "client/base/result-type-unknown", Area: "base", Eras: slEra,
		Scenarios:    []string{slScenFlow, slScenResultUnknown, slScenResultUnnegot},
		Title:        "a result whose resultType is unknown, or belongs to an extension not negotiated, is not used",
		Requirements: []string{"base.result-type.unknown-invalid", "base.result-type.supported-set"},
		Proofs: []Proof{{Fault: "accept-unknown-result-type", Want: reports.Fail},
			{Fault: "accept-unnegotiated-result-type", Want: reports.Fail}},
		Body: func(t *T) {
			cs := slCasesByName(t)
			base := cs[slScenFlow]
			n := 0
			for _, v := range []struct{ scen, req, rt string }{
				{slScenResultUnknown, "base.result-type.unknown-invalid", slUnknownResultType},
				{slScenResultUnnegot, "base.result-type.supported-set", slUnnegotiatedResult},
			} {
				c := cs[v.scen]
				if c == nil {
					continue
				}
				switch {
				case !slAnsweredResultType(c, spec.MethodToolsList, v.rt):
					t.Saw("in %s the stage sent no tools/list result with resultType %q (the client did not list tools, or declared the extension)", v.scen, v.rt)
				case slCalled(c, slEchoTool):
					n++
					t.Violation(v.req, fmt.Sprintf("a tools/list result with resultType %q is invalid: the client does not use the tools it lists", v.rt),
						fmt.Sprintf("the client called %s, which only that result listed (%s)", slEchoTool, v.scen))
				case base == nil || !slCalled(base, slEchoTool):
					t.Saw("in %s the client did not call %s, but it did not call it in the baseline %s either: nothing tells rejection from inaction", v.scen, slEchoTool, slScenFlow)
				default:
					n++
					t.Saw("with resultType %q the client did not use the listed tools (%s), though it called %s in the baseline", v.rt, v.scen, slEchoTool)
				}
			}
			if n == 0 {
				t.NeedAction(false, "list the tools and call "+slEchoTool)
				return
			}
			t.Pass()
		},
	},
	Def{
		ID: "client/base/identity-neutral", Area: "base", Eras: slEra,
		Scenarios:    []string{slScenFlow, slScenIdentity},
		Title:        "the client makes the same requests whatever name the server reports in serverInfo",
		Requirements: []string{"base.meta.implementation-info-no-behaviour-change"},
		Proofs:       []Proof{{Fault: "server-name-allowlist", Want: reports.Warn}},
		Body: func(t *T) {
			cs := slCasesByName(t)
			base, alt := cs[slScenFlow], cs[slScenIdentity]
			if base == nil || alt == nil {
				t.NotApplicable("the baseline or the identity scenario did not run")
				return
			}
			// Two launches compare only when both ran their course: one
			// that never connected, or was cut short while the other
			// ended by itself, says nothing about server names.
			for _, c := range []*Case{base, alt} {
				if !c.Traffic() {
					t.Untestable(fmt.Sprintf("nothing to compare: %s", c.untestableWhy("")))
					return
				}
			}
			if base.TimedOut != alt.TimedOut {
				cut, other := base, alt
				if alt.TimedOut {
					cut, other = alt, base
				}
				t.Untestable(fmt.Sprintf("nothing to compare: in %s the client was stopped at the case's time limit while in %s it %s, so their requests differ for another reason than the server's name",
					cut.Scenario.Name, other.Scenario.Name, other.Exit))
				return
			}
			a, b := slRequestSummary(base), slRequestSummary(alt)
			if !t.NeedAction(len(a) > 0, "make a request other than server/discover") {
				return
			}
			if strings.Join(a, ", ") != strings.Join(b, ", ") {
				t.Fail("the same requests whether the server calls itself "+slStageServerName+" or "+slOtherServerName,
					fmt.Sprintf("%s: [%s]; %s: [%s]", slScenFlow, strings.Join(a, ", "), slScenIdentity, strings.Join(b, ", ")))
				return
			}
			t.Saw("the same requests under both server names: %s", strings.Join(a, ", "))
			t.Pass()
		},
	},
)

// The versioning rules of 2026-07-28: an UnsupportedProtocolVersionError is
// answered by a retry with a supported version, and the era verdict is kept.
var _ = Register(
	Def{
		ID: "client/versioning/stateless-retry-supported", Area: "versioning", Eras: slEra,
		Scenarios:    []string{slScenRequestMetadata},
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
		ID: "client/versioning/stateless-era-cached", Area: "versioning", Eras: slEra,
		Title:        "the client settles the server's era once per connection (HTTP origin) instead of probing with server/discover before every request",
		Requirements: []string{"versioning.compat.client-caches-era"},
		Proofs:       []Proof{{Fault: "reprobe-era", Want: reports.Warn}, {Fault: "reprobe-era", Transport: Streamable, Want: reports.Warn}},
		Body: func(t *T) {
			n := 0
			for _, c := range t.Cases() {
				// After falling back to initialize the client knows the
				// server is legacy: another probe there is a second guess.
				legacy := slLegacy(c)
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
							fmt.Sprintf("after initialize the client probed with server/discover again (%s)", at(c, m)))
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
				t.NotApplicable("no connection saw two or more requests after a successful server/discover" + t.whyNothing())
				return
			}
			t.Saw("%d connections without a server/discover before every request", n)
			t.Pass()
		},
	},
)

// The stdio binding of 2026-07-28: the opening probe and the message kinds.
var _ = Register(
	Def{
		ID: "client/transport-stdio/stateless-probe-first", Area: "transport-stdio", Eras: slEra, Transports: slStdio,
		Title:        "on stdio the client's first request is server/discover with a 2026-07-28 version in _meta",
		Requirements: []string{"transport-stdio.compat.modern-client-probes", "transport-stdio.compat.dual-era-probe-discover"},
		Proofs:       []Proof{{Fault: "skip-discover-probe", Want: reports.Warn}},
		Body:         slProbeFirst,
	},
	Def{
		ID: "client/transport-stdio/stateless-no-responses", Area: "transport-stdio", Eras: slEra, Transports: slStdio,
		Title:        "the client writes only requests and notifications to the server's stdin",
		Requirements: []string{"transport-stdio.messages.client-no-responses"},
		Proofs:       []Proof{{Fault: "stdio-stray-response", Want: reports.Fail}},
		Body:         slNoResponses,
	},
)

// The Streamable HTTP binding of 2026-07-28: what every POST carries.
var _ = Register(
	Def{
		ID: "client/transport-http/stateless-version-header", Area: "transport-http", Eras: slEra, Transports: slHTTP,
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
		ID: "client/transport-http/stateless-standard-headers", Area: "transport-http", Eras: slEra, Transports: slHTTP,
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
		ID: "client/transport-http/stateless-metadata-headers", Area: "transport-http", Eras: slEra, Transports: slHTTP,
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
		ID: "client/transport-http/stateless-post-body", Area: "transport-http", Eras: slEra, Transports: slHTTP,
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
						why = "a batch array: " + excerpt(e)
					case e.Msg.Shape.IsResponse():
						why = "a response: " + excerpt(e)
					case e.Msg.Shape != jsonrpc.KindRequest && e.Msg.Shape != jsonrpc.KindNotification:
						why = "neither a request nor a notification: " + excerpt(e)
					}
					if why != "" {
						bad++
						t.Fail("one JSON-RPC request or notification per POST", fmt.Sprintf("a POST with %s (%s)", why, at(c, e)))
					}
				}
			}
			t.settle(n, bad, "the client sent no 2026-07-28 POST", "%d POSTs, each one request or notification")
		},
	},
	Def{
		ID: "client/transport-http/stateless-no-responses", Area: "transport-http", Eras: slEra, Transports: slHTTP,
		Title:        "the client never POSTs a JSON-RPC response",
		Requirements: []string{"transport-http.post.client-no-responses"},
		Proofs:       []Proof{{Fault: "http-stray-response", Transport: Streamable, Want: reports.Fail}},
		Body:         slNoResponses,
	},
	Def{
		ID: "client/transport-http/stateless-inspect-400-body", Area: "transport-http", Eras: slEra, Transports: slHTTP,
		Scenarios:    []string{slScenRequestMetadata},
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
								fmt.Sprintf("after HTTP 400 with error %d the client sent initialize: %s (%s)", e.Msg.Error.Code, excerpt(m), at(c, m)))
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
		ID: "client/transport-http/stateless-header-name-case", Area: "transport-http", Eras: slEra, Transports: slHTTP,
		Scenarios:    []string{slScenFlow, slScenHeaderCase},
		Title:        "the client reads response headers whatever the letter case of their names",
		Requirements: []string{"transport-http.headers.case-insensitive-names"},
		Unprovable:   "the reference client reads HTTP through Go's net/http, which canonicalizes header names while parsing a response, so no switch can make it look a name up case-sensitively; the check compares the client's progress with response header names in unusual case against the baseline",
		Body: func(t *T) {
			cs := slCasesByName(t)
			c := cs[slScenHeaderCase]
			if c == nil {
				t.NotApplicable("the header-case scenario did not run")
				return
			}
			ok, why := slCompareWithFlow(cs[slScenFlow], c)
			if why != "" {
				t.NeedAction(false, why)
				return
			}
			if !ok {
				t.Fail("with header names in unusual case (cONTENT-tYPE) the client still reads the answers and calls "+slEchoTool+" as in "+slScenFlow,
					fmt.Sprintf("the client never called %s in %s (it %s)", slEchoTool, c.Scenario.Name, c.Exit))
				return
			}
			t.Saw("with header names in inverted case the client went on to call %s", slEchoTool)
			t.Pass()
		},
	},
	Def{
		ID: "client/transport-http/stateless-param-header-integers", Area: "transport-http", Eras: slEra, Transports: slHTTP,
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
				slUntestableIn(t, slScenCustomHeaders, "call a tool whose integer argument is mirrored into a header (test_custom_headers with the context's arguments)")
				return
			}
			t.Saw("%d integer header arguments, none beyond the safe range", n)
			t.Pass()
		},
	},
	Def{
		ID: "client/transport-http/stateless-base64-sentinel", Area: "transport-http", Eras: slEra, Transports: slHTTP,
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
				slUntestableIn(t, slScenCustomHeaders, "send a header value that needs base64 (test_custom_headers with the context's arguments)")
				return
			}
			t.Saw("%d base64 header values, all with the lowercase markers", n)
			t.Pass()
		},
	},
)

func init() {
	exclude(map[string]string{
		"base.error-code.accept-legacy-32002": "what a client makes of an error code is internal: a -32002 read as 'resource not found' and one read as any other failure of resources/read look the same on the wire (the read failed, the client goes on), so no bounded run can tell them apart",
	})
}

// slNoResponses fails every JSON-RPC response the client sent outside
// a session it opened with initialize (2026-07-28 has nothing for a client
// to answer), batched ones included.
func slNoResponses(t *T) {
	n, bad := 0, 0
	for _, c := range t.Cases() {
		legacy, ep := slLegacy(c), slEndpoint(c)
		for _, e := range c.Frames() {
			if e.Kind != wire.KindMessage || legacy(e) || e.HTTP != nil && slPath(e) != ep {
				continue
			}
			n++
			elems := []jsonrpc.Message{e.Msg}
			if e.Msg.Has(jsonrpc.ReasonBatch) {
				elems, _ = jsonrpc.DecodeBatch(e.Raw)
			}
			for _, m := range elems {
				if m.Shape.IsResponse() {
					bad++
					t.Fail("only requests and notifications from the client; in 2026-07-28 the server asks nothing the client could answer",
						fmt.Sprintf("a response: %s (%s)", wire.Excerpt(m.Raw, 200), at(c, e)))
					break
				}
			}
		}
	}
	t.settle(n, bad, "the client sent no 2026-07-28 message", "%d messages, none a response")
}

// slProbeFirst holds the first request of every stdio connection to
// server/discover with a 2026-07-28-era version in _meta.
func slProbeFirst(t *T) {
	n, bad := 0, 0
	for _, c := range t.Cases() {
		for _, s := range c.Sessions() {
			var first *Msg
			for i := range s {
				if s[i].From == stage.FromClient && s[i].Msg.Shape == jsonrpc.KindRequest {
					first = &s[i]
					break
				}
			}
			if first == nil {
				continue
			}
			n++
			v, _ := metaVersion(*first)
			switch {
			case first.Msg.Method != spec.MethodServerDiscover:
				bad++
				t.Fail("the first request on a stdio connection is server/discover", fmt.Sprintf("the first request was %s (%s)", first.Msg.Method, at(c, *first)))
			case spec.Version(v).Era() != spec.Stateless:
				bad++
				t.Fail("the server/discover probe names the client's preferred 2026-07-28-era version in _meta", fmt.Sprintf("it named %q (%s)", v, at(c, *first)))
			}
		}
	}
	t.settle(n, bad, "the client made no request on stdio", "%d stdio connections, each opened with a server/discover probe")
}

// slModernRequest adapts a judgement of one 2026-07-28 request for
// EachMessage: requests in sessions the client opened with initialize (a
// dual-era fallback) are not counted.
func slModernRequest(judge func(c *Case, m Msg) string) func(c *Case, m Msg) (bool, string) {
	legacy := map[*Case]func(stage.Event) bool{}
	return func(c *Case, m Msg) (bool, string) {
		if legacy[c] == nil {
			legacy[c] = slLegacy(c)
		}
		if m.Msg.Shape != jsonrpc.KindRequest || m.Msg.Has(jsonrpc.ReasonBatch) || legacy[c](m) {
			return false, ""
		}
		return true, judge(c, m)
	}
}

// slEachRequestPOST calls judge with every POST of a 2026-07-28 request (not
// a notification: this revision defines no headers for those) in the
// check's cases, and settles the check on how many there were.
func slEachRequestPOST(t *T, saw string, judge func(c *Case, e stage.Event)) {
	n := 0
	for _, c := range t.Cases() {
		slRequestPOSTs(c, func(e stage.Event) {
			n++
			judge(c, e)
		})
	}
	t.settle(n, 0, "the client sent no 2026-07-28 request over HTTP", saw)
}

func slRequestPOSTs(c *Case, f func(e stage.Event)) {
	for _, e := range slMCPPOSTs(c) {
		if e.Kind != wire.KindMessage || e.Msg.Shape != jsonrpc.KindRequest || e.Msg.Has(jsonrpc.ReasonBatch) {
			continue
		}
		f(e)
	}
}

// slLegacy returns a test for the events of c that belong to a legacy
// session: the client's initialize requests (always an initialize-based
// message), and, from an initialize the stage answered with a result on,
// everything in that session (Case.Session) — a dual-era client that fell
// back, whose messages there follow the version it negotiated.
func slLegacy(c *Case) func(e stage.Event) bool {
	start := map[string]int{}
	for _, m := range c.Requests(spec.MethodInitialize) {
		if ans, ok := c.StageAnswer(m); ok && ans.Msg.Shape == jsonrpc.KindResponse {
			if _, seen := start[c.Session(m)]; !seen {
				start[c.Session(m)] = m.Seq
			}
		}
	}
	return func(e stage.Event) bool {
		if e.IsMessage() && e.From == stage.FromClient && e.Msg.Method == spec.MethodInitialize {
			return true
		}
		if len(start) == 0 {
			return false
		}
		seq, ok := start[c.Session(e)]
		return ok && e.Seq >= seq
	}
}

// LegacyVersions returns, for the events of a case, the initialize-based
// version they follow when they belong to a legacy session (see slLegacy):
// the protocolVersion of the stage's initialize result in their session,
// or, for an initialize request without such a result, the version it
// offered (2025-11-25 when that is no initialize-based one). A dual-era
// client falls back to such a session in a 2026-07-28 case; checks that
// judge messages by the run's version (client/base/jsonrpc) should judge
// these by the version this returns. It reads the case once; the function
// it returns is cheap.
func (c *Case) LegacyVersions() func(e stage.Event) (spec.Version, bool) {
	legacy := slLegacy(c)
	negotiated := map[string]spec.Version{}
	for _, m := range c.Requests(spec.MethodInitialize) {
		ans, ok := c.StageAnswer(m)
		if !ok || ans.Msg.Shape != jsonrpc.KindResponse {
			continue
		}
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(ans.Msg.Result, &r)
		v := spec.Version(r.ProtocolVersion)
		if _, seen := negotiated[c.Session(m)]; !seen && v.Known() && v.Era() == spec.Stateful {
			negotiated[c.Session(m)] = v
		}
	}
	return func(e stage.Event) (spec.Version, bool) {
		if !legacy(e) {
			return "", false
		}
		if v, ok := negotiated[c.Session(e)]; ok {
			return v, true
		}
		var p mcp.InitializeParams
		_ = json.Unmarshal(e.Msg.Params, &p)
		if v := spec.Version(p.ProtocolVersion); v.Known() && v.Era() == spec.Stateful {
			return v, true
		}
		return spec.V20251125, true
	}
}

// slEndpoint is the path of the MCP endpoint in a case: where the client
// POSTed its first JSON-RPC request ("" when it POSTed none). POSTs
// elsewhere (an authorization server's endpoints) are not MCP messages.
func slEndpoint(c *Case) string {
	for _, e := range c.HTTPRequests() {
		if e.HTTP.Method == http.MethodPost && e.Kind == wire.KindMessage && e.Msg.Shape == jsonrpc.KindRequest {
			return slPath(e)
		}
	}
	return ""
}

// slPath is the path of an HTTP request event's URL.
func slPath(e stage.Event) string {
	if u, err := url.Parse(e.HTTP.URL); err == nil {
		return u.Path
	}
	return e.HTTP.URL
}

// slMCPPOSTs returns the client's POSTs to the MCP endpoint outside legacy
// sessions.
func slMCPPOSTs(c *Case) []stage.Event {
	legacy, ep := slLegacy(c), slEndpoint(c)
	var out []stage.Event
	for _, e := range c.HTTPRequests() {
		if e.HTTP.Method == http.MethodPost && slPath(e) == ep && !legacy(e) {
			out = append(out, e)
		}
	}
	return out
}

// slConnections returns the client's messages grouped by stdio
// connection, or over HTTP as one group (one origin), outside legacy
// sessions.
func slConnections(c *Case) [][]Msg {
	legacy := slLegacy(c)
	idx := map[string]int{}
	var out [][]Msg
	for _, m := range c.Client() {
		s := c.Session(m)
		if legacy(m) {
			continue
		}
		key := "http"
		if m.HTTP == nil {
			key = s
		}
		i, ok := idx[key]
		if !ok {
			i = len(out)
			idx[key] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], m)
	}
	return out
}

// slParams returns the members of a message's params object.
func slParams(m Msg) map[string]json.RawMessage {
	var p map[string]json.RawMessage
	_ = json.Unmarshal(m.Msg.Params, &p)
	return p
}

// slTarget returns what a tools/call or prompts/get names (params.name),
// or what a resources/read reads (params.uri); "" for other requests.
func slTarget(m Msg) string {
	s, _ := slNameTarget(m)
	return s
}

// slNameTarget returns the body value Mcp-Name mirrors, and whether the
// request's method has one.
func slNameTarget(m Msg) (string, bool) {
	var key string
	switch m.Msg.Method {
	case spec.MethodToolsCall, spec.MethodPromptsGet:
		key = "name"
	case spec.MethodResourcesRead:
		key = "uri"
	default:
		return "", false
	}
	var s string
	_ = json.Unmarshal(slParams(m)[key], &s)
	return s, true
}

// slHeaderSource returns the text the header name carries before encoding:
// the Mcp-Name target, or the tools/call argument an Mcp-Param-* header
// mirrors according to the tool's listed inputSchema.
func slHeaderSource(e stage.Event, name string, schemas map[string]json.RawMessage) (string, bool) {
	if name == "Mcp-Name" {
		return slNameTarget(e)
	}
	if e.Msg.Method != spec.MethodToolsCall {
		return "", false
	}
	hp, err := mcp.HeaderParams(schemas[slTarget(e)])
	if err != nil {
		return "", false
	}
	for _, p := range hp {
		if http.CanonicalHeaderKey(p.Header()) == name {
			text, ok, err := mcp.HeaderArgValue(slValueAt(slParams(e)["arguments"], p.Path))
			return text, ok && err == nil
		}
	}
	return "", false
}

// slLooksLikeSentinel reports whether v has the base64 markers in any
// letter case.
func slLooksLikeSentinel(v string) bool {
	const prefix, suffix = "=?base64?", "?="
	return len(v) >= len(prefix)+len(suffix) && strings.EqualFold(v[:len(prefix)], prefix) && strings.HasSuffix(v, suffix)
}

// slRequestVersion is the protocol version a request names: _meta, the
// offered version of an initialize, or over HTTP the MCP-Protocol-Version
// header when neither names one.
func slRequestVersion(m Msg) string {
	if v, ok := metaVersion(m); ok {
		return v
	}
	if m.Msg.Method == spec.MethodInitialize {
		// A fallback to the initialize handshake offers its version there.
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Msg.Params, &p)
		return p.ProtocolVersion
	}
	if m.HTTP != nil {
		return m.HTTP.Header.Get("Mcp-Protocol-Version")
	}
	return ""
}

// slHasMRTRFields reports whether a request carries inputResponses or
// requestState.
func slHasMRTRFields(m Msg) bool {
	p := slParams(m)
	_, a := p["inputResponses"]
	_, b := p["requestState"]
	return a || b
}

// slToolCalls returns the client's tools/call requests of the tool name.
func slToolCalls(c *Case, name string) []Msg {
	var out []Msg
	for _, m := range c.Requests(spec.MethodToolsCall) {
		if slTarget(m) == name {
			out = append(out, m)
		}
	}
	return out
}

// slCalled reports whether the client called the tool name.
func slCalled(c *Case, name string) bool { return len(slToolCalls(c, name)) > 0 }

// slUntestableIn ends a check that judges every scenario untestable,
// giving the reason of the one scenario that provokes what it needs (the
// others do not, so their reasons would only be noise).
func slUntestableIn(t *T, scenario, needs string) {
	for _, c := range t.Cases() {
		if c.Scenario.Name == scenario {
			t.Untestable(c.untestableWhy(needs))
			return
		}
	}
	t.NeedAction(false, needs)
}

// slCasesByName maps the check's cases by scenario name.
func slCasesByName(t *T) map[string]*Case {
	out := map[string]*Case{}
	for _, c := range t.Cases() {
		out[c.Scenario.Name] = c
	}
	return out
}

// slCompareWithFlow tells whether the client called the echo tool in c as it
// did in the baseline flow; why is set when the baseline shows no call
// (or did not run), so there is nothing to compare with, and when c did
// not run its course while the baseline did: a launch that never
// connected, or one stopped at the case's time limit while the baseline
// ended by itself, differs for another reason than the scenario's (a
// host starting slowly under load).
func slCompareWithFlow(base, c *Case) (ok bool, why string) {
	switch {
	case base == nil:
		return false, "the baseline scenario " + slScenFlow + " did not run"
	case !slCalled(base, slEchoTool):
		return false, base.untestableWhy("call the tool " + slEchoTool + " in the baseline, so there is nothing to compare with")
	case slCalled(c, slEchoTool):
		return true, ""
	case !c.Traffic():
		return false, "nothing to compare with the baseline: " + c.untestableWhy("")
	case c.TimedOut && !base.TimedOut:
		return false, fmt.Sprintf("nothing to compare with the baseline: in %s the client was stopped at the case's time limit while in %s it %s", c.Scenario.Name, base.Scenario.Name, base.Exit)
	}
	return false, ""
}

// slAnsweredResultType reports whether the stage answered a request of
// method with a result whose resultType is rt.
func slAnsweredResultType(c *Case, method, rt string) bool {
	for _, m := range c.Requests(method) {
		if ans, ok := c.StageAnswer(m); ok && ans.Msg.Shape == jsonrpc.KindResponse {
			if got, err := mcp.ResultTypeOf(ans.Msg.Result); err == nil && string(got) == rt {
				return true
			}
		}
	}
	return false
}

// slRequestSummary lists the client's requests other than server/discover
// as "method target", sorted: what it asked, whatever the order.
func slRequestSummary(c *Case) []string {
	var out []string
	for _, m := range c.Requests("") {
		if m.Msg.Method == spec.MethodServerDiscover {
			continue
		}
		s := m.Msg.Method
		if tg := slTarget(m); tg != "" {
			s += " " + tg
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// slToolSchemas maps the tools the stage listed in c to their
// inputSchema.
func slToolSchemas(c *Case) map[string]json.RawMessage {
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

// slValueAt follows path through nested argument objects.
func slValueAt(args json.RawMessage, path []string) json.RawMessage {
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

// slModernError reports whether code is one of the errors 2026-07-28
// introduced, which only a modern server sends.
func slModernError(code int64) bool {
	switch code {
	case jsonrpc.UnsupportedProtocolVersion, jsonrpc.HeaderMismatch, jsonrpc.MissingRequiredClientCapability:
		return true
	}
	return false
}

func slIsString(raw json.RawMessage) bool {
	var s string
	return raw != nil && json.Unmarshal(raw, &s) == nil
}

func slIsObject(raw json.RawMessage) bool {
	var o map[string]json.RawMessage
	return raw != nil && json.Unmarshal(raw, &o) == nil && o != nil
}

func slDescribeRaw(raw json.RawMessage) string {
	if raw == nil {
		return "missing"
	}
	return wire.Excerpt(raw, 80)
}

// The dual-era stdio scenarios: a stage that serves only 2025-11-25 and
// refuses the server/discover probe with -32601, -32602 or -32600, and the
// check that the fallback to initialize does not hang on one code. The
// messages of the legacy session a dual-era client opens there are held to
// the version negotiated in it (Case.SchemaVersion).

// slFallbackCodes are the errors the dual-era scenarios answer the probe
// with, as legacy servers do to a request before initialize.
var slFallbackCodes = []struct {
	code int64
	msg  string
}{
	{jsonrpc.MethodNotFound, "Method not found"},
	{jsonrpc.InvalidParams, "Invalid params: the session is not initialized"},
	{jsonrpc.InvalidRequest, "Invalid Request: initialize first"},
}

var _ = slRegisterDualEra()

func slRegisterDualEra() bool {
	var names []string
	for _, fc := range slFallbackCodes {
		fc := fc
		name := fmt.Sprintf("mcpcheck-stdio-legacy%d", fc.code)
		names = append(names, name)
		RegisterScenarios(Scenario{
			Name: name, Eras: slEra, Transports: slStdio,
			Title: fmt.Sprintf("a legacy stdio server: it serves only 2025-11-25 and answers server/discover with error %d", fc.code),
			Acts:  "probe with server/discover, fall back to initialize on the error, list every tool and call each once, then exit",
			Stage: func(Env) stage.Config {
				cfg := slFlowStage()
				cfg.Server.Versions = []spec.Version{spec.V20251125}
				cfg.Server.Rewrite = func(o server.Outgoing) [][]byte {
					m := jsonrpc.Decode(o.Msg)
					if o.Method != spec.MethodServerDiscover || m.Shape != jsonrpc.KindErrorResponse {
						return [][]byte{o.Msg}
					}
					b, err := jsonrpc.NewErrorResponse(m.ID, fc.code, fc.msg, nil)
					if err != nil {
						return [][]byte{o.Msg}
					}
					return [][]byte{b}
				}
				return cfg
			},
		})
	}
	Register(Def{
		ID: "client/transport-stdio/stateless-fallback-any-error", Area: "transport-stdio", Eras: slEra, Transports: slStdio, Scenarios: names,
		Title:        "a dual-era client falls back to initialize whichever non-2026 error answers its server/discover probe",
		Requirements: []string{"transport-stdio.compat.fallback-any-error"},
		Proofs:       []Proof{{Fault: "fallback-only-on-32601", Want: reports.Fail}},
		Body: func(t *T) {
			var fell, stayed []string
			for _, c := range t.Cases() {
				if len(c.Requests(spec.MethodServerDiscover)) == 0 {
					continue
				}
				if len(c.Requests(spec.MethodInitialize)) > 0 {
					fell = append(fell, c.Scenario.Name)
				} else {
					stayed = append(stayed, fmt.Sprintf("%s (it %s)", c.Scenario.Name, c.Exit))
				}
			}
			switch {
			case len(fell) == 0:
				t.NotApplicable("the client fell back to initialize after none of the errors to its server/discover probe (-32601, -32602, -32600): it shows no dual-era behaviour on stdio" + t.whyNothing())
			case len(stayed) > 0:
				t.Fail("a dual-era client falls back to initialize on any error to its probe that is not a 2026-07-28 one",
					"it fell back in "+strings.Join(fell, ", ")+" but not in "+strings.Join(stayed, ", "))
			default:
				t.Saw("the client fell back to initialize in %s", strings.Join(fell, ", "))
				t.Pass()
			}
		},
	})
	return true
}
