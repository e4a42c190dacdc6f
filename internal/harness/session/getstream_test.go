package session

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// rootsOnGetServer plays a streamable HTTP server that, like Playwright's
// MCP server 0.0.83, asks a client that declared roots for them on the
// standalone GET stream before it serves the session's first tools/call,
// and holds that call until the answer comes (a request sent while no GET
// stream is open is lost, as the TypeScript SDK drops it). With decline
// set it answers GET with 405 and serves tools/call at once.
type rootsOnGetServer struct {
	version string
	decline bool

	mu      sync.Mutex
	gets    int               // GETs served with a stream
	events  chan string       // what the open GET stream sends
	getDone chan struct{}     // closed when the open GET ended
	roots   chan []byte       // the client's answer to roots/list
	asked   bool              // roots/list was sent
	answer  json.RawMessage   // the answer's result
	seen    map[string]string // method -> the stream it came on, for the test
}

func newRootsOnGetServer(version string, decline bool) *rootsOnGetServer {
	return &rootsOnGetServer{version: version, decline: decline, roots: make(chan []byte, 1), seen: map[string]string{}}
}

func (s *rootsOnGetServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(body, &m)
	switch {
	case r.Method == http.MethodGet && s.decline:
		w.Header().Set("Allow", "POST, DELETE")
		w.WriteHeader(http.StatusMethodNotAllowed)
	case r.Method == http.MethodGet:
		s.serveGet(w, r)
	case r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusOK)
	case m.Method == "initialize":
		w.Header().Set("Mcp-Session-Id", "g-1")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"roots-on-get","version":"1"}}}`, m.ID, s.version)
	case m.Method == "" && string(m.ID) == `"roots-1"`:
		s.roots <- m.Result
		w.WriteHeader(http.StatusAccepted)
	case m.ID == nil || m.Method == "":
		w.WriteHeader(http.StatusAccepted)
	case m.Method == "tools/call":
		if !s.decline && !s.rootsAnswered(r.Context()) {
			return // the client went away
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"served"}]}}`, m.ID)
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	}
}

// serveGet serves the session's one GET stream (a second GET gets 409, as
// the TypeScript SDK and the reference server answer).
func (s *rootsOnGetServer) serveGet(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.events != nil {
		s.mu.Unlock()
		w.WriteHeader(http.StatusConflict)
		return
	}
	s.gets++
	events, done := make(chan string, 4), make(chan struct{})
	s.events, s.getDone = events, done
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.events = nil
		s.mu.Unlock()
		close(done)
	}()
	serveEvents(w, r, events)
}

// serveEvents answers a GET with an SSE stream that carries each message
// of events until the client closes it.
func serveEvents(w http.ResponseWriter, r *http.Request, events <-chan string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	for {
		select {
		case ev := <-events:
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", ev)
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
	}
}

// rootsAnswered asks for roots on the open GET stream once and waits for
// the answer; false when ctx ended first.
func (s *rootsOnGetServer) rootsAnswered(ctx context.Context) bool {
	s.mu.Lock()
	if s.answer != nil {
		s.mu.Unlock()
		return true
	}
	if !s.asked && s.events != nil {
		s.asked = true
		s.events <- `{"jsonrpc":"2.0","id":"roots-1","method":"roots/list"}`
	}
	s.mu.Unlock()
	select {
	case res := <-s.roots:
		s.mu.Lock()
		s.answer = res
		s.mu.Unlock()
		return true
	case <-ctx.Done():
		return false
	}
}

// gotGet returns how many GET streams were served and a channel closed
// when the open one ends (nil when none is open).
func (s *rootsOnGetServer) gotGet() (int, chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.events == nil {
		return s.gets, nil
	}
	return s.gets, s.getDone
}

// startRootsOnGet starts a rootsOnGetServer speaking version and a
// connection to it; both end with the test, and no goroutine outlives it.
func startRootsOnGet(t *testing.T, version spec.Version, decline bool) (*rootsOnGetServer, *wire.HTTP) {
	t.Helper()
	checkGoroutines(t)
	fake := newRootsOnGetServer(string(version), decline)
	srv := httptest.NewServer(fake)
	conn, err := wire.NewHTTP(wire.HTTPOptions{URL: srv.URL + "/mcp"})
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(); srv.Close() })
	return fake, conn
}

