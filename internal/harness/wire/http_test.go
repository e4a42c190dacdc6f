package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func newHTTP(t *testing.T, h http.HandlerFunc, l Limits) (*HTTP, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := NewHTTP(HTTPOptions{URL: srv.URL + "/mcp", Header: http.Header{"Authorization": {"Bearer x"}}, Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

func TestHTTPJSONBodySessionCaptureAndEcho(t *testing.T) {
	checkGoroutines(t)
	seen := make(chan http.Header, 2)
	c, _ := newHTTP(t, func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		w.Header().Set("Mcp-Session-Id", "s-1")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}, Limits{})
	defer c.Close()
	ctx := ctxT(t, 30*time.Second)
	stream, err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.Recv(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != KindMessage || f.Stream != stream || f.Status() != 200 || f.HTTP.Header.Get("Mcp-Session-Id") != "s-1" {
		t.Fatalf("frame = %s (%+v)", f.Describe(), f)
	}
	h := <-seen
	if h.Get("Accept") != "application/json, text/event-stream" || h.Get("Content-Type") != "application/json" || h.Get("Authorization") != "Bearer x" {
		t.Errorf("first POST headers = %v", h)
	}
	if h.Get("Mcp-Session-Id") != "" {
		t.Error("the first POST must not carry a session ID")
	}
	if c.SessionID() != "s-1" {
		t.Errorf("captured session = %q", c.SessionID())
	}
	c.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if h := <-seen; h.Get("Mcp-Session-Id") != "s-1" {
		t.Errorf("second POST session header = %q, want the captured s-1", h.Get("Mcp-Session-Id"))
	}
	c.Recv(ctx)
}

func TestHTTPMisbehavingResponses(t *testing.T) {
	checkGoroutines(t)
	c, _ := newHTTP(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch string(body) {
		case "accepted":
			w.WriteHeader(http.StatusAccepted)
		case "html":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, "<h1>oops</h1>")
		case "huge":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"x":"`+strings.Repeat("a", 5000)+`"}}`)
		case "sse-broken":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "id: 1\ndata:\n\n")                                       // priming
			io.WriteString(w, "event: message\ndata: not json\n\n")                     // garbage
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n\n") // message
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",")                            // cut
		case "redirect":
			http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
		}
	}, Limits{MaxMessage: 1024})
	defer c.Close()
	ctx := ctxT(t, 30*time.Second)
	want := map[string][]Kind{
		"accepted":   {KindStatus},
		"html":       {KindGarbage},
		"huge":       {KindTooLong},
		"sse-broken": {KindEmptyEvent, KindGarbage, KindMessage, KindEnd},
		"redirect":   {KindStatus},
	}
	streams := map[string]string{}
	for body := range want {
		s, err := c.SendRaw(ctx, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		streams[s] = body
	}
	got := map[string][]Frame{}
	n := 0
	for _, ks := range want {
		n += len(ks)
	}
	for i := 0; i < n; i++ {
		f, err := c.Recv(ctx)
		if err != nil {
			t.Fatalf("after %d frames: %v", i, err)
		}
		got[streams[f.Stream]] = append(got[streams[f.Stream]], f)
	}
	for body, kinds := range want {
		fs := got[body]
		if len(fs) != len(kinds) {
			t.Errorf("%s: %d frames, want %d", body, len(fs), len(kinds))
			continue
		}
		for i, k := range kinds {
			if fs[i].Kind != k {
				t.Errorf("%s: frame %d is %s, want %v", body, i, fs[i].Describe(), k)
			}
			if fs[i].Ack {
				t.Errorf("%s: frame %d of streamable HTTP is marked an HTTP+SSE acknowledgement", body, i)
			}
		}
	}
	if f := got["html"][0]; f.Status() != 500 || f.HTTP.Header.Get("Content-Type") != "text/html" {
		t.Errorf("html frame HTTP = %+v", f.HTTP)
	}
	if f := got["redirect"][0]; f.Status() != http.StatusTemporaryRedirect {
		t.Errorf("a redirect must be seen, not followed: status %d", f.Status())
	}
	if fs := got["sse-broken"]; len(fs) == 4 && (fs[3].Err == nil || !fs[0].HasEventID) {
		t.Errorf("the cut SSE stream must end with an error and the priming event keep its id: %+v", fs)
	}
}

// A target that accepts the request and never answers: Close must still
// return promptly and stop every goroutine; CloseStream must end one
// exchange.
func TestHTTPHangingTarget(t *testing.T) {
	checkGoroutines(t)
	quit := make(chan struct{})
	c, _ := newHTTP(t, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body) // the server notices a client going away only after the body
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-quit:
		}
	}, Limits{})
	t.Cleanup(func() { close(quit) }) // runs before the server's Close
	ctx := ctxT(t, 30*time.Second)
	s, _ := c.OpenStream(ctx)
	c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	c.CloseStream(s)
	f, err := c.Recv(ctx)
	// The stream may be cut before or after its headers arrived.
	if err != nil || (f.Kind != KindEnd && f.Kind != KindTransportError) || f.Stream != s || f.Err == nil {
		t.Fatalf("after CloseStream: %v %+v", err, f)
	}
	done := make(chan struct{})
	go func() { c.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Close hung on a target that never answers")
	}
}

func TestHTTPConnectionRefused(t *testing.T) {
	checkGoroutines(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := NewHTTP(HTTPOptions{URL: "http://" + addr + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := ctxT(t, 30*time.Second)
	c.Send(ctx, []byte(`{}`))
	f, err := c.Recv(ctx)
	if err != nil || f.Kind != KindTransportError || f.Err == nil {
		t.Fatalf("got %v %s", err, f.Describe())
	}
}

func TestHTTPRawRequestsAndHost(t *testing.T) {
	checkGoroutines(t)
	type seen struct {
		method, host string
		h            http.Header
	}
	ch := make(chan seen, 4)
	c, _ := newHTTP(t, func(w http.ResponseWriter, r *http.Request) {
		ch <- seen{r.Method, r.Host, r.Header.Clone()}
		w.WriteHeader(http.StatusMethodNotAllowed)
	}, Limits{})
	defer c.Close()
	c.SetSessionID("abc")
	ctx := ctxT(t, 30*time.Second)
	c.Do(ctx, Request{Method: http.MethodPut, Header: http.Header{"Host": {"evil.example"}, "Origin": {"http://evil.example"}}, Omit: []string{"Accept"}})
	s := <-ch
	if s.method != http.MethodPut || s.host != "evil.example" || s.h.Get("Origin") != "http://evil.example" || s.h.Get("Accept") != "" || s.h.Get("Mcp-Session-Id") != "abc" {
		t.Errorf("raw request arrived as %+v", s)
	}
	c.Do(ctx, Request{Bare: true, Body: []byte("{}")})
	if s := <-ch; s.h.Get("Authorization") != "" || s.h.Get("Content-Type") != "" {
		t.Errorf("a bare request carried default headers: %v", s.h)
	}
	for i := 0; i < 2; i++ {
		if f, _ := c.Recv(ctx); f.Kind != KindStatus || f.Status() != 405 {
			t.Errorf("frame %s", f.Describe())
		}
	}
}

func TestLegacySSE(t *testing.T) {
	checkGoroutines(t)
	msgs := make(chan string, 4)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sse", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, ": hello\n\nevent: endpoint\ndata: /messages?session=1\n\n")
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
	})
	mux.HandleFunc("POST /messages", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("session") != "1" {
			w.WriteHeader(400)
			return
		}
		io.ReadAll(r.Body)
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "Accepted")
		msgs <- `{"jsonrpc":"2.0","id":1,"result":{}}`
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, err := NewLegacySSE(HTTPOptions{URL: srv.URL + "/sse"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := ctxT(t, 30*time.Second)
	ep, err := c.Endpoint(ctx)
	if err != nil || ep != srv.URL+"/messages?session=1" {
		t.Fatalf("endpoint %q %v", ep, err)
	}
	post, err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for len(kinds) < 3 {
		f, err := c.Recv(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if f.Stream == post && !f.Ack {
			t.Errorf("the 202 of a legacy POST is an acknowledgement (Ack): %+v", f)
		}
		if f.Stream == StreamSSE && f.Ack {
			t.Errorf("an event of the SSE stream is no acknowledgement: %+v", f)
		}
		kinds = append(kinds, f.Kind.String()+"@"+f.Stream)
	}
	want := map[string]bool{"endpoint@sse": true, "message@sse": true, "garbage@" + post: true}
	for _, k := range kinds {
		if !want[k] {
			t.Errorf("unexpected frame %s (all: %v)", k, kinds)
		}
	}
}

func TestLegacySSEWithoutStream(t *testing.T) {
	checkGoroutines(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }))
	defer srv.Close()
	c, _ := NewLegacySSE(HTTPOptions{URL: srv.URL})
	defer c.Close()
	ctx := ctxT(t, 30*time.Second)
	_, err := c.Send(ctx, []byte(`{}`))
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("Send without an endpoint: %v", err)
	}
	f, _ := c.Recv(ctx)
	if f.Status() != 404 {
		t.Errorf("frame %s", f.Describe())
	}
	if _, err := c.Recv(ctxT(t, 10*time.Millisecond)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("no more frames expected: %v", err)
	}
}

func TestHTTPResumeSendsLastEventID(t *testing.T) {
	checkGoroutines(t)
	got := make(chan http.Header, 1)
	c, _ := newHTTP(t, func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "id: 8\nretry: 250\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
	}, Limits{})
	defer c.Close()
	ctx := ctxT(t, 30*time.Second)
	s, _ := c.Resume(ctx, "7")
	h := <-got
	if h.Get("Last-Event-Id") != "7" || h.Get("Accept") != "text/event-stream" {
		t.Errorf("resume headers: %v", h)
	}
	fs := recvUntil(t, c, KindEnd, 5*time.Second)
	if len(fs) != 2 || fs[0].Stream != s || fs[0].EventID != "8" || fs[0].Retry != 250*time.Millisecond || !fs[0].InSSE {
		t.Errorf("frames: %+v", fs)
	}
}

// hugeHeaders answers every request with n bytes of headers (in 64 KiB
// values) and a JSON body.
func hugeHeaders(n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		pad := strings.Repeat("h", 64<<10)
		for i := 0; i*len(pad) < n; i++ {
			w.Header().Set(fmt.Sprintf("X-Pad-%d", i), pad)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}
}

// TestHTTPResponseHeadersBounded: a response with more than
// Limits.MaxHeader bytes of headers (1 MiB here, under net/http's own
// 10 MiB default) is dropped as a transport error that says the target
// sent too many header bytes, on a POST, a GET stream and the legacy SSE
// stream alike; a smaller limit applies as given.
func TestHTTPResponseHeadersBounded(t *testing.T) {
	checkGoroutines(t)
	c, srv := newHTTP(t, hugeHeaders(1<<20), Limits{})
	defer c.Close()
	ctx := ctxT(t, 30*time.Second)
	wantErr := func(what string, f Frame) {
		t.Helper()
		var he *HeaderLimitError
		if f.Kind != KindTransportError || !errors.As(f.Err, &he) || he.Limit != DefaultMaxHeader {
			t.Fatalf("%s: got %s (%v), want a transport error over the %d-byte header limit", what, f.Describe(), f.Err, DefaultMaxHeader)
		}
		if msg := f.Err.Error(); !strings.Contains(msg, fmt.Sprintf("more than %d bytes of response headers", DefaultMaxHeader)) {
			t.Errorf("%s: the error does not say what the target did: %s", what, msg)
		}
	}
	if _, err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	f, err := c.Recv(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantErr("POST", f)
	if _, err := c.OpenStream(ctx); err != nil {
		t.Fatal(err)
	}
	if f, err = c.Recv(ctx); err != nil {
		t.Fatal(err)
	}
	wantErr("GET", f)

	sse, err := NewLegacySSE(HTTPOptions{URL: srv.URL + "/sse"})
	if err != nil {
		t.Fatal(err)
	}
	defer sse.Close()
	if f, err = sse.Recv(ctx); err != nil {
		t.Fatal(err)
	}
	wantErr("legacy SSE stream", f)

	small, _ := newHTTP(t, hugeHeaders(64<<10), Limits{MaxHeader: 16 << 10})
	defer small.Close()
	small.Send(ctx, []byte(`{}`))
	var he *HeaderLimitError
	if f, _ := small.Recv(ctx); !errors.As(f.Err, &he) || he.Limit != 16<<10 {
		t.Errorf("with MaxHeader 16 KiB: got %s (%v)", f.Describe(), f.Err)
	}
}

// TestHTTPGetStreamIsTheOpenOne: GetStream names the GET stream
// OpenStreamWait opened while the target holds it open, and none once the
// target declined it (405), so that a second GET, which a server may
// refuse, is not asked for.
func TestHTTPGetStreamIsTheOpenOne(t *testing.T) {
	checkGoroutines(t)
	decline := make(chan bool, 2)
	c, _ := newHTTP(t, func(w http.ResponseWriter, r *http.Request) {
		if <-decline {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}, Limits{})
	defer c.Close()
	ctx := ctxT(t, 30*time.Second)
	decline <- true
	_, status, err := c.OpenStreamWait(ctx)
	if err != nil || status != http.StatusMethodNotAllowed || c.GetStream() != "" {
		t.Fatalf("declined GET: status %d, err %v, GetStream %q; want 405 and no GET stream", status, err, c.GetStream())
	}
	decline <- false
	st, status, err := c.OpenStreamWait(ctx)
	if err != nil || status != http.StatusOK || c.GetStream() != st {
		t.Fatalf("open GET %s: status %d, err %v, GetStream %q; want 200 and that stream", st, status, err, c.GetStream())
	}
}
