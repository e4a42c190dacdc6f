package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Session states.
const (
	stateNew         = iota // waiting for initialize
	stateInitialized        // initialize answered (initialized may follow)
	stateClosed
)

// Session is one stateful connection (2024-11-05 … 2025-11-25): it
// negotiates a version with initialize, then serves requests until closed.
// It is safe for concurrent use.
type Session struct {
	srv     *Server
	general *switchSink
	// ID is the HTTP session id ("" on stdio).
	ID string

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	sem    chan struct{}

	mu         sync.Mutex
	state      int
	version    spec.Version
	caps       mcp.ClientCapabilities
	clientInfo mcp.Implementation
	logLevel   mcp.LoggingLevel
	inflight   map[jsonrpc.ID]*request
	pending    map[int64]chan jsonrpc.Message
	nextID     int64
	subs       map[string]bool
	stateless  map[jsonrpc.ID]context.CancelFunc // stdio stateless requests in flight
	tasks      *taskStore
	onClose    []func()
}

// ErrTooManySessions is returned by NewSession when Options.MaxSessions
// sessions are open.
var ErrTooManySessions = errors.New("server: too many open sessions; close some or raise Options.MaxSessions")

// ErrClosed is returned when the server or session has been closed.
var ErrClosed = errors.New("server: closed")

// NewSession opens a stateful session whose unrelated messages (list
// changes, resource updates) go to general. general may be nil and set
// later with SetGeneral.
func (s *Server) NewSession(general Sink) (*Session, error) {
	ss := &Session{
		srv:      s,
		general:  &switchSink{},
		sem:      make(chan struct{}, s.opts.MaxInflight),
		inflight: map[jsonrpc.ID]*request{},
		pending:  map[int64]chan jsonrpc.Message{},
		subs:     map[string]bool{},
	}
	ss.general.set(s.rewriting(general, nil, ss.Version))
	ss.ctx, ss.cancel = context.WithCancel(s.ctx)
	ss.tasks = newTaskStore(ss)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if len(s.sessions) >= s.opts.MaxSessions {
		return nil, ErrTooManySessions
	}
	s.sessions[ss] = struct{}{}
	return ss, nil
}

// SetGeneral replaces the sink of messages unrelated to any request.
func (ss *Session) SetGeneral(general Sink) {
	ss.general.set(ss.srv.rewriting(general, nil, ss.Version))
}

// Version is the negotiated protocol version ("" before initialize).
func (ss *Session) Version() spec.Version {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.version
}

// Initialized reports whether initialize has been answered.
func (ss *Session) Initialized() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.state == stateInitialized
}

// Close cancels the session's requests and tasks and waits for them.
func (ss *Session) Close() {
	ss.mu.Lock()
	if ss.state == stateClosed {
		ss.mu.Unlock()
		return
	}
	ss.state = stateClosed
	hooks := ss.onClose
	ss.onClose = nil
	ss.mu.Unlock()
	ss.cancel()
	ss.wg.Wait()
	for _, h := range hooks {
		h()
	}
	ss.srv.mu.Lock()
	delete(ss.srv.sessions, ss)
	ss.srv.mu.Unlock()
}

// enter registers work with the session's wait group unless the session
// is closed (Close waits for registered work; nothing registers after).
func (ss *Session) enter() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state == stateClosed {
		return false
	}
	ss.wg.Add(1)
	return true
}

// drain waits up to grace for the requests in flight to be answered.
func (ss *Session) drain(grace time.Duration) {
	done := make(chan struct{})
	go func() {
		ss.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		ss.cancel()
		<-done
	}
}

// Closed reports whether Close was called.
func (ss *Session) Closed() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.state == stateClosed
}

