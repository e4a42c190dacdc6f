package wire

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrClosed is returned by the methods of a Conn after Close.
var ErrClosed = errors.New("wire: the connection is closed")

// Conn is one raw connection to a target.
//
// Concurrency: Send, SendRaw, Recv, Observe and Close are safe for
// concurrent use. Recv hands each frame to exactly one caller, in arrival
// order; most users call it from one goroutine.
type Conn interface {
	// Send sends one message. On stdio it writes msg and a LF, refusing a
	// msg that holds a raw newline (use SendRaw for that); on HTTP it POSTs
	// msg as the body with the connection's default headers. It returns the
	// stream the target's answer will arrive on (StreamStdio, "post-N").
	// Send returns when the bytes are handed to the OS or the HTTP request
	// is started; answers arrive as frames. A non-nil error means the bytes
	// were not (fully) sent.
	Send(ctx context.Context, msg []byte) (stream string, err error)
	// SendRaw sends b exactly as given: on stdio without adding a LF, on
	// HTTP as the POST body. It is the deliberate way to send broken bytes.
	SendRaw(ctx context.Context, b []byte) (stream string, err error)
	// Recv returns the next frame, waiting until one arrives, ctx is done
	// (it returns ctx.Err()) or the Conn is closed (ErrClosed). Frames that
	// arrived before Close are dropped by Close.
	Recv(ctx context.Context) (Frame, error)
	// Observe adds a tap that sees every frame sent and received from now
	// on; the returned func removes it.
	Observe(t Tap) (remove func())
	// Transport names the connection's transport.
	Transport() Transport
	// Close stops the connection and every goroutine it started, and waits
	// for them. It is idempotent.
	Close() error
}

// Outgoing is one thing sent to the target, as a tap sees it.
type Outgoing struct {
	// Raw is the bytes sent (for stdio including the LF that Send adds).
	Raw    []byte
	Stream string
	// HTTP is the request's method, URL and headers; nil on stdio.
	HTTP *HTTPInfo
	Time time.Time
}

// Tap observes a Conn. Its methods are called from the goroutines that send
// and receive, possibly concurrently, at the moment the bytes cross the
// wire (before Recv hands a frame out); they must be safe for concurrent
// use and must not block.
type Tap interface {
	Sent(Outgoing)
	Received(Frame)
	// Noted is an observation of the connection that is neither sent nor
	// received, such as "the process exited with status 1".
	Noted(text string, at time.Time)
}

// Limits bound what a Conn accepts from the target. Zero fields take the
// defaults.
type Limits struct {
	// MaxMessage is the largest line, SSE event or HTTP body accepted as a
	// message (default 16 MiB); bigger ones become KindTooLong frames.
	MaxMessage int
	// MaxQueued is how many bytes of frames may wait for Recv (default
	// 64 MiB; at least one frame is always queued). A reader that finds
	// the queue full waits: a flooding target is slowed down.
	MaxQueued int
	// MaxFrames is how many frames may wait for Recv (default 4096).
	MaxFrames int
	// MaxHeader is how many bytes of headers (status line included) one
	// HTTP response may carry (default DefaultMaxHeader); a response with
	// more is dropped unread and becomes a KindTransportError frame whose
	// error is a *HeaderLimitError. It bounds the client the HTTP
	// connections build, not one given in HTTPOptions.Client.
	MaxHeader int
}

// DefaultMaxHeader is the default Limits.MaxHeader, 256 KiB: an MCP
// server's response headers take a few hundred bytes, and net/http's own
// default (10 MiB per response) lets a hostile target make every one of
// mcpcheck's concurrent requests hold megabytes.
const DefaultMaxHeader = 256 << 10

func (l Limits) withDefaults() Limits {
	if l.MaxMessage <= 0 {
		l.MaxMessage = 16 << 20
	}
	if l.MaxQueued <= 0 {
		l.MaxQueued = 64 << 20
	}
	if l.MaxFrames <= 0 {
		l.MaxFrames = 4096
	}
	if l.MaxHeader <= 0 {
		l.MaxHeader = DefaultMaxHeader
	}
	return l
}

// taps is a concurrency-safe set of taps.
type taps struct {
	mu   sync.Mutex
	next int
	m    map[int]Tap
}

func (ts *taps) add(t Tap) func() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.m == nil {
		ts.m = map[int]Tap{}
	}
	k := ts.next
	ts.next++
	ts.m[k] = t
	return func() {
		ts.mu.Lock()
		delete(ts.m, k)
		ts.mu.Unlock()
	}
}

func (ts *taps) list() []Tap {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	out := make([]Tap, 0, len(ts.m))
	for i := 0; i < ts.next; i++ {
		if t, ok := ts.m[i]; ok {
			out = append(out, t)
		}
	}
	return out
}

func (ts *taps) sent(o Outgoing) {
	for _, t := range ts.list() {
		t.Sent(o)
	}
}

func (ts *taps) received(f Frame) {
	for _, t := range ts.list() {
		t.Received(f)
	}
}

func (ts *taps) noted(s string, at time.Time) {
	for _, t := range ts.list() {
		t.Noted(s, at)
	}
}

// queue is the bounded frame queue between reader goroutines and Recv.
type queue struct {
	mu       sync.Mutex
	items    []Frame
	bytes    int
	limits   Limits
	closed   bool
	avail    chan struct{}
	space    chan struct{}
	done     chan struct{}
	dropOnce sync.Once
}

func newQueue(l Limits) *queue {
	return &queue{limits: l, avail: make(chan struct{}, 1), space: make(chan struct{}, 1), done: make(chan struct{})}
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// push queues f, waiting for room; it returns false once the queue is
// closed.
func (q *queue) push(f Frame) bool {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return false
		}
		n := len(f.Raw)
		if len(q.items) == 0 || (len(q.items) < q.limits.MaxFrames && q.bytes+n <= q.limits.MaxQueued) {
			q.items = append(q.items, f)
			q.bytes += n
			q.mu.Unlock()
			signal(q.avail)
			return true
		}
		q.mu.Unlock()
		select {
		case <-q.space:
		case <-q.done:
			return false
		}
	}
}

func (q *queue) pop(ctx context.Context) (Frame, error) {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return Frame{}, ErrClosed
		}
		if len(q.items) > 0 {
			f := q.items[0]
			q.items[0] = Frame{}
			q.items = q.items[1:]
			q.bytes -= len(f.Raw)
			more := len(q.items) > 0
			q.mu.Unlock()
			signal(q.space)
			if more {
				signal(q.avail)
			}
			return f, nil
		}
		q.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return Frame{}, err
		}
		select {
		case <-q.avail:
		case <-ctx.Done():
			return Frame{}, ctx.Err()
		case <-q.done:
		}
	}
}

func (q *queue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		q.items = nil
		close(q.done)
	}
}

// deadline turns ctx's deadline into a time for SetWriteDeadline.
func deadline(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}
