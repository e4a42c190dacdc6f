package client

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Fault switches of JSON Schema handling (dialects, references, how far a
// schema may expand, the schemas the client hands back) and of the security
// rules on elicitation URLs and sampling messages.

// The named hooks of this file: each changes what the client does.
const (
	// FaultElicitURLPrefetch probes an elicitation's URL (a HEAD, as a
	// link preview would) before the user is asked about it.
	FaultElicitURLPrefetch = "elicitation-url-prefetch"
	// FaultSamplingUnchecked hands sampling messages to the model without
	// checking their role and content.
	FaultSamplingUnchecked = "sampling-content-unchecked"
	// FaultSchemaRefFetch fetches every network $ref of the listed tools'
	// inputSchemas.
	FaultSchemaRefFetch = "schema-ref-fetch"
	// FaultSchemaUnbounded validates structuredContent without the bound
	// on how far a schema's references expand.
	FaultSchemaUnbounded = "schema-unbounded"
	// FaultSchemaDialectIgnored validates an elicitation's content under
	// 2020-12 whatever dialect its requestedSchema declares.
	FaultSchemaDialectIgnored = "schema-dialect-ignored"
	// FaultSchemaUnresolvedKept keeps (and calls) tools whose inputSchema
	// refers to a schema that cannot be resolved.
	FaultSchemaUnresolvedKept = "schema-unresolved-ref-kept"
)

func init() {
	registerFaults([]string{FaultElicitURLPrefetch, FaultSamplingUnchecked, FaultSchemaRefFetch, FaultSchemaUnbounded, FaultSchemaDialectIgnored, FaultSchemaUnresolvedKept},
		Fault{Name: FaultElicitURLPrefetch, Requirement: "security.elicitation.url-no-prefetch", Description: "the URL of a URL-mode elicitation is probed with a HEAD request before the user is asked"},
		Fault{Name: FaultSamplingUnchecked, Requirement: "security.sampling.validate-message-content", Description: "sampling messages with a role other than user or assistant, or without content, go to the model unchecked"},
		Fault{Name: FaultSchemaRefFetch, Requirement: "security.schema-ref.no-auto-network-deref", Description: "network $ref targets in the listed tools' inputSchemas are fetched"},
		Fault{Name: FaultSchemaUnbounded, Requirement: "security.schema.composition-bounds", Description: "structuredContent is validated however far the outputSchema's references expand"},
		Fault{Name: FaultSchemaDialectIgnored, Requirement: "base.schema.unsupported-dialect-error", Description: "an elicitation whose requestedSchema declares an unknown dialect is validated as 2020-12 and answered"},
		Fault{Name: FaultSchemaUnresolvedKept, Requirement: "base.schema.unresolved-ref-rejected", Description: "a tool whose inputSchema has a $ref that cannot be resolved is kept and called as if the schema accepted anything"},
		Fault{Name: "sampling-tools-undeclared", Requirement: "sampling.tools.client-declares-tools-capability", Description: "initialize declares no sampling.tools, yet sampling results ask for a tool",
			Rewrite: func(w Written) [][]byte {
				if w.Decoded.Method == spec.MethodInitialize {
					return [][]byte{editParams(w.Msg, func(p map[string]json.RawMessage) {
						var caps map[string]json.RawMessage
						var sa map[string]json.RawMessage
						if json.Unmarshal(p["capabilities"], &caps) != nil || json.Unmarshal(caps["sampling"], &sa) != nil || sa == nil {
							return
						}
						delete(sa, "tools")
						caps["sampling"], _ = json.Marshal(sa)
						p["capabilities"], _ = json.Marshal(caps)
					})}
				}
				if !isSamplingResult(w) {
					return [][]byte{w.Msg}
				}
				return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + w.Decoded.ID.String() + `,"result":{"role":"assistant","content":[{"type":"tool_use","id":"mcpcheck-use","name":"mcpcheck_lookup","input":{}}],"model":"mcpcheck-canned","stopReason":"toolUse"}}`)}
			}},
		Fault{Name: "sampling-mixed-results-sampled", Requirement: "sampling.errors.client-reports-failures", Description: "a sampling message that mixes a tool result with text is sampled instead of refused with -32602",
			Rewrite: errorAbout("mixes tool_result", `{"role":"assistant","content":{"type":"text","text":"ok"},"model":"mcpcheck-canned","stopReason":"endTurn"}`)},
		Fault{Name: "sampling-result-no-role", Requirement: "sampling.messages.role-and-content", Description: "the sampling results handed back in inputResponses have no role",
			Rewrite: onMethod(spec.MethodToolsCall, func(b []byte) []byte {
				return editParams(b, func(p map[string]json.RawMessage) {
					var rs map[string]map[string]json.RawMessage
					if json.Unmarshal(p["inputResponses"], &rs) != nil {
						return
					}
					for _, r := range rs {
						if _, ok := r["model"]; ok {
							delete(r, "role")
						}
					}
					p["inputResponses"], _ = json.Marshal(rs)
				})
			})},
		Fault{Name: "schema-echo-invalid", Requirement: "base.schema.schemas-valid", Description: "the schema handed back to json_schema_echo has a type that is no JSON Schema type",
			Rewrite: onMethod(spec.MethodToolsCall, func(b []byte) []byte {
				return editParams(b, func(p map[string]json.RawMessage) {
					var name string
					var args map[string]json.RawMessage
					if json.Unmarshal(p["name"], &name) != nil || name != "json_schema_echo" || json.Unmarshal(p["arguments"], &args) != nil {
						return
					}
					var sch map[string]json.RawMessage
					if json.Unmarshal(args["schema"], &sch) != nil || sch == nil {
						return
					}
					sch["type"] = json.RawMessage(`"mcpcheck-no-such-type"`)
					args["schema"], _ = json.Marshal(sch)
					p["arguments"], _ = json.Marshal(args)
				})
			})},
	)
}

// probeURL requests u with method, bounded by two seconds, and discards the
// answer (the fault hooks' fetches).
func probeURL(ctx context.Context, method, u string) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// networkRefs returns the http(s) $ref values anywhere in a schema.
func networkRefs(schema json.RawMessage) []string {
	var doc any
	if json.Unmarshal(schema, &doc) != nil {
		return nil
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if s, ok := c.(string); ok && k == "$ref" && (strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")) {
					out = append(out, s)
				}
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc)
	return out
}

// errorAbout rewrites the client's error answers whose message contains
// text into results with the given result object.
func errorAbout(text, result string) func(Written) [][]byte {
	return func(w Written) [][]byte {
		if w.Decoded.Shape != jsonrpc.KindErrorResponse || w.Decoded.Error == nil || !strings.Contains(w.Decoded.Error.Message, text) {
			return [][]byte{w.Msg}
		}
		return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + w.Decoded.ID.String() + `,"result":` + result + `}`)}
	}
}

// isSamplingResult reports whether w is a result with a model (an answer to
// sampling/createMessage).
func isSamplingResult(w Written) bool {
	if w.Decoded.Shape != jsonrpc.KindResponse {
		return false
	}
	var r map[string]json.RawMessage
	if json.Unmarshal(w.Decoded.Result, &r) != nil {
		return false
	}
	_, ok := r["model"]
	return ok
}
