package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/client/transport"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// callOpts tune one JSON-RPC round.
type callOpts struct {
	// noCancel: never send notifications/cancelled (initialize).
	noCancel bool
	// timeout overrides the client's timeout when > 0.
	timeout time.Duration
	// headers are added to the HTTP POST.
	headers map[string]string
}

// rpc sends one request and waits for its response, bounded by the
// client's timeout. params must encode to a JSON object (or be nil).
func (c *Client) rpc(ctx context.Context, method string, params any, o callOpts) (json.RawMessage, error) {
	id := jsonrpc.IntID(c.nextID.Add(1))
	msg, err := jsonrpc.NewRequest(id, method, params)
	if err != nil {
		return nil, fmt.Errorf("client: cannot encode %s: %w", method, err)
	}
	ch := make(chan response, 1)
	c.mu.Lock()
	if c.closedErr != nil {
		err := c.closedErr
		c.mu.Unlock()
		return nil, err
	}
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()

	timeout := c.timeout()
	if o.timeout > 0 {
		timeout = o.timeout
	}
	timeout = c.callTimeout(method, timeout)
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sctx := tctx
	if len(o.headers) > 0 {
		h := make(map[string][]string, len(o.headers))
		for k, v := range o.headers {
			h[k] = []string{v}
		}
		sctx = transport.WithHeaders(tctx, h)
	}
	if err := c.conn.Send(sctx, msg); err != nil {
		if errors.Is(err, transport.ErrSessionExpired) {
			return nil, err
		}
		if tctx.Err() != nil && ctx.Err() == nil {
			return nil, &TimeoutError{Method: method, ID: id, After: timeout.String(), Garbage: c.lastGarbage()}
		}
		return nil, fmt.Errorf("client: sending %s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.err != nil {
			var eo *jsonrpc.ErrorObject
			if errors.As(r.err, &eo) {
				return nil, rpcErr(method, eo)
			}
			return nil, r.err
		}
		return r.result, nil
	case <-tctx.Done():
		// The client has given up: from here on an answer is late. The
		// request leaves the pending table before the cancellation goes
		// out, so an answer that crosses it is never delivered into ch
		// (where nobody reads it) but taken for the late answer it is.
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		// On 2026-07-28 HTTP, ending tctx closed the response stream,
		// which is the cancellation; elsewhere the client says so.
		if !o.noCancel && !(c.Stateless() && c.isHTTP()) {
			c.noteRace(FaultLateAnswerFatal, id)
			c.sendCancelled(id, "the client stopped waiting")
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("client: %s cancelled: %w", method, ctx.Err())
		}
		return nil, &TimeoutError{Method: method, ID: id, After: timeout.String(), Garbage: c.lastGarbage()}
	case <-c.ctx.Done():
		return nil, c.closeReason()
	}
}

func (c *Client) closeReason() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closedErr != nil {
		return c.closedErr
	}
	return ErrClosed
}

// notify sends a notification, bounded by the timeout.
func (c *Client) notify(method string, params any) error {
	msg, err := jsonrpc.NewNotification(method, params)
	if err != nil {
		return fmt.Errorf("client: cannot encode %s: %w", method, err)
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.timeout())
	defer cancel()
	if err := c.conn.Send(ctx, msg); err != nil {
		return fmt.Errorf("client: sending %s: %w", method, err)
	}
	return nil
}

func (c *Client) sendCancelled(id jsonrpc.ID, reason string) {
	p := mcp.CancelledNotificationParams{RequestID: id, Reason: reason}
	if c.Stateless() {
		p.Meta = c.requestMeta()
	}
	c.notes.Add(1)
	go func() {
		defer c.notes.Done()
		_ = c.notify(spec.MethodCancelled, p)
	}()
}

// readLoop reads every message of the connection and routes it.
func (c *Client) readLoop() {
	defer close(c.readerDone)
	for {
		raw, err := c.conn.Recv(c.ctx)
		if err != nil {
			var d *transport.DroppedError
			var re *transport.RequestError
			switch {
			case errors.As(err, &d):
				c.noteGarbage(d.What)
				continue
			case errors.As(err, &re):
				c.deliver(re.ID, response{err: fmt.Errorf("client: %w", re.Err)})
				continue
			}
			c.fail(err)
			return
		}
		c.route(raw)
	}
}

// fail ends the connection because the transport failed.
func (c *Client) fail(err error) {
	c.mu.Lock()
	if c.closedErr == nil {
		c.closedErr = fmt.Errorf("client: the connection to the server ended: %w", err)
	}
	reason := c.closedErr
	pend := c.pending
	c.pending = map[jsonrpc.ID]chan response{}
	c.mu.Unlock()
	for _, ch := range pend {
		select {
		case ch <- response{err: reason}:
		default:
		}
	}
	c.cancel()
}

