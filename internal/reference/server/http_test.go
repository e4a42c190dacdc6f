package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/spec"
)

// httpClient is a raw Streamable HTTP client for tests.
type httpClient struct {
	t       testing.TB
	srv     *httptest.Server
	session string
	version spec.Version
	header  map[string]string
}

func startHTTP(t testing.TB, s *Server, o HTTPOptions) *httpClient {
	t.Helper()
	ts := httptest.NewServer(s.HTTPHandler(o))
	t.Cleanup(ts.Close)
	return &httpClient{t: t, srv: ts, header: map[string]string{}}
}

type httpReply struct {
	status int
	header http.Header
	msgs   []wireMsg // JSON body or SSE events, in order
	ids    []string  // SSE event ids ("" for none)
	raw    []byte
}

func (c *httpClient) do(method string, body []byte, hdr map[string]string) httpReply {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, c.srv.URL+"/mcp", bytes.NewReader(body))
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.version != "" {
		req.Header.Set("MCP-Protocol-Version", string(c.version))
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	return c.readReply(resp, -1)
}

// readReply reads a JSON or SSE body; for SSE it stops after max events
// (-1: until EOF).
func (c *httpClient) readReply(resp *http.Response, max int) httpReply {
	c.t.Helper()
	rep := httpReply{status: resp.StatusCode, header: resp.Header}
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "text/event-stream") {
		for _, ev := range readSSE(c.t, resp.Body, max) {
			rep.ids = append(rep.ids, ev.id)
			if len(ev.data) == 0 {
				rep.msgs = append(rep.msgs, wireMsg{})
				continue
			}
			rep.msgs = append(rep.msgs, decodeWire(c.t, ev.data))
		}
		return rep
	}
	b, _ := io.ReadAll(resp.Body)
	rep.raw = b
	if len(bytes.TrimSpace(b)) > 0 && strings.HasPrefix(ct, "application/json") {
		rep.msgs = append(rep.msgs, decodeWire(c.t, b))
		rep.ids = append(rep.ids, "")
	}
	return rep
}

type sseEv struct {
	id, event string
	data      []byte
	retry     string
}

func readSSE(t testing.TB, r io.Reader, max int) []sseEv {
	var out []sseEv
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var cur sseEv
	have := false
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if have {
				out = append(out, cur)
				if max > 0 && len(out) >= max {
					return out
				}
			}
			cur, have = sseEv{}, false
			continue
		}
		have = true
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimPrefix(v, " ")
		switch k {
		case "id":
			cur.id = v
		case "event":
			cur.event = v
		case "data":
			cur.data = append(cur.data, v...)
		case "retry":
			cur.retry = v
		}
	}
	return out
}

// response returns the JSON-RPC response in a reply, validating every
// message against the schema.
func (c *httpClient) response(rep httpReply, method string) wireMsg {
	c.t.Helper()
	var resp *wireMsg
	for i := range rep.msgs {
		m := rep.msgs[i]
		if m.raw == nil {
			continue
		}
		v := c.version
		if v == "" {
			v = spec.V20251125
		}
		mm := ""
		if m.Method == "" && m.Error == nil {
			mm = method
		}
		validateServerMessage(c.t, v, mm, m.raw)
		if m.Method == "" {
			resp = &rep.msgs[i]
		}
	}
	if resp == nil {
		c.t.Fatalf("%s: no response in reply (status %d, body %q)", method, rep.status, rep.raw)
	}
	return *resp
}

func rpc(id int, method string, params any) []byte {
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return b
}

func note(method string, params any) []byte {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return b
}

func (c *httpClient) initialize(v spec.Version) {
	c.t.Helper()
	rep := c.do("POST", rpc(1, "initialize", map[string]any{"protocolVersion": string(v), "capabilities": map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{}}, "clientInfo": map[string]any{"name": "t", "version": "1"}}), nil)
	if rep.status != 200 {
		c.t.Fatalf("initialize: status %d %s", rep.status, rep.raw)
	}
	c.session = rep.header.Get("Mcp-Session-Id")
	c.version = v
	m := c.response(rep, "initialize")
	if m.Error != nil {
		c.t.Fatalf("initialize failed: %s", m.Error.Message)
	}
	if r := c.do("POST", note("notifications/initialized", nil), nil); r.status != 202 {
		c.t.Fatalf("initialized: status %d, want 202", r.status)
	}
}

