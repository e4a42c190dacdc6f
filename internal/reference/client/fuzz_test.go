package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/client/transport"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The bounds of one execution of FuzzClientMessages.
const (
	// fuzzTimeout is the client's per-request timeout.
	fuzzTimeout = 25 * time.Millisecond
	// fuzzOpTimeout is the deadline of the context that Connect and the
	// operation run under.
	fuzzOpTimeout = 500 * time.Millisecond
	// fuzzGrace is the slack on top of a bound before a wait counts as
	// broken (scheduling under -race on a busy machine).
	fuzzGrace = 3 * time.Second
	// fuzzMaxScript bounds the script; longer inputs are skipped.
	fuzzMaxScript = 64 << 10
)

// fuzzIDMark in a script line is replaced by the JSON id of the client
// request the line answers.
var fuzzIDMark = []byte("$ID")

// The bits of FuzzClientMessages' flags argument.
const (
	// fuzzBare connects a client that declares no client features (no
	// roots, sampling, elicitation or tasks).
	fuzzBare = 1 << iota
	// fuzzSilent leaves the first request the script has no usable answer
	// for unanswered, so that the client times out; otherwise (and for
	// later ones) the fake answers it with an error at once, after the
	// script's broken answer if there is one.
	fuzzSilent
	// fuzzNarrow lets the client handle only one server request at a time.
	fuzzNarrow
)

// fuzzOp is a client operation the fuzz target runs.
type fuzzOp struct {
	name string
	run  func(ctx context.Context, c *Client) error
}

// fuzzConnectOp is the name of the operation whose handshake the script
// answers too; for every other one the fake completes a valid handshake.
const fuzzConnectOp = "connect"

// fuzzOps are the operations, chosen by FuzzClientMessages' op argument
// modulo their number. Their order is part of the seed corpus: append only.
var fuzzOps = []fuzzOp{
	{fuzzConnectOp, func(ctx context.Context, c *Client) error { return nil }},
	{"tools/list", func(ctx context.Context, c *Client) error {
		_, err := c.ListTools(ctx)
		return err
	}},
	{"tools/call", func(ctx context.Context, c *Client) error {
		_, err := c.CallTool(ctx, "echo", map[string]any{"text": "hi"}, &CallOptions{OnProgress: func(mcp.ProgressNotificationParams) {}})
		return err
	}},
	{"tools/call as a task", func(ctx context.Context, c *Client) error {
		_, err := c.CallTool(ctx, "slow", nil, &CallOptions{Task: true, TaskTTL: time.Minute})
		return err
	}},
	{"resources/list", func(ctx context.Context, c *Client) error {
		_, err := c.ListResources(ctx)
		return err
	}},
	{"resources/templates/list", func(ctx context.Context, c *Client) error {
		_, err := c.ListResourceTemplates(ctx)
		return err
	}},
	{"resources/read", func(ctx context.Context, c *Client) error {
		_, err := c.ReadResource(ctx, "file:///notes.txt")
		return err
	}},
	{"prompts/list", func(ctx context.Context, c *Client) error {
		_, err := c.ListPrompts(ctx)
		return err
	}},
	{"prompts/get", func(ctx context.Context, c *Client) error {
		_, err := c.GetPrompt(ctx, "greet", map[string]string{"who": "world"})
		return err
	}},
	{"completion/complete", func(ctx context.Context, c *Client) error {
		_, err := c.Complete(ctx, mcp.PromptRef("greet"), mcp.CompleteArgument{Name: "who", Value: "w"}, map[string]string{"lang": "en"})
		return err
	}},
	{"subscribe", fuzzSubscribe},
	{"logging/setLevel", func(ctx context.Context, c *Client) error {
		return c.SetLogLevel(ctx, mcp.LevelDebug)
	}},
	{"ping", func(ctx context.Context, c *Client) error { return c.Ping(ctx) }},
	{"idle", func(ctx context.Context, c *Client) error { return nil }},
}

