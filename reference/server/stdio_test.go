package server

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
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
