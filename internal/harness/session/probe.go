package session

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// ProbeEra tells a stdio target's era the way the 2026-07-28 stdio
// transport says a dual-era client should: it sends server/discover with a
// modern _meta; a DiscoverResult, or a modern error (-32020, -32021,
// -32022), means Stateless; any other error, or no answer within timeout,
// means Stateful. The probe is not keyed to one error code. It returns
// the era and, in words, what it saw.
func ProbeEra(ctx context.Context, conn wire.Conn, timeout time.Duration) (spec.Era, string, error) {
	meta, err := mcp.RequestMeta(string(spec.V20260728), mcp.ClientCapabilities{}, &mcp.Implementation{Name: "mcpcheck", Version: "probe"})
	if err != nil {
		return spec.Stateful, "", err
	}
	id := jsonrpc.StringID("mcpcheck-probe")
	b, err := jsonrpc.NewRequest(id, spec.MethodServerDiscover, map[string]any{"_meta": meta})
	if err != nil {
		return spec.Stateful, "", err
	}
	if _, err := conn.Send(ctx, b); err != nil {
		return spec.Stateful, "", fmt.Errorf("session: sending the server/discover probe: %w", err)
	}
	obs := expect.Wait(ctx, conn, expect.Options{Timeout: timeout}, expect.AnyResponse(id))
	switch {
	case obs.Status == expect.Aborted:
		return spec.Stateful, obs.Actual, obs.Err
	case !obs.OK():
		return spec.Stateful, "server/discover probe: " + obs.Actual + ": a legacy (stateful) server", nil
	case obs.Frame.Msg.Shape == jsonrpc.KindResponse:
		return spec.Stateless, "server/discover probe: " + obs.Actual + ": a modern (stateless) server", nil
	case obs.Frame.Msg.Error != nil && ModernProbeError(obs.Frame.Msg.Error.Code):
		return spec.Stateless, "server/discover probe: " + obs.Actual + ": a modern server that does not support the requested version", nil
	}
	return spec.Stateful, "server/discover probe: " + obs.Actual + ": a legacy (stateful) server", nil
}

// ModernProbeError reports whether code, answering a server/discover
// probe, shows a modern server (one that does not support the version
// asked for, or wants a capability or header): -32020, -32021, -32022.
// Any other error is a legacy server's.
func ModernProbeError(c int64) bool {
	return c == jsonrpc.UnsupportedProtocolVersion || c == jsonrpc.MissingRequiredClientCapability || c == jsonrpc.HeaderMismatch
}
