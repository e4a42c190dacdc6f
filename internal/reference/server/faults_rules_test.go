package server

import (
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

// The probes of the switches of faults_rules.go.
func init() {
	faultProbes[FaultReservedCodeMisused] = func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		rep := c.statelessPost(1, "mcpcheck/no-such-method", withMeta(nil, nil), nil)
		return rep.msgs[0].Error != nil && rep.msgs[0].Error.Code == -32021
	}
	faultProbes[FaultUnknownResultType] = func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		rep := c.statelessPost(1, "tools/list", withMeta(nil, nil), nil)
		return strings.Contains(string(rep.msgs[0].Result), `"resultType":"partial"`)
	}
	faultProbes[FaultBadExtensionName] = func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		rep := c.statelessPost(1, "server/discover", withMeta(nil, nil), nil)
		return strings.Contains(string(rep.msgs[0].Result), `"tasks":{}`)
	}
	faultProbes[FaultClientInfoDependent] = func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, nil) // the helper calls itself something else than mcpcheck
		res, _ := c.call("tools/list", nil)
		return !strings.Contains(string(res), `"ref_`)
	}
	faultProbes[FaultLogSecrets] = func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, nil)
		c.call("logging/setLevel", map[string]any{"level": "debug"})
		_, before := c.response(c.request("tools/call", map[string]any{"name": "ref_sign_in", "arguments": map[string]any{"user": "u", "password": "canary-pw"}}))
		for _, m := range before {
			if strings.Contains(string(m.Params), "canary-pw") {
				return true
			}
		}
		return false
	}
	faultProbes[FaultLogOnListenStream] = func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.version = spec.V20260728
		listen := c.request("subscriptions/listen", withMeta(map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, nil))
		if ack := c.next(); ack.Method != "notifications/subscriptions/acknowledged" {
			t.Fatalf("the listen request was answered %s, not acknowledged", ack.raw)
		}
		meta := statelessMeta(nil)
		meta["io.modelcontextprotocol/logLevel"] = "debug"
		_, before := c.response(c.request("tools/call", map[string]any{"name": "test_logging_tool", "arguments": map[string]any{}, "_meta": meta}))
		for _, m := range before {
			if m.Method == "notifications/message" && strings.Contains(string(m.Params), `"io.modelcontextprotocol/subscriptionId":`+listen.String()) {
				return true
			}
		}
		return false
	}
}
