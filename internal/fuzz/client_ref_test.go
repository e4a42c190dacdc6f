package fuzz

import (
	"context"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/client"
	"github.com/mcpcheck/mcpcheck/internal/reference/client/transport"
	"github.com/mcpcheck/mcpcheck/spec"
)

// refHTTPTask is the tools_call task of the reference client, in-process,
// over streamable HTTP with a short request timeout; its errors are the
// client's business (a hostile server may make it fail).
func refHTTPTask(ctx context.Context, url string) {
	tr, err := transport.NewStreamableHTTP(transport.HTTPOptions{URL: url})
	if err != nil {
		return
	}
	c, err := client.Connect(ctx, tr, client.Options{Version: spec.V20251125, Timeout: 700 * time.Millisecond})
	if err != nil {
		tr.Close()
		return
	}
	defer c.Close()
	if _, err := c.ListTools(ctx); err != nil {
		return
	}
	_, _ = c.CallTool(ctx, "add_numbers", map[string]any{"a": 2, "b": 3}, nil)
}