// TestOpenListensWhereTheServerSpeaks: a session that declared roots opens
// the standalone GET stream after initialization, in every stateful
// version spoken over streamable HTTP, so a server that asks for roots there and holds the tool
// call until they come is answered: the call is served. The roots/list
// request is handed out by Recv as a server request with its answer,
// sent once; closing the connection ends the GET stream.
func TestOpenListensWhereTheServerSpeaks(t *testing.T) {
	for _, v := range []spec.Version{spec.V20241105, spec.V20250326, spec.V20250618, spec.V20251125} {
		t.Run(string(v), func(t *testing.T) {
			fake, conn := startRootsOnGet(t, v, false)
			s := NewStateful(conn, Config{Version: v, Timeout: 20 * time.Second})
			ctx := ctxT(t)
			if _, err := s.Open(ctx); err != nil {
				t.Fatal(err)
			}
			if s.Listening() == "" || conn.GetStream() != s.Listening() {
				t.Fatalf("after Open: Listening %q, the connection's GET stream %q; want the GET stream the session opened", s.Listening(), conn.GetStream())
			}
			r := s.Call(ctx, "tools/call", map[string]any{"name": "x"})
			if !r.OK() || !strings.Contains(string(r.Result), "served") {
				t.Fatalf("tools/call held by a server that asks for roots on the GET stream: %s", r.Describe())
			}
			fake.mu.Lock()
			answer := string(fake.answer)
			fake.mu.Unlock()
			if !strings.Contains(answer, "file:///mcpcheck/root") {
				t.Errorf("the server got roots %s; want the configured root", answer)
			}
			var asked []ServerRequest
			for _, q := range s.ServerRequests() {
				if q.Frame.Msg.Method == spec.MethodRootsList {
					asked = append(asked, q)
				}
			}
			if len(asked) != 1 || asked[0].Frame.Stream != s.Listening() || !strings.Contains(string(asked[0].Answer), "file:///mcpcheck/root") {
				t.Errorf("server requests handed out: %+v; want the one roots/list, on the GET stream %s, with its answer", asked, s.Listening())
			}
			_, done := fake.gotGet()
			if done == nil {
				t.Fatal("the server has no GET stream open before the connection is closed")
			}
			conn.Close()
			select {
			case <-done:
			case <-ctx.Done():
				t.Fatal("the GET stream outlived the connection")
			}
		})
	}
}

// TestHandshakeLeavesTheGetStreamToTheCaller: Handshake opens no GET
// stream (for a check that opens its own), and the same server then
// holds the tool call: the failure the session's own stream avoids.
func TestHandshakeLeavesTheGetStreamToTheCaller(t *testing.T) {
	fake, conn := startRootsOnGet(t, spec.V20251125, false)
	s := NewStateful(conn, Config{Timeout: 500 * time.Millisecond})
	ctx := ctxT(t)
	if _, err := s.Handshake(ctx); err != nil {
		t.Fatal(err)
	}
	if r := s.Call(ctx, spec.MethodPing, nil); !r.OK() {
		t.Fatal(r.Describe())
	}
	if n, _ := fake.gotGet(); n != 0 || s.Listening() != "" || conn.GetStream() != "" {
		t.Fatalf("after Handshake: %d GET streams served, Listening %q, GetStream %q; want none", n, s.Listening(), conn.GetStream())
	}
	if r := s.Call(ctx, "tools/call", map[string]any{"name": "x"}); r.OK() {
		t.Fatalf("tools/call was served without the roots the server holds it for: %s", r.Result)
	}
	// The caller opens the stream itself; OpenStream then gives that one
	// back instead of asking for a second.
	st, err := s.OpenStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.OpenStream(ctx)
	if err != nil || again != st {
		t.Fatalf("OpenStream with the GET stream %s open = %q, %v; want the same stream", st, again, err)
	}
}

