package server

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Fault switches of tool results (issue 14): what the tools/call-results
// and tools/structured-output checks are for. Every one is a rewrite of
// the answers to tools/call (and tasks/result, which carries a tool's
// result), so each shows under the default tool policy: the reference
// server's tools are all callable without --call-tools all.

// The tool-result fault switch names (rows of faultTable).
const (
	FaultToolResultNoContent      = "tool-result-no-content"
	FaultToolResultUnknownType    = "tool-result-unknown-content-type"
	FaultToolErrorAsProtocolError = "tool-error-as-protocol-error"
	FaultStructuredNotMirrored    = "structured-text-not-mirrored"
	FaultEmbeddedUndeclared       = "embedded-resources-undeclared"
)

// toolResultMethods are the methods whose results are tool results.
var toolResultMethods = []string{spec.MethodToolsCall, spec.MethodTasksResult}

// toolResultRewriters are the rewriters of the tool-result switches,
// added to faultRewriters.
var toolResultRewriters = map[string]func(Outgoing) [][]byte{
	FaultToolResultNoContent: onResult(func(res []byte) []byte {
		return setMember(res, []string{"content"}, nil)
	}, toolResultMethods...),
	FaultToolResultUnknownType: onResult(func(res []byte) []byte {
		return editMember(res, []string{"content"}, func(v []byte) []byte {
			elems, ok := parseArray(v)
			if !ok || len(elems) == 0 {
				return v
			}
			elems[0] = []byte(`{"type":"html","html":"<p>an HTML block, a content type no MCP version defines</p>"}`)
			return encodeArray(elems)
		})
	}, toolResultMethods...),
	FaultToolErrorAsProtocolError: onResponse(func(o Outgoing, msg []byte) [][]byte {
		m := jsonrpc.Decode(msg)
		var res struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if m.Shape != jsonrpc.KindResponse || json.Unmarshal(m.Result, &res) != nil || !res.IsError {
			return one(msg)
		}
		text := "the tool failed"
		if len(res.Content) > 0 && res.Content[0].Text != "" {
			text = res.Content[0].Text
		}
		return one(errorForVersion(o.Version, m.ID, jsonrpc.InternalError, "Tool execution failed: "+text, nil))
	}, toolResultMethods...),
	FaultStructuredNotMirrored: onResult(func(res []byte) []byte {
		if _, ok := parseObject(res); !ok {
			return res
		}
		var r struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		if json.Unmarshal(res, &r) != nil || len(r.StructuredContent) == 0 {
			return res
		}
		return setMember(res, []string{"content"}, []byte(`[{"type":"text","text":"The result is in structuredContent."}]`))
	}, spec.MethodToolsCall),
	FaultEmbeddedUndeclared: onResult(func(res []byte) []byte {
		return setMember(res, []string{"capabilities", "resources"}, nil)
	}, spec.MethodInitialize, spec.MethodServerDiscover),
}

func init() {
	for name, rw := range toolResultRewriters {
		faultRewriters[name] = rw
	}
}
