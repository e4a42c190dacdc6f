package stateless

import (
	"encoding/json"
	"net/http"
	"sync/atomic"

	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// tasksExtension is the tasks extension's identifier; the other two are
// names of the official scenarios of the same name.
const (
	tasksExtension         = "io.modelcontextprotocol/tasks"
	scenStandardHeaders    = "http-standard-headers"
	scenInvalidToolHeaders = "http-invalid-tool-headers"
)

// tools is what a tools/list result of the stage lists in the
// scenarios whose Director answers it.
func tools() map[string]any {
	return map[string]any{"tools": []mcp.Tool{client.EchoTool.Def}}
}

var _ = client.RegisterScenarios(
	client.Scenario{
		Name: client.StatelessScenFlow, Eras: client.StatelessEra,
		Title: "a 2026-07-28 server with one tool, echo, served as usual (the baseline the result-type, header-case and identity scenarios are compared with)",
		Stage: func(client.Env) stage.Config { return client.StatelessFlowStage() },
	},
	client.Scenario{
		Name: client.StatelessScenResultAbsent, Eras: client.StatelessEra,
		Title: "as the baseline, but no result carries resultType, as a server of an earlier version would answer",
		Stage: func(client.Env) stage.Config {
			cfg := client.StatelessFlowStage()
			cfg.Server.Rewrite = func(o server.Outgoing) [][]byte { return [][]byte{client.StatelessStripResultType(o.Msg)} }
			return cfg
		},
	},
	client.Scenario{
		Name: client.StatelessScenResultUnknown, Eras: client.StatelessEra,
		Title: `as the baseline, but tools/list is answered with resultType "` + client.StatelessUnknownResultType + `", which no version or extension defines`,
		Stage: func(client.Env) stage.Config {
			cfg := client.StatelessFlowStage()
			cfg.Server.Director = func(c *server.Call) (any, error, bool) {
				if c.Method() != spec.MethodToolsList {
					return nil, nil, false
				}
				res := tools()
				res["resultType"] = client.StatelessUnknownResultType
				return res, nil, true
			}
			return cfg
		},
	},
	client.Scenario{
		Name: client.StatelessScenResultUnnegot, Eras: client.StatelessEra,
		Title: `as the baseline, but tools/list is answered with resultType "` + client.StatelessUnnegotiatedResult + `" of the tasks extension, which the client did not negotiate`,
		Stage: func(client.Env) stage.Config {
			cfg := client.StatelessFlowStage()
			cfg.Server.Director = func(c *server.Call) (any, error, bool) {
				if c.Method() != spec.MethodToolsList || declaresExtension(c.ClientCapabilities(), tasksExtension) {
					return nil, nil, false
				}
				res := tools()
				res["resultType"] = client.StatelessUnnegotiatedResult
				return res, nil, true
			}
			return cfg
		},
	},
	client.Scenario{
		Name: client.StatelessScenIdentity, Eras: client.StatelessEra,
		Title: "as the baseline, but the server names itself " + client.StatelessOtherServerName + " 0.0.1 in the serverInfo of its results",
		Stage: func(client.Env) stage.Config {
			cfg := client.StatelessFlowStage()
			cfg.Server.Info = &mcp.Implementation{Name: client.StatelessOtherServerName, Version: "0.0.1"}
			return cfg
		},
	},
	client.Scenario{
		Name: client.StatelessScenHeaderCase, Eras: client.StatelessEra, Transports: client.StatelessHTTP,
		Title: "as the baseline, but every response header name is sent in unusual letter case (cONTENT-tYPE)",
		Stage: func(client.Env) stage.Config {
			cfg := client.StatelessFlowStage()
			cfg.Middleware = oddHeaderCase
			return cfg
		},
	},
	client.Scenario{
		Name: client.StatelessScenRequestMetadata, Eras: client.StatelessEra,
		Title: "the stage refuses the client's first request with UnsupportedProtocolVersionError (-32022, HTTP 400) naming 2026-07-28 as supported, then serves the echo tool",
		Acts:  "connect and list the tools; the first request is refused with -32022, so retry it with a version from error.data.supported",
		Stage: func(env client.Env) stage.Config {
			var refused atomic.Bool
			cfg := client.StatelessFlowStage()
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
	client.Scenario{
		Name: scenStandardHeaders, Eras: client.StatelessEra, Transports: client.StatelessHTTP,
		Title: "tools test_headers and my-hyphenated-tool, two resources and the prompt test_prompt: every request's Mcp-Method and Mcp-Name headers show",
		Acts:  "list and call every tool, list and read every resource, list and get every prompt",
		Stage: func(client.Env) stage.Config {
			return stage.Config{Server: server.Options{NoFixtures: true,
				Tools: []server.Tool{tool("test_headers", `{"type":"object","properties":{}}`), tool("my-hyphenated-tool", `{"type":"object","properties":{}}`)},
				Resources: []server.Resource{
					{Def: mcp.Resource{URI: "file:///path/to/file%20name.txt", Name: "file name", MimeType: "text/plain"}},
					{Def: mcp.Resource{URI: "https://example.com/resource?id=123", Name: "resource 123", MimeType: "text/plain"}},
				},
				Prompts: []server.Prompt{{Def: mcp.Prompt{Name: "test_prompt", Description: "A prompt without arguments"}}},
			}}
		},
	},
	client.Scenario{
		Name: client.StatelessScenCustomHeaders, Eras: client.StatelessEra, Transports: client.StatelessHTTP,
		Title: "tools whose inputSchema mirrors arguments into Mcp-Param-* headers (x-mcp-header); MCP_CONFORMANCE_CONTEXT lists the calls to make, with values that need base64 and an integer outside the safe range",
		Acts:  "call the tools of MCP_CONFORMANCE_CONTEXT.toolCalls with their arguments, in order",
		Stage: func(client.Env) stage.Config {
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{
				tool("test_custom_headers", customHeadersSchema),
				tool("test_custom_headers_null", `{"type":"object","properties":{"maybe":{"type":"string","x-mcp-header":"Maybe"}}}`),
			}}}
		},
		Context: func(client.Env, *stage.Case) string { return customHeadersContext },
	},
	client.Scenario{
		Name: scenInvalidToolHeaders, Eras: client.StatelessEra, Transports: client.StatelessHTTP,
		Title: "valid_tool and ten tools whose x-mcp-header annotations break the rules (which an HTTP client leaves out of its tool list)",
		Acts:  "list the tools and call valid_tool, none of the invalid_* tools",
		Stage: func(client.Env) stage.Config {
			tools := []server.Tool{tool("valid_tool", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)}
			for _, bad := range invalidHeaderTools {
				tools = append(tools, tool(bad[0], bad[1]))
			}
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: tools}}
		},
	},
)

