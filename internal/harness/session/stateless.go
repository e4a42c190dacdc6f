package session

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Stateless drives a target in the stateless era (2026-07-28): no
// handshake; every request carries the protocol version, the client's
// capabilities and its identity in _meta, and on streamable HTTP the
// required headers.
type Stateless struct {
	*core
	discover *mcp.DiscoverResult

	tmu         sync.Mutex
	toolHeaders map[string][]mcp.HeaderParam
	badTools    map[string]error
}

// NewStateless returns a session over conn. It sends nothing yet.
func NewStateless(conn wire.Conn, cfg Config) *Stateless {
	cfg = cfg.withDefaults(spec.Stateless)
	s := &Stateless{core: newCore(conn, cfg), toolHeaders: map[string][]mcp.HeaderParam{}, badTools: map[string]error{}}
	s.answer = s.refuseServerRequest
	return s
}

// refuseServerRequest records a JSON-RPC request from a stateless server,
// which must carry such requests in inputRequests instead; it is not
// answered (a 2026-07-28 client sends no responses).
func (s *Stateless) refuseServerRequest(_ context.Context, f wire.Frame) []byte {
	s.finding(Finding{Kind: FindingProtocol, Method: f.Msg.Method, Stream: f.Stream, Raw: f.Raw,
		Detail: fmt.Sprintf("the server sent a %s request; in 2026-07-28 a server asks the client only through inputRequests of an input_required result", f.Msg.Method)})
	return nil
}

// Version is the protocol version the session speaks.
func (s *Stateless) Version() spec.Version { return s.cfg.Version }

// Meta returns the _meta every request carries: protocol version, client
// capabilities and client info.
func (s *Stateless) Meta() mcp.Meta {
	m, err := mcp.RequestMeta(string(s.cfg.Version), *s.cfg.Capabilities, &s.cfg.ClientInfo)
	if err != nil {
		panic(err) // the capabilities are our own value and always encode
	}
	return m
}

// Params merges the session's _meta into params (an object, or nil).
// Keys already present in params' _meta are kept, so a check can send a
// deliberately wrong protocol version.
func (s *Stateless) Params(params any) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("session: encoding params: %w", err)
		}
		if string(b) != "null" {
			if err := json.Unmarshal(b, &obj); err != nil {
				return nil, fmt.Errorf("session: params must be a JSON object, got %s", wire.Excerpt(b, 40))
			}
		}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := obj["_meta"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, fmt.Errorf("session: params._meta must be an object: %v", err)
		}
	}
	for k, v := range s.Meta() {
		if _, ok := meta[k]; !ok {
			meta[k] = v
		}
	}
	mb, _ := json.Marshal(meta)
	obj["_meta"] = mb
	return json.Marshal(obj)
}