func (c *Client) deliver(id jsonrpc.ID, r response) bool {
	c.mu.Lock()
	ch, ok := c.pending[id]
	if ok {
		delete(c.pending, id)
	}
	c.mu.Unlock()
	if !ok {
		return false
	}
	ch <- r
	return true
}

// route handles one message from the server.
func (c *Client) route(raw []byte) {
	msgs, batch := jsonrpc.DecodeBatch(raw)
	if !batch {
		msgs = msgs[:1]
	} else if c.fault(FaultBatchIgnored) {
		return
	}
	for i := range msgs {
		c.routeOne(msgs[i])
	}
}

func (c *Client) routeOne(m jsonrpc.Message) {
	switch m.Shape {
	case jsonrpc.KindResponse, jsonrpc.KindErrorResponse:
		if m.ID.IsZero() {
			c.noteGarbage(fmt.Sprintf("a response without a usable id: %s", describe(m)))
			return
		}
		r := response{result: m.Result}
		if m.Shape == jsonrpc.KindErrorResponse {
			r = response{err: errorObject(m)}
		} else if !m.Valid() {
			r = response{err: fmt.Errorf("client: the server's response is not valid JSON-RPC: %s", describe(m))}
		}
		if !c.deliver(m.ID, r) {
			if c.raceFatal(m.ID, true) {
				_ = c.conn.Close() // the fault: a late answer ends the connection
				return
			}
			c.noteGarbage(fmt.Sprintf("a response with id %s, which no pending request has", m.ID))
		}
	case jsonrpc.KindRequest:
		if !m.Valid() {
			c.noteGarbage("an invalid request: " + describe(m))
			if !m.ID.IsZero() {
				c.respondError(m.ID, jsonrpc.InvalidRequest, "invalid request: "+describe(m))
			}
			return
		}
		select {
		case c.inflight <- struct{}{}:
		default:
			c.respondError(m.ID, jsonrpc.InternalError, fmt.Sprintf("the client is already handling %d requests from the server; try again later", cap(c.inflight)))
			return
		}
		ctx, cancel := context.WithTimeout(c.ctx, c.handlerTimeout())
		c.mu.Lock()
		c.serverReq[m.ID] = cancel
		c.mu.Unlock()
		go func() {
			defer func() { <-c.inflight }()
			defer func() {
				cancel()
				c.mu.Lock()
				delete(c.serverReq, m.ID)
				c.mu.Unlock()
			}()
			// Noted before the answer goes out: the server's cancellation
			// crossing it may arrive before this goroutine runs again.
			c.noteRace(FaultAnsweredCancelFatal, m.ID)
			c.answer(ctx, m)
		}()
	case jsonrpc.KindNotification:
		if !m.Valid() {
			c.noteGarbage("an invalid notification: " + describe(m))
			return
		}
		c.notification(m.Method, m.Params)
	default:
		c.noteGarbage(describe(m))
	}
}

// handlerTimeout bounds how long the client works on one server request.
// Users answer elicitations, so this is generous.
func (c *Client) handlerTimeout() time.Duration {
	return 10 * c.timeout()
}

func errorObject(m jsonrpc.Message) error {
	if m.Error != nil {
		return m.Error
	}
	return &jsonrpc.ErrorObject{Code: jsonrpc.InternalError, Message: "the server's error response has no usable error object: " + describe(m)}
}

// describe summarises what is wrong with a message.
func describe(m jsonrpc.Message) string {
	if len(m.Problems) > 0 {
		return fmt.Sprintf("%s (%q)", m.Problems[0].String(), clip(m.Raw, 80))
	}
	return fmt.Sprintf("%q", clip(m.Raw, 80))
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// answer handles a request from the server and sends the response.
func (c *Client) answer(ctx context.Context, m jsonrpc.Message) {
	if c.sideChannelFault(m) {
		return
	}
	result, err := c.serve(ctx, m.Method, m.Params)
	if err != nil {
		var he *handlerError
		if errors.As(err, &he) {
			c.respondError(m.ID, he.code, he.msg)
			return
		}
		c.respondError(m.ID, jsonrpc.InternalError, err.Error())
		return
	}
	msg, err := jsonrpc.NewResponse(m.ID, result)
	if err != nil {
		c.respondError(m.ID, jsonrpc.InternalError, "the client could not encode its answer: "+err.Error())
		return
	}
	c.sendRaw(msg)
}

func (c *Client) respondError(id jsonrpc.ID, code int64, message string) {
	msg, err := jsonrpc.NewErrorResponse(id, code, message, nil)
	if err != nil {
		return
	}
	c.sendRaw(msg)
}

func (c *Client) sendRaw(msg []byte) {
	ctx, cancel := context.WithTimeout(c.ctx, c.timeout())
	defer cancel()
	if err := c.conn.Send(ctx, msg); err != nil && c.ctx.Err() == nil {
		c.logf("could not send an answer to the server: %v", err)
	}
}

// serve computes the answer to a server request (stateful versions) or to
// an input request of the multi round-trip loop (2026-07-28).
func (c *Client) serve(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case spec.MethodPing:
		return struct{}{}, nil
	case spec.MethodRootsList:
		return c.listRoots()
	case spec.MethodSamplingCreateMessage:
		var p mcp.CreateMessageParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		if p.Task != nil && c.tasksOn() {
			return c.tasks.start(c, params, p.Task, func(ctx context.Context) (any, error) { return c.sample(ctx, &p) })
		}
		return c.sample(ctx, &p)
	case spec.MethodElicitationCreate:
		var p mcp.ElicitParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		if p.Task != nil && c.tasksOn() {
			return c.tasks.start(c, params, p.Task, func(ctx context.Context) (any, error) { return c.elicit(ctx, &p) })
		}
		return c.elicit(ctx, &p)
	case spec.MethodTasksGet, spec.MethodTasksResult, spec.MethodTasksList, spec.MethodTasksCancel:
		if !c.tasksOn() {
			return nil, methodNotFound("this client did not declare the tasks capability, or the negotiated version has no tasks")
		}
		return c.tasks.serve(ctx, c, method, params)
	}
	return nil, methodNotFound("the client does not implement %q", method)
}

