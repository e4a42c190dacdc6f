package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// LegacySSE is the HTTP+SSE transport of protocol version 2024-11-05: the
// client opens an SSE stream with GET, the server names a POST endpoint in
// an "endpoint" event, and the server's messages arrive as "message" events
// on the stream.
//
// Concurrency: as Conn.
type LegacySSE struct {
	o        HTTPOptions
	in       *inbox
	ctx      context.Context
	cancel   context.CancelFunc
	endpoint string
	wg       sync.WaitGroup
	once     sync.Once
}

// DialLegacySSE opens the SSE stream and waits, bounded by ctx, for the
// endpoint event. The endpoint must have the stream's origin.
func DialLegacySSE(ctx context.Context, o HTTPOptions) (*LegacySSE, error) {
	return dialLegacy(ctx, o, newInbox(64))
}

func dialLegacy(ctx context.Context, o HTTPOptions, in *inbox) (*LegacySSE, error) {
	if err := checkURL(o.URL); err != nil {
		return nil, err
	}
	cctx, cancel := context.WithCancel(context.Background())
	l := &LegacySSE{o: o, in: in, ctx: cctx, cancel: cancel}
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, o.URL, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	addHeaders(req.Header, o.Header)
	req.Header.Set("Accept", "text/event-stream")
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	resp, err := o.client().Do(req)
	if err != nil {
		cancel()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("transport: GET %s for the HTTP+SSE stream: no answer in time: %w", o.URL, ctx.Err())
		}
		return nil, fmt.Errorf("transport: GET %s for the HTTP+SSE stream: %w", o.URL, err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		body, _, _ := readLimited(resp.Body, 4096)
		resp.Body.Close()
		cancel()
		return nil, &StatusError{Method: http.MethodGet, URL: o.URL, Code: resp.StatusCode, Header: resp.Header, Body: body}
	}
	endpoint := make(chan string, 1)
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer resp.Body.Close()
		l.read(resp.Body, endpoint)
	}()
	select {
	case ep, ok := <-endpoint:
		if !ok {
			l.Close()
			return nil, fmt.Errorf("transport: the HTTP+SSE stream at %s ended before the endpoint event; is this an MCP server using the 2024-11-05 transport?", o.URL)
		}
		base, _ := url.Parse(o.URL)
		ref, err := url.Parse(ep)
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("transport: the endpoint event %q is not a URL: %v", truncate([]byte(ep), 100), err)
		}
		abs := base.ResolveReference(ref)
		if abs.Scheme != base.Scheme || abs.Host != base.Host {
			l.Close()
			return nil, fmt.Errorf("transport: the endpoint event names %s, which is not on the origin of %s; refusing to send messages there", abs, o.URL)
		}
		l.endpoint = abs.String()
		return l, nil
	case <-ctx.Done():
		l.Close()
		return nil, fmt.Errorf("transport: no endpoint event on the HTTP+SSE stream at %s in time: %w", o.URL, ctx.Err())
	}
}

func (l *LegacySSE) read(body io.Reader, endpoint chan<- string) {
	sr := newSSEReader(body, int(l.o.maxMessage()))
	sent := false
	defer func() {
		if !sent {
			close(endpoint)
		}
	}()
	for {
		ev, err := sr.next()
		if err != nil {
			if errors.Is(err, errEventTooLarge) {
				if !l.in.put(l.ctx.Done(), item{err: &DroppedError{What: "an SSE event larger than the message size limit"}}) {
					return
				}
				continue
			}
			if l.ctx.Err() != nil {
				l.in.fail(ErrClosed)
			} else {
				l.in.fail(fmt.Errorf("transport: the server closed the HTTP+SSE stream: %w", io.EOF))
			}
			return
		}
		switch ev.Name {
		case "endpoint":
			if !sent {
				endpoint <- strings.TrimSpace(string(ev.Data))
				sent = true
			}
		case "message":
			if len(bytes.TrimSpace(ev.Data)) == 0 {
				continue
			}
			if !l.in.put(l.ctx.Done(), item{msg: ev.Data}) {
				return
			}
		default:
			if !l.in.put(l.ctx.Done(), item{err: &DroppedError{What: fmt.Sprintf("an SSE event of type %q", truncate([]byte(ev.Name), 40))}}) {
				return
			}
		}
	}
}

// Endpoint returns the URL the server named for POSTs.
func (l *LegacySSE) Endpoint() string { return l.endpoint }

// Send POSTs msg to the endpoint; the answer arrives on the stream.
func (l *LegacySSE) Send(ctx context.Context, msg []byte) error {
	if l.ctx.Err() != nil {
		return ErrClosed
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.endpoint, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	addHeaders(req.Header, l.o.Header)
	req.Header.Set("Content-Type", "application/json")
	resp, err := l.o.client().Do(req)
	if err != nil {
		return fmt.Errorf("transport: POST %s: %w", l.endpoint, err)
	}
	body, _, _ := readLimited(resp.Body, 4096)
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &StatusError{Method: http.MethodPost, URL: l.endpoint, Code: resp.StatusCode, Header: resp.Header, Body: body}
	}
	return nil
}

// Recv returns the next message from the stream.
func (l *LegacySSE) Recv(ctx context.Context) ([]byte, error) { return l.in.recv(ctx) }

// Close ends the stream.
func (l *LegacySSE) Close() error {
	l.once.Do(func() {
		l.cancel()
		l.wg.Wait()
		l.in.fail(ErrClosed)
	})
	return nil
}
