package server

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

func TestStdioErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		line string
		code int64
		id   string
	}{
		{"not json", `{"jsonrpc":"2.0",`, jsonrpc.ParseError, ""},
		{"not an object", `42`, jsonrpc.InvalidRequest, ""},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, jsonrpc.InvalidRequest, "5"},
		{"params array", `{"jsonrpc":"2.0","id":6,"method":"ping","params":[]}`, jsonrpc.InvalidRequest, "6"},
		{"batch", `[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, jsonrpc.InvalidRequest, ""},
		{"unknown method", `{"jsonrpc":"2.0","id":8,"method":"no/such"}`, jsonrpc.MethodNotFound, "8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startStdio(t, newTestServer(t, Options{}))
			c.initialize(spec.V20251125, nil)
			c.sendRaw([]byte(tc.line))
			m := c.next()
			if m.Error == nil || m.Error.Code != tc.code || string(m.ID) != tc.id {
				t.Errorf("got %s, want code %d id %q", m.raw, tc.code, tc.id)
			}
			// The server keeps serving.
			c.call("ping", nil)
		})
	}
}

func TestStdioLimitsAndEOF(t *testing.T) {
	s := newTestServer(t, Options{MaxMessageSize: 256})
	c := startStdio(t, s)
	c.initialize(spec.V20251125, nil)
	c.sendRaw([]byte(`{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"` + strings.Repeat("x", 1000) + `"}}`))
	m := c.next()
	if m.Error == nil || m.Error.Code != jsonrpc.InvalidRequest || !strings.Contains(m.Error.Message, "exceeds the limit of 256 bytes") {
		t.Errorf("oversized message: %s", m.raw)
	}
	c.call("ping", nil)

	// EOF ends ServeStdio with nil, after answering what was read.
	var out bytes.Buffer
	in := strings.NewReader(string(rpc(1, "ping", nil)) + "\n" + string(rpc(2, "ping", nil)))
	if err := s.ServeStdio(context.Background(), in, &out, io.Discard); err != nil {
		t.Fatalf("ServeStdio at EOF: %v", err)
	}
	if n := strings.Count(out.String(), "\n"); n != 2 {
		t.Errorf("want 2 answers, got %q", out.String())
	}
}

// TestNoGoroutineLeaks runs sessions on every transport, closes the server
// and checks the goroutine count returns to where it was.
func TestNoGoroutineLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		s, err := New(Options{StepDelay: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		c := startStdio(t, s)
		c.initialize(spec.V20251125, map[string]any{"tasks": map[string]any{}})
		c.request("tools/call", map[string]any{"name": "ref_slow", "arguments": map[string]any{"ms": 600000}})
		c.call("tools/call", map[string]any{"name": "ref_task_required", "arguments": map[string]any{"ms": 600000}, "task": map[string]any{}})
		h := startHTTP(t, s, HTTPOptions{})
		h.initialize(spec.V20251125)
		h.do("POST", rpc(2, "tools/call", map[string]any{"name": "test_reconnection"}), nil)
		h.srv.CloseClientConnections()
		h.srv.Close()
		c.in.Close()
		select {
		case <-c.done:
		case <-time.After(testTimeout):
			t.Fatal("ServeStdio did not return")
		}
	}()
	deadline := time.Now().Add(testTimeout)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		runtime.Gosched() // goroutines are winding down; poll the count
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d before, %d after close\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

func TestBatches(t *testing.T) {
	c := startStdio(t, newTestServer(t, Options{}))
	c.initialize(spec.V20250326, nil)
	c.sendRaw([]byte(`[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},{"jsonrpc":"2.0","id":"b","method":"tools/list"}]`))
	m := c.nextRaw()
	validateServerMessage(t, spec.V20250326, "", m)
	if !strings.HasPrefix(string(m), "[") || !strings.Contains(string(m), `"id":"a"`) || !strings.Contains(string(m), `"id":"b"`) {
		t.Errorf("batch response: %s", m)
	}
	// Other versions refuse batches.
	c2 := startStdio(t, newTestServer(t, Options{}))
	c2.initialize(spec.V20250618, nil)
	c2.sendRaw([]byte(`[{"jsonrpc":"2.0","id":"a","method":"ping"}]`))
	if m := c2.next(); m.Error == nil || m.Error.Code != jsonrpc.InvalidRequest {
		t.Errorf("batch in 2025-06-18: %s", m.raw)
	}
}

// TestStdioDualEraAfterInitialize replays what the fuzzer found: on one
// stdio stream an initialize (legacy semantics for the legacy traffic of
// the process), then requests that carry 2026-07-28 _meta. Those are
// judged alone by 2026-07-28 rules, whatever came before; requests
// without it stay in the legacy session.
func TestStdioDualEraAfterInitialize(t *testing.T) {
	for _, tc := range []struct {
		name        string
		requested   spec.Version // protocolVersion in initialize
		initialized bool         // send notifications/initialized too
	}{
		{"legacy client", spec.V20251125, true},
		{"initialize naming 2026-07-28", spec.V20260728, false}, // the fuzzer's double-initialize
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startStdio(t, newTestServer(t, Options{}))
			c.version = spec.V20251125
			res, _ := c.call("initialize", map[string]any{"protocolVersion": string(tc.requested), "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}})
			if !strings.Contains(string(res), `"protocolVersion":"2025-11-25"`) {
				t.Fatalf("initialize: %s", res)
			}
			if tc.initialized {
				c.notify("notifications/initialized", nil)
			}

			// Modern requests: 2026-07-28 rules.
			c.version = spec.V20260728
			if code, _, _ := c.callErr("resources/read", withMeta(map[string]any{"uri": "test://none"}, nil)); code != jsonrpc.InvalidParams {
				t.Errorf("2026-07-28 resources/read of a missing resource after initialize: code %d, want -32602", code)
			}
			res, _ = c.call("resources/list", withMeta(nil, nil))
			for _, k := range []string{"resultType", "ttlMs", "cacheScope"} {
				if !hasKey(res, k) {
					t.Errorf("2026-07-28 resources/list after initialize: no %s in %s", k, res)
				}
			}
			res, _ = c.call("tools/call", withMeta(map[string]any{"name": "test_simple_text"}, nil))
			if !strings.Contains(string(res), `"resultType":"complete"`) {
				t.Errorf("2026-07-28 tools/call after initialize: %s", res)
			}
			res, _ = c.call("server/discover", withMeta(nil, nil))
			if !strings.Contains(string(res), `"supportedVersions"`) {
				t.Errorf("2026-07-28 server/discover after initialize: %s", res)
			}
			if code, _, _ := c.callErr("ping", withMeta(nil, nil)); code != jsonrpc.MethodNotFound {
				t.Errorf("2026-07-28 ping (removed) after initialize: code %d, want -32601", code)
			}
			// A modern request in flight is cancelled like any other.
			slow := c.request("tools/call", withMeta(map[string]any{"name": "ref_slow", "arguments": map[string]any{"ms": 600000}}, nil))
			c.notify("notifications/cancelled", map[string]any{"requestId": slow})
			fence := c.request("tools/list", withMeta(nil, nil))
			if m := c.next(); string(m.ID) != fence.String() {
				t.Errorf("after cancelling %s got %s", slow, m.raw)
			}

			// Legacy traffic of the same process: 2025-11-25 rules.
			c.version = spec.V20251125
			if code, _, _ := c.callErr("resources/read", map[string]any{"uri": "test://none"}); code != jsonrpc.ResourceNotFound {
				t.Errorf("2025-11-25 resources/read of a missing resource: code %d, want -32002", code)
			}
			res, _ = c.call("tools/list", nil)
			if hasKey(res, "resultType") {
				t.Errorf("2025-11-25 tools/list has resultType: %.200s", res)
			}
			if res, _ := c.call("ping", nil); string(res) != "{}" {
				t.Errorf("2025-11-25 ping: %s", res)
			}
		})
	}
}

// TestStdioDeclaredVersion: a request whose _meta declares a protocol
// version is judged by the stateless rules even when that version is
// malformed or unsupported, before and after an initialize; a request
// without the key is legacy traffic once initialize was answered.
func TestStdioDeclaredVersion(t *testing.T) {
	meta := func(v any) map[string]any {
		m := statelessMeta(nil)
		m["io.modelcontextprotocol/protocolVersion"] = v
		return map[string]any{"_meta": m}
	}
	for _, initialized := range []bool{false, true} {
		c := startStdio(t, newTestServer(t, Options{}))
		if initialized {
			c.initialize(spec.V20251125, nil)
		}
		c.version = spec.V20260728
		for _, tc := range []struct {
			v    any
			code int64
		}{
			{"1900-01-01", jsonrpc.UnsupportedProtocolVersion},
			{"2025-11-25", jsonrpc.UnsupportedProtocolVersion},
			{true, jsonrpc.InvalidParams},
		} {
			code, _, data := c.callErr("tools/list", meta(tc.v))
			if code != tc.code {
				t.Errorf("initialized %v, _meta protocolVersion %v: code %d, want %d", initialized, tc.v, code, tc.code)
			}
			if code == jsonrpc.UnsupportedProtocolVersion && !strings.Contains(string(data), `"supported":["2026-07-28"`) {
				t.Errorf("initialized %v, _meta protocolVersion %v: data %s names no supported version", initialized, tc.v, data)
			}
		}
		if !initialized {
			continue
		}
		// JSON escapes spell the same keys: still a declaration.
		c.version = spec.V20260728
		c.sendRaw([]byte(`{"jsonrpc":"2.0","id":"esc","method":"tools/list","params":{"\u005fmeta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
		if m := c.next(); string(m.ID) != `"esc"` || !hasKey(m.Result, "resultType") {
			t.Errorf("tools/list with an escaped 2026-07-28 _meta after initialize: %.200s", m.raw)
		}
		c.version = spec.V20251125
		// A key the client did not spell as the protocol version key is
		// no declaration: legacy traffic of the initialized session.
		res, _ := c.call("tools/list", map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/xrotocolVersion": "2026-07-28"}})
		if hasKey(res, "resultType") {
			t.Errorf("legacy tools/list with a foreign _meta key: %.200s", res)
		}
	}
}
