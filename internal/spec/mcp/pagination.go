package mcp

// PaginatedParams is the params of the list requests: tools/list,
// prompts/list, resources/list, resources/templates/list and (2025-11-25)
// tasks/list (all versions).
type PaginatedParams struct {
	Meta   Meta   `json:"_meta,omitzero"`
	Cursor Cursor `json:"cursor,omitempty"`
}

// PaginatedResult holds the member every list result may carry. It is
// embedded in the list results.
type PaginatedResult struct {
	// NextCursor is present when more results exist.
	NextCursor Cursor `json:"nextCursor,omitempty"`
}
