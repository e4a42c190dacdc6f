package stage

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/reference/client"
	"github.com/mcpcheck/mcpcheck/internal/reference/client/transport"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

func newStage(t *testing.T) *Stage {
	t.Helper()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newCase(t *testing.T, s *Stage, cfg Config) *Case {
	t.Helper()
	if cfg.Server.StepDelay == 0 {
		cfg.Server.StepDelay = -1
	}
	c, err := s.NewCase(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// connectRef connects the reference client to case c over streamable
// HTTP in 2025-11-25; the context bounds the test's requests.
func connectRef(t *testing.T, c *Case) (context.Context, *client.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	tr, err := transport.NewStreamableHTTP(transport.HTTPOptions{URL: c.URL()})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := client.Connect(ctx, tr, client.Options{Version: spec.V20251125})
	if err != nil {
		t.Fatalf("the reference client could not connect to the stage: %v", err)
	}
	return ctx, cl
}

// find returns the first event that matches.
func find(evs []Event, match func(Event) bool) (Event, bool) {
	for _, e := range evs {
		if match(e) {
			return e, true
		}
	}
	return Event{}, false
}

// TestHTTPCaseRecordsBothWays: a client over streamable HTTP; the recording
// holds its initialize POST with the request headers, the stage's answer
// as SSE events, and the session id echoed on a later request.
func TestHTTPCaseRecordsBothWays(t *testing.T) {
	s := newStage(t)
	c := newCase(t, s, Config{})
	ctx, cl := connectRef(t, c)
	if _, err := cl.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	cl.Close()

	evs := c.Recording().Events()
	init, ok := find(evs, func(e Event) bool { return e.From == FromClient && e.IsMessage() && e.Msg.Method == "initialize" })
	if !ok {
		t.Fatalf("no initialize from the client in %d events", len(evs))
	}
	if init.HTTP == nil || init.HTTP.Method != "POST" || !strings.Contains(init.HTTP.Header.Get("Accept"), "text/event-stream") {
		t.Errorf("the initialize event lacks its HTTP request: %+v", init.HTTP)
	}
	answer, ok := find(evs, func(e Event) bool {
		return e.From == FromStage && e.IsMessage() && e.Stream == init.Stream && e.Msg.Shape == jsonrpc.KindResponse
	})
	if !ok || !answer.InSSE || answer.HTTP.Status != 200 {
		t.Fatalf("the stage's answer to initialize was not recorded as an SSE event on %s: %+v", init.Stream, answer)
	}
	sid := answer.HTTP.Header.Get("Mcp-Session-Id")
	list, ok := find(evs, func(e Event) bool { return e.From == FromClient && e.IsMessage() && e.Msg.Method == "tools/list" })
	if !ok || sid == "" || list.HTTP.Header.Get("Mcp-Session-Id") != sid {
		t.Errorf("tools/list carries session %q, the stage gave %q", list.HTTP.Header.Get("Mcp-Session-Id"), sid)
	}
	if _, ok := find(evs, func(e Event) bool {
		return e.From == FromClient && e.Kind == wire.KindHTTPRequest && e.HTTP.Method == "DELETE"
	}); !ok {
		t.Error("the client's DELETE on close was not recorded as a bodiless request")
	}
	if c.Recording().Recorder().Events() == nil {
		t.Error("the case's transcript is empty")
	}
}

// pipeEnds is one side of the stdio pipes between a client and its relay.
type pipeEnds struct {
	toRelay   *io.PipeWriter
	fromRelay *bufio.Reader
	relayOut  *io.PipeWriter
}

// startRelay runs RunRelay in-process as if it were the server process a
// stdio client started, and returns the client's ends of its stdio.
func startRelay(t *testing.T, c *Case, sigs chan os.Signal) (*pipeEnds, <-chan int) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	args := c.RelayArgs()
	done := make(chan int, 1)
	go func() {
		done <- RunRelay(context.Background(), RelayOptions{Stage: args[2], Case: args[4], Stdin: inR, Stdout: outW, Stderr: io.Discard, Signals: sigs})
	}()
	return &pipeEnds{toRelay: inW, fromRelay: bufio.NewReader(outR), relayOut: outW}, done
}

// TestStdioRelay: a client talks to the stage through a relay; its bytes
// reach the engine and are recorded, the engine's answer comes back, and
// closing stdin ends the server, which exits with status 0.
func TestStdioRelay(t *testing.T) {
	s := newStage(t)
	c := newCase(t, s, Config{Stdio: StdioConfig{Stderr: []byte("noise on stderr\n")}})
	p, done := startRelay(t, c, nil)
	if _, err := io.WriteString(p.toRelay, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	line, err := p.fromRelay.ReadString('\n')
	if err != nil || !strings.Contains(line, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("the relay's stdout gave %q, %v", line, err)
	}
	p.toRelay.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("the relay exited with %d after stdin closed, want 0", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the relay did not exit after stdin closed")
	}
	evs := c.Recording().Events()
	var got []string
	for _, e := range evs {
		switch {
		case e.From == FromHarness:
			got = append(got, e.Note)
		case e.IsMessage():
			got = append(got, e.From.String()+":"+e.Msg.Shape.String())
		}
	}
	want := []string{NoteRelayConnect, "stderr", "client:request", "stage:response", NoteStdinClosed, NoteServerExit}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("recorded %v, want %v", got, want)
	}
}

// TestStdioRelayReportsSignals: a SIGTERM to the relay is recorded, and a
// server that holds out after SIGTERM stays until the case ends.
func TestStdioRelayReportsSignals(t *testing.T) {
	s := newStage(t)
	c := newCase(t, s, Config{Stdio: StdioConfig{HoldOnTerm: true}})
	sigs := make(chan os.Signal, 1)
	_, done := startRelay(t, c, sigs)
	waitFor(t, c, func(e Event) bool { return e.Note == NoteRelayConnect })
	sigs <- syscall.SIGTERM
	waitFor(t, c, func(e Event) bool { return e.Note == NoteSignal })
	select {
	case code := <-done:
		t.Fatalf("the relay exited (%d) after SIGTERM although the server holds out", code)
	default:
	}
	c.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the relay did not exit when the case ended")
	}
}

func waitFor(t *testing.T, c *Case, match func(Event) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		ch := c.Recording().Changed()
		if _, ok := find(c.Recording().Events(), match); ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("the awaited event was not recorded; events: %+v", c.Recording().Events())
		}
	}
}

