package session

import (
	"context"
	"fmt"
	"net/http"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Stateful drives a target in the stateful era (2024-11-05 through
// 2025-11-25). Create it with NewStateful, then Open it (or run Initialize
// and Initialized yourself to test the handshake).
type Stateful struct {
	*core
	init       *mcp.InitializeResult
	negotiated spec.Version
}

// NewStateful returns a session over conn. It sends no request yet; it
// starts validating what conn receives at once, and answers the server's
// requests as they arrive.
func NewStateful(conn wire.Conn, cfg Config) *Stateful {
	cfg = cfg.withDefaults(spec.Stateful)
	s := &Stateful{core: newCore(conn, cfg)}
	s.answer = s.answerStateful
	s.answerOnArrival()
	return s
}

// InitializeParams are the params Initialize sends by default.
func (s *Stateful) InitializeParams() mcp.InitializeParams {
	return mcp.InitializeParams{ProtocolVersion: string(s.cfg.Version), Capabilities: *s.cfg.Capabilities, ClientInfo: s.cfg.ClientInfo}
}

// Initialize sends initialize (with p, or InitializeParams when p is nil)
// and waits for the answer. On a success response whose result decodes,
// it records the negotiated version and the server's capabilities, points
// the schema validator at that version and, on streamable HTTP from
// 2025-06-18, sends MCP-Protocol-Version on later requests. The Reply says
// what was observed either way; err says why there is no usable result.
func (s *Stateful) Initialize(ctx context.Context, p *mcp.InitializeParams) (*mcp.InitializeResult, Reply, error) {
	if p == nil {
		d := s.InitializeParams()
		p = &d
	}
	r := s.Call(expect.Handshake(ctx), spec.MethodInitialize, p)
	if r.WrongID() {
		return nil, r, fmt.Errorf("session: initialize: %w: %s", ErrWrongID, r.Describe())
	}
	if err := unauthorized(spec.MethodInitialize, r); err != nil {
		return nil, r, err
	}
	if !r.OK() {
		return nil, r, fmt.Errorf("session: initialize got no result: %s", r.Describe())
	}
	var res mcp.InitializeResult
	if err := r.Decode(&res); err != nil {
		return nil, r, err
	}
	s.init = &res
	v := spec.Version(res.ProtocolVersion)
	s.negotiated = v
	if v.Known() {
		s.val.SetVersion(v)
	}
	if hp, ok := s.raw.(headerPoster); ok && v.Compare(spec.V20250618) >= 0 {
		hp.SetHeader(wire.HeaderProtocolVersion, string(v))
	}
	return &res, r, nil
}

// Initialized sends notifications/initialized. On HTTP it returns the
// POST's stream, whose status (202 expected) arrives as a frame.
func (s *Stateful) Initialized(ctx context.Context) (string, error) {
	return s.Notify(ctx, spec.MethodInitialized, nil)
}

// Open runs the handshake (Handshake) and then, as a client that can
// receive the server's requests does, opens the GET stream of a
// streamable HTTP session (Listen). It fails when the handshake does.
func (s *Stateful) Open(ctx context.Context) (*mcp.InitializeResult, error) {
	res, err := s.Handshake(ctx)
	if err != nil {
		return res, err
	}
	s.Listen(ctx)
	return res, nil
}

// Handshake runs Initialize, then Initialized, and opens no GET stream:
// for checks that open the session's GET stream themselves. It fails
// when the server gives no usable initialize result or answers with a
// version the session does not know.
func (s *Stateful) Handshake(ctx context.Context) (*mcp.InitializeResult, error) {
	res, _, err := s.Initialize(ctx, nil)
	if err != nil {
		return nil, err
	}
	if !s.negotiated.Known() || s.negotiated.Era() != spec.Stateful {
		return res, fmt.Errorf("session: the server negotiated protocol version %q, which is not a stateful version mcpcheck knows", s.negotiated)
	}
	if _, err := s.Initialized(ctx); err != nil {
		return res, fmt.Errorf("session: sending initialized: %w", err)
	}
	return res, nil
}

// Version is the negotiated version, or the requested one before
// Initialize succeeded.
func (s *Stateful) Version() spec.Version {
	if s.negotiated != "" {
		return s.negotiated
	}
	return s.cfg.Version
}

// InitializeResult is the server's initialize result, nil before.
func (s *Stateful) InitializeResult() *mcp.InitializeResult { return s.init }

// ServerCapabilities are the capabilities the server declared (zero
// before Initialize).
func (s *Stateful) ServerCapabilities() mcp.ServerCapabilities {
	if s.init == nil {
		return mcp.ServerCapabilities{}
	}
	return s.init.Capabilities
}

// Request sends a request with a fresh id and returns the id and stream.
func (s *Stateful) Request(ctx context.Context, method string, params any) (jsonrpc.ID, string, error) {
	id := s.NextID()
	stream, err := s.RequestWithID(ctx, id, method, params)
	return id, stream, err
}

// RequestWithID sends a request with the given id.
func (s *Stateful) RequestWithID(ctx context.Context, id jsonrpc.ID, method string, params any) (string, error) {
	if err := s.guard(method, params); err != nil {
		return "", err
	}
	b, err := jsonrpc.NewRequest(id, method, params)
	if err != nil {
		return "", fmt.Errorf("session: encoding %s: %w", method, err)
	}
	return s.send(ctx, b, nil)
}

// Notify sends a notification.
func (s *Stateful) Notify(ctx context.Context, method string, params any) (string, error) {
	b, err := jsonrpc.NewNotification(method, params)
	if err != nil {
		return "", fmt.Errorf("session: encoding %s: %w", method, err)
	}
	return s.send(ctx, b, nil)
}

// Call sends a request and waits for its response, answering server
// requests meanwhile.
func (s *Stateful) Call(ctx context.Context, method string, params any) Reply {
	id, stream, err := s.Request(ctx, method, params)
	if err != nil {
		return Reply{ID: id, Method: method, Err: err}
	}
	return s.waitResponse(ctx, id, method, stream)
}

// CallInto is Call that decodes the result into out.
func (s *Stateful) CallInto(ctx context.Context, method string, params any, out any) (Reply, error) {
	r := s.Call(ctx, method, params)
	if !r.OK() {
		return r, fmt.Errorf("session: %s got no result: %s", method, r.Describe())
	}
	return r, r.Decode(out)
}

// OpenStream opens the GET stream of a streamable HTTP session; the
// server's messages on it arrive through Recv like any other. When the
// connection's GET stream is open already (Listen, wire.HTTP.GetStream),
// it returns that one and asks for no second. The stream it opens
// becomes the session's listener, as Listen's does (see
// core.onListener); OpenStreamWait also waits for the GET's answer.
func (s *Stateful) OpenStream(ctx context.Context) (string, error) {
	h, ok := s.raw.(*wire.HTTP)
	if !ok {
		return "", fmt.Errorf("session: the GET stream exists only on streamable HTTP, not %s", s.raw.Transport())
	}
	if st := h.GetStream(); st != "" {
		return st, nil
	}
	st, err := h.OpenStream(ctx)
	if err == nil {
		s.listenOn(st)
	}
	return st, err
}

// Terminate ends a streamable HTTP session with DELETE.
func (s *Stateful) Terminate(ctx context.Context) (string, error) {
	h, ok := s.raw.(*wire.HTTP)
	if !ok {
		return "", fmt.Errorf("session: DELETE exists only on streamable HTTP, not %s", s.raw.Transport())
	}
	return h.Do(ctx, wire.Request{Method: http.MethodDelete})
}

// Cancel sends notifications/cancelled for the request id, with reason
// when it is not empty.
func (s *Stateful) Cancel(ctx context.Context, id jsonrpc.ID, reason string) (string, error) {
	p := map[string]any{"requestId": id}
	if reason != "" {
		p["reason"] = reason
	}
	return s.Notify(ctx, spec.MethodCancelled, p)
}
