package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// recorder keeps the requests a fake server saw.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
	body []string
}

func (r *recorder) add(req *http.Request) string {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	r.body = append(r.body, string(b))
	return string(b)
}

func (r *recorder) find(method, contains string) []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*http.Request
	for i, q := range r.reqs {
		if q.Method == method && strings.Contains(r.body[i], contains) {
			out = append(out, q)
		}
	}
	return out
}

func sseWrite(w http.ResponseWriter, lines ...string) {
	for _, l := range lines {
		fmt.Fprint(w, l+"\n")
	}
	w.(http.Flusher).Flush()
}

func TestStreamableJSONSessionAndDelete(t *testing.T) {
	rec := &recorder{}
	deleted := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := rec.add(r)
		switch r.Method {
		case http.MethodDelete:
			deleted <- r.Header.Get(HeaderSessionID)
			return
		case http.MethodGet:
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		switch {
		case strings.Contains(body, `"initialize"`):
			w.Header().Set(HeaderSessionID, "sess-1")
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		case strings.Contains(body, `"id"`):
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":2,"result":{"ok":true}}`)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	s, err := NewStreamableHTTP(HTTPOptions{URL: srv.URL, Header: http.Header{"X-Custom": {"v"}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	if err := s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)); err != nil {
		t.Fatal(err)
	}
	if m, err := s.Recv(ctx); err != nil || !strings.Contains(string(m), `"id":1`) {
		t.Fatalf("Recv = %s, %v", m, err)
	}
	s.SetProtocolVersion("2025-11-25")
	if err := s.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)); err != nil {
		t.Fatal(err)
	}
	if m, err := s.Recv(ctx); err != nil || !strings.Contains(string(m), `"ok":true`) {
		t.Fatalf("Recv = %s, %v", m, err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := <-deleted; got != "sess-1" {
		t.Errorf("DELETE carried session %q; want sess-1", got)
	}
	init := rec.find(http.MethodPost, "initialize")[0]
	if a := init.Header.Get("Accept"); !strings.Contains(a, "application/json") || !strings.Contains(a, "text/event-stream") {
		t.Errorf("Accept = %q; want both types", a)
	}
	if init.Header.Get(HeaderSessionID) != "" || init.Header.Get(HeaderProtocolVersion) != "" {
		t.Errorf("initialize carried session or version headers: %v", init.Header)
	}
	list := rec.find(http.MethodPost, "tools/list")[0]
	if list.Header.Get(HeaderSessionID) != "sess-1" || list.Header.Get(HeaderProtocolVersion) != "2025-11-25" || list.Header.Get("X-Custom") != "v" {
		t.Errorf("tools/list headers = %v; want the session id, protocol version and custom header", list.Header)
	}
}

func TestStreamableSSEResponseAndGETStream(t *testing.T) {
	getServed := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			sseWrite(w, `event: message`, `data: {"jsonrpc":"2.0","id":"s1","method":"roots/list"}`, ``)
			close(getServed)
			<-r.Context().Done()
			return
		}
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), `"id"`) {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, `: a comment`, `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, ``,
			`data: {"jsonrpc":"2.0",`, `data: "id":7,"result":{}}`, ``)
	}))
	defer srv.Close()
	s, _ := NewStreamableHTTP(HTTPOptions{URL: srv.URL})
	defer s.Close()
	ctx := ctxT(t)
	if err := s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)); err != nil {
		t.Fatal(err)
	}
	m1, _ := s.Recv(ctx)
	m2, _ := s.Recv(ctx)
	if !strings.Contains(string(m1), "progress") || string(m2) != "{\"jsonrpc\":\"2.0\",\n\"id\":7,\"result\":{}}" {
		t.Fatalf("got %q then %q", m1, m2)
	}
	if err := s.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		t.Fatal(err)
	}
	m3, err := s.Recv(ctx)
	if err != nil || !strings.Contains(string(m3), "roots/list") {
		t.Fatalf("GET stream message = %s, %v", m3, err)
	}
	<-getServed
}

func TestStreamableSessionExpired(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), "initialize") {
			w.Header().Set(HeaderSessionID, "old")
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
			return
		}
		if r.Method == http.MethodDelete {
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	s, _ := NewStreamableHTTP(HTTPOptions{URL: srv.URL, NoGETStream: true})
	defer s.Close()
	ctx := ctxT(t)
	s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
	s.Recv(ctx)
	err := s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	if !errors.Is(err, ErrSessionExpired) {
		t.Fatalf("Send after the session vanished = %v; want ErrSessionExpired", err)
	}
	if s.SessionID() != "" {
		t.Errorf("the expired session id is still kept")
	}
}

// TestStreamableResumption: the server primes the stream with an event id
// and retry, closes it, and delivers the response on a GET that resumes
// after Last-Event-ID.
func TestStreamableResumption(t *testing.T) {
	var (
		mu      sync.Mutex
		closed  time.Time
		resumed time.Time
		lastID  string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			mu.Lock()
			resumed, lastID = time.Now(), r.Header.Get(HeaderLastEventID)
			mu.Unlock()
			if r.Header.Get(HeaderLastEventID) == "" {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			sseWrite(w, `id: ev-2`, `data: {"jsonrpc":"2.0","id":3,"result":{"done":true}}`, ``)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, `id: ev-1`, `retry: 300`, `data:`, ``)
		mu.Lock()
		closed = time.Now()
		mu.Unlock()
	}))
	defer srv.Close()
	s, _ := NewStreamableHTTP(HTTPOptions{URL: srv.URL, NoGETStream: true})
	defer s.Close()
	ctx := ctxT(t)
	if err := s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call"}`)); err != nil {
		t.Fatal(err)
	}
	m, err := s.Recv(ctx)
	if err != nil || !strings.Contains(string(m), `"done":true`) {
		t.Fatalf("Recv = %s, %v; want the response from the resumed stream", m, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if lastID != "ev-1" {
		t.Errorf("Last-Event-ID = %q; want ev-1", lastID)
	}
	if d := resumed.Sub(closed); d < 300*time.Millisecond {
		t.Errorf("resumed %v after the stream closed; the server asked for retry: 300", d)
	}
}

func TestStreamableStreamLostWithoutID(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, `data: {"jsonrpc":"2.0","method":"notifications/message","params":{}}`, ``)
	}))
	defer srv.Close()
	s, _ := NewStreamableHTTP(HTTPOptions{URL: srv.URL, NoGETStream: true})
	defer s.Close()
	ctx := ctxT(t)
	s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call"}`))
	if m, err := s.Recv(ctx); err != nil {
		t.Fatalf("first Recv = %s, %v", m, err)
	}
	_, err := s.Recv(ctx)
	var re *RequestError
	if !errors.As(err, &re) || re.ID.String() != "9" {
		t.Fatalf("Recv = %v; want a RequestError for id 9", err)
	}
}

