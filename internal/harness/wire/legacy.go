package wire

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// StreamSSE is the Stream of the frames of the HTTP+SSE transport's GET
// stream.
const StreamSSE = "sse"

// LegacySSE is a Conn over the 2024-11-05 HTTP+SSE transport: a GET opens
// the SSE stream, whose first event (endpoint) names the URL that messages
// are POSTed to; the target's messages arrive as message events. Every
// event of the stream, the endpoint event included, is a frame with Stream
// StreamSSE; each POST's HTTP answer (usually 202) is a frame with the
// POST's stream ID.
//
// All methods are safe for concurrent use.
type LegacySSE struct {
	*httpCore
	base     *url.URL
	ready    chan struct{}
	once     sync.Once
	epMu     sync.Mutex
	endpoint string
	epErr    error
}

// NewLegacySSE opens the SSE stream at o.URL in the background and returns
// at once; the stream's status and events arrive as frames.
func NewLegacySSE(o HTTPOptions) (*LegacySSE, error) {
	core, err := newCore(o)
	if err != nil {
		return nil, err
	}
	core.legacy = true
	base, _ := url.Parse(o.URL)
	c := &LegacySSE{httpCore: core, base: base, ready: make(chan struct{})}
	b, err := core.build(Request{Method: http.MethodGet}, func(h http.Header) { h.Set("Accept", MediaSSE) })
	if err != nil {
		return nil, err
	}
	core.mu.Lock()
	delete(core.streams, b.stream)
	b.stream = StreamSSE
	core.streams[StreamSSE] = b.cancel
	core.mu.Unlock()
	core.taps.sent(Outgoing{Stream: StreamSSE, HTTP: &HTTPInfo{Method: http.MethodGet, URL: o.URL, Header: b.req.Header.Clone()}})
	core.wg.Add(1)
	go func() {
		defer core.wg.Done()
		defer core.forget(StreamSSE)
		defer b.cancel()
		defer c.fail(errors.New("the SSE stream ended before an endpoint event arrived"))
		c.run(b)
	}()
	return c, nil
}

func (c *LegacySSE) fail(err error) {
	c.once.Do(func() {
		c.epMu.Lock()
		c.epErr = err
		c.epMu.Unlock()
		close(c.ready)
	})
}

func (c *LegacySSE) run(b built) {
	resp, err := c.client.Do(b.req)
	if err != nil {
		err = HeaderError(err, c.client)
		if c.ctx.Err() == nil {
			c.emit(Frame{Kind: KindTransportError, Stream: StreamSSE, Err: fmt.Errorf("GET %s: %w", b.req.URL, err)})
		}
		c.fail(fmt.Errorf("opening the SSE stream failed: %w", err))
		return
	}
	defer resp.Body.Close()
	info := &HTTPInfo{Method: http.MethodGet, URL: b.req.URL.String(), Status: resp.StatusCode, Header: resp.Header.Clone()}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), MediaSSE) || resp.StatusCode != http.StatusOK {
		c.fail(fmt.Errorf("the SSE endpoint answered HTTP %d with Content-Type %q, not an event stream", resp.StatusCode, resp.Header.Get("Content-Type")))
		c.readBody(resp.Body, StreamSSE, info)
		return
	}
	c.readSSE(resp.Body, b, info, func(ev SSEEvent) bool {
		if ev.Type == "endpoint" && ev.HasData && !ev.TooLong {
			c.setEndpoint(string(ev.Data))
		}
		return false
	})
}

func (c *LegacySSE) setEndpoint(raw string) {
	u, err := c.base.Parse(strings.TrimSpace(raw))
	c.epMu.Lock()
	if c.endpoint != "" {
		c.epMu.Unlock()
		return
	}
	if err != nil {
		c.epMu.Unlock()
		c.fail(fmt.Errorf("the endpoint event's data %q is not a URI: %w", raw, err))
		return
	}
	c.endpoint = u.String()
	c.epMu.Unlock()
	c.once.Do(func() { close(c.ready) })
}

// Endpoint waits for the endpoint event and returns the absolute URL that
// messages are POSTed to, or an error when the stream ended or ctx expired
// first.
func (c *LegacySSE) Endpoint(ctx context.Context) (string, error) {
	select {
	case <-c.ready:
	case <-ctx.Done():
		return "", fmt.Errorf("wire: no endpoint event on the SSE stream yet: %w", ctx.Err())
	}
	c.epMu.Lock()
	defer c.epMu.Unlock()
	if c.endpoint == "" {
		return "", fmt.Errorf("wire: %w", c.epErr)
	}
	return c.endpoint, nil
}

// Transport is TransportSSE.
func (c *LegacySSE) Transport() Transport { return TransportSSE }

// Observe adds a tap; see Conn.
func (c *LegacySSE) Observe(t Tap) func() { return c.observe(t) }

// Recv returns the next frame; see Conn.
func (c *LegacySSE) Recv(ctx context.Context) (Frame, error) { return c.recv(ctx) }

// Close closes the SSE stream and every POST in flight, and waits.
func (c *LegacySSE) Close() error { c.close(); return nil }

// Send waits for the endpoint (bounded by ctx) and POSTs msg to it.
func (c *LegacySSE) Send(ctx context.Context, msg []byte) (string, error) {
	return c.Do(ctx, Request{Body: msg})
}

// SendRaw is Send.
func (c *LegacySSE) SendRaw(ctx context.Context, b []byte) (string, error) {
	return c.Do(ctx, Request{Body: b})
}

// Do sends r; an empty r.URL means the endpoint from the endpoint event.
func (c *LegacySSE) Do(ctx context.Context, r Request) (string, error) {
	b, err := c.prepare(ctx, r)
	if err != nil {
		return "", err
	}
	return c.start(b, r.Body)
}

// prepare builds r, addressed to the announced endpoint unless r.URL says
// otherwise, with a JSON Content-Type on a POST.
func (c *LegacySSE) prepare(ctx context.Context, r Request) (built, error) {
	if r.URL == "" {
		ep, err := c.Endpoint(ctx)
		if err != nil {
			return built{}, err
		}
		r.URL = ep
	}
	var defaults func(http.Header)
	if r.Method == "" || r.Method == http.MethodPost {
		defaults = func(h http.Header) { h.Set("Content-Type", MediaJSON) }
	}
	return c.build(r, defaults)
}
