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

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
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
		began := time.Now()
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
		case !c.mcpPath(r.URL.Path):
			// An OAuth registration or token request, a form: a body, but
			// not an MCP message, so no message rule judges it.
			ev.Frame = wire.Frame{Kind: wire.KindHTTPRequest, Raw: body}
		default:
			ev.Frame = wire.Classify(body)
		}
		ev.Stream, ev.HTTP, ev.Time, ev.Began = stream, info, time.Now(), began
		c.rec.add(ev)
		if len(body) > maxBody {
			http.Error(w, "request body over the stage's limit of "+strconv.Itoa(maxBody)+" bytes", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		for k, vs := range c.respHeader {
			w.Header()[k] = append([]string(nil), vs...)
		}
		rw := &recordingWriter{w: w, c: c, stream: stream, method: r.Method, url: r.URL.String()}
		defer rw.finish()
		next.ServeHTTP(rw, r)
	})
}

// mcpPath reports whether path (below the case's prefix) is one where the
// engine takes MCP messages: the streamable HTTP endpoint, and the
// HTTP+SSE message endpoint when that transport is on.
func (c *Case) mcpPath(path string) bool {
	ep := c.cfg.HTTP.Endpoint
	if ep == "" {
		ep = "/mcp"
	}
	return path == ep || (c.cfg.HTTP.LegacySSE && path == "/message")
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
	sse         *sseSplitter
	body        bytes.Buffer
	bodyOver    int64
	// began is when the handler first wrote (the head or body bytes).
	began time.Time
	mu    sync.Mutex
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
	rw.wroteHeader, rw.status, rw.header, rw.began = true, status, rw.w.Header().Clone(), time.Now()
	if isEventStream(rw.header) {
		rw.sse = &sseSplitter{}
	}
	rw.w.WriteHeader(status)
}

func (rw *recordingWriter) Write(b []byte) (int, error) {
	rw.mu.Lock()
	rw.writeHeaderLocked(http.StatusOK)
	switch {
	case rw.sse != nil:
		// Events are recorded before their bytes reach the client, so an
		// answer to a request sent in an event is never recorded first.
		for _, f := range rw.sse.feed(b) {
			f.Stream, f.HTTP, f.InSSE = rw.stream, rw.info(), true
			rw.c.rec.add(Event{From: FromStage, Frame: f, Began: time.Now()})
		}
		rw.mu.Unlock()
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

// finish records the end of the response: the JSON (or other) body, or
// the end of the SSE stream.
func (rw *recordingWriter) finish() {
	rw.mu.Lock()
	if !rw.wroteHeader {
		// The handler wrote nothing: net/http answers 200 with no body.
		rw.wroteHeader, rw.status, rw.header, rw.began = true, http.StatusOK, rw.w.Header().Clone(), time.Now()
	}
	sse, began := rw.sse, rw.began
	rw.mu.Unlock()
	if sse != nil {
		// An event the stream ended inside is discarded, as SSE says.
		rw.c.rec.add(Event{From: FromStage, Frame: wire.Frame{Kind: wire.KindEnd, Stream: rw.stream, HTTP: rw.info(), InSSE: true}, Began: time.Now()})
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
	rw.c.rec.add(Event{From: FromStage, Frame: f, Began: began})
}

func isEventStream(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && strings.EqualFold(mt, "text/event-stream")
}

// sseSplitter parses a text/event-stream as it is written: feed returns
// the frames of the events the bytes so far complete, and keeps the rest
// (bounded by maxBody) for the next write.
type sseSplitter struct {
	pending   []byte
	scanned   int // bytes of pending already scanned for line ends
	lineStart int // where the line being scanned starts
	cut       int // end of the last complete event in pending
	started   bool
	over      bool // an event over the limit was recorded
}

func (s *sseSplitter) feed(b []byte) []wire.Frame {
	s.pending = append(s.pending, b...)
	for i := s.scanned; i < len(s.pending); i++ {
		c := s.pending[i]
		if c != '\n' && c != '\r' {
			continue
		}
		next := i + 1
		if c == '\r' {
			if i+1 == len(s.pending) {
				break // CR LF may be split across writes; wait for the next byte
			}
			if s.pending[i+1] == '\n' {
				next = i + 2
			}
		}
		if i == s.lineStart {
			s.cut = next // a blank line ends an event
		}
		s.lineStart, s.scanned = next, next
		i = next - 1
	}
	if s.scanned < len(s.pending) && s.pending[len(s.pending)-1] != '\r' {
		s.scanned = len(s.pending)
	}
	var frames []wire.Frame
	if s.cut > 0 {
		frames = s.parse(s.pending[:s.cut])
		s.pending = append(s.pending[:0], s.pending[s.cut:]...)
		s.scanned -= s.cut
		s.lineStart -= s.cut
		s.cut = 0
	}
	if len(s.pending) > maxBody {
		// An event over the limit is recorded once, and its bytes dropped.
		if !s.over {
			frames = append(frames, wire.Frame{Kind: wire.KindTooLong, Size: int64(len(s.pending))})
		}
		s.over = true
		s.pending, s.scanned, s.lineStart = s.pending[:0], 0, 0
	}
	return frames
}

// parse reads the complete events in b.
func (s *sseSplitter) parse(b []byte) []wire.Frame {
	if !s.started {
		s.started = true
	} else {
		// The BOM is dropped only at the very start of the stream.
		b = append([]byte("\n"), b...)
	}
	return sseFrames(b)
}

// sseFrames returns the frames of the complete events of an SSE stream.
func sseFrames(b []byte) []wire.Frame {
	sr := wire.NewSSEReader(bytes.NewReader(b), maxBody)
	var frames []wire.Frame
	for {
		ev, err := sr.Next()
		if err != nil {
			return frames
		}
		frames = append(frames, ev.Frame())
	}
}