// Dispatch handles one incoming message without blocking on requests:
// requests run on their own goroutine, bounded by Options.MaxInflight;
// notifications and responses are handled at once. Messages related to a
// request go to reply.
func (ss *Session) Dispatch(raw []byte, reply Sink) {
	msg := jsonrpc.Decode(raw)
	reply = ss.srv.rewriting(reply, &msg, ss.Version)
	if ss.isBatchFor(&msg) {
		if !ss.enter() {
			return
		}
		go func() {
			defer ss.wg.Done()
			ss.handleBatch(ss.ctx, raw, reply)
		}()
		return
	}
	if msg.Kind == jsonrpc.KindRequest && msg.Method != spec.MethodInitialize {
		select {
		case ss.sem <- struct{}{}:
		default:
			ss.sendError(reply, msg.ID, newError(jsonrpc.InternalError, "too many concurrent requests (limit %d); wait for answers before sending more", cap(ss.sem)))
			return
		}
		if !ss.enter() {
			<-ss.sem
			return
		}
		r, state := ss.register(ss.ctx, msg, reply)
		if r == nil {
			<-ss.sem
			ss.wg.Done()
			return
		}
		go func() {
			defer ss.wg.Done()
			defer func() { <-ss.sem }()
			ss.run(r, state)
		}()
		return
	}
	if msg.Kind == jsonrpc.KindRequest {
		// initialize runs inline so that requests pipelined behind it see
		// the negotiated session.
		if !ss.enter() {
			return
		}
		defer ss.wg.Done()
	}
	ss.handleDecoded(ss.ctx, msg, reply)
}

// Handle handles one incoming message and, for a request, returns once it
// has been answered (or cancelled). ctx bounds the request besides the
// session's own life.
func (ss *Session) Handle(ctx context.Context, raw []byte, reply Sink) {
	ss.handle(ctx, jsonrpc.Decode(raw), reply)
}

// handle is Handle for an already decoded message.
func (ss *Session) handle(ctx context.Context, msg jsonrpc.Message, reply Sink) {
	raw := msg.Raw
	reply = ss.srv.rewriting(reply, &msg, ss.Version)
	if ss.isBatchFor(&msg) {
		if !ss.enter() {
			return
		}
		defer ss.wg.Done()
		ctx, cancel := mergeCancel(ctx, ss.ctx)
		defer cancel()
		ss.handleBatch(ctx, raw, reply)
		return
	}
	if msg.Kind == jsonrpc.KindRequest {
		if !ss.enter() {
			return
		}
		defer ss.wg.Done()
		ctx, cancel := mergeCancel(ctx, ss.ctx)
		defer cancel()
		ss.handleDecoded(ctx, msg, reply)
		return
	}
	ss.handleDecoded(ss.ctx, msg, reply)
}

// mergeCancel returns a context done when either a or b is done.
func mergeCancel(a, b context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(a)
	stop := context.AfterFunc(b, cancel)
	return ctx, func() { stop(); cancel() }
}

// handleDecoded routes one decoded message.
func (ss *Session) handleDecoded(ctx context.Context, msg jsonrpc.Message, reply Sink) {
	switch msg.Kind {
	case jsonrpc.KindRequest:
		ss.serveRequest(ctx, msg, reply)
	case jsonrpc.KindNotification:
		ss.handleNotification(msg, reply)
	case jsonrpc.KindResponse, jsonrpc.KindErrorResponse:
		ss.deliverResponse(msg)
	default:
		ss.srv.replyInvalid(msg, reply, ss.Version())
	}
}

// replyInvalid answers a message that is not valid JSON-RPC: -32700 for
// bytes that are not JSON, -32600 for anything else, echoing the id when it
// could be read.
func (s *Server) replyInvalid(msg jsonrpc.Message, reply Sink, v spec.Version) {
	if msg.Shape.IsResponse() {
		// An invalid response cannot be answered; log it.
		s.logf("dropped an invalid response from the client: %v", msg.Problems)
		return
	}
	if s.faultReplyInvalid(msg, reply) {
		return
	}
	code := int64(jsonrpc.InvalidRequest)
	text := "Invalid Request"
	if msg.Has(jsonrpc.ReasonNotJSON) || msg.Has(jsonrpc.ReasonTooDeep) || msg.Has(jsonrpc.ReasonInvalidUTF8) {
		code, text = jsonrpc.ParseError, "Parse error"
	}
	if msg.Has(jsonrpc.ReasonBatch) || msg.Has(jsonrpc.ReasonEmptyBatch) {
		text = "Invalid Request: JSON-RPC batches are not supported by this server; send one message at a time"
	} else if len(msg.Problems) > 0 {
		text += ": " + msg.Problems[0].Detail
	}
	_ = reply.Send(errorForVersion(v, msg.ID, code, text, nil))
}

