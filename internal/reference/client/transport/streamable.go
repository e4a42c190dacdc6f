package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// HTTP header names the MCP HTTP transports use.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderLastEventID     = "Last-Event-ID"
)

// HTTPOptions configures the HTTP transports.
type HTTPOptions struct {
	// URL is the MCP endpoint (streamable HTTP) or the SSE endpoint (legacy
	// HTTP+SSE).
	URL string
	// Client sends the requests; nil means a client without an overall
	// timeout (streams are long-lived; each wait is bounded by contexts).
	// Authorization plugs in here as the client's RoundTripper.
	Client *http.Client
	// Header is added to every request (custom headers from the user).
	Header http.Header
	// MaxMessage bounds one message (a JSON body or one SSE event); 0 means
	// DefaultMaxMessage.
	MaxMessage int64
	// Stateless selects the 2026-07-28 shape of streamable HTTP: no session,
	// no GET stream, no resumption, and the Mcp-Method / Mcp-Name headers
	// on every POST.
	Stateless bool
	// NoGETStream stops the stateful transport from opening the GET stream
	// for server-initiated messages after initialization.
	NoGETStream bool
	// MaxReconnects bounds consecutive failed attempts to resume an SSE
	// stream; 0 means 5.
	MaxReconnects int
	// MaxResumptions bounds how often one request's SSE stream is resumed
	// when it keeps ending without the response; 0 means
	// DefaultMaxResumptions.
	MaxResumptions int
	// DefaultRetry is the delay before resuming a stream whose server sent
	// no retry field; 0 means one second.
	DefaultRetry time.Duration
	// Logf receives warnings (an SSE stream that could not be resumed, a GET
	// stream the server does not offer); nil discards them.
	Logf func(format string, args ...any)
}

func (o *HTTPOptions) maxMessage() int64 {
	if o.MaxMessage <= 0 {
		return DefaultMaxMessage
	}
	return o.MaxMessage
}

func (o *HTTPOptions) client() *http.Client {
	if o.Client != nil {
		return o.Client
	}
	return http.DefaultClient
}

func (o *HTTPOptions) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

// StreamableHTTP is the streamable HTTP transport: every message is a POST
// to one endpoint and answers come back as a JSON body or an SSE stream.
//
// In the stateful shape (2025-03-26 to 2025-11-25) it echoes the session id
// the server assigned at initialization, sends MCP-Protocol-Version once the
// version is set, opens the GET stream after notifications/initialized,
// resumes broken streams with Last-Event-ID after the server's retry delay,
// and sends DELETE on Close. In the stateless shape (2026-07-28) it sends
// MCP-Protocol-Version (taken from each message's _meta), Mcp-Method and
// Mcp-Name on every POST, and cancelling the context given to Send closes
// the response stream, which the server reads as cancellation.
//
// Concurrency: as Conn; SetProtocolVersion and SetStateless may be called
// at any time.
type StreamableHTTP struct {
	o      HTTPOptions
	in     *inbox
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	sessionID string
	version   string
	stateless bool
	getOpened bool
	closed    bool

	closeOnce sync.Once
}

// NewStreamableHTTP returns the transport; it sends nothing until Send.
func NewStreamableHTTP(o HTTPOptions) (*StreamableHTTP, error) {
	return newStreamable(o, newInbox(64))
}

func newStreamable(o HTTPOptions, in *inbox) (*StreamableHTTP, error) {
	if err := checkURL(o.URL); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &StreamableHTTP{o: o, in: in, ctx: ctx, cancel: cancel, stateless: o.Stateless}, nil
}

// SetProtocolVersion sets the MCP-Protocol-Version header sent from now on.
func (s *StreamableHTTP) SetProtocolVersion(v string) {
	s.mu.Lock()
	s.version = v
	s.mu.Unlock()
}

// SetStateless switches between the 2026-07-28 (stateless) and the earlier
// (stateful) shape, for a client that falls back from one era to the other.
func (s *StreamableHTTP) SetStateless(b bool) {
	s.mu.Lock()
	s.stateless = b
	s.mu.Unlock()
}

// SessionID returns the session id the server assigned, if any.
func (s *StreamableHTTP) SessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessionID
}

