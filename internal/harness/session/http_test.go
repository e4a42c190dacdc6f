package session

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

func checkGoroutines(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(20 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<20)
			t.Errorf("goroutine leak: %d after, %d before\n%s", n, before, buf[:runtime.Stack(buf, true)])
		}
	})
}

// streamableServer is a 2025-11-25 streamable HTTP server: it assigns a
// session, requires it and the protocol version header afterwards, answers
// tools/call on an SSE stream after asking the client for roots on that
// stream, and ends the session on DELETE.
type streamableServer struct {
	mu      sync.Mutex
	ended   bool
	answers chan json.RawMessage
	bad     []string
}

func (s *streamableServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage
		Method string
		Result json.RawMessage
	}
	json.Unmarshal(body, &m)
	s.mu.Lock()
	ended := s.ended
	s.mu.Unlock()
	if m.Method != "initialize" {
		switch {
		case ended:
			w.WriteHeader(404)
			return
		case r.Header.Get("Mcp-Session-Id") != "sess-1":
			s.bad = append(s.bad, "no session on "+r.Method+" "+m.Method)
			w.WriteHeader(400)
			return
		case r.Header.Get("Mcp-Protocol-Version") != "2025-11-25":
			s.bad = append(s.bad, "no protocol version header on "+m.Method)
		}
	}
	switch {
	case r.Method == http.MethodDelete:
		s.mu.Lock()
		s.ended = true
		s.mu.Unlock()
		return
	case r.Method == http.MethodGet:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	case m.Method == "initialize":
		w.Header().Set("Mcp-Session-Id", "sess-1")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"h","version":"1"}}}`, m.ID)
	case m.ID == nil || m.Result != nil: // notifications and responses
		if m.Result != nil {
			s.answers <- m.Result
		}
		w.WriteHeader(http.StatusAccepted)
	case m.Method == "tools/call":
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: 1\ndata:\n\n")
		fmt.Fprint(w, "id: 2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"method\":\"roots/list\"}\n\n")
		w.(http.Flusher).Flush()
		roots := <-s.answers
		fmt.Fprintf(w, "id: 3\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":%q}]}}\n\n", m.ID, roots)
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	}
}

func TestStatefulOverStreamableHTTP(t *testing.T) {
	checkGoroutines(t)
	fake := &streamableServer{answers: make(chan json.RawMessage, 1)}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	conn, _ := wire.NewHTTP(wire.HTTPOptions{URL: srv.URL + "/mcp"})
	defer conn.Close()
	s := NewStateful(conn, Config{})
	ctx := ctxT(t)
	if _, err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	r := s.Call(ctx, "tools/call", map[string]any{"name": "x"})
	if !r.OK() || !strings.Contains(string(r.Result), "mcpcheck/root") {
		t.Fatalf("%s %s", r.Describe(), r.Result)
	}
	if len(fake.bad) != 0 {
		t.Errorf("the server saw: %v", fake.bad)
	}
	// The GET stream is optional: 405 is a permitted answer.
	get, _ := s.OpenStream(ctx)
	if obs := s.Wait(ctx, expect.HTTPStatus(get, 405, 200)); !obs.OK() {
		t.Errorf("GET: %s", obs.Actual)
	}
	del, _ := s.Terminate(ctx)
	if obs := s.Wait(ctx, expect.HTTPStatus(del, 200, 202, 204)); !obs.OK() {
		t.Errorf("DELETE: %s", obs.Actual)
	}
	// After the session ended the server answers 404, and the wait for the
	// response ends on that answer (Ended, the exchange's only answer),
	// not on its deadline (TimedOut).
	r = s.Call(ctx, "ping", nil)
	if r.OK() || r.Observed.Status != expect.Ended || r.Observed.Frame.Status() != 404 {
		t.Errorf("after DELETE: %+v", r.Observed)
	}
	if fs := s.Findings(); len(fs) != 0 {
		t.Errorf("findings: %v", fs)
	}
}

// A server that floods notifications on the response stream and never
// answers: the wait ends (flood bound), Close still stops everything.
func TestFloodingSSEServer(t *testing.T) {
	checkGoroutines(t)
	quit := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for {
			select {
			case <-r.Context().Done():
				return
			case <-quit:
				return
			default:
			}
			if _, err := fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	defer close(quit)
	conn, _ := wire.NewHTTP(wire.HTTPOptions{URL: srv.URL, Limits: wire.Limits{MaxFrames: 16}})
	defer conn.Close()
	s := NewStateful(conn, Config{MaxKept: 100})
	ctx := ctxT(t)
	id, stream, err := s.Request(ctx, "ping", nil)
	if err != nil {
		t.Fatal(err)
	}
	obs := s.WaitFor(ctx, expect.Options{MaxFrames: 500, Stream: stream}, expect.AnyResponse(id))
	if obs.Status != expect.Flooded {
		t.Fatalf("%+v", obs.Status)
	}
	if n := len(s.Notifications()); n != 100 {
		t.Errorf("kept %d notifications, want the bound of 100", n)
	}
}

func TestLegacySSESession(t *testing.T) {
	checkGoroutines(t)
	out := make(chan string, 8)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sse", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: endpoint\ndata: /msg\n\n")
		w.(http.Flusher).Flush()
		for {
			select {
			case m := <-out:
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	})
	mux.HandleFunc("POST /msg", func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage
			Method string
		}
		json.NewDecoder(r.Body).Decode(&m)
		w.WriteHeader(http.StatusAccepted)
		switch m.Method {
		case "initialize":
			out <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"l","version":"1"}}}`, m.ID)
		case "ping":
			out <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	conn, _ := wire.NewLegacySSE(wire.HTTPOptions{URL: srv.URL + "/sse"})
	defer conn.Close()
	s := NewStateful(conn, Config{Version: spec.V20241105})
	ctx := ctxT(t)
	if _, err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if r := s.Call(ctx, "ping", nil); !r.OK() {
		t.Fatal(r.Describe())
	}
	id := s.NextID()
	b, _ := jsonrpc.NewRequest(id, "ping", nil)
	if _, err := s.SendRaw(ctx, b); err != nil {
		t.Fatal(err)
	}
	if obs := s.Wait(ctx, expect.Result(id, "", nil)); !obs.OK() {
		t.Fatal(obs.Actual)
	}
}