// fuzzSubscribe subscribes to a resource and unsubscribes (stateful
// versions), or opens a subscriptions/listen stream and closes it again
// (2026-07-28).
func fuzzSubscribe(ctx context.Context, c *Client) error {
	if !c.Stateless() {
		if err := c.Subscribe(ctx, "file:///notes.txt"); err != nil {
			return err
		}
		return c.Unsubscribe(ctx, "file:///notes.txt")
	}
	s, err := c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: mcp.Bool(true), ResourceSubscriptions: []string{"file:///notes.txt"}})
	if err != nil {
		return err
	}
	for drained := false; !drained; {
		select {
		case <-s.Notifications():
		default:
			drained = true
		}
	}
	s.Close()
	timer := time.NewTimer(fuzzGrace)
	defer timer.Stop()
	select {
	case <-s.Done():
		if s.Err() == nil {
			return &fuzzViolation{"Subscription.Err is nil after Done was closed; want the reason the subscription ended"}
		}
		return nil
	case <-timer.C:
		return &fuzzViolation{fmt.Sprintf("Subscription.Done was not closed within %s of Subscription.Close", fuzzGrace)}
	}
}

// fuzzViolation is a broken property found inside an operation; the fuzz
// function turns it into a test failure.
type fuzzViolation struct{ msg string }

func (v *fuzzViolation) Error() string { return v.msg }

// The native fuzz target of this package. This file compiles on its own
// with the package's production files: OSS-Fuzz's compile_native_go_fuzzer
// (.clusterfuzzlite/build.sh) builds it alone, with a testing package whose
// T has no Failed, Run or Parallel and runs cleanups at once, and which has
// no Verbose.

// FuzzClientMessages plays a scripted server against the reference client.
//
// version picks the protocol version the client offers (modulo the number
// of released versions), op the client operation to run (modulo
// len(fuzzOps)) and flags the client's configuration (fuzzBare,
// fuzzSilent, fuzzNarrow). script is the server's lines, split on '\n'
// (empty lines are dropped). Unless op is "connect", the fake answers the
// handshake (initialize, or server/discover in 2026-07-28) itself. Every
// other request of the client takes script lines in order up to and
// including the next line that contains $ID, which is replaced by the
// request's JSON id; the lines before it reach the client as unsolicited
// messages. When that line is not a valid response to the request (nor a
// notification, such as the acknowledgement subscriptions/listen waits
// for), or the script has run out, the fake adds an error response (see
// fuzzSilent). Lines left over when the operation ends are sent
// unsolicited, and the client gets time to answer the server's requests
// before it is closed.
//
// The properties: the client never panics; Connect and the operation
// return within their context's deadline (plus fuzzGrace); every message
// the client sends is valid JSON-RPC; its requests use fresh ids and
// methods the negotiated version defines for clients, and so do its
// notifications; every response it sends answers a request the server
// sent (never a response, a notification or an id nobody sent), with an
// object as result; every valid request of the server gets exactly one
// response (at most one when the server cancelled it); Close returns
// within fuzzGrace.
//
// The seeds are in testdata/fuzz/FuzzClientMessages; go test runs them.
// To fuzz:
//
//	go test ./internal/reference/client/ -run '^$' -fuzz FuzzClientMessages -fuzztime 5m -parallel 2
//
// Minimizing a new input that waits for timeouts can take the default
// minute; -fuzzminimizetime 10s leaves more of a short run for fuzzing.
func FuzzClientMessages(f *testing.F) {
	f.Fuzz(func(t *testing.T, version, op, flags uint8, script []byte) {
		if len(script) > fuzzMaxScript {
			t.Skip("script too long")
		}
		runFuzzClient(t, spec.Versions[int(version)%len(spec.Versions)], fuzzOps[int(op)%len(fuzzOps)], flags, script)
	})
}