// TestListenGating: no GET stream where a server cannot send requests to
// the client on one, or is not asked to: a declined GET (405, which the
// transport allows: the session carries on without) and a client that
// declared no roots, sampling or elicitation. A 2024-11-05 session over
// streamable HTTP listens like the others: the transport decides.
func TestListenGating(t *testing.T) {
	none := mcp.ClientCapabilities{}
	elicit := mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}
	for _, tc := range []struct {
		name    string
		version spec.Version
		decline bool
		caps    *mcp.ClientCapabilities
		listen  bool
	}{
		{"declined with 405", spec.V20251125, true, nil, false},
		{"no capability that needs it", spec.V20251125, false, &none, false},
		{"elicitation only", spec.V20250618, false, &elicit, true},
		{"2024-11-05 over streamable HTTP", spec.V20241105, false, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake, conn := startRootsOnGet(t, tc.version, tc.decline)
			s := NewStateful(conn, Config{Version: tc.version, Capabilities: tc.caps})
			ctx := ctxT(t)
			if _, err := s.Open(ctx); err != nil {
				t.Fatal(err)
			}
			n, _ := fake.gotGet()
			if got := s.Listening() != ""; got != tc.listen || (n == 1) != tc.listen {
				t.Fatalf("Listening %q, %d GET streams served; want a GET stream: %v", s.Listening(), n, tc.listen)
			}
			if r := s.Call(ctx, spec.MethodPing, nil); !r.OK() {
				t.Fatalf("ping after Open: %s", r.Describe())
			}
		})
	}
}

// TestDetachClosesTheGetStream: a session taken off its connection closes
// the GET stream it opened, whose requests it would no longer answer.
func TestDetachClosesTheGetStream(t *testing.T) {
	fake, conn := startRootsOnGet(t, spec.V20251125, false)
	s := NewStateful(conn, Config{})
	ctx := ctxT(t)
	if _, err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	_, done := fake.gotGet()
	if done == nil {
		t.Fatal("no GET stream after Open")
	}
	s.Detach()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("the GET stream outlived Detach")
	}
}

// copyingServer answers ping on its POST and also sends a copy of the
// answer on the session's GET stream first, as a server that broadcasts
// its responses does (the fault response-on-get-stream of the reference
// server). The POST answer waits until seen is closed.
type copyingServer struct {
	seen   chan struct{}
	mu     sync.Mutex
	events chan string
}