func TestStatelessHeaders(t *testing.T) {
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := rec.add(r)
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(body, "bad") {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"]}}}`)
			return
		}
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}`)
	}))
	defer srv.Close()
	s, _ := NewStreamableHTTP(HTTPOptions{URL: srv.URL, Stateless: true})
	defer s.Close()
	ctx := WithHeaders(ctxT(t), http.Header{"Mcp-Param-Region": {"eu"}})
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tøol","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	if err := s.Send(ctx, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	s.Recv(ctx)
	h := rec.find(http.MethodPost, "tools/call")[0].Header
	if h.Get(HeaderMethod) != "tools/call" || h.Get(HeaderName) != "=?base64?dMO4b2w=?=" || h.Get(HeaderProtocolVersion) != "2026-07-28" || h.Get("Mcp-Param-Region") != "eu" {
		t.Errorf("headers = %v", h)
	}
	if err := s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"bad"}`)); err != nil {
		t.Fatalf("Send of a request the server rejects with 400 + JSON-RPC error = %v; want the error delivered as a message", err)
	}
	if m, err := s.Recv(ctx); err != nil || !strings.Contains(string(m), "-32022") {
		t.Fatalf("Recv = %s, %v", m, err)
	}
}

func TestStreamableHostileBodies(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(strings.Repeat(" ", 5000)))
		case "/html":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>"))
		case "/hang":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	for path, want := range map[string]string{"/big": "larger than", "/html": "text/html", "/hang": "reading the answer"} {
		s, _ := NewStreamableHTTP(HTTPOptions{URL: srv.URL + path, MaxMessage: 1000})
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		err := s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		cancel()
		s.Close()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Send = %v; want an error mentioning %q", path, err, want)
		}
	}
}

// TestStreamableErrorStatusWithoutErrorObject: an HTTP error status whose
// body is shaped like an error response but carries no error object
// ({"error":"nope"}, found by mcpcheck fuzz --client) is a status error,
// not a crash.
func TestStreamableErrorStatusWithoutErrorObject(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotAcceptable)
		fmt.Fprint(w, `{"error":"nope"}`)
	}))
	defer srv.Close()
	s, _ := NewStreamableHTTP(HTTPOptions{URL: srv.URL, NoGETStream: true})
	defer s.Close()
	err := s.Send(ctxT(t), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	var se *StatusError
	if !errors.As(err, &se) || se.Code != http.StatusNotAcceptable {
		t.Fatalf("Send = %v; want the 406 as a StatusError", err)
	}
}

