package server

import (
	"encoding/json"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

func TestInitializeNegotiation(t *testing.T) {
	for _, tc := range []struct {
		requested string
		want      spec.Version
	}{
		{"2024-11-05", spec.V20241105},
		{"2025-03-26", spec.V20250326},
		{"2025-06-18", spec.V20250618},
		{"2025-11-25", spec.V20251125},
		{"1999-01-01", spec.V20251125},
		{"2026-07-28", spec.V20251125},
	} {
		t.Run(tc.requested, func(t *testing.T) {
			c := startStdio(t, newTestServer(t, Options{}))
			c.version = tc.want
			res, _ := c.call("initialize", map[string]any{"protocolVersion": tc.requested, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
			var r struct {
				ProtocolVersion string                     `json:"protocolVersion"`
				Capabilities    map[string]json.RawMessage `json:"capabilities"`
				ServerInfo      map[string]json.RawMessage `json:"serverInfo"`
			}
			mustJSON(t, res, &r)
			if r.ProtocolVersion != string(tc.want) {
				t.Fatalf("protocolVersion = %q, want %q", r.ProtocolVersion, tc.want)
			}
			_, hasTitle := r.ServerInfo["title"]
			if hasTitle != since(tc.want, spec.V20250618) {
				t.Errorf("serverInfo.title present=%v in %s", hasTitle, tc.want)
			}
			_, hasIcons := r.ServerInfo["icons"]
			if hasIcons != (tc.want == spec.V20251125) {
				t.Errorf("serverInfo.icons present=%v in %s", hasIcons, tc.want)
			}
			_, hasTasks := r.Capabilities["tasks"]
			if hasTasks != (tc.want == spec.V20251125) {
				t.Errorf("capabilities.tasks present=%v in %s", hasTasks, tc.want)
			}
			_, hasCompl := r.Capabilities["completions"]
			if hasCompl != since(tc.want, spec.V20250326) {
				t.Errorf("capabilities.completions present=%v in %s", hasCompl, tc.want)
			}
		})
	}
}

func TestLifecycleOrder(t *testing.T) {
	c := startStdio(t, newTestServer(t, Options{}))
	// ping is allowed before initialize; other requests are not.
	c.call("ping", nil)
	if code, _, _ := c.callErr("tools/list", nil); code != jsonrpc.InvalidRequest {
		t.Errorf("tools/list before initialize: code %d, want %d", code, jsonrpc.InvalidRequest)
	}
	c.initialize(spec.V20251125, nil)
	c.call("tools/list", nil)
	if code, _, _ := c.callErr("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}); code != jsonrpc.InvalidRequest {
		t.Errorf("second initialize: code %d, want %d", code, jsonrpc.InvalidRequest)
	}
	res, _ := c.call("ping", nil)
	if string(res) != "{}" {
		t.Errorf("ping result = %s, want {}", res)
	}
}