func (s *copyingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &m)
	switch {
	case r.Method == http.MethodGet:
		events := make(chan string, 4)
		s.mu.Lock()
		s.events = events
		s.mu.Unlock()
		serveEvents(w, r, events)
	case m.Method == "initialize":
		w.Header().Set("Mcp-Session-Id", "c-1")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"copying","version":"1"}}}`, m.ID)
	case m.ID == nil:
		w.WriteHeader(http.StatusAccepted)
	default:
		answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		s.mu.Lock()
		if s.events != nil {
			s.events <- answer
		}
		s.mu.Unlock()
		select {
		case <-s.seen:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	}
}

// onStream closes a channel when a frame of a stream arrives.
type onStream struct {
	stream func() string
	once   sync.Once
	seen   chan struct{}
}

func (o *onStream) Sent(wire.Outgoing)      {}
func (o *onStream) Noted(string, time.Time) {}
func (o *onStream) Received(f wire.Frame) {
	if st := o.stream(); st != "" && f.Stream == st {
		o.once.Do(func() { close(o.seen) })
	}
}

// TestResponseOnTheSessionsGetStreamAnswersNothing: a copy of a response
// that a server sends on the GET stream the session opened is not taken
// for the answer (the transport keeps responses off that stream; the
// transport-http checks judge one there): the wait takes the answer on
// the request's POST stream, which the server sends after the copy
// arrived, and the copy is not counted as the answer (AnswersOther), so
// the real answer is not taken for a duplicate with a wrong id.
//
// The GET stream may be opened by Listen (Open) or, where Listen opened
// none (a client that declared no roots, sampling or elicitation, or a
// check that opens the stream itself, as the scenarios'
// transportGetStream does), by OpenStreamWait: either way the session
// listens on it. Before OpenStreamWait listened, its stream's copy was
// taken for the answer, and the frames the POST stream carried before
// the answer (progress/increasing's progress notifications) were never
// read by the wait.
func TestResponseOnTheSessionsGetStreamAnswersNothing(t *testing.T) {
	none := &mcp.ClientCapabilities{}
	for _, tc := range []struct {
		name string
		caps *mcp.ClientCapabilities
		open func(ctx context.Context, s *Stateful) error
	}{
		{"Listen", nil, func(ctx context.Context, s *Stateful) error {
			_, err := s.Open(ctx)
			return err
		}},
		{"OpenStreamWait after Handshake", nil, func(ctx context.Context, s *Stateful) error {
			if _, err := s.Handshake(ctx); err != nil {
				return err
			}
			_, _, err := s.OpenStreamWait(ctx)
			return err
		}},
		{"OpenStreamWait where Listen opened none", none, func(ctx context.Context, s *Stateful) error {
			if _, err := s.Open(ctx); err != nil {
				return err
			}
			if s.Listening() != "" {
				return fmt.Errorf("Listen opened %s for a client that declared no capabilities", s.Listening())
			}
			_, _, err := s.OpenStreamWait(ctx)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { responseOnGetStreamAnswersNothing(t, tc.caps, tc.open) })
	}
}

// responseOnGetStreamAnswersNothing runs TestResponseOnTheSessionsGetStreamAnswersNothing
// with a session of caps (nil: the default ones) whose GET stream open opens.
func responseOnGetStreamAnswersNothing(t *testing.T, caps *mcp.ClientCapabilities, open func(context.Context, *Stateful) error) {
	checkGoroutines(t)
	fake := &copyingServer{seen: make(chan struct{})}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	conn, _ := wire.NewHTTP(wire.HTTPOptions{URL: srv.URL + "/mcp"})
	defer conn.Close()
	conn.Observe(&onStream{stream: conn.GetStream, seen: fake.seen})
	s := NewStateful(conn, Config{Capabilities: caps})
	ctx := ctxT(t)
	if err := open(ctx, s); err != nil {
		t.Fatal(err)
	}
	if s.Listening() == "" || s.Listening() != conn.GetStream() {
		t.Fatalf("the session listens on %q, the connection's GET stream is %q; want the one GET stream", s.Listening(), conn.GetStream())
	}
	r := s.Call(ctx, spec.MethodPing, nil)
	if !r.OK() || r.Observed.Frame.Stream != r.Stream {
		t.Fatalf("ping: %s on stream %q; want its answer on its POST stream %s, not the copy on the GET stream %s", r.Describe(), r.Observed.Frame.Stream, r.Stream, s.Listening())
	}
	// The copy arrived before the answer was sent; the wait passed over
	// it, or it is still queued when the answer was read first.
	var cp *wire.Frame
	for i, f := range r.Observed.Others {
		if f.Stream == s.Listening() {
			cp = &r.Observed.Others[i]
		}
	}
	for cp == nil {
		f, err := s.Recv(ctx)
		if err != nil {
			t.Fatalf("the copy on the GET stream was not handed out: %v", err)
		}
		if f.Stream == s.Listening() {
			cp = &f
		}
	}
	if !cp.IsResponseTo(r.ID) {
		t.Fatalf("the frame on the GET stream is %s; want the copy of the answer to %s", cp.Describe(), r.ID)
	}
	if s.AnswersOther(*cp, jsonrpc.IntID(99)) || !s.AnswersOther(r.Observed.Frame, jsonrpc.IntID(99)) {
		t.Error("AnswersOther: the copy must answer nothing, the answer on the POST stream its request")
	}
	if fs := s.Findings(); len(fs) != 0 {
		t.Errorf("findings: %+v; want none", fs)
	}
}
