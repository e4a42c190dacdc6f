package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Header names the HTTP transports use.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	HeaderLastEventID     = "Last-Event-Id"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
)

// Media types.
const (
	MediaJSON = "application/json"
	MediaSSE  = "text/event-stream"
)

// HTTPOptions configures an HTTP connection.
type HTTPOptions struct {
	// URL is the MCP endpoint (streamable HTTP) or the SSE endpoint
	// (HTTP+SSE).
	URL string
	// Header is added to every request, for example Authorization.
	Header http.Header
	// Client sends the requests. The default follows no redirects (a
	// conformance tool must see the status the target sent), does not ask
	// for compression (so bodies are the bytes the target sent) and has no
	// overall timeout (every stream ends at Close).
	Client *http.Client
	Limits Limits
	// Taps see every byte of the connection from its first: a tap
	// added later with Observe misses what came before (the first event
	// of an HTTP+SSE stream, opened by NewLegacySSE at once).
	Taps []Tap
}

// Request is one HTTP request sent on purpose, for checks of methods,
// headers and statuses.
type Request struct {
	// Method defaults to POST.
	Method string
	// URL defaults to the connection's endpoint.
	URL string
	// Header is set after the defaults, replacing headers of the same name.
	// A "Host" entry sets the request's Host.
	Header http.Header
	// Omit lists default headers to leave out (such as "Accept",
	// "Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version").
	Omit []string
	// Bare sends no default header at all: only Header.
	Bare bool
	// Body is sent exactly; nil sends no body.
	Body []byte
	// onHead, when set, gets the response head (or nil when no response
	// came) before any frame of the response is queued.
	onHead func(*HTTPInfo)
}

// httpCore is what the streamable and legacy connections share: request
// dispatch, response reading and the frame queue.
type httpCore struct {
	endpoint string
	client   *http.Client
	ownsClt  bool
	limits   Limits
	q        *queue
	taps     taps
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	mu       sync.Mutex
	seq      int
	defaults http.Header
	session  string
	streams  map[string]context.CancelFunc
	closed   bool
	// getStream is the stream of the last GET opened with OpenStream or
	// OpenStreamWait (see GetStream).
	getStream string
	// legacy is set for the HTTP+SSE transport: an empty 2xx answer to a
	// POST is an acknowledgement (Frame.Ack).
	legacy bool
}

