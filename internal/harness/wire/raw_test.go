package wire

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// bodyLog records, per request, the body a handler read and in how many
// reads it arrived.
type bodyLog struct {
	mu   sync.Mutex
	reqs []seenBody
}

type seenBody struct {
	body          []byte
	reads         int
	contentLength int64
	chunked       bool
	header        http.Header
	err           error
}

// handler reads the body in small reads, records it, and answers a JSON
// body (200), or 400 when the body could not be read to its end.
func (l *bodyLog) handler(w http.ResponseWriter, r *http.Request) {
	s := seenBody{contentLength: r.ContentLength, chunked: len(r.TransferEncoding) > 0 && r.TransferEncoding[0] == "chunked", header: r.Header.Clone()}
	buf := make([]byte, 512)
	for {
		n, err := r.Body.Read(buf)
		if n > 0 {
			s.reads++
			s.body = append(s.body, buf[:n]...)
		}
		if err != nil {
			if err != io.EOF {
				s.err = err
			}
			break
		}
	}
	l.mu.Lock()
	l.reqs = append(l.reqs, s)
	l.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if s.err != nil {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"cannot read the body"}}`)
		return
	}
	io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
}

func (l *bodyLog) only(t *testing.T) seenBody {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.reqs) != 1 {
		t.Fatalf("the server saw %d requests, want 1", len(l.reqs))
	}
	return l.reqs[0]
}

// firstOf returns the first frame of stream.
func firstOf(t *testing.T, c Conn, stream string, d time.Duration) Frame {
	t.Helper()
	ctx := ctxT(t, d)
	for {
		f, err := c.Recv(ctx)
		if err != nil {
			t.Fatalf("no frame of %s: %v", stream, err)
		}
		if f.Stream == stream {
			return f
		}
	}
}

var rawBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":"0123456789"}}}`)

