package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/client/transport"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// ListTools returns every tool, following pagination. On a 2026-07-28 HTTP
// connection, tools whose x-mcp-header annotations break the rules are
// left out with a warning, as the transport requires.
func (c *Client) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	tools, err := paginate(ctx, c, spec.MethodToolsList, func(raw json.RawMessage) ([]mcp.Tool, string, error) {
		var r mcp.ListToolsResult
		if err := decodeResult(spec.MethodToolsList, raw, &r); err != nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, nil
	})
	if err != nil {
		return nil, err
	}
	checkHeaders := c.Stateless() && c.isHTTP()
	kept := tools[:0]
	cache := make(map[string]mcp.Tool, len(tools))
	for _, t := range tools {
		if c.fault(FaultSchemaRefFetch) {
			for _, u := range networkRefs(t.InputSchema) {
				probeURL(ctx, http.MethodGet, u)
			}
		}
		if c.Stateless() && !c.fault(FaultSchemaUnresolvedKept) {
			if _, err := compileSchema(t.InputSchema); err != nil {
				c.logf("leaving out tool %q: its inputSchema is unusable: %v", t.Name, err)
				continue
			}
		}
		if checkHeaders {
			if _, err := mcp.HeaderParams(t.InputSchema); err != nil {
				c.logf("leaving out tool %q: its x-mcp-header annotations are invalid: %v", t.Name, err)
				continue
			}
		}
		kept = append(kept, t)
		cache[t.Name] = t
	}
	c.mu.Lock()
	c.tools = cache
	c.mu.Unlock()
	return kept, nil
}

// isHTTP reports whether the connection is one of the HTTP transports.
func (c *Client) isHTTP() bool {
	switch c.raw.(type) {
	case *transport.StreamableHTTP, *transport.AutoHTTP, *transport.LegacySSE:
		return true
	}
	return false
}

// tool returns the tool named name from the last listing, listing the tools
// first when none are known.
func (c *Client) tool(ctx context.Context, name string) (mcp.Tool, bool, error) {
	c.mu.Lock()
	t, ok := c.tools[name]
	n := len(c.tools)
	c.mu.Unlock()
	if ok || n > 0 {
		return t, ok, nil
	}
	if _, err := c.ListTools(ctx); err != nil {
		return mcp.Tool{}, false, err
	}
	c.mu.Lock()
	t, ok = c.tools[name]
	c.mu.Unlock()
	return t, ok, nil
}

// CallOptions tune CallTool.
type CallOptions struct {
	// OnProgress, when set, asks for progress notifications and receives
	// them.
	OnProgress func(mcp.ProgressNotificationParams)
	// Task runs the call as a task (2025-11-25) when the tool allows it;
	// a tool that requires a task always runs as one.
	Task bool
	// TaskTTL is the requested task lifetime; 0 leaves it to the server.
	TaskTTL time.Duration
	// Timeout overrides the client's timeout for this call.
	Timeout time.Duration
}

// CallTool calls a tool with args (anything that encodes to a JSON object,
// or nil). When the tool declares an outputSchema, the structuredContent of
// a successful result is validated against it: a mismatch returns the
// result together with an *OutputSchemaError.
func (c *Client) CallTool(ctx context.Context, name string, args any, o *CallOptions) (*mcp.CallToolResult, error) {
	if o == nil {
		o = &CallOptions{}
	}
	var rawArgs json.RawMessage
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("client: cannot encode the arguments of %q: %w", name, err)
		}
		rawArgs = b
	}
	if err := c.serverNameFault(name); err != nil {
		return nil, err
	}
	params := mcp.CallToolParams{Name: name, Arguments: rawArgs}
	ro := reqOpts{onProgress: o.OnProgress}
	ro.timeout = o.Timeout

	t, known, err := c.tool(ctx, name)
	if err != nil && c.Stateless() && c.isHTTP() {
		return nil, fmt.Errorf("client: listing tools to find the headers of %q: %w", name, err)
	}
	if c.Stateless() && c.isHTTP() && known {
		hp, err := mcp.HeaderParams(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("client: tool %q has invalid x-mcp-header annotations and cannot be called: %v", name, err)
		}
		if len(hp) > 0 {
			vals, err := mcp.HeaderValues(hp, rawArgs)
			if err != nil && c.fault(FaultUnsafeIntegerHeader) {
				vals, err = unsafeHeaderValues(hp, rawArgs)
			}
			if err != nil {
				return nil, fmt.Errorf("client: the arguments of %q cannot be mirrored into headers: %v", name, err)
			}
			ro.headers = make(map[string]string, len(vals))
			for k, v := range vals {
				ro.headers[k] = v
			}
		}
	} else if c.Stateless() && c.isHTTP() && !known {
		c.mu.Lock()
		n := len(c.tools)
		c.mu.Unlock()
		if n > 0 {
			return nil, fmt.Errorf("client: the server did not list a usable tool %q (it may have been left out for invalid x-mcp-header annotations); run tools to see the list", name)
		}
	}

	if useTask, err := c.wantTask(t, known, o); err != nil {
		return nil, err
	} else if useTask {
		return c.callToolTask(ctx, params, t, known, o, ro)
	}
	raw, err := c.request(ctx, spec.MethodToolsCall, params, ro)
	if err != nil {
		return nil, err
	}
	return c.toolResult(name, raw, t, known)
}

// toolResult decodes a tools/call result and validates structuredContent.
func (c *Client) toolResult(name string, raw json.RawMessage, t mcp.Tool, known bool) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	if err := decodeResult(spec.MethodToolsCall, raw, &res); err != nil {
		return nil, err
	}
	if known && len(t.OutputSchema) > 0 && (res.IsError == nil || !*res.IsError) {
		if len(res.StructuredContent) == 0 {
			return &res, &OutputSchemaError{Tool: name, Detail: "the tool declares an outputSchema but the result has no structuredContent"}
		}
		if err := validateJSONBounded(t.OutputSchema, res.StructuredContent, !c.fault(FaultSchemaUnbounded)); err != nil {
			return &res, &OutputSchemaError{Tool: name, Detail: err.Error()}
		}
	}
	return &res, nil
}