func newCore(o HTTPOptions) (*httpCore, error) {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("wire: %q is not an http:// or https:// URL; give the target's full endpoint URL", o.URL)
	}
	c := &httpCore{endpoint: o.URL, client: o.Client, limits: o.Limits.withDefaults(), defaults: http.Header{}, streams: map[string]context.CancelFunc{}}
	if c.client == nil {
		c.ownsClt = true
		c.client = NewClient(c.limits)
	}
	for k, vs := range o.Header {
		c.defaults[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	if c.defaults.Get("User-Agent") == "" {
		c.defaults.Set("User-Agent", "mcpcheck")
	}
	c.q = newQueue(c.limits)
	c.ctx, c.cancel = context.WithCancel(context.Background())
	for _, t := range o.Taps {
		if t != nil {
			c.taps.add(t)
		}
	}
	return c, nil
}

// NewClient returns the HTTP client mcpcheck speaks to a target with (the
// one the HTTP connections build when HTTPOptions.Client is nil): it
// follows no redirects (a conformance tool must see the status the target
// sent), does not ask for compression (bodies are the bytes the target
// sent), has no overall timeout (every stream ends when its context does),
// and reads at most l.MaxHeader bytes of a response's headers (default
// DefaultMaxHeader). Give its errors to HeaderError to name a response
// whose headers were over the limit.
func NewClient(l Limits) *http.Client {
	l = l.withDefaults()
	return &http.Client{
		Transport: &http.Transport{DisableCompression: true, Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 8,
			IdleConnTimeout: 90 * time.Second, MaxResponseHeaderBytes: int64(l.MaxHeader)},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// HeaderLimitError is the error of a response that carried more header
// bytes than the client reads (Limits.MaxHeader): the response was dropped
// unread.
type HeaderLimitError struct {
	// Limit is the client's limit in bytes.
	Limit int64
	// Err is what net/http said.
	Err error
}

func (e *HeaderLimitError) Error() string {
	return fmt.Sprintf("the target sent more than %d bytes of response headers, mcpcheck's limit (an MCP server's headers take a few hundred bytes), so the response was dropped unread; make the server send smaller headers", e.Limit)
}

func (e *HeaderLimitError) Unwrap() error { return e.Err }

// HeaderError returns err as a *HeaderLimitError when it is net/http's
// refusal of a response whose headers exceeded client's limit (HTTP/1 or
// HTTP/2), and err unchanged otherwise.
func HeaderError(err error, client *http.Client) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if !strings.Contains(msg, "server response headers exceeded") && !strings.Contains(msg, "response header list larger than") {
		return err
	}
	limit := int64(10 << 20) // net/http's default
	if client != nil {
		if t, ok := client.Transport.(*http.Transport); ok && t.MaxResponseHeaderBytes > 0 {
			limit = t.MaxResponseHeaderBytes
		}
	}
	return &HeaderLimitError{Limit: limit, Err: err}
}

func (c *httpCore) observe(t Tap) func() { return c.taps.add(t) }

// SetHeader sets a header sent on every later request (for example
// Mcp-Protocol-Version after negotiation); an empty value removes it.
func (c *httpCore) SetHeader(name, value string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if value == "" {
		c.defaults.Del(name)
		return
	}
	c.defaults.Set(name, value)
}

// SessionID returns the session ID captured from the target ("" before).
func (c *httpCore) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

// SetSessionID replaces the session ID echoed on later requests; "" stops
// sending one.
func (c *httpCore) SetSessionID(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.session = id
}

// CloseStream cancels one in-flight exchange, closing its response stream
// (the cancellation signal of the 2026-07-28 transport). Unknown or
// finished streams are ignored.
func (c *httpCore) CloseStream(stream string) {
	c.mu.Lock()
	cancel := c.streams[stream]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (c *httpCore) recv(ctx context.Context) (Frame, error) { return c.q.pop(ctx) }

func (c *httpCore) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.q.close()
	c.cancel()
	c.wg.Wait()
	if c.ownsClt {
		c.client.CloseIdleConnections()
	}
}

// built is a request ready to send, with its stream ID.
type built struct {
	req    *http.Request
	stream string
	cancel context.CancelFunc
	onHead func(*HTTPInfo)
}

func (c *httpCore) build(r Request, defaults func(h http.Header)) (built, error) {
	method := r.Method
	if method == "" {
		method = http.MethodPost
	}
	target := r.URL
	if target == "" {
		target = c.endpoint
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return built{}, ErrClosed
	}
	c.seq++
	stream := strings.ToLower(method) + "-" + strconv.Itoa(c.seq)
	h := http.Header{}
	if !r.Bare {
		for k, vs := range c.defaults {
			h[k] = append([]string(nil), vs...)
		}
		if c.session != "" {
			h.Set(HeaderSessionID, c.session)
		}
		if defaults != nil {
			defaults(h)
		}
		for _, k := range r.Omit {
			h.Del(k)
		}
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.streams[stream] = cancel
	c.mu.Unlock()
	host := ""
	for k, vs := range r.Header {
		if http.CanonicalHeaderKey(k) == "Host" {
			if len(vs) > 0 {
				host = vs[0]
			}
			continue
		}
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		c.forget(stream)
		cancel()
		return built{}, fmt.Errorf("wire: cannot build the %s request to %q: %w", method, target, err)
	}
	req.Header = h
	if host != "" {
		req.Host = host
	}
	if r.Body != nil {
		req.ContentLength = int64(len(r.Body))
	}
	return built{req: req, stream: stream, cancel: cancel, onHead: r.onHead}, nil
}

func (c *httpCore) forget(stream string) {
	c.mu.Lock()
	delete(c.streams, stream)
	c.mu.Unlock()
}

// start sends a built request in a goroutine whose frames go to the queue.
func (c *httpCore) start(b built, body []byte) (string, error) {
	hdr := b.req.Header.Clone()
	if b.req.Host != "" {
		hdr.Set("Host", b.req.Host)
	}
	c.taps.sent(Outgoing{Raw: bytes.Clone(body), Stream: b.stream, HTTP: &HTTPInfo{Method: b.req.Method, URL: b.req.URL.String(), Header: hdr}, Time: time.Now()})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer c.forget(b.stream)
		defer b.cancel()
		c.exchange(b)
	}()
	return b.stream, nil
}

func (c *httpCore) emit(f Frame) bool {
	if f.Time.IsZero() {
		f.Time = time.Now()
	}
	c.taps.received(f)
	return c.q.push(f)
}

func (c *httpCore) exchange(b built) {
	resp, err := c.client.Do(b.req)
	if err != nil {
		if c.ctx.Err() != nil {
			return // closed
		}
		err = HeaderError(err, c.client)
		if b.req.Context().Err() != nil {
			err = errors.New("the stream was closed by mcpcheck before a response arrived")
		}
		if b.onHead != nil {
			b.onHead(nil)
		}
		c.emit(Frame{Kind: KindTransportError, Stream: b.stream, Err: fmt.Errorf("%s %s: %w", b.req.Method, b.req.URL, err)})
		return
	}
	defer resp.Body.Close()
	c.response(b, resp)
}

// response turns a response head and body into frames: the head goes to
// the request's onHead, a session id is kept, and the body is read as an
// SSE stream or one JSON body.
func (c *httpCore) response(b built, resp *http.Response) {
	info := &HTTPInfo{Method: b.req.Method, URL: b.req.URL.String(), Status: resp.StatusCode, Header: resp.Header.Clone()}
	if b.onHead != nil {
		b.onHead(info)
	}
	if id := resp.Header.Get(HeaderSessionID); id != "" {
		c.mu.Lock()
		if c.session == "" {
			c.session = id
		}
		c.mu.Unlock()
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == MediaSSE {
		c.readSSE(resp.Body, b, info, nil)
		return
	}
	c.readBody(resp.Body, b.stream, info)
}

func (c *httpCore) readBody(body io.Reader, stream string, info *HTTPInfo) {
	max := c.limits.MaxMessage
	data, err := io.ReadAll(io.LimitReader(body, int64(max)+1))
	var f Frame
	switch {
	case len(data) > max:
		n, _ := io.Copy(io.Discard, io.LimitReader(body, 1<<30))
		f = Frame{Kind: KindTooLong, Raw: data[:min(len(data), 256)], Size: int64(len(data)) + n}
	case err != nil && c.ctx.Err() != nil:
		return
	case err != nil:
		f = Frame{Kind: KindEnd, Err: fmt.Errorf("reading the response body: %w (after %d bytes)", err, len(data))}
		if len(data) > 0 {
			g := Classify(data)
			g.Stream, g.HTTP = stream, info
			g.Unterminated = true
			if !c.emit(g) {
				return
			}
		}
	case len(data) == 0:
		f = Frame{Kind: KindStatus, Raw: []byte{}}
	default:
		f = Classify(data)
	}
	f.Stream, f.HTTP = stream, info
	// HTTP+SSE: a 2xx without a message ("202 Accepted", often with a
	// text body such as "Accepted") only acknowledges the POST.
	f.Ack = c.legacy && stream != StreamSSE && info.Status >= 200 && info.Status < 300 && (f.Kind == KindStatus || f.Kind == KindGarbage)
	c.emit(f)
}

// readSSE turns an SSE body into frames and ends with a KindEnd frame.
// onEvent, when set, sees each event first and may swallow it.
func (c *httpCore) readSSE(body io.Reader, b built, info *HTTPInfo, onEvent func(SSEEvent) bool) {
	sr := NewSSEReader(body, c.limits.MaxMessage)
	for {
		ev, err := sr.Next()
		if err != nil {
			if c.ctx.Err() != nil {
				return
			}
			end := Frame{Kind: KindEnd, Stream: b.stream, HTTP: info, InSSE: true}
			switch {
			case err == io.EOF:
			case err == io.ErrUnexpectedEOF:
				end.Err = errStreamCut
			case b.req.Context().Err() != nil:
				end.Err = errors.New("closed by mcpcheck")
			default:
				end.Err = fmt.Errorf("reading the SSE stream: %w", err)
			}
			c.emit(end)
			return
		}
		if onEvent != nil && onEvent(ev) {
			continue
		}
		f := ev.Frame()
		f.Stream, f.HTTP, f.InSSE = b.stream, info, true
		if !c.emit(f) {
			return
		}
	}
}

// HTTP is a Conn over the streamable HTTP transport: each Send is a POST
// whose answer (a JSON body, an SSE stream, or a bare status) arrives as
// frames tagged with the POST's stream ID. It captures the session ID the
// target assigns and echoes it, and can open the optional GET stream,
// resume a stream with Last-Event-ID, terminate the session with DELETE,
// and send arbitrary requests (Do).
//
// All methods are safe for concurrent use.
type HTTP struct{ *httpCore }

// NewHTTP returns a streamable HTTP connection to o.URL. It sends nothing
// until asked.
func NewHTTP(o HTTPOptions) (*HTTP, error) {
	c, err := newCore(o)
	if err != nil {
		return nil, err
	}
	return &HTTP{c}, nil
}

// Transport is TransportStreamable.
func (c *HTTP) Transport() Transport { return TransportStreamable }

// Observe adds a tap; see Conn.
func (c *HTTP) Observe(t Tap) func() { return c.observe(t) }

// Recv returns the next frame; see Conn.
func (c *HTTP) Recv(ctx context.Context) (Frame, error) { return c.recv(ctx) }

// Close cancels every exchange in flight and waits for their goroutines.
// It does not send DELETE; call Terminate first to end the session.
func (c *HTTP) Close() error { c.close(); return nil }

func postDefaults(h http.Header) {
	h.Set("Accept", MediaJSON+", "+MediaSSE)
	h.Set("Content-Type", MediaJSON)
}

// Send POSTs msg with the default headers (Accept listing JSON and SSE,
// Content-Type application/json, the session ID, headers set with
// SetHeader) and returns the POST's stream ID.
func (c *HTTP) Send(ctx context.Context, msg []byte) (string, error) {
	return c.Post(ctx, msg, nil)
}

// SendRaw is Send: an HTTP body carries any bytes.
func (c *HTTP) SendRaw(ctx context.Context, b []byte) (string, error) {
	return c.Post(ctx, b, nil)
}

// Post is Send with extra headers for this request only (such as
// Mcp-Method and Mcp-Name).
func (c *HTTP) Post(ctx context.Context, body []byte, extra http.Header) (string, error) {
	return c.Do(ctx, Request{Body: body, Header: extra})
}

// Do sends r and returns its stream ID. POSTs get the POST defaults (Accept,
// Content-Type), GETs an Accept of text/event-stream, unless r.Bare.
func (c *HTTP) Do(ctx context.Context, r Request) (string, error) {
	b, err := c.prepare(ctx, r)
	if err != nil {
		return "", err
	}
	return c.start(b, r.Body)
}

// prepare builds r with the default headers of its method.
func (c *HTTP) prepare(ctx context.Context, r Request) (built, error) {
	if err := ctx.Err(); err != nil {
		return built{}, err
	}
	defaults := postDefaults
	switch r.Method {
	case http.MethodGet:
		defaults = func(h http.Header) { h.Set("Accept", MediaSSE) }
	case http.MethodDelete, http.MethodOptions, http.MethodHead:
		defaults = nil
	}
	return c.build(r, defaults)
}

// OpenStream opens the optional GET stream (2025-03-26 through 2025-11-25)
// and returns its stream ID; its events arrive as frames.
func (c *HTTP) OpenStream(ctx context.Context) (string, error) {
	return c.openGet(ctx, Request{Method: http.MethodGet})
}

// openGet sends r, a GET without Last-Event-ID, and remembers its stream
// as the connection's GET stream (GetStream) until an answer other than
// 200 with an SSE stream declines it.
func (c *HTTP) openGet(ctx context.Context, r Request) (string, error) {
	head := r.onHead
	var stream string
	r.onHead = func(i *HTTPInfo) {
		if mt, _, _ := mime.ParseMediaType(headerOf(i).Get("Content-Type")); i == nil || i.Status != http.StatusOK || mt != MediaSSE {
			c.mu.Lock()
			if c.getStream == stream {
				c.getStream = ""
			}
			c.mu.Unlock()
		}
		if head != nil {
			head(i)
		}
	}
	b, err := c.prepare(ctx, r)
	if err != nil {
		return "", err
	}
	stream = b.stream
	c.mu.Lock()
	c.getStream = b.stream
	c.mu.Unlock()
	return c.start(b, r.Body)
}

// headerOf is i's header, nil for no response.
func headerOf(i *HTTPInfo) http.Header {
	if i == nil {
		return nil
	}
	return i.Header
}

// GetStream returns the ID of the stream the last OpenStream or
// OpenStreamWait opened while its exchange is still running (the GET is
// waiting for its answer, or reading the stream), and "" when there is
// none: a server may allow one GET stream per session, so whoever wants
// the server's messages on a GET stream uses this one rather than asking
// for a second. A GET the target declined (405) ends at once and is none.
func (c *HTTP) GetStream() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, running := c.streams[c.getStream]; c.getStream == "" || !running {
		return ""
	}
	return c.getStream
}

// OpenStreamWait opens the GET stream like OpenStream and waits (bounded
// by ctx) for the target's response head, so that a request sent next
// finds the stream in place: a client that wants server messages on the
// GET stream (a server answering POSTs with plain JSON has no other way
// to send them) must know it is open. It returns the stream ID and the
// HTTP status (405: the target offers no GET stream).
func (c *HTTP) OpenStreamWait(ctx context.Context) (string, int, error) {
	ch := make(chan *HTTPInfo, 1)
	st, err := c.openGet(ctx, Request{Method: http.MethodGet, onHead: func(i *HTTPInfo) { ch <- i }})
	if err != nil {
		return "", 0, err
	}
	select {
	case info := <-ch:
		if info == nil {
			return st, 0, errors.New("wire: the GET stream request got no HTTP response")
		}
		return st, info.Status, nil
	case <-ctx.Done():
		return st, 0, fmt.Errorf("wire: no response to the GET stream request: %w", ctx.Err())
	}
}

// Resume asks the target to resume a stream after lastEventID with a GET
// carrying Last-Event-ID.
func (c *HTTP) Resume(ctx context.Context, lastEventID string) (string, error) {
	return c.Do(ctx, Request{Method: http.MethodGet, Header: http.Header{HeaderLastEventID: {lastEventID}}})
}

// Terminate sends DELETE with the session ID, the explicit end of a
// session; the target's status arrives as a frame.
func (c *HTTP) Terminate(ctx context.Context) (string, error) {
	return c.Do(ctx, Request{Method: http.MethodDelete})
}