func TestHTTPSessionLifecycle(t *testing.T) {
	s := newTestServer(t, Options{})
	c := startHTTP(t, s, HTTPOptions{})
	c.initialize(spec.V20251125)
	if c.session == "" {
		t.Fatal("no Mcp-Session-Id")
	}
	for _, r := range c.session {
		if r < 0x21 || r > 0x7e {
			t.Fatalf("session id %q has a character outside visible ASCII", c.session)
		}
	}
	rep := c.do("POST", rpc(2, "tools/list", nil), nil)
	if rep.status != 200 || rep.ids[0] == "" || len(rep.msgs[0].raw) != 0 {
		t.Errorf("want a priming event with an id and empty data first, got ids %v", rep.ids)
	}
	if m := c.response(rep, "tools/list"); m.Error != nil {
		t.Fatal(m.Error.Message)
	}
	// Without a session id: 400. Unknown: 404.
	sid := c.session
	c.session = ""
	if r := c.do("POST", rpc(3, "tools/list", nil), nil); r.status != 400 {
		t.Errorf("no session: status %d, want 400", r.status)
	}
	c.session = "nope"
	if r := c.do("POST", rpc(3, "tools/list", nil), nil); r.status != 404 {
		t.Errorf("unknown session: status %d, want 404", r.status)
	}
	c.session = sid
	// Bad protocol version header: 400.
	if r := c.do("POST", rpc(4, "tools/list", nil), map[string]string{"MCP-Protocol-Version": "1999-01-01"}); r.status != 400 {
		t.Errorf("invalid MCP-Protocol-Version: status %d, want 400", r.status)
	}
	// Absent header: 2025-03-26 assumed, request served.
	if r := c.do("POST", rpc(5, "ping", nil), map[string]string{"MCP-Protocol-Version": ""}); r.status != 200 {
		t.Errorf("absent MCP-Protocol-Version: status %d, want 200", r.status)
	}
	// Accept without SSE: 406.
	if r := c.do("POST", rpc(6, "ping", nil), map[string]string{"Accept": "application/json"}); r.status != 406 {
		t.Errorf("Accept without text/event-stream: status %d, want 406", r.status)
	}
	if r := c.do("DELETE", nil, nil); r.status != 200 {
		t.Errorf("DELETE: status %d", r.status)
	}
	if r := c.do("POST", rpc(7, "tools/list", nil), nil); r.status != 404 {
		t.Errorf("after DELETE: status %d, want 404", r.status)
	}
}

func TestHTTPJSONResponses(t *testing.T) {
	s := newTestServer(t, Options{})
	c := startHTTP(t, s, HTTPOptions{JSONResponses: true})
	c.initialize(spec.V20250618)
	rep := c.do("POST", rpc(2, "tools/call", map[string]any{"name": "test_simple_text"}), nil)
	if ct := rep.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json", ct)
	}
	m := c.response(rep, "tools/call")
	if !strings.Contains(string(m.Result), "This is a simple text response for testing.") {
		t.Errorf("result %s", m.Result)
	}
}

func TestHTTPOriginAndHost(t *testing.T) {
	s := newTestServer(t, Options{})
	c := startHTTP(t, s, HTTPOptions{})
	init := rpc(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	rep := c.do("POST", init, map[string]string{"Origin": "http://evil.example.com"})
	if rep.status != 403 {
		t.Fatalf("foreign Origin: status %d, want 403", rep.status)
	}
	var e struct {
		ID    *json.RawMessage    `json:"id"`
		Error *struct{ Code int } `json:"error"`
	}
	json.Unmarshal(rep.raw, &e)
	if e.Error == nil || e.ID != nil {
		t.Errorf("403 body must be a JSON-RPC error without id: %s", rep.raw)
	}
	if rep := c.do("POST", init, map[string]string{"Origin": "http://localhost:1234"}); rep.status != 200 {
		t.Errorf("localhost Origin: status %d", rep.status)
	}
	req, _ := http.NewRequest("POST", c.srv.URL+"/mcp", bytes.NewReader(init))
	req.Host = "evil.example.com"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("foreign Host: status %d, want 403", resp.StatusCode)
	}
}

