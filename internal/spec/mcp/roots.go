package mcp

// Root is a directory or file a client exposes to a server (all versions;
// _meta since 2025-06-18). URI is a file:// URI.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
	Meta Meta   `json:"_meta,omitzero"`
}

// ListRootsParams is the params of roots/list (all versions; in 2026-07-28
// it is carried inside an InputRequiredResult rather than sent as a
// request).
type ListRootsParams = RequestParams

// ListRootsResult is the result of roots/list (all versions).
type ListRootsResult struct {
	ResultBase
	Roots []Root `json:"roots"`
}

// RootsListChangedParams is the params of notifications/roots/list_changed
// (2024-11-05 through 2025-11-25).
type RootsListChangedParams = NotificationParams
