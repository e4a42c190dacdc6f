package client

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/reference/client/transport"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// httpFake is a scripted MCP endpoint: answer gets each decoded POST body
// with its headers and returns the status and JSON body.
type httpFake struct {
	mu      sync.Mutex
	headers map[string][]http.Header // by JSON-RPC method
	answer  func(m jsonrpc.Message, h http.Header) (int, string)
}

func (h *httpFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	m := jsonrpc.Decode(body)
	h.mu.Lock()
	if h.headers == nil {
		h.headers = map[string][]http.Header{}
	}
	h.headers[m.Method] = append(h.headers[m.Method], r.Header.Clone())
	h.mu.Unlock()
	code, out := h.answer(m, r.Header)
	if out == "" {
		w.WriteHeader(code)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprint(w, out)
}

func (h *httpFake) seen(method string) []http.Header {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.headers[method]
}

func TestHTTPSessionExpiredReinitializes(t *testing.T) {
	var mu sync.Mutex
	session := 0
	fake := &httpFake{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.answer = func(m jsonrpc.Message, h http.Header) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		switch m.Method {
		case "initialize":
			session++
			return 200, result(m.ID, initOK)
		case "notifications/initialized":
			return 202, ""
		}
		if h.Get("Mcp-Session-Id") != fmt.Sprint(session) || session == 1 {
			session++ // the server restarts and forgets session 1
			return 404, ""
		}
		return 200, result(m.ID, `{"tools":[]}`)
	}
	// Sessions are numbered by the fake through the header it sets.
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		w.Header().Set("Mcp-Session-Id", fmt.Sprint(session+1))
		mu.Unlock()
		fake.ServeHTTP(w, r)
	})
	conn, _ := transport.NewStreamableHTTP(transport.HTTPOptions{URL: srv.URL, NoGETStream: true})
	c, err := Connect(tctx(t), conn, Options{Version: spec.V20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ListTools(tctx(t)); err != nil {
		t.Fatalf("ListTools across a lost session: %v", err)
	}
	if n := len(fake.seen("initialize")); n != 2 {
		t.Errorf("initialize sent %d times; want a fresh one after the 404", n)
	}
}

func TestHTTPCustomHeadersAndInvalidTools(t *testing.T) {
	tools := `{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[
		{"name":"good","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"},"gone":{"type":"string","x-mcp-header":"Gone"},"plain":{"type":"string"}}}},
		{"name":"bad_space","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"has space"}}}},
		{"name":"bad_dup","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}}},
		{"name":"bad_object","inputSchema":{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"Obj"}}}}]}`
	fake := &httpFake{answer: func(m jsonrpc.Message, h http.Header) (int, string) {
		switch m.Method {
		case "server/discover":
			return 200, result(m.ID, discoverOK)
		case "tools/list":
			return 200, result(m.ID, tools)
		}
		return 200, result(m.ID, `{"resultType":"complete","content":[]}`)
	}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	conn, _ := transport.NewAutoHTTP(transport.HTTPOptions{URL: srv.URL})
	var warnings []string
	var wmu sync.Mutex
	c, err := Connect(tctx(t), conn, Options{Logf: func(f string, a ...any) {
		wmu.Lock()
		warnings = append(warnings, fmt.Sprintf(f, a...))
		wmu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	list, err := c.ListTools(tctx(t))
	if err != nil || len(list) != 1 || list[0].Name != "good" {
		t.Fatalf("ListTools = %v, %v; want only the valid tool", list, err)
	}
	wmu.Lock()
	if len(warnings) != 3 {
		t.Errorf("warnings = %q; want one per rejected tool", warnings)
	}
	wmu.Unlock()
	if _, err := c.CallTool(tctx(t), "good", map[string]any{"region": " eu ", "n": 42, "gone": nil, "plain": "x"}, nil); err != nil {
		t.Fatal(err)
	}
	h := fake.seen("tools/call")[0]
	if h.Get("Mcp-Param-Region") != "=?base64?IGV1IA==?=" || h.Get("Mcp-Param-N") != "42" || h.Get("Mcp-Param-Gone") != "" || h.Get("Mcp-Param-Plain") != "" {
		t.Errorf("param headers = %v", h)
	}
	if h.Get("Mcp-Method") != "tools/call" || h.Get("Mcp-Name") != "good" || h.Get("MCP-Protocol-Version") != "2026-07-28" {
		t.Errorf("standard headers = %v", h)
	}
	if _, err := c.CallTool(tctx(t), "bad_space", nil, nil); err == nil {
		t.Error("calling a rejected tool was allowed")
	}
	if n := len(fake.seen("tools/call")); n != 1 {
		t.Errorf("tools/call POSTed %d times", n)
	}
}

// TestHTTPStatelessFallsBackToLegacySSE: a 2024-11-05 server refuses the
// modern POST and the initialize POST; the client ends up on HTTP+SSE.
func TestHTTPStatelessFallsBackToLegacySSE(t *testing.T) {
	msgs := make(chan string, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/sse" && r.Method == http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: endpoint\ndata: /msg\n\n")
			w.(http.Flusher).Flush()
			for {
				select {
				case m := <-msgs:
					fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		case r.URL.Path == "/msg":
			body, _ := io.ReadAll(r.Body)
			m := jsonrpc.Decode(body)
			w.WriteHeader(http.StatusAccepted)
			switch m.Method {
			case "initialize":
				var p struct{ ProtocolVersion string }
				json.Unmarshal(m.Params, &p)
				msgs <- result(m.ID, `{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"old-sse","version":"0"}}`)
			case "tools/list":
				msgs <- result(m.ID, `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`)
			}
		default:
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		}
	}))
	defer srv.Close()
	conn, _ := transport.NewAutoHTTP(transport.HTTPOptions{URL: srv.URL + "/sse"})
	c, err := Connect(tctx(t), conn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Stateless() || c.ProtocolVersion() != spec.V20241105 || !conn.Legacy() {
		t.Fatalf("stateless=%v version=%s legacy=%v", c.Stateless(), c.ProtocolVersion(), conn.Legacy())
	}
	tools, err := c.ListTools(tctx(t))
	if err != nil || len(tools) != 1 {
		t.Fatalf("ListTools = %v, %v", tools, err)
	}
	_ = strings.TrimSpace
}
