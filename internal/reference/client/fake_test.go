package client

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/client/transport"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// fakeConn is an in-process transport whose other end is a scripted
// server: handle sees every message the client sends and returns the
// messages to answer with; push sends unsolicited ones.
type fakeConn struct {
	t      *testing.T
	handle func(f *fakeConn, m jsonrpc.Message) []string

	toClient chan []byte
	stop     chan struct{}
	once     sync.Once

	mu      sync.Mutex
	seen    []jsonrpc.Message
	changed chan struct{} // closed and replaced whenever seen grows
}

func newFake(t *testing.T, handle func(f *fakeConn, m jsonrpc.Message) []string) *fakeConn {
	return &fakeConn{t: t, handle: handle, toClient: make(chan []byte, 256), stop: make(chan struct{}), changed: make(chan struct{})}
}

func (f *fakeConn) Send(ctx context.Context, msg []byte) error {
	select {
	case <-f.stop:
		return transport.ErrClosed
	default:
	}
	m := jsonrpc.Decode(append([]byte(nil), msg...))
	f.mu.Lock()
	f.seen = append(f.seen, m)
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
	for _, out := range f.handle(f, m) {
		if !f.push(out) {
			return transport.ErrClosed
		}
	}
	return nil
}

func (f *fakeConn) push(msg string) bool {
	select {
	case f.toClient <- []byte(msg):
		return true
	case <-f.stop:
		return false
	}
}

func (f *fakeConn) Recv(ctx context.Context) ([]byte, error) {
	select {
	case m := <-f.toClient:
		return m, nil
	case <-f.stop:
		return nil, transport.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (f *fakeConn) Close() error {
	f.once.Do(func() { close(f.stop) })
	return nil
}

// sent returns the messages the client sent with the given method.
func (f *fakeConn) sent(method string) []jsonrpc.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []jsonrpc.Message
	for _, m := range f.seen {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// waitFor waits until the client has sent a message for which match is
// true, and returns it.
func (f *fakeConn) waitFor(t *testing.T, what string, match func(jsonrpc.Message) bool) jsonrpc.Message {
	t.Helper()
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	for {
		f.mu.Lock()
		changed := f.changed
		for _, m := range f.seen {
			if match(m) {
				f.mu.Unlock()
				return m
			}
		}
		f.mu.Unlock()
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatalf("the client never sent %s", what)
		}
	}
}

// waitResponse waits until the client has answered the server request id.
func (f *fakeConn) waitResponse(t *testing.T, id string) jsonrpc.Message {
	t.Helper()
	return f.waitFor(t, "an answer to server request "+id, func(m jsonrpc.Message) bool {
		return m.Shape.IsResponse() && m.ID.String() == id
	})
}

// waitMethod waits until the client has sent a message with method.
func (f *fakeConn) waitMethod(t *testing.T, method string) jsonrpc.Message {
	t.Helper()
	return f.waitFor(t, method, func(m jsonrpc.Message) bool { return m.Method == method })
}

func result(id jsonrpc.ID, v string) string {
	return `{"jsonrpc":"2.0","id":` + id.String() + `,"result":` + v + `}`
}

func errorResp(id jsonrpc.ID, code int, msg string, data string) string {
	s := `{"jsonrpc":"2.0","id":` + id.String() + `,"error":{"code":` + itoa(code) + `,"message":"` + msg + `"`
	if data != "" {
		s += `,"data":` + data
	}
	return s + "}}"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// params decodes a message's params into a map.
func params(m jsonrpc.Message) map[string]json.RawMessage {
	var p map[string]json.RawMessage
	_ = json.Unmarshal(m.Params, &p)
	return p
}

const initOK = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}`

// statefulServer answers initialize and delegates the rest.
func statefulServer(rest func(f *fakeConn, m jsonrpc.Message) []string) func(f *fakeConn, m jsonrpc.Message) []string {
	return func(f *fakeConn, m jsonrpc.Message) []string {
		switch m.Method {
		case "initialize":
			return []string{result(m.ID, initOK)}
		case "notifications/initialized", "notifications/cancelled":
			return nil
		}
		if rest == nil || m.Shape.IsResponse() {
			return nil
		}
		return rest(f, m)
	}
}

const discoverOK = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modern","version":"2"}}}`

// statelessServer answers server/discover and delegates the rest.
func statelessServer(rest func(f *fakeConn, m jsonrpc.Message) []string) func(f *fakeConn, m jsonrpc.Message) []string {
	return func(f *fakeConn, m jsonrpc.Message) []string {
		if m.Method == "server/discover" {
			return []string{result(m.ID, discoverOK)}
		}
		if rest == nil || m.Shape.IsResponse() || m.Kind == jsonrpc.KindNotification {
			return nil
		}
		return rest(f, m)
	}
}

func connect(t *testing.T, f *fakeConn, o Options) *Client {
	t.Helper()
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Connect(ctx, f, o)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func tctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
