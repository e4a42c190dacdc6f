package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// MaxPages bounds how many pages a list helper fetches.
const MaxPages = 1000

// CursorLoopError says that a server handed out a cursor it had already
// given, which would make a naive client loop forever.
type CursorLoopError struct {
	Method string
	Cursor string
	Page   int
}

func (e *CursorLoopError) Error() string {
	return fmt.Sprintf("%s: page %d repeats the cursor %q from an earlier page; the server's pagination loops, stopping", e.Method, e.Page, clip([]byte(e.Cursor), 60))
}

// paginate fetches every page of a list method. It stops at a missing
// nextCursor (and, before 2026-07-28, at an empty one: from 2026-07-28 ""
// is a cursor like any other) and fails on a cursor seen before or after
// MaxPages pages; the items gathered so far are returned with the error.
func paginate[T any](ctx context.Context, c *Client, method string, items func(json.RawMessage) ([]T, string, error)) ([]T, error) {
	var all []T
	seen := map[string]bool{}
	cursor, withCursor := "", false
	for page := 1; ; page++ {
		var params any = mcp.PaginatedParams{Cursor: cursor}
		if withCursor && cursor == "" {
			params = map[string]any{"cursor": ""} // the empty cursor, sent as it came
		}
		raw, err := c.request(ctx, method, params, reqOpts{})
		if err != nil {
			return all, err
		}
		got, next, err := items(raw)
		if err != nil {
			return all, err
		}
		all = append(all, got...)
		if next == "" && !(c.Stateless() && emptyNextCursor(raw)) {
			return all, nil
		}
		if seen[next] || (withCursor && next == cursor) {
			return all, &CursorLoopError{Method: method, Cursor: next, Page: page}
		}
		if page >= MaxPages {
			return all, fmt.Errorf("%s: still more pages after %d; stopping", method, MaxPages)
		}
		seen[next] = true
		cursor, withCursor = next, true
	}
}

// emptyNextCursor reports whether a list result carries nextCursor "".
func emptyNextCursor(raw json.RawMessage) bool {
	var r struct {
		NextCursor *string `json:"nextCursor"`
	}
	return json.Unmarshal(raw, &r) == nil && r.NextCursor != nil && *r.NextCursor == ""
}

// Page fetches one page of a list method (cursor "" for the first) and
// returns the raw result, for callers that paginate themselves.
func (c *Client) Page(ctx context.Context, method, cursor string) (json.RawMessage, error) {
	return c.request(ctx, method, mcp.PaginatedParams{Cursor: cursor}, reqOpts{})
}