// customHeadersSchema annotates a string, a second string, an integer and a
// boolean; float_val and query are not mirrored.
const customHeadersSchema = `{"type":"object","properties":{
"region":{"type":"string","x-mcp-header":"Region"},
"text":{"type":"string","x-mcp-header":"Text"},
"int_val":{"type":"integer","x-mcp-header":"Int-Val"},
"flag":{"type":"boolean","x-mcp-header":"Flag"},
"float_val":{"type":"number"},
"query":{"type":"string"}}}`

// customHeadersContext is MCP_CONFORMANCE_CONTEXT of http-custom-headers:
// plain values, values that need base64 (non-ASCII, padding, a value that
// looks like the sentinel), a null, and last an integer beyond the
// JavaScript safe range, which no header may carry.
const customHeadersContext = `{"name":"http-custom-headers","toolCalls":[
{"name":"test_custom_headers","arguments":{"region":"us-west1","text":"Hello, 世界","int_val":42,"flag":true,"float_val":1.5,"query":"SELECT 1"}},
{"name":"test_custom_headers","arguments":{"region":" padded ","text":"=?base64?literal?=","int_val":-7,"flag":false}},
{"name":"test_custom_headers_null","arguments":{"maybe":null}},
{"name":"test_custom_headers","arguments":{"region":"eu","int_val":100000000000000000}}]}`

// invalidHeaderTools are the invalid_* tools of http-invalid-tool-headers:
// name and inputSchema.
var invalidHeaderTools = [][2]string{
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

// tool is a tool with the given inputSchema that answers with its
// own name.
func tool(name, schema string) server.Tool {
	return server.Tool{Def: mcp.Tool{Name: name, Description: "mcpcheck tool " + name, InputSchema: json.RawMessage(schema)}}
}

// oddHeaderCase sends every response header name in inverted letter case
// (Content-Type becomes cONTENT-tYPE), so that a client that looks header
// names up case-sensitively misses them.
func oddHeaderCase(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&oddCaseWriter{ResponseWriter: w}, r)
	})
}

type oddCaseWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *oddCaseWriter) WriteHeader(status int) {
	if !w.wrote {
		w.wrote = true
		h := w.ResponseWriter.Header()
		for k, v := range h {
			odd := rules.SwapCase(k)
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

func (w *oddCaseWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *oddCaseWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the writer underneath.
func (w *oddCaseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func declaresExtension(caps mcp.ClientCapabilities, id string) bool {
	_, ok := caps.Extensions[id]
	return ok
}

func init() {
	client.Exclude(map[string]string{
		"base.error-code.accept-legacy-32002": "what a client makes of an error code is internal: a -32002 read as 'resource not found' and one read as any other failure of resources/read look the same on the wire (the read failed, the client goes on), so no bounded run can tell them apart",
	})
}