// tasksOn reports whether the client runs server requests as tasks: it
// declared the capability and the negotiated version has core tasks
// (2025-11-25 only).
func (c *Client) tasksOn() bool {
	return c.opts.Tasks && hasTasks(c.ProtocolVersion())
}

// hasTasks reports whether protocol version v has core tasks (tasks/get).
func hasTasks(v spec.Version) bool {
	_, ok := spec.LookupMethod(v, spec.MethodTasksGet)
	return ok
}

func decodeParams(params json.RawMessage, v any) error {
	if len(params) == 0 {
		params = json.RawMessage(`{}`)
	}
	if err := json.Unmarshal(params, v); err != nil {
		return invalidParams("invalid params: %v", err)
	}
	return nil
}

// notification handles a notification from the server.
func (c *Client) notification(method string, params json.RawMessage) {
	switch method {
	case spec.MethodProgress:
		var p mcp.ProgressNotificationParams
		if json.Unmarshal(params, &p) == nil && !p.ProgressToken.IsZero() {
			c.mu.Lock()
			h := c.progress[p.ProgressToken.String()]
			c.mu.Unlock()
			if h != nil {
				h(p)
			} else {
				c.logf("progress for token %s, which no active request uses", p.ProgressToken)
			}
		}
	case spec.MethodCancelled:
		var p mcp.CancelledNotificationParams
		if json.Unmarshal(params, &p) == nil {
			c.mu.Lock()
			cancel := c.serverReq[p.RequestID]
			c.mu.Unlock()
			switch {
			case c.raceFatal(p.RequestID, false):
				_ = c.conn.Close() // the fault: a cancellation crossing the client's answer ends the connection
				return
			case cancel != nil:
				cancel()
			case c.fault(FaultUnknownCancelFatal):
				_ = c.conn.Close() // the fault: a cancellation of no known request ends the connection
				return
			}
		}
	case spec.MethodTasksStatus:
		c.tasks.noteStatus(params)
	case spec.MethodElicitationComplete:
		var p mcp.ElicitationCompleteParams
		if json.Unmarshal(params, &p) == nil {
			if c.fault(FaultElicitCompleteUnknownFatal) && !c.elic.known(p.ElicitationID) {
				_ = c.conn.Close() // the fault: an unknown elicitation id ends the connection
				return
			}
			c.elic.complete(p.ElicitationID)
		}
	case spec.MethodToolsListChanged:
		c.mu.Lock()
		c.tools = map[string]mcp.Tool{}
		c.mu.Unlock()
	}
	if id, ok := subscriptionOf(params); ok {
		c.mu.Lock()
		ch := c.listening[id]
		c.mu.Unlock()
		if ch != nil {
			select {
			case ch <- Notification{Method: method, Params: params}:
			default:
				c.logf("dropping %s for a subscription whose reader is not keeping up", method)
			}
		}
	}
	if c.opts.OnNotification != nil {
		c.opts.OnNotification(method, params)
	}
}

// subscriptionOf returns the subscription id in params._meta.
func subscriptionOf(params json.RawMessage) (string, bool) {
	var p struct {
		Meta mcp.Meta `json:"_meta"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return "", false
	}
	id, ok, err := p.Meta.SubscriptionID()
	if !ok || err != nil {
		return "", false
	}
	return id.String(), true
}

// progressToken allocates a token and registers h for it; the returned
// function unregisters it.
func (c *Client) progressToken(h func(mcp.ProgressNotificationParams)) (mcp.ProgressToken, func()) {
	tok := mcp.StringToken("p" + strconv.FormatInt(c.nextToken.Add(1), 10))
	c.mu.Lock()
	c.progress[tok.String()] = h
	c.mu.Unlock()
	return tok, func() {
		c.mu.Lock()
		delete(c.progress, tok.String())
		c.mu.Unlock()
	}
}