// Send POSTs msg. See Conn.
func (s *StreamableHTTP) Send(ctx context.Context, msg []byte) error {
	return s.send(ctx, msg, false)
}

// send does Send; with probe set, an HTTP error status is always returned as
// a *StatusError, never delivered as a JSON-RPC error (the automatic dialer
// decides on a fallback from it).
func (s *StreamableHTTP) send(ctx context.Context, msg []byte, probe bool) error {
	s.mu.Lock()
	closed, session, version, stateless := s.closed, s.sessionID, s.version, s.stateless
	s.mu.Unlock()
	if closed {
		return ErrClosed
	}
	m := jsonrpc.Decode(msg)
	var body io.Reader = bytes.NewReader(msg)
	if h, ok := ctx.Value(heldKey{}).(*HeldBody); ok && h != nil && len(msg) > 1 {
		body = &heldReader{ctx: ctx, h: h, b: msg} // chunked, its headers flushed first
	}
	req, err := http.NewRequest(http.MethodPost, s.o.URL, body)
	if err != nil {
		return fmt.Errorf("transport: cannot build the POST: %w", err)
	}
	addHeaders(req.Header, s.o.Header)
	addHeaders(req.Header, headersFrom(ctx))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if stateless {
		if v := metaVersion(m.Params); v != "" {
			version = v
		}
		if m.Method != "" {
			req.Header.Set(HeaderMethod, m.Method)
		}
		if name, ok := nameOf(m.Method, m.Params); ok {
			req.Header.Set(HeaderName, mcp.EncodeHeaderValue(name))
		}
	} else if session != "" {
		req.Header.Set(HeaderSessionID, session)
	}
	if version != "" && m.Method != spec.MethodInitialize {
		req.Header.Set(HeaderProtocolVersion, version)
	}

	// The response headers are bounded by ctx. After them, a stateful
	// stream lives as long as the connection; a stateless one as long as
	// ctx, since closing it is how a 2026-07-28 client cancels.
	reqCtx, cancelReq := context.WithCancel(s.ctx)
	stopAfter := context.AfterFunc(ctx, cancelReq)
	resp, err := s.o.client().Do(req.WithContext(reqCtx))
	if err != nil {
		stopAfter()
		cancelReq()
		if ctx.Err() != nil {
			return fmt.Errorf("transport: POST %s: no answer in time: %w", s.o.URL, ctx.Err())
		}
		if s.ctx.Err() != nil {
			return ErrClosed
		}
		return fmt.Errorf("transport: POST %s: %w%s", s.o.URL, unwrapURLError(err), dialHint(err))
	}
	isRequest := m.Kind == jsonrpc.KindRequest || (m.Shape == jsonrpc.KindRequest)
	finish := func() {
		stopAfter()
		cancelReq()
	}

	if resp.StatusCode == http.StatusNotFound && session != "" && !stateless {
		drain(resp.Body)
		finish()
		s.mu.Lock()
		if s.sessionID == session {
			s.sessionID = ""
			s.getOpened = false
		}
		s.mu.Unlock()
		return ErrSessionExpired
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer finish()
		body, _, _ := readLimited(resp.Body, 64<<10)
		resp.Body.Close()
		if !probe && isRequest {
			// Only a usable error object is passed on: a body such as
			// {"error":"nope"} is shaped like an error response but has
			// no code or message to give the caller.
			if e := jsonrpc.Decode(body); e.Shape == jsonrpc.KindErrorResponse && e.Error != nil && (e.ID == m.ID || e.ID.IsZero()) {
				if e.ID.IsZero() {
					// Give the error the id it answers so the client can
					// match it.
					if fixed, err := jsonrpc.NewErrorResponse(m.ID, e.Error.Code, e.Error.Message, e.Error.Data); err == nil {
						body = fixed
					}
				}
				if !s.in.put(s.ctx.Done(), item{msg: body}) {
					return ErrClosed
				}
				return nil
			}
		}
		if len(body) > 4096 {
			body = body[:4096]
		}
		return &StatusError{Method: http.MethodPost, URL: s.o.URL, Code: resp.StatusCode, Header: resp.Header, Body: body}
	}

	if m.Method == spec.MethodInitialize && !stateless {
		if id := resp.Header.Get(HeaderSessionID); id != "" {
			s.mu.Lock()
			s.sessionID = id
			s.mu.Unlock()
		}
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case ct == "text/event-stream":
		if !stateless {
			// The stream outlives the Send call.
			stopAfter()
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer cancelReq()
			s.readPostStream(reqCtx, resp.Body, m.ID, isRequest, stateless)
		}()
	case ct == "application/json":
		defer finish()
		body, tooBig, err := readLimited(resp.Body, s.o.maxMessage())
		resp.Body.Close()
		if tooBig {
			return fmt.Errorf("transport: POST %s: the JSON answer is larger than %d bytes; raise the message size limit if this is expected", s.o.URL, s.o.maxMessage())
		}
		if err != nil {
			return fmt.Errorf("transport: POST %s: reading the answer: %w", s.o.URL, err)
		}
		if len(bytes.TrimSpace(body)) == 0 {
			if isRequest {
				return fmt.Errorf("transport: POST %s: the server answered a request with an empty JSON body", s.o.URL)
			}
			break
		}
		msgs, batch := jsonrpc.DecodeBatch(body)
		if !batch {
			if !s.in.put(s.ctx.Done(), item{msg: body}) {
				return ErrClosed
			}
			break
		}
		for _, bm := range msgs {
			if !s.in.put(s.ctx.Done(), item{msg: bm.Raw}) {
				return ErrClosed
			}
		}
	default:
		defer finish()
		body, _, _ := readLimited(resp.Body, 4096)
		resp.Body.Close()
		if isRequest {
			return fmt.Errorf("transport: POST %s: the server answered a request with HTTP %d and Content-Type %q (body %q); it must be application/json or text/event-stream", s.o.URL, resp.StatusCode, resp.Header.Get("Content-Type"), truncate(body, 100))
		}
	}
	if m.Method == spec.MethodInitialized && !stateless && !s.o.NoGETStream {
		s.openGETStream(ctx)
	}
	return nil
}