// fuzzOutcome is what the goroutine running Connect and the operation
// reports.
type fuzzOutcome struct {
	c         *Client
	connected int // messages the client had sent when Connect returned
	err       error
}

// runFuzzClient runs one execution of FuzzClientMessages.
func runFuzzClient(t *testing.T, v spec.Version, op fuzzOp, flags uint8, script []byte) {
	srv := &fuzzServer{version: v, handshake: op.name != fuzzConnectOp, silent: flags&fuzzSilent != 0}
	for _, line := range bytes.Split(script, []byte("\n")) {
		if len(line) > 0 {
			srv.lines = append(srv.lines, line)
		}
	}
	fc := newFuzzConn(srv)
	finished := false
	defer func() {
		// A failure (every one is a t.Fatalf) leaves before finished is
		// set: the transcript explains it. Not t.Cleanup with t.Failed, nor
		// testing.Verbose: in a libFuzzer build T runs a cleanup at once,
		// and Failed and Verbose panic.
		if !finished {
			fc.logTranscript(t)
		}
	}()
	served := make(chan struct{})
	go fc.serve(served)
	defer func() {
		// On the failure paths: end the connection and let the fake stop.
		fc.Close()
		timer := time.NewTimer(fuzzGrace)
		defer timer.Stop()
		select {
		case <-served:
		case <-timer.C:
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), fuzzOpTimeout)
	defer cancel()
	done := make(chan fuzzOutcome, 1)
	go func() {
		c, err := Connect(ctx, fc, fuzzOptions(v, flags))
		if err != nil {
			done <- fuzzOutcome{err: err}
			return
		}
		n := fc.sentCount()
		done <- fuzzOutcome{c: c, connected: n, err: op.run(ctx, c)}
	}()
	var out fuzzOutcome
	bound := time.NewTimer(fuzzOpTimeout + fuzzGrace)
	defer bound.Stop()
	select {
	case out = <-done:
	case <-bound.C:
		t.Fatalf("%s (%s): Connect and the operation have not returned %s after their context's deadline of %s; want them to end by then\n%s", op.name, v, fuzzGrace, fuzzOpTimeout, clientStacks())
	}
	t.Logf("%s (%s): the operation returned %v", op.name, v, out.err)
	var fv *fuzzViolation
	if errors.As(out.err, &fv) {
		t.Fatalf("%s (%s): %s", op.name, v, fv.msg)
	}

	negotiated := spec.Version("")
	if out.c != nil {
		// Deliver the rest of the script, then give the client time to
		// answer the server's requests before closing it.
		flushed := fc.flush()
		waitBounded(t, flushed, "the fake server to deliver the rest of the script (the client stopped reading?)")
		fc.waitAnswers(t)
		negotiated = out.c.ProtocolVersion()
		closed := make(chan struct{})
		go func() {
			out.c.Close()
			close(closed)
		}()
		waitBounded(t, closed, "Close to return")
	}
	fc.Close()
	waitBounded(t, served, "the fake server to stop")
	fc.check(t, negotiated, out.connected)
	finished = true
}

// waitBounded waits for ch to be closed, failing the test after fuzzGrace.
func waitBounded(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	timer := time.NewTimer(fuzzGrace)
	defer timer.Stop()
	select {
	case <-ch:
	case <-timer.C:
		t.Fatalf("waited %s for %s\n%s", fuzzGrace, what, clientStacks())
	}
}

// clientStacks returns the stacks of the goroutines running code of this
// package, to explain a hang.
func clientStacks() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "reference/client.") && !strings.Contains(g, "clientStacks") {
			out = append(out, g)
		}
	}
	s := strings.Join(out, "\n\n")
	if len(s) > 16<<10 {
		s = s[:16<<10] + "\n..."
	}
	return s
}

