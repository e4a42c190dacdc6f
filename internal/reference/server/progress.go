package server

import (
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Progress (all versions): a request that carries _meta.progressToken may
// get notifications/progress while it runs; values only increase, only
// live tokens are used and nothing follows the response (a task keeps its
// token until it ends).

// progress reports progress when the client gave a token; values only go
// up and stop once the call is answered.
func (c *call) progress(p float64, total *float64, message string) {
	r := c.r
	if !r.hasToken {
		c.faultProgressWithoutToken(p, total, message)
		return
	}
	r.mu.Lock()
	if r.progSent && p <= r.lastProg {
		r.mu.Unlock()
		return
	}
	if r.srv.faults.on(FaultProgressDecreasing) && r.progSent {
		p = r.lastProg - 1
	}
	r.lastProg, r.progSent = p, true
	r.mu.Unlock()
	c.emit(spec.MethodProgress, progressParams(r.v, r.token, p, total, message))
}

// progressParams builds progress params; message exists from 2025-03-26.
func progressParams(v spec.Version, token mcp.ProgressToken, progress float64, total *float64, message string) mcp.ProgressNotificationParams {
	p := mcp.ProgressNotificationParams{ProgressToken: token, Progress: progress, Total: total}
	if since(v, spec.V20250326) {
		p.Message = message
	}
	return p
}