// readPostStream delivers the messages of the SSE stream that answers a POST
// and, in the stateful shape, resumes it with GET + Last-Event-ID when it
// ends before the response arrived.
func (s *StreamableHTTP) readPostStream(ctx context.Context, body io.ReadCloser, id jsonrpc.ID, isRequest, stateless bool) {
	st := &streamState{retry: s.o.DefaultRetry}
	if st.retry <= 0 {
		st.retry = time.Second
	}
	failures, resumptions := 0, 0
	for {
		got := s.readEvents(ctx, body, id, st)
		body.Close()
		if got || !isRequest || ctx.Err() != nil {
			return
		}
		if resumptions >= s.maxResumptions() {
			s.in.put(ctx.Done(), item{err: &RequestError{ID: id, Err: fmt.Errorf("the server ended the SSE stream %d times without sending the response; giving up", resumptions)}})
			return
		}
		resumptions++
		if stateless || st.lastID == "" {
			reason := errors.New("the server ended the SSE stream before sending the response and gave no event id to resume from")
			if stateless {
				reason = errors.New("the server ended the SSE stream before sending the response")
			}
			s.in.put(ctx.Done(), item{err: &RequestError{ID: id, Err: reason}})
			return
		}
		for {
			if failures >= s.maxReconnects() {
				s.in.put(ctx.Done(), item{err: &RequestError{ID: id, Err: fmt.Errorf("the SSE stream ended before the response and %d attempts to resume it with Last-Event-ID failed", failures)}})
				return
			}
			if !sleepCtx(ctx, max(st.retry, minRetry)) {
				return
			}
			b, err := s.get(ctx, st.lastID)
			if err == nil {
				body = b
				break
			}
			var se *StatusError
			if errors.As(err, &se) && se.Code == http.StatusMethodNotAllowed {
				s.in.put(ctx.Done(), item{err: &RequestError{ID: id, Err: errors.New("the SSE stream ended before the response and the server does not allow GET to resume it")}})
				return
			}
			failures++
			s.o.logf("resuming the SSE stream of request %s: %v", id, err)
		}
	}
}

// DefaultMaxResumptions bounds how often the client resumes the SSE stream
// of one request that keeps ending without the response, when
// HTTPOptions.MaxResumptions is zero.
const DefaultMaxResumptions = 100

