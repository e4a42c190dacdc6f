package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/client/transport"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// object is request params as a JSON object whose members can be added.
type object map[string]json.RawMessage

func toObject(params any) (object, error) {
	if params == nil {
		return object{}, nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("client: cannot encode params: %w", err)
	}
	var o object
	if err := json.Unmarshal(b, &o); err != nil || o == nil {
		return nil, fmt.Errorf("client: params must encode to a JSON object, got %s", clip(b, 60))
	}
	return o, nil
}

func (o object) set(key string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("client: encoding %s: %v", key, err)) // only our own values
	}
	o[key] = b
}

// meta returns params._meta, decoded.
func (o object) meta() mcp.Meta {
	var m mcp.Meta
	if raw, ok := o["_meta"]; ok {
		_ = json.Unmarshal(raw, &m)
	}
	return m
}

// requestMeta is the per-request _meta of 2026-07-28.
func (c *Client) requestMeta() mcp.Meta {
	c.mu.Lock()
	v, level := c.version, c.logLevel
	c.mu.Unlock()
	info := c.opts.Info
	m, err := mcp.RequestMeta(string(v), c.capabilities(true, v), &info)
	if err != nil {
		panic(err) // our own values always encode
	}
	if level != "" {
		m.SetLogLevel(level)
	}
	return m
}

// stamp adds the 2026-07-28 per-request _meta to params, keeping keys the
// caller set (progressToken and the like).
func (c *Client) stamp(o object) {
	m := o.meta()
	if m == nil {
		m = mcp.Meta{}
	}
	for k, v := range c.requestMeta() {
		m[k] = v
	}
	o.set("_meta", m)
}

// reqOpts tune a request.
type reqOpts struct {
	callOpts
	onProgress func(mcp.ProgressNotificationParams)
}

// request sends method with params and returns the final result: it
// stamps _meta in 2026-07-28, runs the multi round-trip loop, retries with
// a supported version on -32022, re-initializes an expired HTTP session
// once, and handles -32042 through the URL elicitation handler.
func (c *Client) request(ctx context.Context, method string, params any, o reqOpts) (json.RawMessage, error) {
	p, err := toObject(params)
	if err != nil {
		return nil, err
	}
	if o.onProgress != nil {
		limit := c.timeout()
		if o.timeout > 0 {
			limit = o.timeout
		}
		if pctx, h, stop, on := c.progressExtends(ctx, limit, o.onProgress); on {
			defer stop()
			ctx, o.onProgress, o.timeout = pctx, h, 24*time.Hour
		}
		tok, done := c.progressToken(o.onProgress)
		defer done()
		m := p.meta()
		m.SetProgressToken(tok)
		p.set("_meta", m)
	}
	versionRetried, sessionRetried, urlRetried := false, false, false
	rounds := 0
	for {
		if c.Stateless() {
			c.stamp(p)
		}
		raw, err := c.rpc(ctx, method, p, o.callOpts)
		switch {
		case errors.Is(err, transport.ErrSessionExpired) && !sessionRetried && !c.Stateless():
			sessionRetried = true
			c.logf("the server forgot the session; initializing a new one")
			if err := c.reinitialize(ctx); err != nil {
				return nil, err
			}
			continue
		case IsCode(err, mcp.CodeUnsupportedProtocolVersion) && c.Stateless() && !versionRetried && !c.fault(FaultIgnoreUnsupportedVersion):
			versionRetried = true
			if v, ok := pickStateless(supportedOf(err), c.opts.Version); ok {
				c.setVersion(v)
				continue
			}
			return nil, err
		case IsCode(err, mcp.CodeURLElicitationRequired) && !urlRetried:
			urlRetried = true
			if err2 := c.handleURLRequired(ctx, method, err); err2 != nil {
				return nil, err2
			}
			continue
		case err != nil:
			return nil, err
		}
		if !c.Stateless() {
			return raw, nil
		}
		c.noteServerInfo(raw)
		rt, err := mcp.ResultTypeOf(raw)
		if err != nil {
			return nil, fmt.Errorf("client: the result of %s is unusable: %w", method, err)
		}
		if accept, err := c.resultTypeFault(method, rt); err != nil {
			return nil, err
		} else if accept {
			return raw, nil
		}
		switch rt.OrComplete() {
		case mcp.ResultComplete:
			c.pollFault(ctx, method, p, raw)
			return raw, nil
		case mcp.ResultInputRequired:
			if c.fault(FaultMRTRUnsupported) {
				return nil, fmt.Errorf("client: the result of %s asks for input, which this client cannot give", method)
			}
		default:
			return nil, fmt.Errorf("client: the result of %s has resultType %q, which this client does not know (want %q or %q)", method, rt, mcp.ResultComplete, mcp.ResultInputRequired)
		}
		rounds++
		if rounds > c.opts.MaxRounds {
			return nil, fmt.Errorf("client: %s still asked for input after %d rounds; giving up (the server may be looping)", method, c.opts.MaxRounds)
		}
		var ir mcp.InputRequiredResult
		if err := json.Unmarshal(raw, &ir); err != nil {
			return nil, fmt.Errorf("client: the input_required result of %s is unusable: %w", method, err)
		}
		if err := ir.Validate(); err != nil {
			return nil, fmt.Errorf("client: the input_required result of %s is unusable: %w", method, err)
		}
		responses, err := c.inputResponses(ctx, ir.InputRequests)
		if err != nil {
			return nil, fmt.Errorf("client: answering the input requests of %s: %w", method, err)
		}
		delete(p, "inputResponses")
		delete(p, "requestState")
		if len(responses) > 0 {
			p.set("inputResponses", responses)
		}
		if ir.RequestState != "" {
			p.set("requestState", ir.RequestState)
		}
	}
}

