package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/client/transport"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// statelessSwitcher is implemented by the HTTP transports that can change
// between the 2026-07-28 and the earlier shape.
type statelessSwitcher interface{ SetStateless(bool) }

// negotiate runs the lifecycle for the offered version's era.
func (c *Client) negotiate(ctx context.Context) error {
	want := c.opts.Version
	if want.Era() == spec.Stateful {
		return c.initialize(ctx, want)
	}
	c.setMode(true, want)
	if c.fault(FaultSkipDiscoverProbe) {
		return nil
	}
	// A legacy server may ignore server/discover; do not wait the whole
	// request timeout to find that out.
	res, err := c.discoverProbe(ctx, min(c.timeout(), ProbeTimeout))
	if IsCode(err, mcp.CodeUnsupportedProtocolVersion) && c.fault(FaultFallbackOnModern400) {
		return c.initialize(ctx, spec.V20251125)
	}
	if IsCode(err, mcp.CodeUnsupportedProtocolVersion) && !c.fault(FaultIgnoreUnsupportedVersion) {
		supported := supportedOf(err)
		if v, ok := pickStateless(supported, want); ok {
			c.setMode(true, v)
			res, err = c.discoverProbe(ctx, min(c.timeout(), ProbeTimeout))
		} else if v, ok := pickStateful(supported); ok {
			c.logf("the server does not speak %s; falling back to %s with initialize", want, v)
			return c.initialize(ctx, v)
		} else {
			return &VersionError{Offered: string(want), Server: supported, Detail: "no version in common; upgrade the client or the server"}
		}
	}
	if err != nil {
		if !legacySignal(err) || c.fallbackKeyedFault(err) {
			return fmt.Errorf("client: server/discover failed: %w", err)
		}
		c.logf("server/discover failed (%v); treating the server as a legacy one and sending initialize", err)
		return c.initialize(ctx, spec.V20251125)
	}
	c.mu.Lock()
	cur := c.version
	c.mu.Unlock()
	supported := res.SupportedVersions
	for _, s := range supported {
		if spec.Version(s) == cur {
			return nil
		}
	}
	if v, ok := pickStateless(supported, cur); ok {
		c.setMode(true, v)
		return nil
	}
	if v, ok := pickStateful(supported); ok {
		c.logf("the server's server/discover lists no modern version this client speaks; falling back to %s with initialize", v)
		return c.initialize(ctx, v)
	}
	return &VersionError{Offered: string(cur), Server: supported, Detail: "server/discover lists no version this client speaks"}
}

// legacySignal reports whether a failed server/discover means "legacy
// server" rather than a modern server refusing something: any JSON-RPC
// error that is not one of the errors 2026-07-28 introduced, an HTTP 4xx
// without one, or silence.
func legacySignal(err error) bool {
	var re *RPCError
	if errors.As(err, &re) {
		switch re.Code {
		case mcp.CodeUnsupportedProtocolVersion, mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapability:
			return false
		}
		return true
	}
	var se *transport.StatusError
	if errors.As(err, &se) {
		return se.Code >= 400 && se.Code < 500 && se.Code != 401 && se.Code != 403
	}
	var te *TimeoutError
	return errors.As(err, &te)
}

func (c *Client) setMode(stateless bool, v spec.Version) {
	c.mu.Lock()
	c.stateless = stateless
	c.mu.Unlock()
	if s, ok := c.raw.(statelessSwitcher); ok {
		s.SetStateless(stateless)
	}
	c.setVersion(v)
}

// ProbeTimeout bounds the first server/discover of a 2026-07-28 client: a
// server that stays silent that long is taken for a legacy one.
const ProbeTimeout = 10 * time.Second

// discoverOnce sends server/discover and records the result.
func (c *Client) discoverOnce(ctx context.Context) (*mcp.DiscoverResult, error) {
	return c.discoverProbe(ctx, 0)
}

