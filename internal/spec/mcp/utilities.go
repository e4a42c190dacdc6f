package mcp

import "github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"

// PingParams is the params of ping (2024-11-05 through 2025-11-25). Its
// result is an EmptyResult.
type PingParams = RequestParams

// CancelledNotificationParams is the params of notifications/cancelled (all
// versions). RequestID is required until 2025-06-18; 2025-11-25 makes it
// optional (a task is cancelled with tasks/cancel instead).
type CancelledNotificationParams struct {
	Meta      Meta       `json:"_meta,omitzero"`
	RequestID jsonrpc.ID `json:"requestId,omitzero"`
	Reason    string     `json:"reason,omitempty"`
}

// ProgressNotificationParams is the params of notifications/progress (all
// versions; Message since 2025-03-26).
type ProgressNotificationParams struct {
	Meta          Meta          `json:"_meta,omitzero"`
	ProgressToken ProgressToken `json:"progressToken,omitzero"`
	// Progress must increase with each notification.
	Progress float64  `json:"progress"`
	Total    *float64 `json:"total,omitempty"`
	Message  string   `json:"message,omitempty"`
}

// Float returns a pointer to f, for the optional number members.
func Float(f float64) *float64 { return &f }

// Int returns a pointer to n, for the optional integer members.
func Int(n int64) *int64 { return &n }