// TestHTTPResumption: test_reconnection closes its POST stream after the
// priming event; GET with Last-Event-ID delivers the result, and only
// events of that stream.
func TestHTTPResumption(t *testing.T) {
	s := newTestServer(t, Options{})
	c := startHTTP(t, s, HTTPOptions{})
	c.initialize(spec.V20251125)
	rep := c.do("POST", rpc(9, "tools/call", map[string]any{"name": "test_reconnection"}), nil)
	if len(rep.ids) != 1 || rep.ids[0] == "" {
		t.Fatalf("want only the priming event before the disconnect, got %d events %v", len(rep.ids), rep.ids)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", c.srv.URL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", c.session)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", rep.ids[0])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := c.readReply(resp, -1)
	m := c.response(got, "tools/call")
	if string(m.ID) != "9" || !strings.Contains(string(m.Result), "Reconnection test completed successfully.") {
		t.Fatalf("resumed stream delivered %s", m.raw)
	}
	stream, _, _ := parseEventID(rep.ids[0])
	for _, id := range got.ids {
		if s, _, ok := parseEventID(id); !ok || s != stream {
			t.Errorf("event id %q is not of stream %q", id, stream)
		}
	}
}

// TestHTTPGetStream: server-initiated notifications reach the GET stream.
func TestHTTPGetStream(t *testing.T) {
	s := newTestServer(t, Options{})
	c := startHTTP(t, s, HTTPOptions{})
	c.initialize(spec.V20251125)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", c.srv.URL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", c.session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET: status %d", resp.StatusCode)
	}
	c.do("POST", rpc(2, "tools/call", map[string]any{"name": "ref_change_lists", "arguments": map[string]any{"kind": "prompts"}}), nil)
	evs := readSSE(t, resp.Body, 1)
	if len(evs) != 1 || !strings.Contains(string(evs[0].data), "notifications/prompts/list_changed") {
		t.Fatalf("GET stream got %v", evs)
	}
	validateServerMessage(t, spec.V20251125, "", evs[0].data)
	// A second GET while one is open: 409.
	if r := c.do("GET", nil, map[string]string{"Accept": "text/event-stream"}); r.status != 409 {
		t.Errorf("second GET: status %d, want 409", r.status)
	}
	_ = time.Second
}

// TestHTTPRefusedResponseCarriesNoID: a JSON-RPC response POSTed with a
// terminated session, without a session, or without an acceptable Accept
// header is refused at the HTTP level; its id names the server's own request,
// so the refusal's error object must not echo it
// (transport-http.errors.error-body-without-id). The fuzz campaign found the
// echo.
func TestHTTPRefusedResponseCarriesNoID(t *testing.T) {
	s := newTestServer(t, Options{})
	c := startHTTP(t, s, HTTPOptions{})
	c.initialize(spec.V20251125)
	sid := c.session
	if r := c.do("DELETE", nil, nil); r.status != 200 {
		t.Fatalf("DELETE: status %d", r.status)
	}
	response := []byte(`{"jsonrpc":"2.0","id":77,"result":{}}`)
	for _, tc := range []struct {
		name, session string
		hdr           map[string]string
		status        int
	}{
		{"terminated session", sid, nil, 404},
		{"no session", "", nil, 400},
		{"Accept without SSE", sid, map[string]string{"Accept": "application/json"}, 406},
	} {
		c.session = tc.session
		r := c.do("POST", response, tc.hdr)
		if r.status != tc.status {
			t.Errorf("%s: status %d, want %d", tc.name, r.status, tc.status)
			continue
		}
		if bytes.Contains(r.raw, []byte(`"id":77`)) {
			t.Errorf("%s: the refusal echoes the response's id: %s", tc.name, r.raw)
		}
	}
}