// TestDedicatedCase: a dedicated case answers at the root of its own
// listener, well-known paths included, and is recorded like any other.
func TestDedicatedCase(t *testing.T) {
	s := newStage(t)
	c := newCase(t, s, Config{Dedicated: true, Middleware: func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/.well-known/oauth-protected-resource" {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"resource":"x"}`)
				return
			}
			next.ServeHTTP(w, r)
		})
	}})
	if strings.Contains(c.URL(), "/c/") || !strings.HasSuffix(c.URL(), "/mcp") {
		t.Fatalf("URL = %s, want the root of its own listener", c.URL())
	}
	resp, err := http.Get(c.Base() + "/.well-known/oauth-protected-resource")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the middleware's document: HTTP %d", resp.StatusCode)
	}
	waitFor(t, c, func(e Event) bool {
		return e.From == FromStage && e.IsMessage() && strings.Contains(string(e.Raw), "resource")
	})
}

// TestResponseHeaderOnEveryAnswer: headers set with SetResponseHeader come
// with every HTTP answer of a case, and the recording shows them.
func TestResponseHeaderOnEveryAnswer(t *testing.T) {
	s := newStage(t)
	s.SetResponseHeader(http.Header{"X-Gateway": {"mcpcheck"}})
	c := newCase(t, s, Config{})
	_, cl := connectRef(t, c)
	cl.Close()
	n := 0
	for _, e := range c.Recording().Events() {
		if e.From != FromStage || e.HTTP == nil || e.HTTP.Status == 0 {
			continue
		}
		n++
		if got := e.HTTP.Header.Get("X-Gateway"); got != "mcpcheck" {
			t.Errorf("%s %s answered %d without the header (X-Gateway %q)", e.HTTP.Method, e.HTTP.URL, e.HTTP.Status, got)
		}
	}
	if n == 0 {
		t.Fatal("no HTTP answer of the stage was recorded")
	}
}