// fuzzOptions configures the client: every client feature with handlers
// that answer at once (and tasks in every version, as the CLI asks for
// them), unless flags asks for a bare client.
func fuzzOptions(v spec.Version, flags uint8) Options {
	o := Options{
		Version: v,
		Timeout: fuzzTimeout,
		Logf:    func(format string, args ...any) { _ = fmt.Sprintf(format, args...) },
		OnNotification: func(method string, params json.RawMessage) {
			_ = json.Valid(params)
		},
	}
	if flags&fuzzNarrow != 0 {
		o.MaxInFlight = 1
	}
	if flags&fuzzBare != 0 {
		return o
	}
	o.LogLevel = mcp.LevelInfo
	o.Roots = []mcp.Root{{URI: "file:///work/project", Name: "project"}}
	o.Sampling = &Sampling{Tools: true, Model: ModelFunc(func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		if p.SystemPrompt == "fail" {
			return nil, errors.New("the model is unavailable")
		}
		return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.Single(&mcp.TextContent{Text: "sampled"}), Model: "fuzz-model"}, nil
	})}
	o.Elicitation = &Elicitation{
		Form: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			switch {
			case strings.Contains(p.Message, "decline"):
				return &mcp.ElicitResult{Action: mcp.ActionDecline}, nil
			case strings.Contains(p.Message, "cancel"):
				return &mcp.ElicitResult{Action: mcp.ActionCancel}, nil
			}
			return &mcp.ElicitResult{Action: mcp.ActionAccept, Content: map[string]json.RawMessage{}}, nil
		},
		URL: func(ctx context.Context, p *mcp.ElicitParams) (mcp.ElicitAction, error) {
			if strings.Contains(p.Message, "decline") {
				return mcp.ActionDecline, nil
			}
			return mcp.ActionAccept, nil
		},
	}
	o.Tasks = true // as the CLI does, whatever the version
	return o
}

// fuzzServer is the scripted server. Only the fake connection's serve
// goroutine uses it.
type fuzzServer struct {
	version   spec.Version
	handshake bool // answer the first initialize or server/discover itself
	silent    bool // see fuzzSilent
	lines     [][]byte
	next      int
}

// handle returns the lines that answer one message of the client.
func (s *fuzzServer) handle(m jsonrpc.Message) [][]byte {
	if m.Kind != jsonrpc.KindRequest {
		return nil
	}
	if s.handshake && (m.Method == spec.MethodInitialize || m.Method == spec.MethodServerDiscover) {
		s.handshake = false
		return [][]byte{s.handshakeResult(m)}
	}
	var out [][]byte
	for s.next < len(s.lines) {
		line := s.lines[s.next]
		s.next++
		if bytes.Contains(line, fuzzIDMark) {
			line = bytes.ReplaceAll(line, fuzzIDMark, []byte(m.ID.String()))
			out = append(out, line)
			if answers(line, m.ID) || s.stayQuiet() {
				return out
			}
			// A broken answer: follow it with a real one rather than
			// make the client wait for its timeout.
			return append(out, s.noAnswer(m))
		}
		out = append(out, line)
	}
	if !s.stayQuiet() {
		out = append(out, s.noAnswer(m))
	}
	return out
}

// stayQuiet reports whether to leave a request without a usable answer
// unanswered: only the first one, and only in silent mode, so that an
// execution waits for at most one request timeout.
func (s *fuzzServer) stayQuiet() bool {
	if s.silent {
		s.silent = false
		return true
	}
	return false
}

// noAnswer is the error response the fake sends for a request the script
// has no usable answer for.
func (s *fuzzServer) noAnswer(m jsonrpc.Message) []byte {
	msg, _ := jsonrpc.NewErrorResponse(m.ID, jsonrpc.InternalError, "the fuzz script has no usable answer for "+m.Method, nil)
	return msg
}

// answers reports whether line is (or, as a batch, holds) a valid response
// with the given id, or a valid notification (such as the acknowledgement
// a subscriptions/listen request waits for).
func answers(line []byte, id jsonrpc.ID) bool {
	for _, m := range serverMessages(line) {
		if m.Kind == jsonrpc.KindNotification || (m.Kind.IsResponse() && m.ID == id) {
			return true
		}
	}
	return false
}

