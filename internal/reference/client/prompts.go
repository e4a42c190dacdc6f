package client

import (
	"context"
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// ListPrompts returns every prompt, following pagination.
func (c *Client) ListPrompts(ctx context.Context) ([]mcp.Prompt, error) {
	return paginate(ctx, c, spec.MethodPromptsList, func(raw json.RawMessage) ([]mcp.Prompt, string, error) {
		var r mcp.ListPromptsResult
		if err := decodeResult(spec.MethodPromptsList, raw, &r); err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	})
}

// GetPrompt renders the prompt name with args.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	raw, err := c.request(ctx, spec.MethodPromptsGet, mcp.GetPromptParams{Name: name, Arguments: args}, reqOpts{})
	if err != nil {
		return nil, err
	}
	var r mcp.GetPromptResult
	if err := decodeResult(spec.MethodPromptsGet, raw, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Complete asks for completions of argument arg (with its partial value)
// of a prompt or resource template reference; context holds the values of
// arguments already filled in (may be nil).
func (c *Client) Complete(ctx context.Context, ref mcp.CompleteReference, arg mcp.CompleteArgument, context map[string]string) (*mcp.Completion, error) {
	p := mcp.CompleteParams{Ref: ref, Argument: arg}
	if len(context) > 0 {
		p.Context = &mcp.CompleteContext{Arguments: context}
	}
	raw, err := c.request(ctx, spec.MethodCompletionComplete, p, reqOpts{})
	if err != nil {
		return nil, err
	}
	var r mcp.CompleteResult
	if err := decodeResult(spec.MethodCompletionComplete, raw, &r); err != nil {
		return nil, err
	}
	return &r.Completion, nil
}
