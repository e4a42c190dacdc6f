package main

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/mcpcheck/mcpcheck/fuzz"
	hsession "github.com/mcpcheck/mcpcheck/harness/session"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec/mcp"
)

// probeStdioEra tells whether the stdio target t speaks the 2026-07-28
// era, as a dual-era client does: one fresh instance gets server/discover
// with a modern _meta. A DiscoverResult or a modern error (-32020, -32021,
// -32022) is a modern server; any other error, or nothing within limit,
// a legacy one (the rule of hsession.ProbeEra, over a fuzz target so that
// the probe runs in the campaign's sandbox). It returns whether the target is modern and what it saw.
func probeStdioEra(ctx context.Context, t fuzz.Target, limit time.Duration) (bool, string, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	conn, err := t.Start(ctx)
	if err != nil {
		return false, "", err
	}
	defer conn.Close()
	meta, err := mcp.RequestMeta(string(spec.V20260728), mcp.ClientCapabilities{}, &mcp.Implementation{Name: "mcpcheck", Version: "probe"})
	if err != nil {
		return false, "", err
	}
	id := jsonrpc.StringID("mcpcheck-era-probe")
	b, err := jsonrpc.NewRequest(id, spec.MethodServerDiscover, map[string]any{"_meta": meta})
	if err != nil {
		return false, "", err
	}
	if err := conn.Send(append(b, '\n')); err != nil {
		return false, "", err
	}
	deadline, _ := ctx.Deadline()
	for {
		f, err := conn.Recv(deadline)
		switch {
		case errors.Is(err, fuzz.ErrDeadline):
			return false, "no answer to server/discover within " + limit.String(), nil
		case err != nil:
			return false, "the target ended without answering server/discover", nil
		}
		m := jsonrpc.Decode(f.Data)
		if !m.Shape.IsResponse() || m.ID != id {
			continue
		}
		if m.Shape == jsonrpc.KindResponse {
			return true, "server/discover answered with a result", nil
		}
		if hsession.ModernProbeError(m.Error.Code) {
			return true, "server/discover answered with a modern error", nil
		}
		return false, "server/discover answered with error " + strconv.FormatInt(m.Error.Code, 10), nil
	}
}