// handshakeResult is a valid answer to initialize or server/discover.
func (s *fuzzServer) handshakeResult(m jsonrpc.Message) []byte {
	caps := `{"logging":{},"completions":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}`
	if s.version == spec.V20251125 {
		caps += `,"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`
	}
	caps += "}"
	var res string
	if m.Method == spec.MethodInitialize {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		v, _ := json.Marshal(p.ProtocolVersion)
		res = `{"protocolVersion":` + string(v) + `,"capabilities":` + caps + `,"serverInfo":{"name":"fuzz-server","version":"1.0.0"}}`
	} else {
		res = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":` + caps + `,"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fuzz-server","version":"1.0.0"}}}`
	}
	msg, _ := jsonrpc.NewResponse(m.ID, json.RawMessage(res))
	return msg
}

// rest returns the lines no request has taken.
func (s *fuzzServer) rest() [][]byte {
	out := s.lines[s.next:]
	s.next = len(s.lines)
	return out
}

// fuzzConn is an in-memory transport whose other end is a fuzzServer. Send
// never blocks: the server reacts on a goroutine of its own, so the client
// may send while its reader is busy.
type fuzzConn struct {
	srv *fuzzServer

	toClient  chan []byte
	stop      chan struct{}
	closeOnce sync.Once

	mu      sync.Mutex
	sent    [][]byte      // everything the client sent
	pushed  [][]byte      // everything that reached the client's Recv queue
	inbox   []fuzzEvent   // work for serve
	wake    chan struct{} // capacity 1: inbox has work
	changed chan struct{} // closed and replaced whenever sent grows
}

// fuzzEvent is one piece of work for the server: a message of the client,
// or (flush not nil) a request to send the rest of the script.
type fuzzEvent struct {
	msg   []byte
	flush chan struct{}
}

func newFuzzConn(srv *fuzzServer) *fuzzConn {
	return &fuzzConn{
		srv:      srv,
		toClient: make(chan []byte, 64),
		stop:     make(chan struct{}),
		wake:     make(chan struct{}, 1),
		changed:  make(chan struct{}),
	}
}

// Send records msg and hands it to the server.
func (fc *fuzzConn) Send(ctx context.Context, msg []byte) error {
	select {
	case <-fc.stop:
		return transport.ErrClosed
	default:
	}
	cp := append([]byte(nil), msg...)
	fc.mu.Lock()
	fc.sent = append(fc.sent, cp)
	fc.inbox = append(fc.inbox, fuzzEvent{msg: cp})
	close(fc.changed)
	fc.changed = make(chan struct{})
	fc.mu.Unlock()
	fc.poke()
	return nil
}

func (fc *fuzzConn) poke() {
	select {
	case fc.wake <- struct{}{}:
	default:
	}
}