// errorMessage encodes an error response. A zero id (the request's id
// could not be read) is left out, as 2025-11-25 and later require.
func errorMessage(id jsonrpc.ID, code int64, message string, data any) []byte {
	b, err := jsonrpc.NewErrorResponse(id, code, message, data)
	if err != nil {
		b, _ = jsonrpc.NewErrorResponse(id, jsonrpc.InternalError, "could not encode an error: "+err.Error(), nil)
	}
	return b
}

// errorForVersion is errorMessage, except that a zero id is sent as null
// (plain JSON-RPC 2.0) to sessions of versions before 2025-11-25.
func errorForVersion(v spec.Version, id jsonrpc.ID, code int64, message string, data any) []byte {
	if !id.IsZero() || v == "" || since(v, spec.V20251125) {
		return errorMessage(id, code, message, data)
	}
	eo := map[string]any{"code": code, "message": message}
	if data != nil {
		eo["data"] = data
	}
	b, _ := json.Marshal(eo)
	return jsonrpc.RawObject(jsonrpc.RawMember{Name: "jsonrpc", Value: []byte(`"2.0"`)}, jsonrpc.RawMember{Name: "id", Value: []byte("null")}, jsonrpc.RawMember{Name: "error", Value: b})
}

func (ss *Session) sendError(reply Sink, id jsonrpc.ID, e *Error) {
	_ = reply.Send(errorMessage(id, e.Code, e.Message, e.Data))
}

// handleNotification handles a client notification.
func (ss *Session) handleNotification(msg jsonrpc.Message, reply Sink) {
	if ss.srv.faults.on(FaultReplyToNotification) {
		_ = reply.Send(errorForVersion(ss.Version(), jsonrpc.ID{}, jsonrpc.InvalidRequest, "fault: answering a notification", nil))
	}
	switch msg.Method {
	case spec.MethodInitialized:
		// Nothing to do: the session is usable once initialize is answered.
		ss.faultInitialized()
		ss.faultUnprompted()
	case spec.MethodCancelled:
		ss.faultStaleCancel(msg, reply)
		var p mcp.CancelledNotificationParams
		if json.Unmarshal(msg.Params, &p) != nil || p.RequestID.IsZero() {
			return
		}
		ss.mu.Lock()
		r := ss.inflight[p.RequestID]
		stop := ss.stateless[p.RequestID]
		ss.mu.Unlock()
		if stop != nil {
			stop()
		}
		if r != nil && r.method != spec.MethodInitialize {
			r.cancelled.Store(true)
			r.cancel()
		}
	case spec.MethodRootsListChanged, spec.MethodProgress:
		// Accepted; the reference server asks for roots when it needs them.
	default:
		// Unknown notifications are ignored, as JSON-RPC requires.
	}
}

// deliverResponse hands a client's response to the waiting server request.
func (ss *Session) deliverResponse(msg jsonrpc.Message) {
	n, ok := msg.ID.Int()
	if !ok {
		ss.srv.logf("dropped a response with id %s that answers no request of ours", msg.ID)
		return
	}
	ss.mu.Lock()
	ch := ss.pending[n]
	delete(ss.pending, n)
	ss.mu.Unlock()
	if ch == nil {
		ss.srv.logf("dropped a response with id %s that answers no pending request", msg.ID)
		return
	}
	ch <- msg
}

// serveRequest runs one request to its answer.
func (ss *Session) serveRequest(ctx context.Context, msg jsonrpc.Message, reply Sink) {
	if r, state := ss.register(ctx, msg, reply); r != nil {
		ss.run(r, state)
	}
}

// register records a request as in flight (so that a cancellation that
// follows it on the wire finds it) and returns it with the session state
// at arrival; nil when the id is already in use.
func (ss *Session) register(ctx context.Context, msg jsonrpc.Message, reply Sink) (*request, int) {
	ss.mu.Lock()
	state, v := ss.state, ss.version
	if _, dup := ss.inflight[msg.ID]; dup {
		ss.mu.Unlock()
		ss.sendError(reply, msg.ID, newError(jsonrpc.InvalidRequest, "request id %s is already in use by a request in flight; ids must be unique", msg.ID))
		return nil, state
	}
	ctx, cancel := context.WithCancel(ctx)
	r := newRequest(ss.srv, ss, v, msg, reply, ctx, cancel)
	r.caps = ss.caps
	ss.inflight[msg.ID] = r
	ss.mu.Unlock()
	return r, state
}