// Headers computes the HTTP headers a 2026-07-28 request needs:
// MCP-Protocol-Version (from params' _meta), Mcp-Method, Mcp-Name for
// tools/call, prompts/get and resources/read, and Mcp-Param-* for the
// x-mcp-header arguments of a known tool (see LearnTools).
func (s *Stateless) Headers(method string, params json.RawMessage) (http.Header, error) {
	var p struct {
		Meta      mcp.Meta        `json:"_meta"`
		Name      *string         `json:"name"`
		URI       *string         `json:"uri"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(params, &p)
	h := http.Header{}
	v := string(s.cfg.Version)
	if pv, ok, err := p.Meta.ProtocolVersion(); ok && err == nil {
		v = pv
	}
	h.Set(wire.HeaderProtocolVersion, v)
	h.Set(wire.HeaderMethod, method)
	switch method {
	case spec.MethodToolsCall, spec.MethodPromptsGet:
		if p.Name != nil {
			h.Set(wire.HeaderName, mcp.EncodeHeaderValue(*p.Name))
		}
	case spec.MethodResourcesRead:
		if p.URI != nil {
			h.Set(wire.HeaderName, mcp.EncodeHeaderValue(*p.URI))
		}
	}
	if method == spec.MethodToolsCall && p.Name != nil {
		s.tmu.Lock()
		hp := s.toolHeaders[*p.Name]
		s.tmu.Unlock()
		if len(hp) > 0 {
			vals, err := mcp.HeaderValues(hp, p.Arguments)
			if err != nil {
				return h, fmt.Errorf("session: computing the Mcp-Param headers of tool %q: %w", *p.Name, err)
			}
			for k, v := range vals {
				h.Set(k, v)
			}
		}
	}
	return h, nil
}

// LearnTools records the x-mcp-header annotations of tools, so tools/call
// sends their Mcp-Param-* headers. Call does this for every tools/list
// result. A tool whose annotations are invalid is remembered in BadTools
// (a conformant client leaves it out).
func (s *Stateless) LearnTools(tools []mcp.Tool) {
	s.tmu.Lock()
	defer s.tmu.Unlock()
	for _, t := range tools {
		hp, err := mcp.HeaderParams(t.InputSchema)
		if err != nil {
			s.badTools[t.Name] = err
			continue
		}
		if len(hp) > 0 {
			s.toolHeaders[t.Name] = hp // only tools with headers: a list of 200,000 costs nothing
		} else {
			delete(s.toolHeaders, t.Name)
		}
	}
}

// BadTools returns the tools whose x-mcp-header annotations are invalid,
// with why.
func (s *Stateless) BadTools() map[string]error {
	s.tmu.Lock()
	defer s.tmu.Unlock()
	out := map[string]error{}
	for k, v := range s.badTools {
		out[k] = v
	}
	return out
}

// Request sends a request with a fresh id, the session's _meta and the
// required headers, and returns the id and stream.
func (s *Stateless) Request(ctx context.Context, method string, params any) (jsonrpc.ID, string, error) {
	id := s.NextID()
	p, err := s.Params(params)
	if err != nil {
		return id, "", err
	}
	h, err := s.Headers(method, p)
	if err != nil {
		return id, "", err
	}
	stream, err := s.RequestRaw(ctx, id, method, p, h)
	return id, stream, err
}

// RequestRaw sends a request with exactly these params (no _meta added)
// and, on HTTP, exactly these extra headers: the way to test a server's
// validation of missing or mismatched metadata.
func (s *Stateless) RequestRaw(ctx context.Context, id jsonrpc.ID, method string, params json.RawMessage, h http.Header) (string, error) {
	if err := s.guard(method, params); err != nil {
		return "", err
	}
	var p any
	if params != nil {
		p = params
	}
	b, err := jsonrpc.NewRequest(id, method, p)
	if err != nil {
		return "", fmt.Errorf("session: encoding %s: %w", method, err)
	}
	if hp, ok := s.raw.(headerPoster); ok {
		return hp.Post(ctx, b, h)
	}
	return s.conn.Send(ctx, b)
}

// Discover calls server/discover and decodes the result.
func (s *Stateless) Discover(ctx context.Context) (*mcp.DiscoverResult, Reply, error) {
	r := s.Call(expect.Handshake(ctx), spec.MethodServerDiscover, nil)
	if r.WrongID() {
		return nil, r, fmt.Errorf("session: server/discover: %w: %s", ErrWrongID, r.Describe())
	}
	if err := unauthorized(spec.MethodServerDiscover, r); err != nil {
		return nil, r, err
	}
	if !r.OK() {
		return nil, r, fmt.Errorf("session: server/discover got no result: %s", r.Describe())
	}
	var d mcp.DiscoverResult
	if err := r.Decode(&d); err != nil {
		return nil, r, err
	}
	s.discover = &d
	return &d, r, nil
}

// DiscoverResult is the last server/discover result, nil before.
func (s *Stateless) DiscoverResult() *mcp.DiscoverResult { return s.discover }

// ServerCapabilities are the capabilities from server/discover (zero
// before Discover).
func (s *Stateless) ServerCapabilities() mcp.ServerCapabilities {
	if s.discover == nil {
		return mcp.ServerCapabilities{}
	}
	return s.discover.Capabilities
}

// Call sends a request and waits for its response. When the result is
// input_required it runs the multi round-trip loop: it answers the
// inputRequests with the built-in client and resends the original params
// with inputResponses and requestState under a fresh id, for at most
// Config.MaxRounds rounds. The Reply is the last round; earlier ones are
// in Rounds. A tools/list result teaches the session the tools' headers.
func (s *Stateless) Call(ctx context.Context, method string, params any) Reply {
	base, err := s.Params(params)
	if err != nil {
		return Reply{Method: method, Err: err}
	}
	p := base
	var rounds []Reply
	for round := 0; ; round++ {
		id := s.NextID()
		h, err := s.Headers(method, p)
		if err != nil {
			return Reply{ID: id, Method: method, Err: err, Rounds: rounds}
		}
		stream, err := s.RequestRaw(ctx, id, method, p, h)
		if err != nil {
			return Reply{ID: id, Method: method, Err: err, Rounds: rounds}
		}
		r := s.waitResponse(ctx, id, method, stream)
		r.Rounds = rounds
		if !r.OK() {
			return r
		}
		if method == spec.MethodToolsList {
			var lt mcp.ListToolsResult
			if json.Unmarshal(r.Result, &lt) == nil {
				s.LearnTools(lt.Tools)
			}
		}
		rt, _ := mcp.ResultTypeOf(r.Result)
		if rt != mcp.ResultInputRequired {
			return r
		}
		if round+1 >= s.cfg.MaxRounds {
			r.Err = fmt.Errorf("session: %s still asked for input after %d rounds; giving up (raise Config.MaxRounds if the server legitimately needs more)", method, s.cfg.MaxRounds)
			return r
		}
		next, err := s.nextRound(base, r)
		if err != nil {
			r.Err = err
			return r
		}
		rounds = append(rounds, withoutRounds(r))
		p = next
	}
}

func withoutRounds(r Reply) Reply { r.Rounds = nil; return r }

// nextRound answers an input_required result and builds the next params.
func (s *Stateless) nextRound(base json.RawMessage, r Reply) (json.RawMessage, error) {
	var ir mcp.InputRequiredResult
	if err := json.Unmarshal(r.Result, &ir); err != nil {
		s.finding(Finding{Kind: FindingProtocol, Method: r.Method, Stream: r.Stream, Raw: r.Observed.Frame.Raw, Detail: "the input_required result does not decode: " + err.Error()})
		return nil, fmt.Errorf("session: the input_required result of %s does not decode: %w", r.Method, err)
	}
	if err := ir.Validate(); err != nil {
		s.finding(Finding{Kind: FindingProtocol, Method: r.Method, Stream: r.Stream, Raw: r.Observed.Frame.Raw, Detail: err.Error()})
		return nil, fmt.Errorf("session: %w", err)
	}
	responses := map[string]mcp.InputResponse{}
	for key, req := range ir.InputRequests {
		var raw json.RawMessage
		if req.Params != nil {
			raw, _ = json.Marshal(req.Params)
		}
		res, rerr := s.handle(req.Method, raw, r.Stream, r.Observed.Frame.Raw)
		if rerr != nil {
			return nil, fmt.Errorf("session: the built-in client refused input request %q (%s): %s", key, req.Method, rerr.Message)
		}
		responses[key] = mcp.InputResponse{Result: res}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(base, &obj); err != nil {
		return nil, err
	}
	if len(responses) > 0 {
		b, err := json.Marshal(responses)
		if err != nil {
			return nil, fmt.Errorf("session: encoding inputResponses: %w", err)
		}
		obj["inputResponses"] = b
	}
	if ir.RequestState != "" {
		b, _ := json.Marshal(ir.RequestState)
		obj["requestState"] = b
	}
	return json.Marshal(obj)
}

// CallInto is Call that decodes the final result into out.
func (s *Stateless) CallInto(ctx context.Context, method string, params any, out any) (Reply, error) {
	r := s.Call(ctx, method, params)
	if !r.OK() {
		return r, fmt.Errorf("session: %s got no result: %s", method, r.Describe())
	}
	return r, r.Decode(out)
}

// Cancel cancels an in-flight request the way the transport says: on
// streamable HTTP by closing its response stream, on stdio with
// notifications/cancelled.
func (s *Stateless) Cancel(ctx context.Context, id jsonrpc.ID, stream string) error {
	if h, ok := s.raw.(*wire.HTTP); ok {
		h.CloseStream(stream)
		return nil
	}
	b, err := jsonrpc.NewNotification(spec.MethodCancelled, map[string]any{"requestId": id})
	if err != nil {
		return err
	}
	_, err = s.conn.Send(ctx, b)
	return err
}