// Recv returns the next server line.
func (fc *fuzzConn) Recv(ctx context.Context) ([]byte, error) {
	select {
	case m := <-fc.toClient:
		return m, nil
	case <-fc.stop:
		return nil, transport.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close ends the connection.
func (fc *fuzzConn) Close() error {
	fc.closeOnce.Do(func() { close(fc.stop) })
	return nil
}

// flush asks the server to send the lines no request took; the returned
// channel is closed when it has.
func (fc *fuzzConn) flush() <-chan struct{} {
	done := make(chan struct{})
	fc.mu.Lock()
	fc.inbox = append(fc.inbox, fuzzEvent{flush: done})
	fc.mu.Unlock()
	fc.poke()
	return done
}

// serve runs the server until the connection closes.
func (fc *fuzzConn) serve(done chan<- struct{}) {
	defer close(done)
	for {
		ev, ok := fc.take()
		if !ok {
			return
		}
		var out [][]byte
		if ev.flush != nil {
			out = fc.srv.rest()
		} else {
			out = fc.srv.handle(jsonrpc.Decode(ev.msg))
		}
		for _, line := range out {
			if !fc.push(line) {
				return
			}
		}
		if ev.flush != nil {
			close(ev.flush)
		}
	}
}

// take waits for the next event; false when the connection closed.
func (fc *fuzzConn) take() (fuzzEvent, bool) {
	for {
		fc.mu.Lock()
		if len(fc.inbox) > 0 {
			ev := fc.inbox[0]
			fc.inbox = fc.inbox[1:]
			fc.mu.Unlock()
			return ev, true
		}
		fc.mu.Unlock()
		select {
		case <-fc.wake:
		case <-fc.stop:
			return fuzzEvent{}, false
		}
	}
}

// push queues a line for the client (a copy, so that the client cannot
// change what check reads) and records it.
func (fc *fuzzConn) push(line []byte) bool {
	select {
	case fc.toClient <- append([]byte(nil), line...):
	case <-fc.stop:
		return false
	}
	fc.mu.Lock()
	fc.pushed = append(fc.pushed, line)
	fc.mu.Unlock()
	return true
}

// logTranscript logs what each side sent ("C>" the client, "S>" the
// server), each in order.
func (fc *fuzzConn) logTranscript(t *testing.T) {
	fc.mu.Lock()
	sent, pushed := fc.sent, fc.pushed
	fc.mu.Unlock()
	for _, m := range sent {
		t.Logf("C> %s", m)
	}
	for _, m := range pushed {
		t.Logf("S> %s", m)
	}
}

func (fc *fuzzConn) sentCount() int {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return len(fc.sent)
}

// serverMessages decodes a pushed line the way the client's reader does:
// the elements of a batch, or the one message.
func serverMessages(line []byte) []jsonrpc.Message {
	msgs, batch := jsonrpc.DecodeBatch(line)
	if !batch {
		msgs = msgs[:1]
	}
	return msgs
}

// fuzzRequests counts the server's requests by id.
type fuzzRequests struct {
	valid     map[jsonrpc.ID]int  // valid requests: each needs one answer
	any       map[jsonrpc.ID]int  // request-shaped messages: answers allowed
	cancelled map[jsonrpc.ID]bool // named by a notifications/cancelled
}

func (fc *fuzzConn) serverRequests() fuzzRequests {
	r := fuzzRequests{valid: map[jsonrpc.ID]int{}, any: map[jsonrpc.ID]int{}, cancelled: map[jsonrpc.ID]bool{}}
	fc.mu.Lock()
	pushed := fc.pushed
	fc.mu.Unlock()
	for _, line := range pushed {
		for _, m := range serverMessages(line) {
			switch {
			case m.Shape == jsonrpc.KindRequest && !m.ID.IsZero():
				r.any[m.ID]++
				if m.Valid() {
					r.valid[m.ID]++
				}
			case m.Shape == jsonrpc.KindNotification && m.Method == spec.MethodCancelled:
				var p mcp.CancelledNotificationParams
				if json.Unmarshal(m.Params, &p) == nil && !p.RequestID.IsZero() {
					r.cancelled[p.RequestID] = true
				}
			}
		}
	}
	return r
}

// waitAnswers waits until the client has answered every valid request the
// server sent that was not cancelled, as often as it was sent.
func (fc *fuzzConn) waitAnswers(t *testing.T) {
	t.Helper()
	reqs := fc.serverRequests()
	need := map[jsonrpc.ID]int{}
	for id, n := range reqs.valid {
		if !reqs.cancelled[id] {
			need[id] = n
		}
	}
	if len(need) == 0 {
		return
	}
	timer := time.NewTimer(fuzzGrace)
	defer timer.Stop()
	seen := 0
	for {
		fc.mu.Lock()
		sent := fc.sent[seen:]
		seen = len(fc.sent)
		changed := fc.changed
		fc.mu.Unlock()
		for _, raw := range sent {
			if m := jsonrpc.Decode(raw); m.Shape.IsResponse() && !m.ID.IsZero() {
				if n, ok := need[m.ID]; ok {
					if n <= 1 {
						delete(need, m.ID)
					} else {
						need[m.ID] = n - 1
					}
				}
			}
		}
		if len(need) == 0 {
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			var ids []string
			for id, n := range need {
				ids = append(ids, fmt.Sprintf("%s (%d more)", id, n))
			}
			t.Fatalf("the client did not answer the server's requests with ids %s within %s; want one response to every valid request\n%s", strings.Join(ids, ", "), fuzzGrace, clientStacks())
		}
	}
}

// check asserts the properties of everything the client sent. negotiated
// is the version of a connected client ("" when Connect failed) and
// connected the number of messages it had sent when Connect returned.
func (fc *fuzzConn) check(t *testing.T, negotiated spec.Version, connected int) {
	t.Helper()
	reqs := fc.serverRequests()
	fc.mu.Lock()
	sent := fc.sent
	fc.mu.Unlock()
	ids := map[jsonrpc.ID]bool{}
	answers := map[jsonrpc.ID]int{}
	for i, raw := range sent {
		m := jsonrpc.Decode(raw)
		if !m.Valid() {
			t.Fatalf("message %d of the client is not valid JSON-RPC: %q: %v", i, raw, m.Problems)
		}
		switch m.Kind {
		case jsonrpc.KindRequest:
			if ids[m.ID] {
				t.Fatalf("message %d of the client is a request with id %s, which an earlier request of the client used; want a fresh id per request: %q", i, m.ID, raw)
			}
			ids[m.ID] = true
			if problem := fuzzMethodProblem(m.Method, spec.RequestMethod, negotiated, i < connected || negotiated == ""); problem != "" {
				t.Fatalf("message %d of the client is a request %s: %q", i, problem, raw)
			}
		case jsonrpc.KindNotification:
			if problem := fuzzMethodProblem(m.Method, spec.NotificationMethod, negotiated, i < connected || negotiated == ""); problem != "" {
				t.Fatalf("message %d of the client is a notification %s: %q", i, problem, raw)
			}
		case jsonrpc.KindResponse, jsonrpc.KindErrorResponse:
			answers[m.ID]++
			if n := answers[m.ID]; n > reqs.any[m.ID] {
				if reqs.any[m.ID] == 0 {
					t.Fatalf("message %d of the client is a response with id %s, but the server sent no request with that id; want responses only to the server's requests: %q", i, m.ID, raw)
				}
				t.Fatalf("message %d of the client is response number %d to id %s, but the server sent only %d request(s) with that id; want at most one response per request: %q", i, n, m.ID, reqs.any[m.ID], raw)
			}
			if m.Kind == jsonrpc.KindResponse {
				if r := bytes.TrimLeft(m.Result, " \t\r\n"); len(r) == 0 || r[0] != '{' {
					t.Fatalf("message %d of the client is a response whose result is not a JSON object; MCP results are objects: %q", i, raw)
				}
			}
		}
	}
}

// fuzzMethodProblem says what is wrong with a method the client sent, or
// returns "". During the handshake (handshake true) any version's
// client-to-server method of the right kind will do; afterwards it must be
// one the negotiated version defines.
func fuzzMethodProblem(method string, kind spec.MessageKind, negotiated spec.Version, handshake bool) string {
	ok := func(m spec.Method) bool {
		return m.Name == method && m.Kind == kind && m.Direction.Allows(spec.ClientToServer) && !m.Carrier
	}
	if handshake {
		for _, m := range spec.Methods {
			if ok(m) {
				return ""
			}
		}
		return fmt.Sprintf("with method %q, which no protocol version defines for a client to send", method)
	}
	for _, m := range spec.Methods {
		if ok(m) && m.In(negotiated) {
			return ""
		}
	}
	return fmt.Sprintf("with method %q, which the negotiated version %s does not define for a client to send", method, negotiated)
}