func TestLegacySSEAndAutoFallback(t *testing.T) {
	rec := &recorder{}
	msgs := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := rec.add(r)
		switch {
		case r.URL.Path == "/sse" && r.Method == http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			sseWrite(w, `event: endpoint`, `data: /messages?session=abc`, ``)
			for {
				select {
				case m := <-msgs:
					sseWrite(w, `event: message`, `data: `+m, ``)
				case <-r.Context().Done():
					return
				}
			}
		case r.URL.Path == "/messages" && r.Method == http.MethodPost:
			w.WriteHeader(http.StatusAccepted)
			msgs <- strings.Replace(body, `"method":"initialize"`, `"result":{}`, 1)
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	}))
	defer srv.Close()
	a, _ := NewAutoHTTP(HTTPOptions{URL: srv.URL + "/sse"})
	defer a.Close()
	ctx := ctxT(t)
	if err := a.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)); err != nil {
		t.Fatalf("Send initialize: %v", err)
	}
	if !a.Legacy() {
		t.Fatal("the transport did not fall back to HTTP+SSE after POST got 405")
	}
	m, err := a.Recv(ctx)
	if err != nil || string(m) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("Recv = %s, %v", m, err)
	}
	if got := rec.find(http.MethodPost, "initialize"); len(got) != 2 || got[1].URL.String() != "/messages?session=abc" {
		t.Errorf("initialize POSTs: %d; want one to the SSE URL and one to the endpoint", len(got))
	}
}

func TestLegacySSERejectsForeignEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, `event: endpoint`, `data: http://evil.example/messages`, ``)
		<-r.Context().Done()
	}))
	defer srv.Close()
	_, err := DialLegacySSE(ctxT(t), HTTPOptions{URL: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "origin") {
		t.Fatalf("err = %v; want a refusal naming the origin", err)
	}
}

func TestLegacySSENoEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, `: nothing`)
		<-r.Context().Done()
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := DialLegacySSE(ctx, HTTPOptions{URL: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "no endpoint event") {
		t.Fatalf("err = %v", err)
	}
}

// TestStreamableClosesStreamAfterResponse: a server that keeps the POST
// stream open after the response does not keep the connection.
func TestStreamableClosesStreamAfterResponse(t *testing.T) {
	closed := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, `data: {"jsonrpc":"2.0","id":1,"result":{}}`, ``)
		<-r.Context().Done()
		close(closed)
	}))
	defer srv.Close()
	s, _ := NewStreamableHTTP(HTTPOptions{URL: srv.URL, NoGETStream: true})
	defer s.Close()
	ctx := ctxT(t)
	s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if _, err := s.Recv(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("the client kept the stream open after the response")
	}
}

// TestGETStreamOpensBeforeNextRequest: Send(initialized) returns only once
// the server has answered the GET, so the GET reaches the server before the
// client's next POST.
func TestGETStreamOpensBeforeNextRequest(t *testing.T) {
	var mu sync.Mutex
	var order []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		order = append(order, r.Method+" "+string(body))
		mu.Unlock()
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		if strings.Contains(string(body), `"id"`) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":2,"result":{}}`)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	s, _ := NewStreamableHTTP(HTTPOptions{URL: srv.URL})
	defer s.Close()
	ctx := ctxT(t)
	s.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	mu.Lock()
	defer mu.Unlock()
	if len(order) != 3 || !strings.HasPrefix(order[1], "GET") {
		t.Fatalf("order = %q; want the GET before tools/list", order)
	}
}

// TestStreamableEndlessResumption: a server that ends every resumed stream
// without the response makes the request fail, not loop forever.
func TestStreamableEndlessResumption(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, `id: e`, `retry: 0`, `data:`, ``)
	}))
	defer srv.Close()
	s, _ := NewStreamableHTTP(HTTPOptions{URL: srv.URL, NoGETStream: true, MaxResumptions: 5})
	defer s.Close()
	ctx := ctxT(t)
	s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call"}`))
	_, err := s.Recv(ctx)
	var re *RequestError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "giving up") {
		t.Fatalf("Recv = %v; want the request given up", err)
	}
	if got := n.Load(); got != 6 {
		t.Errorf("%d requests; want one POST and 5 resumptions", got)
	}
}
