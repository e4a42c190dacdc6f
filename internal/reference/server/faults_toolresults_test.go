package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// trCall runs the 2025-11-25 handshake and calls tool name with args,
// unvalidated (the faults break the schema on purpose).
func trCall(t *testing.T, s *Server, name string, args any) jsonrpc.Message {
	f := ffStart(t, s)
	f.init(spec.V20251125, nil)
	m, _ := f.call("tools/call", map[string]any{"name": name, "arguments": args})
	return m
}

// The probes of the switches of faults_toolresults.go.
func init() {
	faultProbes[FaultToolResultNoContent] = func(t *testing.T, s *Server) bool {
		m := trCall(t, s, "test_simple_text", map[string]any{})
		_, has := ffObject(m.Result)["content"]
		return m.Error == nil && !has
	}
	faultProbes[FaultToolResultUnknownType] = func(t *testing.T, s *Server) bool {
		m := trCall(t, s, "test_simple_text", map[string]any{})
		return strings.Contains(string(m.Result), `"type":"html"`)
	}
	faultProbes[FaultToolErrorAsProtocolError] = func(t *testing.T, s *Server) bool {
		m := trCall(t, s, "test_error_handling", map[string]any{})
		return m.Error != nil
	}
	faultProbes[FaultStructuredNotMirrored] = func(t *testing.T, s *Server) bool {
		m := trCall(t, s, "ref_structured", map[string]any{"a": 1, "b": 2})
		var r struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		_ = json.Unmarshal(m.Result, &r)
		return len(r.Content) == 0 || r.Content[0].Text != `{"sum":3}`
	}
	faultProbes[FaultEmbeddedUndeclared] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		m := f.init(spec.V20251125, nil)
		var r struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		_ = json.Unmarshal(m.Result, &r)
		_, has := r.Capabilities["resources"]
		return !has
	}
}