// minRetry is the shortest reconnection delay the client accepts, whatever
// the server's retry field says, so a hostile server cannot make it spin.
const minRetry = 50 * time.Millisecond

// streamState is what an SSE stream has told the client so far.
type streamState struct {
	lastID string
	retry  time.Duration
	events int
}

// readEvents delivers the messages on body until it ends; it reports whether
// the response to id was among them.
func (s *StreamableHTTP) readEvents(ctx context.Context, body io.Reader, id jsonrpc.ID, st *streamState) bool {
	sr := newSSEReader(body, int(s.o.maxMessage()))
	got := false
	for {
		ev, err := sr.next()
		if err != nil {
			var tl *jsonrpc.LineTooLongError
			if errors.Is(err, errEventTooLarge) || errors.As(err, &tl) {
				if !s.in.put(ctx.Done(), item{err: &DroppedError{What: "an SSE event larger than the message size limit"}}) {
					return got
				}
				continue
			}
			return got
		}
		st.events++
		if ev.HasID {
			st.lastID = ev.ID
		}
		if ev.Retry > 0 {
			st.retry = ev.Retry
		}
		if len(bytes.TrimSpace(ev.Data)) == 0 {
			continue // priming event or keep-alive
		}
		if ev.Name != "message" {
			if !s.in.put(ctx.Done(), item{err: &DroppedError{What: fmt.Sprintf("an SSE event of type %q (only \"message\" carries MCP messages)", truncate([]byte(ev.Name), 40))}}) {
				return got
			}
			continue
		}
		if !id.IsZero() {
			if m := jsonrpc.Decode(ev.Data); m.Shape.IsResponse() && m.ID == id {
				got = true
			}
		}
		if !s.in.put(ctx.Done(), item{msg: ev.Data}) {
			return got
		}
		if got {
			// The response ends the exchange; a server that keeps the
			// stream open does not get to hold the connection.
			return got
		}
	}
}

func (s *StreamableHTTP) maxResumptions() int {
	if s.o.MaxResumptions <= 0 {
		return DefaultMaxResumptions
	}
	return s.o.MaxResumptions
}

func (s *StreamableHTTP) maxReconnects() int {
	if s.o.MaxReconnects <= 0 {
		return 5
	}
	return s.o.MaxReconnects
}

// get opens an SSE stream with GET, resuming after lastID when it is set.
func (s *StreamableHTTP) get(ctx context.Context, lastID string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.o.URL, nil)
	if err != nil {
		return nil, err
	}
	addHeaders(req.Header, s.o.Header)
	req.Header.Set("Accept", "text/event-stream")
	s.mu.Lock()
	session, version := s.sessionID, s.version
	s.mu.Unlock()
	if session != "" {
		req.Header.Set(HeaderSessionID, session)
	}
	if version != "" {
		req.Header.Set(HeaderProtocolVersion, version)
	}
	if lastID != "" {
		req.Header.Set(HeaderLastEventID, lastID)
	}
	resp, err := s.o.client().Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", s.o.URL, err)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		body, _, _ := readLimited(resp.Body, 4096)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil, fmt.Errorf("GET %s: the server answered with Content-Type %q; want text/event-stream", s.o.URL, ct)
		}
		return nil, &StatusError{Method: http.MethodGet, URL: s.o.URL, Code: resp.StatusCode, Header: resp.Header, Body: body}
	}
	return resp.Body, nil
}

// openGETStream starts the stream for server-initiated messages, once per
// session. It returns when the server has answered the first GET (or ctx
// ends), so that the stream is in place before the client's next request:
// a server may otherwise take the GET for a resumption of that request's
// stream.
func (s *StreamableHTTP) openGETStream(ctx context.Context) {
	s.mu.Lock()
	if s.getOpened || s.closed {
		s.mu.Unlock()
		return
	}
	s.getOpened = true
	s.wg.Add(1)
	s.mu.Unlock()
	ready := make(chan struct{})
	go func() {
		defer s.wg.Done()
		s.runGETStream(s.ctx, ready)
	}()
	select {
	case <-ready:
	case <-ctx.Done():
	}
}

