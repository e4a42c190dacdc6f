package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The seam: how a program that embeds the reference server shapes what it
// serves and what it writes. mcpcheck's client stage plays the server with
// it (scripted scenarios, provocations, deliberate deviations); it is the
// one documented place where the server may be made to break the protocol,
// as golang.org/x/net/http2's framer has AllowIllegalWrites for conformance
// testing of other implementations.
//
//   - Options.Tools, Options.Prompts and Options.Resources add fixtures;
//     Options.NoFixtures leaves the built-in ones out.
//   - Options.Director sees every client request before the server serves
//     it and may serve it itself through the Call.
//   - Options.Rewrite sees every message the server core writes (responses,
//     notifications, requests to the client) and may change, drop or add
//     messages. Transport framing (SSE events, HTTP status lines, the
//     HTTP+SSE endpoint event) is not a message and does not pass through it.
//     The rewrite fault switches (faultRewriters) act at the same place,
//     before it.

// Tool is a tool added to the server with Options.Tools.
type Tool struct {
	// Def is the tool as tools/list shows it (shaped for each version).
	Def mcp.Tool
	// Run serves a tools/call of the tool and returns its result (an
	// *mcp.CallToolResult, or any value that encodes to a result object,
	// such as the one Call.InputRequired returns) or an error (an *Error
	// for a JSON-RPC error). Its arguments are not checked against
	// Def.InputSchema, and 2026-07-28 inputResponses and requestState are
	// handed over as sent (Call.Params): the tool decides what they mean.
	Run func(c *Call) (any, error)
}

// Prompt is a prompt added to the server with Options.Prompts.
type Prompt struct {
	Def mcp.Prompt
	// Get serves prompts/get; nil answers one user message naming the
	// prompt.
	Get func(c *Call) (any, error)
}

// Resource is a resource added to the server with Options.Resources.
type Resource struct {
	Def mcp.Resource
	// Read serves resources/read of Def.URI; nil answers one text content
	// holding the resource's name.
	Read func(c *Call) ([]mcp.ResourceContents, error)
}

// Director sees a client request before the server serves it. handled
// true means the Director served it: the server answers with result (an
// object; for 2026-07-28 the result is stamped with resultType and the
// server's identity as any other) or err (an *Error for a JSON-RPC error
// with the code, data and HTTP status it names; ErrNoResponse when the
// Director wrote the answer itself with Call.SendRaw, or wants none).
// handled false lets the server serve it as usual. A Director that serves
// initialize leaves the session uninitialized. It runs on the request's
// goroutine and may block while it talks to the client (Call.Request).
type Director func(c *Call) (result any, err error, handled bool)

// ErrNoResponse, returned by a Director or a Tool, sends no response at all
// (the request stays unanswered unless Call.SendRaw answered it).
var ErrNoResponse = errors.New("server: no response")

// Outgoing is a message the server is about to write, as Options.Rewrite
// sees it.
type Outgoing struct {
	// Msg is the encoded message.
	Msg []byte
	// Version is the protocol version of the request it relates to (or of
	// the session, for messages unrelated to a request; "" before
	// initialize).
	Version spec.Version
	// Request is the id of the client request the message answers or
	// relates to, zero for messages unrelated to any request (the general
	// stream: list changes, resource updates).
	Request jsonrpc.ID
	// Method is that request's method.
	Method string
}

// Call is one client request being served, as a Director or a Tool (Run,
// Get, Read) sees it.
type Call struct {
	r *request
	c *call // set for a tools/call
}

// Method is the request's method.
func (c *Call) Method() string { return c.r.method }

// ID is the request's JSON-RPC id.
func (c *Call) ID() jsonrpc.ID { return c.r.id }

// Params are the request's params as sent (nil when absent).
func (c *Call) Params() json.RawMessage { return c.r.params }

// Arguments are the arguments of a tools/call (empty for other requests).
func (c *Call) Arguments() map[string]json.RawMessage {
	if c.c == nil {
		return map[string]json.RawMessage{}
	}
	return c.c.args
}

// Version is the protocol version the request is served under ("" for a
// request that arrives before initialize).
func (c *Call) Version() spec.Version { return c.r.v }

// ClientCapabilities are the capabilities the client declared (in
// initialize, or in the request's _meta from 2026-07-28).
func (c *Call) ClientCapabilities() mcp.ClientCapabilities {
	if c.r.s != nil && c.r.v.Era() == spec.Stateful {
		c.r.s.mu.Lock()
		defer c.r.s.mu.Unlock()
		return c.r.s.caps
	}
	return c.r.caps
}

// Meta is the request's params._meta (nil when absent).
func (c *Call) Meta() mcp.Meta { return c.r.meta }

// Context ends when the client cancels the request or the session ends.
func (c *Call) Context() context.Context { return c.r.ctx }

// Request sends a request to the client on the stream of this request and
// waits for the answer (its result, or an *jsonrpc.ErrorObject error for an
// error response). It is for the initialize-based versions: from
// 2026-07-28 the server asks the client with Call.InputRequired instead.
func (c *Call) Request(method string, params any) (json.RawMessage, error) {
	if c.r.s == nil || c.r.stateless() {
		return nil, fmt.Errorf("server: %s cannot send %s to the client as a request; answer with Call.InputRequired", c.r.v, method)
	}
	return c.r.s.call(c.r.ctx, c.r.out, method, params)
}