// run serves a registered request and forgets it.
func (ss *Session) run(r *request, state int) {
	defer r.recoverPanic()
	defer func() {
		r.cancel()
		ss.mu.Lock()
		if ss.inflight[r.id] == r {
			delete(ss.inflight, r.id)
		}
		ss.mu.Unlock()
	}()
	if state == stateClosed {
		return
	}
	if result, err, ok := ss.srv.direct(r); ok {
		r.finish(result, err)
		return
	}
	var result any
	var err error
	switch {
	case r.method == spec.MethodInitialize:
		result, err = ss.initialize(r)
		if err == nil {
			r.v = ss.Version()
		}
	case state == stateNew && r.method != spec.MethodPing:
		err = newError(jsonrpc.InvalidRequest, "the session is not initialized: send initialize first (got %q)", r.method)
	default:
		if r.v == "" {
			r.v = ss.srv.latestStateful()
		}
		result, err = ss.srv.dispatch(r)
	}
	r.finish(result, err)
}

// call sends a request to the client on out and waits for its response.
func (ss *Session) call(ctx context.Context, out Sink, method string, params any) (json.RawMessage, error) {
	ss.mu.Lock()
	if ss.state == stateClosed {
		ss.mu.Unlock()
		return nil, ErrClosed
	}
	ss.nextID++
	if ss.srv.faults.on(FaultServerRequestIDReused) {
		ss.nextID = 1
	}
	id := ss.nextID
	ch := make(chan jsonrpc.Message, 1)
	ss.pending[id] = ch
	ss.mu.Unlock()
	drop := func() {
		ss.mu.Lock()
		delete(ss.pending, id)
		ss.mu.Unlock()
	}
	b, err := jsonrpc.NewRequest(jsonrpc.IntID(id), method, params)
	if err != nil {
		drop()
		return nil, fmt.Errorf("server: cannot encode %s: %v", method, err)
	}
	if err := out.Send(b); err != nil {
		drop()
		return nil, fmt.Errorf("server: cannot send %s to the client: %v", method, err)
	}
	select {
	case m := <-ch:
		if m.Kind == jsonrpc.KindErrorResponse && m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		drop()
		if n, err := jsonrpc.NewNotification(spec.MethodCancelled, map[string]any{"requestId": id, "reason": "the server request was abandoned"}); err == nil {
			_ = out.Send(n)
		}
		return nil, ctx.Err()
	}
}

// notifyGeneral sends a notification unrelated to any request.
func (ss *Session) notifyGeneral(method string, params any) {
	b, err := jsonrpc.NewNotification(method, params)
	if err != nil {
		ss.srv.logf("cannot encode %s: %v", method, err)
		return
	}
	if err := ss.general.Send(b); err != nil {
		ss.srv.logf("dropped %s: %v", method, err)
	}
}

// request is one client request being served: it knows the negotiated
// version, the stream its related messages go to, its progress token and
// whether it is still live.
type request struct {
	srv    *Server
	s      *Session // nil for stateless requests
	v      spec.Version
	id     jsonrpc.ID
	method string
	params json.RawMessage
	meta   mcp.Meta
	out    Sink
	caps   mcp.ClientCapabilities
	ctx    context.Context
	cancel context.CancelFunc

	token    mcp.ProgressToken
	hasToken bool
	// logLevel is the stateless per-request level; "" means none given.
	logLevel    mcp.LoggingLevel
	relatedTask string

	cancelled atomic.Bool
	mu        sync.Mutex
	done      bool
	after     []func() // run once the response is sent
	lastProg  float64
	progSent  bool
	// httpStatus is set by handlers that need a specific HTTP status.
	httpStatus int
}

// mayHoldMeta reports whether JSON text b can hold a "_meta" key: it
// spells it plainly or holds a \u escape, the only other way to spell it.
// It spares the decoding of messages without _meta.
func mayHoldMeta(b []byte) bool {
	return bytes.Contains(b, []byte("_meta")) || bytes.Contains(b, []byte(`\u`))
}