// A server that closes the response stream early (2025-11-25 polling):
// the session waits the retry time and resumes with Last-Event-ID.
func TestResumesAClosedResponseStream(t *testing.T) {
	checkGoroutines(t)
	lastIDs := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if r.Method == http.MethodGet {
			lastIDs <- r.Header.Get("Last-Event-ID")
			fmt.Fprint(w, "id: a2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
			return
		}
		io.ReadAll(r.Body)
		fmt.Fprint(w, "id: a1\nretry: 20\ndata:\n\n")
	}))
	defer srv.Close()
	conn, _ := wire.NewHTTP(wire.HTTPOptions{URL: srv.URL})
	defer conn.Close()
	s := NewStateful(conn, Config{})
	r := s.Call(ctxT(t), "ping", nil)
	if !r.OK() || len(r.Resumed) != 1 || r.Resumed[0] != "a1" || <-lastIDs != "a1" {
		t.Fatalf("%s resumed=%v", r.Describe(), r.Resumed)
	}
}

// Messages that answer raw HTTP requests, sent around the session, are
// validated too.
func TestRawHTTPPathIsValidated(t *testing.T) {
	checkGoroutines(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		io.WriteString(w, `{"jsonrpc":"2.0","id":"x","error":{"code":"bad","message":7}}`)
	}))
	defer srv.Close()
	conn, _ := wire.NewHTTP(wire.HTTPOptions{URL: srv.URL})
	defer conn.Close()
	s := NewStateful(conn, Config{})
	stream, err := conn.Do(ctxT(t), wire.Request{Bare: true, Body: []byte(`not json at all`)})
	if err != nil {
		t.Fatal(err)
	}
	if obs := s.Wait(ctxT(t), expect.HTTPStatus(stream, 400)); !obs.OK() {
		t.Fatal(obs.Actual)
	}
	fs := s.Findings()
	if len(fs) != 1 || fs[0].Kind != FindingSchema || fs[0].Stream != stream {
		t.Fatalf("findings = %v", fs)
	}
}