// Notify sends a notification on the stream of this request.
func (c *Call) Notify(method string, params any) { c.r.notify(method, params) }

// SendRaw writes b as one message on the stream of this request, exactly
// as given (it still passes Options.Rewrite), also after the client
// cancelled the request, as long as the stream is open. It may break the
// protocol: that is what it is for.
func (c *Call) SendRaw(b []byte) {
	r := c.r
	r.mu.Lock()
	done := r.done
	r.mu.Unlock()
	if done {
		return
	}
	if err := unsilence(r.out).Send(b); err != nil {
		r.srv.logf("dropped a raw message related to request %s: %v", r.id, err)
	}
}

// unsilencer is a Sink that drops what is sent once its request is
// cancelled; unsilenced returns one that does not.
type unsilencer interface{ unsilenced() Sink }

// unsilence returns s without the silence a cancelled request keeps.
func unsilence(s Sink) Sink {
	if u, ok := s.(unsilencer); ok {
		return u.unsilenced()
	}
	return s
}

func (w *rewriteSink) unsilenced() Sink {
	cp := *w
	cp.to = unsilence(w.to)
	return &cp
}

// InputRequired returns the 2026-07-28 input_required result that asks the
// client for reqs (keyed as the client must answer them) with requestState
// state ("" for none), for a Director or Tool to return.
func (c *Call) InputRequired(reqs map[string]mcp.InputRequest, state string) (any, error) {
	return inputRequired(c.r, reqs, state)
}

// direct consults the Director, if any, about r.
func (s *Server) direct(r *request) (any, error, bool) {
	if s.opts.Director == nil {
		return nil, nil, false
	}
	return s.opts.Director(&Call{r: r})
}

// rewriteSink passes every message written for one request (or for the
// general stream) through the seam: the rewriters of the fault switches
// that are on (faultRewriters), then Options.Rewrite.
type rewriteSink struct {
	to      Sink
	version func() spec.Version
	// faults are the fault rewriters; fid and fmethod name the request for
	// them (zero unless the message is a valid request).
	faults  []func(Outgoing) [][]byte
	fid     jsonrpc.ID
	fmethod string
	// user is Options.Rewrite (nil: none); id and method name the message
	// the sink was made for, whatever it is.
	user   func(Outgoing) [][]byte
	id     jsonrpc.ID
	method string
}

func (w *rewriteSink) Send(msg []byte) error {
	v := w.version()
	out := [][]byte{msg}
	if len(w.faults) > 0 {
		out = rewriteAll(w.faults, Outgoing{Version: v, Request: w.fid, Method: w.fmethod}, out)
	}
	if w.user != nil {
		out = rewriteAll([]func(Outgoing) [][]byte{w.user}, Outgoing{Version: v, Request: w.id, Method: w.method}, out)
	}
	var err error
	for _, b := range out {
		if e := w.to.Send(b); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// The layers of the seam a sink gets.
const (
	faultLayer = 1 << iota // the fault rewriters
	userLayer              // Options.Rewrite
)

// rewriting wraps a sink that the server core writes to for the message
// msg (nil for the general stream) in the seam: the fault rewriters, then
// Options.Rewrite. A JSON-RPC batch gets Options.Rewrite only: its
// requests' messages pass the fault rewriters one request at a time
// (handleBatch).
func (s *Server) rewriting(to Sink, msg *jsonrpc.Message, version func() spec.Version) Sink {
	layers := faultLayer | userLayer
	if msg != nil && (msg.Has(jsonrpc.ReasonBatch) || msg.Has(jsonrpc.ReasonEmptyBatch)) {
		layers = userLayer
	}
	return s.rewritingLayers(to, msg, version, layers)
}

// rewritingLayers wraps to in the given layers of the seam (to itself when
// they have nothing to do).
func (s *Server) rewritingLayers(to Sink, msg *jsonrpc.Message, version func() spec.Version, layers int) Sink {
	if to == nil {
		return to
	}
	w := &rewriteSink{to: to, version: version}
	if layers&faultLayer != 0 {
		w.faults = s.rewriters
	}
	if layers&userLayer != 0 {
		w.user = s.opts.Rewrite
	}
	if len(w.faults) == 0 && w.user == nil {
		return to
	}
	if msg != nil {
		w.id, w.method = msg.ID, msg.Method
		if msg.Kind == jsonrpc.KindRequest {
			w.fid, w.fmethod = msg.ID, msg.Method
		}
	}
	return w
}

// addCustom turns Options.Tools, Prompts and Resources into fixtures.
func (f *fixtures) addCustom(o Options) {
	for _, t := range o.Tools {
		run := t.Run
		f.tools[t.Def.Name] = &toolFixture{def: t.Def, custom: true, run: func(c *call) (any, error) {
			if run == nil {
				return textResult(c.tool.def.Name), nil
			}
			return run(&Call{r: c.r, c: c})
		}}
	}
	for _, p := range o.Prompts {
		get := p.Get
		name := p.Def.Name
		f.prompts[name] = &promptFixture{def: p.Def, get: func(r *request, _ map[string]string, _ *mcp.GetPromptParams) (any, error) {
			if get == nil {
				return mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text("prompt " + name)}}}, nil
			}
			return get(&Call{r: r})
		}}
	}
	for _, res := range o.Resources {
		read := res.Read
		def := res.Def
		f.resources[def.URI] = &resourceFixture{res: def, custom: read}
	}
}
