package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// faultProbes observe, for each switch, the one behaviour it breaks: the
// probe reports true when the defect is visible.
var faultProbes = map[string]func(t *testing.T, s *Server) bool{
	FaultInitWrongVersion: func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		res := c.initialize(spec.V20250618, nil)
		return !strings.Contains(string(res), `"protocolVersion":"2025-06-18"`)
	},
	FaultSpeakBeforeInitialize: func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.request("ping", nil) // answered either way: the fence
		return c.next().Method == "notifications/message"
	},
	FaultPingNonEmpty: func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, nil)
		res, _ := c.call("ping", nil)
		return string(res) != "{}"
	},
	FaultErrorIDMismatch: func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, nil)
		id := c.request("tools/call", map[string]any{"name": "nope"})
		m := c.next()
		return string(m.ID) != id.String()
	},
	FaultReplyToNotification: func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, nil)
		c.notify("notifications/roots/list_changed", nil)
		id := c.request("ping", nil)
		m := c.next()
		return string(m.ID) != id.String()
	},
	FaultOutputSchemaMismatch: func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, nil)
		res, _ := c.call("tools/call", map[string]any{"name": "ref_structured", "arguments": map[string]any{"a": 1, "b": 2}})
		return !strings.Contains(string(res), `"structuredContent":{"sum":3}`)
	},
	FaultNoToolsListChanged: func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, nil)
		_, before := c.call("tools/call", map[string]any{"name": "ref_change_lists", "arguments": map[string]any{"kind": "tools"}})
		// The notification goes to the general stream (stdout here), which
		// may come before or after the response; a ping fences it.
		m, more := c.response(c.request("ping", nil))
		_ = m
		for _, x := range append(before, more...) {
			if x.Method == "notifications/tools/list_changed" {
				return false
			}
		}
		return true
	},
	FaultEmptyContentsForMissing: func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, nil)
		m, _ := c.response(c.request("resources/read", map[string]any{"uri": "test://missing"}))
		return m.Error == nil
	},
	FaultBlobNotBase64: func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, nil)
		res, _ := c.call("resources/read", map[string]any{"uri": "test://static-binary"})
		return !strings.Contains(string(res), pngBase64)
	},
	FaultInvalidCursorAccepted: func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, nil)
		m, _ := c.response(c.request("tools/list", map[string]any{"cursor": "garbage"}))
		return m.Error == nil
	},
	FaultBadLogLevelAccepted: func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, nil)
		m, _ := c.response(c.request("logging/setLevel", map[string]any{"level": "loud"}))
		return m.Error == nil
	},
	FaultLogWithoutLevel: func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		rep := c.statelessPost(1, "tools/call", withMeta(map[string]any{"name": "test_logging_tool"}, nil), nil)
		return len(rep.msgs) > 1
	},
	FaultProgressDecreasing: func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, nil)
		_, before := c.response(c.request("tools/call", map[string]any{"name": "ref_progress", "arguments": map[string]any{"steps": 3}, "_meta": map[string]any{"progressToken": 1}}))
		last := -1e9
		for _, m := range before {
			var p struct{ Progress float64 }
			json.Unmarshal(m.Params, &p)
			if p.Progress <= last {
				return true
			}
			last = p.Progress
		}
		return false
	},
	FaultProgressAfterCompletion: func(t *testing.T, s *Server) bool {
		// Everything is read at once and stdin ends, so ServeStdio returns
		// only after the call and anything sent after its response have
		// been written: the order in out is final (a ping racing the late
		// notification made this probe flaky).
		in := strings.Join([]string{
			string(rpc(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})),
			string(rpc(2, "tools/call", map[string]any{"name": "ref_progress", "arguments": map[string]any{"steps": 1}, "_meta": map[string]any{"progressToken": 1}})),
		}, "\n") + "\n"
		var out bytes.Buffer
		if err := s.ServeStdio(context.Background(), strings.NewReader(in), &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		answered := false
		for _, line := range strings.Split(out.String(), "\n") {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal([]byte(line), &m) != nil {
				continue
			}
			if string(m.ID) == "2" && m.Method == "" {
				answered = true
			} else if answered && m.Method == "notifications/progress" {
				return true
			}
		}
		return false
	},
	FaultRespondAfterCancel: func(t *testing.T, s *Server) bool {
		// Everything is read at once and stdin ends, so ServeStdio returns
		// only after the cancelled call has finished: deterministic.
		in := strings.Join([]string{
			string(rpc(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})),
			string(rpc(2, "tools/call", map[string]any{"name": "ref_slow", "arguments": map[string]any{"ms": 600000}})),
			string(note("notifications/cancelled", map[string]any{"requestId": 2})),
		}, "\n") + "\n"
		var out bytes.Buffer
		if err := s.ServeStdio(context.Background(), strings.NewReader(in), &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		return strings.Contains(out.String(), `"id":2`)
	},
	FaultSessionIDNotASCII: func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		c.initialize(spec.V20251125)
		return strings.ContainsAny(c.session, " \t")
	},
	FaultTerminatedSessionServed: func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		c.initialize(spec.V20251125)
		c.do("DELETE", nil, nil)
		return c.do("POST", rpc(5, "ping", nil), nil).status != 404
	},
	FaultProtocolHeaderIgnored: func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		c.initialize(spec.V20251125)
		return c.do("POST", rpc(5, "ping", nil), map[string]string{"MCP-Protocol-Version": "bogus"}).status != 400
	},
	FaultOriginNotValidated: func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		rep := c.do("POST", rpc(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}), map[string]string{"Origin": "http://evil.example"})
		return rep.status != 403
	},
	FaultStdoutBanner: func(t *testing.T, s *Server) bool {
		var out bytes.Buffer
		in := strings.NewReader(string(rpc(1, "ping", nil)) + "\n")
		if err := s.ServeStdio(context.Background(), in, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if m := jsonrpc.Decode([]byte(line)); !m.Valid() {
				return true
			}
		}
		return false
	},
	FaultNoResultType: func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		rep := c.statelessPost(1, "tools/list", withMeta(nil, nil), nil)
		return !hasKey(rep.msgs[0].Result, "resultType")
	},
	FaultAcceptTamperedState: func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		rep := c.statelessPost(1, "tools/call", withMeta(map[string]any{"name": "test_input_required_result_tampered_state"}, nil), nil)
		var r struct{ RequestState string }
		json.Unmarshal(rep.msgs[0].Result, &r)
		p := withMeta(map[string]any{"name": "test_input_required_result_tampered_state", "requestState": r.RequestState + "x",
			"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}}, nil)
		rep = c.statelessPost(2, "tools/call", p, nil)
		return rep.msgs[0].Error == nil
	},
	FaultRetiredNotFoundCode: func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		rep := c.statelessPost(1, "resources/read", withMeta(map[string]any{"uri": "test://none"}, nil), nil)
		return rep.msgs[0].Error != nil && rep.msgs[0].Error.Code == jsonrpc.ResourceNotFound
	},
	FaultReplayAllStreams: func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		c.initialize(spec.V20251125)
		c.do("POST", rpc(2, "tools/list", nil), nil)
		rep := c.do("POST", rpc(3, "tools/call", map[string]any{"name": "test_reconnection"}), nil)
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", c.srv.URL+"/mcp", nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Last-Event-ID", rep.ids[0])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		got := c.readReply(resp, -1)
		for _, m := range got.msgs {
			if string(m.ID) == "2" {
				return true
			}
		}
		return false
	},
	FaultTasksGetSSE: func(t *testing.T, s *Server) bool {
		get, _ := httpTaskGet(t, s)
		return strings.HasPrefix(get.header.Get("Content-Type"), "text/event-stream")
	},
}

func TestFaultSwitches(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatalf("catalog: %v", err)
	}
	if len(Faults()) < 15 {
		t.Errorf("only %d fault switches", len(Faults()))
	}
	for _, f := range Faults() {
		t.Run(f.Name, func(t *testing.T) {
			if _, ok := cat.Get(f.Requirement); !ok {
				t.Errorf("requirement %q is not in the catalog", f.Requirement)
			}
			probe := faultProbes[f.Name]
			if probe == nil {
				t.Fatalf("no probe for fault %s", f.Name)
			}
			if probe(t, newTestServer(t, Options{})) {
				t.Errorf("the defect of %s is visible with the switch off", f.Name)
			}
			if !probe(t, newTestServer(t, Options{Faults: []string{f.Name}})) {
				t.Errorf("switch %s on, but its defect (%s) is not visible", f.Name, f.Description)
			}
		})
	}
	if _, err := New(Options{Faults: []string{"no-such-fault"}}); err == nil {
		t.Errorf("an unknown fault switch was accepted")
	}
}