// discoverProbe is discoverOnce with a timeout of its own (0: the client's).
func (c *Client) discoverProbe(ctx context.Context, timeout time.Duration) (*mcp.DiscoverResult, error) {
	p := object{}
	c.stamp(p)
	raw, err := c.rpc(ctx, spec.MethodServerDiscover, p, callOpts{timeout: timeout})
	if err != nil {
		return nil, err
	}
	var res mcp.DiscoverResult
	if err := decodeResult(spec.MethodServerDiscover, raw, &res); err != nil {
		return nil, err
	}
	c.noteServerInfo(raw)
	c.mu.Lock()
	c.discover = &res
	c.serverCaps = res.Capabilities
	c.instructions = res.Instructions
	c.mu.Unlock()
	return &res, nil
}

// initialize runs the stateful handshake offering v.
func (c *Client) initialize(ctx context.Context, v spec.Version) error {
	c.setMode(false, "")
	params := mcp.InitializeParams{
		ProtocolVersion: string(v),
		Capabilities:    c.capabilities(false, v),
		ClientInfo:      c.opts.Info,
	}
	if c.fault(FaultUnreleasedVersion) {
		params.ProtocolVersion = "2099-01-01"
	}
	if c.fault(FaultOfferOlderVersion) {
		params.ProtocolVersion = string(olderStateful(v))
	}
	if c.fault(FaultSkipInitialize) {
		_, _ = c.rpc(ctx, spec.MethodPing, struct{}{}, callOpts{timeout: time.Second})
	}
	raw, err := c.rpc(ctx, spec.MethodInitialize, params, callOpts{noCancel: true})
	if err != nil {
		return fmt.Errorf("client: initialize failed: %w", err)
	}
	var res mcp.InitializeResult
	if err := decodeResult(spec.MethodInitialize, raw, &res); err != nil {
		return err
	}
	got := spec.Version(res.ProtocolVersion)
	if (!got.Known() || got.Era() != spec.Stateful) && c.fault(FaultContinueOnUnknownVersion) {
		got = v // the fault: carry on as if the server had agreed
	} else if !got.Known() || got.Era() != spec.Stateful {
		return &VersionError{Offered: string(v), Server: []string{res.ProtocolVersion}, Detail: fmt.Sprintf("the server chose %q, which this client cannot use with initialize (it speaks %s to %s); disconnecting", res.ProtocolVersion, spec.V20241105, spec.V20251125)}
	}
	if res.ServerInfo.Name == "" {
		c.logf("the server's initialize result has no serverInfo.name")
	}
	c.mu.Lock()
	c.serverInfo = res.ServerInfo
	c.serverCaps = res.Capabilities
	c.instructions = res.Instructions
	c.mu.Unlock()
	c.setVersion(got)
	if c.fault(FaultNoInitialized) {
		return nil
	}
	if err := c.notify(spec.MethodInitialized, struct{}{}); err != nil {
		return err
	}
	return nil
}

// olderStateful is the initialize-based revision released before v (v
// itself when there is none).
func olderStateful(v spec.Version) spec.Version {
	older := v
	for _, w := range spec.Versions {
		if w.Era() == spec.Stateful && w.Compare(v) < 0 && (older == v || w.Compare(older) > 0) {
			older = w
		}
	}
	return older
}

// reinitialize starts a new session after the server forgot the old one.
func (c *Client) reinitialize(ctx context.Context) error {
	c.initMu.Lock()
	defer c.initMu.Unlock()
	c.mu.Lock()
	v := c.version
	c.mu.Unlock()
	if v == "" {
		v = spec.V20251125
	}
	return c.initialize(ctx, v)
}

// Ping sends ping (stateful versions) or, in 2026-07-28 where ping is gone,
// server/discover, and reports whether the server answered.
func (c *Client) Ping(ctx context.Context) error {
	if c.Stateless() {
		_, err := c.discoverOnce(ctx)
		return err
	}
	_, err := c.request(ctx, spec.MethodPing, struct{}{}, reqOpts{})
	return err
}

// SetLogLevel asks the server for log messages of level l and above: with
// logging/setLevel before 2026-07-28, and from then on in every request's
// _meta.
func (c *Client) SetLogLevel(ctx context.Context, l mcp.LoggingLevel) error {
	if c.Stateless() {
		c.mu.Lock()
		c.logLevel = l
		c.mu.Unlock()
		return nil
	}
	_, err := c.request(ctx, spec.MethodLoggingSetLevel, mcp.SetLevelParams{Level: l}, reqOpts{})
	return err
}
