package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/schema"
	"github.com/mcpcheck/mcpcheck/spec"
)

// testTimeout bounds every wait in these tests; it is a failure bound,
// never a synchronisation.
const testTimeout = 10 * time.Second

func newTestServer(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.StepDelay == 0 {
		opts.StepDelay = -1 // no pauses in fixtures
	}
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// wireMsg is a decoded message the server sent.
type wireMsg struct {
	raw    []byte
	msg    jsonrpc.Message
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func decodeWire(t testing.TB, raw []byte) wireMsg {
	t.Helper()
	var m wireMsg
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("server sent something that is not JSON: %q: %v", raw, err)
	}
	m.raw = raw
	m.msg = jsonrpc.Decode(raw)
	return m
}

// stdioClient drives ServeStdio over in-process pipes and validates every
// message the server sends against the schema of the current version.
type stdioClient struct {
	t       testing.TB
	in      *io.PipeWriter
	lines   chan []byte
	version spec.Version
	methods sync.Map // request id -> method, for result validation
	done    chan struct{}
	err     error
	cancel  context.CancelFunc
	nextID  int
}

func startStdio(t testing.TB, s *Server) *stdioClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &stdioClient{t: t, in: inW, lines: make(chan []byte, 1024), done: make(chan struct{}), cancel: cancel}
	go func() {
		err := s.ServeStdio(ctx, inR, outW, io.Discard)
		outW.Close()
		c.err = err
		close(c.done)
	}()
	go func() {
		lr := jsonrpc.NewLineReader(outR, 0)
		for {
			b, err := lr.ReadLine()
			if err != nil {
				close(c.lines)
				return
			}
			c.lines <- b
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-c.done:
		case <-time.After(testTimeout):
			t.Errorf("ServeStdio did not return after stdin was closed")
		}
		cancel()
	})
	return c
}

func (c *stdioClient) sendRaw(b []byte) {
	c.t.Helper()
	if _, err := c.in.Write(append(append([]byte{}, b...), '\n')); err != nil {
		c.t.Fatalf("write to server: %v", err)
	}
}

// request sends a request and returns its id.
func (c *stdioClient) request(method string, params any) jsonrpc.ID {
	c.t.Helper()
	c.nextID++
	id := jsonrpc.IntID(int64(c.nextID))
	b, err := jsonrpc.NewRequest(id, method, params)
	if err != nil {
		c.t.Fatal(err)
	}
	c.methods.Store(id.String(), method)
	c.sendRaw(b)
	return id
}

func (c *stdioClient) notify(method string, params any) {
	c.t.Helper()
	b, err := jsonrpc.NewNotification(method, params)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(b)
}

// nextRaw returns the next line from the server as it is.
func (c *stdioClient) nextRaw() []byte {
	c.t.Helper()
	select {
	case b, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("the server closed stdout")
		}
		return b
	case <-time.After(testTimeout):
		c.t.Fatalf("no message from the server within %v", testTimeout)
	}
	return nil
}

// next returns the next message from the server, schema-validated.
func (c *stdioClient) next() wireMsg {
	c.t.Helper()
	select {
	case b, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("the server closed stdout")
		}
		m := decodeWire(c.t, b)
		c.validate(m)
		return m
	case <-time.After(testTimeout):
		c.t.Fatalf("no message from the server within %v", testTimeout)
	}
	return wireMsg{}
}

func (c *stdioClient) validate(m wireMsg) {
	c.t.Helper()
	v := c.version
	if v == "" {
		v = spec.V20251125
	}
	method := ""
	if m.Method == "" && len(m.ID) > 0 && m.Error == nil {
		if x, ok := c.methods.Load(string(m.ID)); ok {
			method = x.(string)
		}
	}
	validateServerMessage(c.t, v, method, m.raw)
}

// validateServerMessage fails the test when raw is not schema-valid for
// version v as a server-sent message.
//
// Before 2025-11-25 the schemas give an error response no way to lack an
// id, while JSON-RPC 2.0 answers unreadable requests with "id": null; the
// server follows JSON-RPC there, so those messages are exempt.
func validateServerMessage(t testing.TB, v spec.Version, method string, raw []byte) {
	t.Helper()
	if !since(v, spec.V20251125) && bytes.Contains(raw, []byte(`"id":null,"error"`)) {
		return
	}
	if vs := schema.Validate(v, spec.ServerToClient, method, raw); len(vs) > 0 {
		var b strings.Builder
		for _, x := range vs {
			b.WriteString("\n  " + x.String())
		}
		t.Errorf("server message is not valid %s (method %q): %s%s", v, method, raw, b.String())
	}
}

// response reads messages until the response to id, returning the
// messages that came before it too.
func (c *stdioClient) response(id jsonrpc.ID) (wireMsg, []wireMsg) {
	c.t.Helper()
	var before []wireMsg
	for {
		m := c.next()
		if m.Method == "" && string(m.ID) == id.String() {
			return m, before
		}
		before = append(before, m)
	}
}

// call sends a request and returns the result, failing on an error.
func (c *stdioClient) call(method string, params any) (json.RawMessage, []wireMsg) {
	c.t.Helper()
	m, before := c.response(c.request(method, params))
	if m.Error != nil {
		c.t.Fatalf("%s: unexpected error %d %s", method, m.Error.Code, m.Error.Message)
	}
	return m.Result, before
}

// callErr sends a request and returns its error, failing on a result.
func (c *stdioClient) callErr(method string, params any) (int64, string, json.RawMessage) {
	c.t.Helper()
	m, _ := c.response(c.request(method, params))
	if m.Error == nil {
		c.t.Fatalf("%s: want an error, got result %s", method, m.Result)
	}
	return m.Error.Code, m.Error.Message, m.Error.Data
}

// initialize runs the handshake for version v with capabilities caps.
func (c *stdioClient) initialize(v spec.Version, caps any) json.RawMessage {
	c.t.Helper()
	if caps == nil {
		caps = map[string]any{}
	}
	c.version = v
	res, _ := c.call("initialize", map[string]any{"protocolVersion": string(v), "capabilities": caps, "clientInfo": map[string]any{"name": "test", "version": "1"}})
	c.notify("notifications/initialized", nil)
	return res
}

func mustJSON(t testing.TB, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
}

func hasKey(raw json.RawMessage, key string) bool {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	_, ok := m[key]
	return ok
}