// inputResponses answers each input request with the client's handlers.
func (c *Client) inputResponses(ctx context.Context, reqs map[string]mcp.InputRequest) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(reqs))
	for key, r := range reqs {
		params, err := json.Marshal(r.Params)
		if err != nil {
			return nil, err
		}
		if r.Params == nil {
			params = []byte(`{}`)
		}
		res, err := c.serve(ctx, r.Method, params)
		if err != nil {
			return nil, fmt.Errorf("input request %q (%s): %w", key, r.Method, err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		out[key] = b
	}
	return out, nil
}

func (c *Client) setVersion(v spec.Version) {
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
	if s, ok := c.raw.(transport.ProtocolVersionSetter); ok {
		s.SetProtocolVersion(string(v))
	}
}

// noteServerInfo keeps the serverInfo a 2026-07-28 result carries.
func (c *Client) noteServerInfo(raw json.RawMessage) {
	var r struct {
		Meta mcp.Meta `json:"_meta"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return
	}
	if info, ok, err := r.Meta.ServerInfo(); ok && err == nil && info.Name != "" {
		c.mu.Lock()
		c.serverInfo = info
		c.mu.Unlock()
	}
}

// supportedOf returns the supported versions of a -32022 error.
func supportedOf(err error) []string {
	var re *RPCError
	if !errors.As(err, &re) || len(re.Data) == 0 {
		return nil
	}
	var d mcp.UnsupportedProtocolVersionData
	if json.Unmarshal(re.Data, &d) != nil {
		return nil
	}
	return d.Supported
}

// pickStateless returns the version to use from a server's supported list:
// want when listed, else the newest listed stateless version this client
// knows.
func pickStateless(supported []string, want spec.Version) (spec.Version, bool) {
	var best spec.Version
	for _, s := range supported {
		v := spec.Version(s)
		if v == want {
			return v, true
		}
		if v.Known() && v.Era() == spec.Stateless && v.Compare(best) > 0 {
			best = v
		}
	}
	return best, best != ""
}

// pickStateful returns the newest listed stateful version this client knows.
func pickStateful(supported []string) (spec.Version, bool) {
	var best spec.Version
	for _, s := range supported {
		v := spec.Version(s)
		if v.Known() && v.Era() == spec.Stateful && v.Compare(best) > 0 {
			best = v
		}
	}
	return best, best != ""
}

// Call sends any request and decodes the final result into result (when
// not nil). It applies the same lifecycle rules as the typed methods.
func (c *Client) Call(ctx context.Context, method string, params any, result any) error {
	raw, err := c.request(ctx, method, params, reqOpts{})
	if err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("client: the result of %s does not decode: %w", method, err)
	}
	return nil
}

// Notify sends a notification (stamped with _meta in 2026-07-28).
func (c *Client) Notify(method string, params any) error {
	p, err := toObject(params)
	if err != nil {
		return err
	}
	if c.Stateless() {
		c.stamp(p)
	}
	return c.notify(method, p)
}

// decodeResult unmarshals raw into v with an error that names the method.
func decodeResult(method string, raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("client: the result of %s does not have the expected shape: %w", method, err)
	}
	return nil
}
