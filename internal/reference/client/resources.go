package client

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// ListResources returns every resource, following pagination.
func (c *Client) ListResources(ctx context.Context) ([]mcp.Resource, error) {
	return paginate(ctx, c, spec.MethodResourcesList, func(raw json.RawMessage) ([]mcp.Resource, string, error) {
		var r mcp.ListResourcesResult
		if err := decodeResult(spec.MethodResourcesList, raw, &r); err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	})
}

// ListResourceTemplates returns every resource template.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]mcp.ResourceTemplate, error) {
	return paginate(ctx, c, spec.MethodResourcesTemplatesList, func(raw json.RawMessage) ([]mcp.ResourceTemplate, string, error) {
		var r mcp.ListResourceTemplatesResult
		if err := decodeResult(spec.MethodResourcesTemplatesList, raw, &r); err != nil {
			return nil, "", err
		}
		return r.ResourceTemplates, r.NextCursor, nil
	})
}

// ReadResource reads the resource at uri.
func (c *Client) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	raw, err := c.request(ctx, spec.MethodResourcesRead, mcp.ReadResourceParams{URI: uri}, reqOpts{})
	if err != nil {
		return nil, err
	}
	var r mcp.ReadResourceResult
	if err := decodeResult(spec.MethodResourcesRead, raw, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Subscribe asks for notifications/resources/updated about uri (stateful
// versions; in 2026-07-28 use Listen).
func (c *Client) Subscribe(ctx context.Context, uri string) error {
	if c.Stateless() {
		return errors.New("client: resources/subscribe does not exist in 2026-07-28; use Listen with ResourceSubscriptions")
	}
	_, err := c.request(ctx, spec.MethodResourcesSubscribe, mcp.SubscribeParams{URI: uri}, reqOpts{})
	return err
}

// Unsubscribe cancels a Subscribe.
func (c *Client) Unsubscribe(ctx context.Context, uri string) error {
	if c.Stateless() {
		return errors.New("client: resources/unsubscribe does not exist in 2026-07-28; cancel the Listen context instead")
	}
	_, err := c.request(ctx, spec.MethodResourcesUnsubscribe, mcp.UnsubscribeParams{URI: uri}, reqOpts{})
	return err
}
