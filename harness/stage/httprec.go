package stage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/harness/wire"
)

// maxBody bounds a client request body the stage reads (the engine refuses
// anything bigger with 413 as well).
const maxBody = 4 << 20

// recordHTTP wraps the case's handler: every request of the client is
// recorded (with its headers and body) before the handler sees it, and
// every response (status, headers, and the JSON body or each SSE event)
// as the handler writes it.
func (c *Case) recordHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.enter()
		defer c.leave()
		stream := c.nextStream(r.Method)
		info := &wire.HTTPInfo{Method: r.Method, URL: r.URL.String(), Header: r.Header.Clone()}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		r.Body.Close()
		ev := Event{From: FromClient}
		switch {
		case err != nil:
			ev.Frame = wire.Frame{Kind: wire.KindTransportError, Err: fmt.Errorf("reading the request body: %w", err)}
		case len(body) > maxBody:
			ev.Frame = wire.Frame{Kind: wire.KindTooLong, Raw: body[:256], Size: int64(len(body))}
		case len(body) == 0:
			ev.Frame = wire.Frame{Kind: wire.KindHTTPRequest}
		default:
			ev.Frame = wire.Classify(body)
		}
		ev.Stream, ev.HTTP, ev.Time = stream, info, time.Now()
		c.rec.add(ev)
		if len(body) > maxBody {
			http.Error(w, "request body over the stage's limit of "+strconv.Itoa(maxBody)+" bytes", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rw := &recordingWriter{w: w, c: c, stream: stream, method: r.Method, url: r.URL.String()}
		defer rw.finish()
		next.ServeHTTP(rw, r)
	})
}

// recordingWriter records what the handler writes: the head once, then the
// body as one message (application/json and anything else) or as SSE
// events (text/event-stream), parsed as they are written.
type recordingWriter struct {
	w           http.ResponseWriter
	c           *Case
	stream      string
	method, url string
	wroteHeader bool
	status      int
	header      http.Header
	sse         *io.PipeWriter
	sseDone     chan struct{}
	body        bytes.Buffer
	bodyOver    int64
	mu          sync.Mutex
}

func (rw *recordingWriter) Header() http.Header { return rw.w.Header() }

// Unwrap lets http.ResponseController reach the real writer.
func (rw *recordingWriter) Unwrap() http.ResponseWriter { return rw.w }

func (rw *recordingWriter) info() *wire.HTTPInfo {
	return &wire.HTTPInfo{Method: rw.method, URL: rw.url, Status: rw.status, Header: rw.header}
}

func (rw *recordingWriter) WriteHeader(status int) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.writeHeaderLocked(status)
}

func (rw *recordingWriter) writeHeaderLocked(status int) {
	if rw.wroteHeader {
		return
	}
	rw.wroteHeader, rw.status, rw.header = true, status, rw.w.Header().Clone()
	if isEventStream(rw.header) {
		pr, pw := io.Pipe()
		rw.sse, rw.sseDone = pw, make(chan struct{})
		go rw.readSSE(pr)
	}
	rw.w.WriteHeader(status)
}

func (rw *recordingWriter) Write(b []byte) (int, error) {
	rw.mu.Lock()
	rw.writeHeaderLocked(http.StatusOK)
	switch {
	case rw.sse != nil:
		// The parser consumes at once; the pipe only orders the bytes.
		rw.mu.Unlock()
		_, _ = rw.sse.Write(b)
		return rw.w.Write(b)
	case rw.body.Len()+len(b) <= maxBody:
		rw.body.Write(b)
	default:
		rw.bodyOver += int64(len(b))
	}
	rw.mu.Unlock()
	return rw.w.Write(b)
}

// Flush sends what was written so far (SSE events) to the client.
func (rw *recordingWriter) Flush() {
	if f, ok := rw.w.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack hands over the connection (the stage's raw writes use it).
func (rw *recordingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := rw.w.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, errors.New("stage: the response writer cannot be hijacked")
}

func (rw *recordingWriter) readSSE(pr *io.PipeReader) {
	defer close(rw.sseDone)
	sr := wire.NewSSEReader(pr, maxBody)
	for {
		ev, err := sr.Next()
		if err != nil && !errors.Is(err, wire.ErrSSELineTooLong) {
			_, _ = io.Copy(io.Discard, pr)
			return
		}
		f := ev.Frame()
		f.Stream, f.HTTP, f.InSSE = rw.stream, rw.info(), true
		rw.c.rec.add(Event{From: FromStage, Frame: f})
	}
}

// finish records the end of the response: the JSON (or other) body, or
// the end of the SSE stream.
func (rw *recordingWriter) finish() {
	rw.mu.Lock()
	if !rw.wroteHeader {
		// The handler wrote nothing: net/http answers 200 with no body.
		rw.wroteHeader, rw.status, rw.header = true, http.StatusOK, rw.w.Header().Clone()
	}
	sse := rw.sse
	rw.mu.Unlock()
	if sse != nil {
		sse.Close()
		<-rw.sseDone
		rw.c.rec.add(Event{From: FromStage, Frame: wire.Frame{Kind: wire.KindEnd, Stream: rw.stream, HTTP: rw.info(), InSSE: true}})
		return
	}
	var f wire.Frame
	switch {
	case rw.bodyOver > 0:
		f = wire.Frame{Kind: wire.KindTooLong, Size: int64(rw.body.Len()) + rw.bodyOver}
	case rw.body.Len() == 0:
		f = wire.Frame{Kind: wire.KindStatus}
	default:
		f = wire.Classify(bytes.Clone(rw.body.Bytes()))
	}
	f.Stream, f.HTTP = rw.stream, rw.info()
	rw.c.rec.add(Event{From: FromStage, Frame: f})
}

func isEventStream(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && strings.EqualFold(mt, "text/event-stream")
}