// TestBodiesOffTheEndpointAreNoMessages: a JSON body posted to another
// path of the case (an OAuth registration) is recorded with its bytes but
// not as an MCP message, while the same body at the endpoint is one.
func TestBodiesOffTheEndpointAreNoMessages(t *testing.T) {
	s := newStage(t)
	c := newCase(t, s, Config{})
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, u := range []string{c.Base() + "/register", c.URL()} {
		resp, err := http.Post(u, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	var off, on []Event
	for _, e := range c.Recording().Events() {
		if e.From != FromClient || e.HTTP == nil {
			continue
		}
		if strings.HasSuffix(e.HTTP.URL, "/register") {
			off = append(off, e)
		} else {
			on = append(on, e)
		}
	}
	if len(off) != 1 || off[0].IsMessage() || off[0].Kind != wire.KindHTTPRequest || string(off[0].Raw) != body {
		t.Errorf("the POST to /register was recorded as %+v; want one bodied HTTP request that is no message", off)
	}
	if len(on) != 1 || !on[0].IsMessage() {
		t.Errorf("the POST to the endpoint was recorded as %+v; want one message", on)
	}
}

// TestHTTPEventsSayWhenTheyBegan: every HTTP event carries Began. A
// client's request began before it was recorded (its body is read in
// between); the stage's JSON answer began after the request it answers
// was recorded and no later than its own recording, so a request that
// began before an answer's Began was sent before the client could have
// that answer, in whatever order the two were recorded.
func TestHTTPEventsSayWhenTheyBegan(t *testing.T) {
	s := newStage(t)
	c := newCase(t, s, Config{HTTP: server.HTTPOptions{JSONResponses: true}})
	ctx, cl := connectRef(t, c)
	if _, err := cl.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	cl.Close()
	evs := c.Recording().Events()
	reqs := map[string]Event{}
	answers := 0
	for _, e := range evs {
		if e.HTTP == nil {
			continue
		}
		if e.Began.IsZero() {
			t.Errorf("event %d (%s %s) has no Began", e.Seq, e.From, e.Stream)
			continue
		}
		if e.Began.After(e.Time) {
			t.Errorf("event %d (%s %s) began after it was recorded", e.Seq, e.From, e.Stream)
		}
		switch e.From {
		case FromClient:
			reqs[e.Stream] = e
		case FromStage:
			if !e.IsMessage() || e.Msg.Shape != jsonrpc.KindResponse {
				continue
			}
			answers++
			if r, ok := reqs[e.Stream]; !ok || !e.Began.After(r.Time) {
				t.Errorf("the answer on %s (event %d) began before its request was recorded", e.Stream, e.Seq)
			}
		}
	}
	if answers < 2 {
		t.Errorf("%d JSON answers recorded in %d events, want those to initialize and tools/list", answers, len(evs))
	}
}

// readEndsFirst makes the stage note the end of a relay's connection
// (ended is closed then) and returns a hook that waits for it (bounded),
// for a test to hold a step of the engine until the connection has ended:
// the order a busy machine may give them.
func readEndsFirst(c *Case) (ended chan struct{}, wait func()) {
	ended = make(chan struct{})
	c.readEnded = func() { close(ended) }
	return ended, func() {
		select {
		case <-ended: // the connection ended first
		case <-time.After(10 * time.Second):
		}
	}
}

// TestStdioRelayNormalExitIsNoKill: the server exits after stdin closed,
// and the relay's connection ends before the engine is done (as a busy
// machine may order them): that is a normal exit, not a relay-dropped
// kill (internal/scenarios/client judged shutdowns against such a phantom kill).
func TestStdioRelayNormalExitIsNoKill(t *testing.T) {
	s := newStage(t)
	c := newCase(t, s, Config{})
	ended, wait := readEndsFirst(c)
	c.exitSent = wait
	p, done := startRelay(t, c, nil)
	waitFor(t, c, func(e Event) bool { return e.Note == NoteRelayConnect })
	p.toRelay.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the relay did not exit after stdin closed")
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the relay's connection did not end")
	}
	waitFor(t, c, func(e Event) bool { return e.Note == NoteServerExit })
	c.Close()
	if e, ok := find(c.Recording().Events(), func(e Event) bool { return e.Note == NoteRelayDropped }); ok {
		t.Errorf("a normal exit was recorded as a kill: %+v", e)
	}
}

// TestStdioRelayEventsKeepTheRelaysClock: a line, the stdin end and a signal are
// recorded at the time the relay stamped on them, not when the stage got
// round to reading them (a busy machine delays that, and the shutdown
// check measures the wait between the two).
func TestStdioRelayEventsKeepTheRelaysClock(t *testing.T) {
	s := newStage(t)
	c := newCase(t, s, Config{Stdio: StdioConfig{HoldOnTerm: true}})
	args := c.RelayArgs()
	conn, err := net.Dial("tcp", args[2])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, relayHello+args[4]+"\n"); err != nil {
		t.Fatal(err)
	}
	if typ, _, err := readFrame(bufio.NewReader(conn)); err != nil || typ != frameHoldTerm {
		t.Fatalf("hello answered with %q, %v", typ, err)
	}
	closed := time.Now().Add(-time.Hour).Round(0)
	signalled := closed.Add(40 * time.Millisecond)
	at := func(t time.Time) []byte {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(t.UnixNano()))
		return b[:]
	}
	var mu sync.Mutex
	wrote := closed.Add(-10 * time.Millisecond)
	if err := writeFrame(conn, &mu, frameStdin, append(at(wrote), `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"...)); err != nil {
		t.Fatal(err)
	}
	if err := writeFrame(conn, &mu, frameStdinEOF, at(closed)); err != nil {
		t.Fatal(err)
	}
	if err := writeFrame(conn, &mu, frameSignal, append(at(signalled), "terminated"...)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, c, func(e Event) bool { return e.Note == NoteSignal })
	evs := c.Recording().Events()
	eof, _ := find(evs, func(e Event) bool { return e.Note == NoteStdinClosed })
	sig, _ := find(evs, func(e Event) bool { return e.Note == NoteSignal })
	line, _ := find(evs, func(e Event) bool { return e.From == FromClient && e.IsMessage() })
	if !line.Time.Equal(wrote) {
		t.Errorf("the client's line recorded at %v, want the relay's %v", line.Time, wrote)
	}
	if !eof.Time.Equal(closed) || !sig.Time.Equal(signalled) || sig.Detail != "terminated" {
		t.Errorf("stdin closed at %v, signal %q at %v; want the relay's %v and %v", eof.Time, sig.Detail, sig.Time, closed, signalled)
	}
}

// TestStdioRelayEndingOnASignalIsNoKill: a relay that is not asked to
// hold out ends on SIGTERM at once (as a server that does not handle it
// does), so the end of its connection right after the signal is the
// signal's doing, not a kill, also when the stage reads it before the
// engine is done. Before, it was recorded as relay-dropped, and the
// client judged as killing the server 1 ms after SIGTERM (the TS SDK
// client in the interop run of 2026-12-03, under load).
func TestStdioRelayEndingOnASignalIsNoKill(t *testing.T) {
	s := newStage(t)
	c := newCase(t, s, Config{})
	ended, wait := readEndsFirst(c)
	c.engineEnded = wait
	args := c.RelayArgs()
	conn, err := net.Dial("tcp", args[2])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, relayHello+args[4]+"\n"); err != nil {
		t.Fatal(err)
	}
	if typ, hold, err := readFrame(bufio.NewReader(conn)); err != nil || typ != frameHoldTerm || string(hold) != "0" {
		t.Fatalf("hello answered with %q %q, %v", typ, hold, err)
	}
	var mu sync.Mutex
	if err := writeFrame(conn, &mu, frameSignal, append(stamp(), "terminated"...)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, c, func(e Event) bool { return e.Note == NoteSignal })
	conn.Close() // the relay returns 143
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the stage did not see the relay's connection end")
	}
	waitFor(t, c, func(e Event) bool { return e.Note == NoteServerExit })
	c.Close()
	if e, ok := find(c.Recording().Events(), func(e Event) bool { return e.Note == NoteRelayDropped }); ok {
		t.Errorf("a relay ending on SIGTERM was recorded as killed: %+v", e)
	}
}