// runGETStream keeps the GET stream open; it closes ready once the first
// attempt has an answer.
func (s *StreamableHTTP) runGETStream(ctx context.Context, ready chan struct{}) {
	var once sync.Once
	signal := func() { once.Do(func() { close(ready) }) }
	defer signal()
	st := &streamState{retry: s.o.DefaultRetry}
	if st.retry <= 0 {
		st.retry = time.Second
	}
	failures := 0
	first := true
	for ctx.Err() == nil {
		if !first && !sleepCtx(ctx, max(st.retry, minRetry)) {
			return
		}
		first = false
		body, err := s.get(ctx, st.lastID)
		signal()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			var se *StatusError
			if errors.As(err, &se) && se.Code == http.StatusMethodNotAllowed {
				return // the server offers no GET stream; that is allowed
			}
			failures++
			if failures >= s.maxReconnects() {
				s.o.logf("giving up on the GET stream for server messages after %d failures: %v", failures, err)
				return
			}
			continue
		}
		before := st.events
		s.readEvents(ctx, body, jsonrpc.ID{}, st)
		body.Close()
		if st.events > before {
			failures = 0
		} else {
			failures++
			if failures >= s.maxReconnects() {
				s.o.logf("the GET stream for server messages closed %d times without an event; not reopening it", failures)
				return
			}
		}
	}
}

// Recv returns the next message from any of the transport's streams.
func (s *StreamableHTTP) Recv(ctx context.Context) ([]byte, error) {
	return s.in.recv(ctx)
}

// Close stops every stream, sends DELETE for the session (bounded to five
// seconds) and makes Send and Recv return ErrClosed.
func (s *StreamableHTTP) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		session, version, stateless := s.sessionID, s.version, s.stateless
		s.mu.Unlock()
		s.cancel()
		s.wg.Wait()
		s.in.fail(ErrClosed)
		if session == "" || stateless {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req, e := http.NewRequestWithContext(ctx, http.MethodDelete, s.o.URL, nil)
		if e != nil {
			return
		}
		addHeaders(req.Header, s.o.Header)
		req.Header.Set(HeaderSessionID, session)
		if version != "" {
			req.Header.Set(HeaderProtocolVersion, version)
		}
		resp, e := s.o.client().Do(req)
		if e != nil {
			err = fmt.Errorf("transport: DELETE %s to end the session: %w", s.o.URL, e)
			return
		}
		drain(resp.Body)
		if resp.StatusCode >= 300 && resp.StatusCode != http.StatusMethodNotAllowed && resp.StatusCode != http.StatusNotFound {
			err = &StatusError{Method: http.MethodDelete, URL: s.o.URL, Code: resp.StatusCode, Header: resp.Header}
		}
	})
	return err
}

// metaVersion returns params._meta's protocol version, if any.
func metaVersion(params json.RawMessage) string {
	if len(params) == 0 {
		return ""
	}
	var p struct {
		Meta mcp.Meta `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	v, _, _ := p.Meta.ProtocolVersion()
	return v
}

// nameOf returns what the Mcp-Name header carries for method: the tool or
// prompt name, or the resource URI.
func nameOf(method string, params json.RawMessage) (string, bool) {
	var key string
	switch method {
	case spec.MethodToolsCall, spec.MethodPromptsGet:
		key = "name"
	case spec.MethodResourcesRead:
		key = "uri"
	default:
		return "", false
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return "", false
	}
	var v string
	if json.Unmarshal(p[key], &v) != nil {
		return "", false
	}
	return v, true
}

func addHeaders(dst, src http.Header) {
	for k, vs := range src {
		for _, v := range vs {
			dst.Add(k, v)
		}
	}
}

// drain reads a little of body so the connection can be reused, and closes it.
func drain(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, 4096)
	body.Close()
}

// sleepCtx waits d or until ctx is done; it reports whether d passed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func checkURL(u string) error {
	if u == "" {
		return errors.New("transport: no server URL given")
	}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("transport: the server URL %q is not usable: %w", u, err)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("transport: the server URL %q must start with http:// or https://", u)
	}
	return nil
}

// unwrapURLError drops the *url.Error wrapper, which only repeats the method
// and URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// dialHint suggests what to check when the server could not be reached.
func dialHint(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return "; check that the server is running and the URL is right"
	}
	return ""
}
