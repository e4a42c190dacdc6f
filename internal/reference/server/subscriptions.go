package server

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// listener is one open subscriptions/listen stream (2026-07-28).
type listener struct {
	id     jsonrpc.ID
	filter mcp.SubscriptionFilter
	out    Sink
}

// listen serves subscriptions/listen: it acknowledges the honoured filter
// and then forwards matching notifications, tagged with the subscription
// id, until the request's context ends. A server shutdown ends it with a
// response.
func (s *Server) listen(r *request) {
	var p mcp.SubscriptionsListenParams
	if err := r.decodeParams(&p); err != nil {
		r.finish(nil, err)
		return
	}
	l := &listener{id: r.id, filter: p.Notifications, out: r.out}
	s.mu.Lock()
	if len(s.listens) >= s.opts.MaxSubscriptions {
		s.mu.Unlock()
		r.finish(nil, internalError("too many open subscriptions (limit %d); close one first", s.opts.MaxSubscriptions))
		return
	}
	s.listens[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listens, l)
		s.mu.Unlock()
	}()
	ack := mcp.SubscriptionsAcknowledgedParams{Notifications: honoured(p.Notifications)}
	ack.Meta.SetSubscriptionID(r.id)
	if b, err := jsonrpc.NewNotification(spec.MethodSubscriptionsAcknowledge, ack); err == nil {
		_ = r.out.Send(b)
	}
	<-r.ctx.Done()
	if s.ctx.Err() != nil {
		// Graceful end: the server is shutting down.
		var res mcp.SubscriptionsListenResult
		res.Meta.SetSubscriptionID(r.id)
		r.finish(res, nil)
		return
	}
	r.markDone()
}

// honoured is the part of a filter this server will serve: all of it.
func honoured(f mcp.SubscriptionFilter) mcp.SubscriptionFilter {
	out := mcp.SubscriptionFilter{}
	if f.ToolsListChanged != nil && *f.ToolsListChanged {
		out.ToolsListChanged = mcp.Bool(true)
	}
	if f.PromptsListChanged != nil && *f.PromptsListChanged {
		out.PromptsListChanged = mcp.Bool(true)
	}
	if f.ResourcesListChanged != nil && *f.ResourcesListChanged {
		out.ResourcesListChanged = mcp.Bool(true)
	}
	out.ResourceSubscriptions = f.ResourceSubscriptions
	return out
}

// broadcastListen sends a notification to every listener whose filter
// matches, tagged with its subscription id.
func (s *Server) broadcastListen(match func(mcp.SubscriptionFilter) bool, method string, params any) {
	s.mu.Lock()
	ls := make([]*listener, 0, len(s.listens))
	for l := range s.listens {
		if match(l.filter) {
			ls = append(ls, l)
		}
	}
	s.mu.Unlock()
	for _, l := range ls {
		b, _ := json.Marshal(params)
		var m map[string]json.RawMessage
		_ = json.Unmarshal(b, &m)
		if m == nil {
			m = map[string]json.RawMessage{}
		}
		var meta mcp.Meta
		meta.SetSubscriptionID(l.id)
		m["_meta"], _ = json.Marshal(meta)
		n, err := jsonrpc.NewNotification(method, m)
		if err == nil {
			_ = l.out.Send(n)
		}
	}
}