func TestDoRawTricklesTheBody(t *testing.T) {
	checkGoroutines(t)
	var log bodyLog
	c, _ := newHTTP(t, log.handler, Limits{})
	defer c.Close()
	c.SetSessionID("s-1")
	stream, err := c.DoRaw(ctxT(t, 10*time.Second), Request{Body: rawBody}, RawOptions{Chunk: 8, Delay: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if f := firstOf(t, c, stream, 10*time.Second); f.Kind != KindMessage || f.Status() != 200 {
		t.Fatalf("answer %s", f.Describe())
	}
	s := log.only(t)
	if !bytes.Equal(s.body, rawBody) || s.contentLength != int64(len(rawBody)) || s.chunked {
		t.Errorf("the server read %q (Content-Length %d, chunked %v), want the body with its true length", s.body, s.contentLength, s.chunked)
	}
	// Each write of at most 8 bytes arrives as a read of its own.
	if want := len(rawBody) / 8; s.reads < want {
		t.Errorf("the body arrived in %d reads, want at least %d", s.reads, want)
	}
	for k, v := range map[string]string{"Content-Type": MediaJSON, "Accept": MediaJSON + ", " + MediaSSE, "Authorization": "Bearer x", HeaderSessionID: "s-1", "User-Agent": "mcpcheck"} {
		if got := s.header.Get(k); got != v {
			t.Errorf("header %s: %q, want %q", k, got, v)
		}
	}
}

func TestDoRawShortDeclaredLength(t *testing.T) {
	checkGoroutines(t)
	var log bodyLog
	c, _ := newHTTP(t, log.handler, Limits{})
	defer c.Close()
	stream, err := c.DoRaw(ctxT(t, 10*time.Second), Request{Body: rawBody}, RawOptions{DeclaredLength: 10})
	if err != nil {
		t.Fatal(err)
	}
	if f := firstOf(t, c, stream, 10*time.Second); f.Status() != 200 {
		t.Fatalf("answer %s", f.Describe())
	}
	if s := log.only(t); s.contentLength != 10 || !bytes.Equal(s.body, rawBody[:10]) {
		t.Errorf("the server read %q under Content-Length %d, want the first 10 bytes", s.body, s.contentLength)
	}
}

func TestDoRawLongDeclaredLength(t *testing.T) {
	checkGoroutines(t)
	var log bodyLog
	c, _ := newHTTP(t, log.handler, Limits{})
	defer c.Close()
	// The exchange's timeout is far off: an answer at all is the server
	// seeing the body end early (the write side is closed after it), not
	// the timeout, which would end the exchange with a transport error.
	stream, err := c.DoRaw(ctxT(t, 2*time.Minute), Request{Body: rawBody}, RawOptions{DeclaredLength: 1 << 40, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	f := firstOf(t, c, stream, 2*time.Minute)
	if f.Status() != http.StatusBadRequest {
		t.Fatalf("answer %s, want the server's 400", f.Describe())
	}
	if s := log.only(t); s.err == nil || !bytes.Equal(s.body, rawBody) {
		t.Errorf("the server read %q (error %v), want the whole body and then an unexpected end", s.body, s.err)
	}
}

// TestDoRawSilentTargetIsBounded: a target that reads everything, even
// past the end of the body, and never answers ends the exchange at its
// timeout with a transport error.
func TestDoRawSilentTargetIsBounded(t *testing.T) {
	checkGoroutines(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				_, _ = io.Copy(io.Discard, conn)
				<-done // the connection stays open, without a word
			}()
		}
	}()
	defer wg.Wait()
	defer ln.Close()
	defer close(done)
	c, err := NewHTTP(HTTPOptions{URL: "http://" + ln.Addr().String() + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The exchange's own 300 ms timeout ends it, not the test's context
	// (whose end would say the stream was closed by mcpcheck).
	stream, err := c.DoRaw(ctxT(t, 2*time.Minute), Request{Body: rawBody}, RawOptions{DeclaredLength: int64(len(rawBody)) + 100, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	f := firstOf(t, c, stream, 2*time.Minute)
	if f.Kind != KindTransportError || !strings.Contains(f.Err.Error(), "Content-Length") || !errors.Is(f.Err, os.ErrDeadlineExceeded) {
		t.Errorf("frame %s (%v), want a transport error naming the declared length, ended by the exchange's deadline", f.Describe(), f.Err)
	}
}

// TestDoRawHTTPSFallsBack: over TLS the body is trickled with chunked
// encoding and the declared length is ignored.
func TestDoRawHTTPSFallsBack(t *testing.T) {
	checkGoroutines(t)
	var log bodyLog
	srv := httptest.NewTLSServer(http.HandlerFunc(log.handler))
	defer srv.Close()
	cl := srv.Client()
	defer cl.CloseIdleConnections()
	c, err := NewHTTP(HTTPOptions{URL: srv.URL + "/mcp", Client: cl})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	stream, err := c.DoRaw(ctxT(t, 10*time.Second), Request{Body: rawBody}, RawOptions{Chunk: 16, Delay: 5 * time.Millisecond, DeclaredLength: 3})
	if err != nil {
		t.Fatal(err)
	}
	if f := firstOf(t, c, stream, 10*time.Second); f.Status() != 200 {
		t.Fatalf("answer %s", f.Describe())
	}
	s := log.only(t)
	if !bytes.Equal(s.body, rawBody) || !s.chunked {
		t.Errorf("the server read %q (chunked %v), want the whole body, chunked", s.body, s.chunked)
	}
	if want := len(rawBody) / 16; s.reads < want {
		t.Errorf("the body arrived in %d reads, want at least %d", s.reads, want)
	}
}

// TestLegacySSEDoRaw: the legacy connection sends raw requests to the
// endpoint the stream announced.
func TestLegacySSEDoRaw(t *testing.T) {
	checkGoroutines(t)
	var log bodyLog
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sse", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: endpoint\ndata: /messages?session=1\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.HandleFunc("POST /messages", log.handler)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, err := NewLegacySSE(HTTPOptions{URL: srv.URL + "/sse"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	stream, err := c.DoRaw(ctxT(t, 10*time.Second), Request{Body: rawBody}, RawOptions{Chunk: 20, Delay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if f := firstOf(t, c, stream, 10*time.Second); f.Status() != 200 {
		t.Fatalf("answer %s", f.Describe())
	}
	if s := log.only(t); !bytes.Equal(s.body, rawBody) || s.header.Get("Content-Type") != MediaJSON {
		t.Errorf("the server read %q with Content-Type %q", s.body, s.header.Get("Content-Type"))
	}
}