func newRequest(srv *Server, ss *Session, v spec.Version, msg jsonrpc.Message, out Sink, ctx context.Context, cancel context.CancelFunc) *request {
	r := &request{srv: srv, s: ss, v: v, id: msg.ID, method: msg.Method, params: msg.Params, out: out, ctx: ctx, cancel: cancel}
	var base struct {
		Meta mcp.Meta `json:"_meta"`
	}
	if len(msg.Params) > 0 && mayHoldMeta(msg.Params) && json.Unmarshal(msg.Params, &base) == nil {
		r.meta = base.Meta
		if t, ok, err := base.Meta.ProgressToken(); ok && err == nil && !t.IsZero() {
			r.token, r.hasToken = t, true
		}
	}
	return r
}

// Context is the request's context: done when the client cancels it or the
// session ends.
func (r *request) Context() context.Context { return r.ctx }

// Version is the protocol version the request is served under.
func (r *request) Version() spec.Version { return r.v }

// stateless reports whether the request is a 2026-07-28 one.
func (r *request) stateless() bool { return r.v.Era() == spec.Stateless }

// send sends a related message unless the request is finished.
func (r *request) send(b []byte) {
	r.mu.Lock()
	done := r.done
	r.mu.Unlock()
	if done {
		return
	}
	if err := r.out.Send(b); err != nil {
		r.srv.logf("dropped a message related to request %s: %v", r.id, err)
	}
}

// notify sends a notification related to the request.
func (r *request) notify(method string, params any) {
	b, err := jsonrpc.NewNotification(method, params)
	if err != nil {
		r.srv.logf("cannot encode %s: %v", method, err)
		return
	}
	r.send(b)
}

// finish sends the response (or nothing for a cancelled request) and marks
// the request done so no related message follows it.
func (r *request) finish(result any, err error) {
	if errors.Is(err, ErrNoResponse) {
		r.markDone()
		return
	}
	cancelled := r.cancelled.Load()
	if cancelled && !r.srv.faults.on(FaultRespondAfterCancel) {
		r.markDone()
		return
	}
	var b []byte
	if err != nil {
		var re *Error
		if !errors.As(err, &re) {
			if r.ctx.Err() != nil && !cancelled {
				r.markDone()
				return // the session ended; nobody is listening
			}
			re = internalError("internal error: %v", err)
		}
		if re.HTTPStatus != 0 {
			r.httpStatus = re.HTTPStatus
		}
		b = errorMessage(r.id, re.Code, re.Message, re.Data)
	} else {
		raw, encErr := r.srv.encodeResult(r, result)
		if encErr != nil {
			b = errorMessage(r.id, jsonrpc.InternalError, "internal error: cannot encode the result: "+encErr.Error(), nil)
		} else {
			b, encErr = jsonrpc.NewResponse(r.id, raw)
			if encErr != nil {
				b = errorMessage(r.id, jsonrpc.InternalError, "internal error: "+encErr.Error(), nil)
			}
		}
	}
	r.mu.Lock()
	r.done = true
	r.mu.Unlock()
	if err := r.out.Send(b); err != nil {
		r.srv.logf("could not deliver the response to %s: %v", r.id, err)
	}
	r.runAfter()
	if r.srv.faults.on(FaultProgressAfterCompletion) && r.hasToken {
		n, _ := jsonrpc.NewNotification(spec.MethodProgress, progressParams(r.v, r.token, r.lastProg+1, nil, "after completion"))
		_ = r.out.Send(n)
	}
}

func (r *request) markDone() {
	r.mu.Lock()
	r.done = true
	r.mu.Unlock()
	r.runAfter()
}

// recoverPanic turns a panic in a handler into an internal error answer
// (and a log line) instead of a crash.
func (r *request) recoverPanic() {
	if p := recover(); p != nil {
		r.srv.logf("recovered from a panic serving %s (id %s): %v", r.method, r.id, p)
		r.mu.Lock()
		done := r.done
		r.mu.Unlock()
		if !done {
			r.finish(nil, internalError("internal error while serving %s; the server recovered", r.method))
		}
	}
}

// afterResponse runs f once the request is answered (or ends unanswered),
// so that work it starts (a task) never reports before the response.
func (r *request) afterResponse(f func()) {
	r.mu.Lock()
	r.after = append(r.after, f)
	r.mu.Unlock()
}

func (r *request) runAfter() {
	r.mu.Lock()
	hooks := r.after
	r.after = nil
	r.mu.Unlock()
	for _, f := range hooks {
		f()
	}
}

// HTTPStatus is the status an HTTP transport should answer the request
// with (0 means the default, 200).
func (r *request) HTTPStatus() int { return r.httpStatus }
