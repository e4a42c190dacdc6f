package server

import (
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

func listResources(r *request) (any, error) {
	var p mcp.PaginatedParams
	if err := r.decodeParams(&p); err != nil {
		return nil, err
	}
	if err := r.faultListRefused(); err != nil {
		return nil, err
	}
	all := r.srv.fx.sortedResources(r.v)
	page, next, err := paginate(r.srv, "resources", all, func(x *resourceFixture) string { return x.res.URI }, p.Cursor)
	if err != nil {
		return nil, err
	}
	res := mcp.ListResourcesResult{Resources: make([]mcp.Resource, len(page)), Cacheable: cache(r, 300000, mcp.CachePublic)}
	res.NextCursor = next
	for i, x := range page {
		res.Resources[i] = shapeResource(r.v, x.res)
	}
	return res, nil
}

func listTemplates(r *request) (any, error) {
	var p mcp.PaginatedParams
	if err := r.decodeParams(&p); err != nil {
		return nil, err
	}
	r.srv.fx.mu.RLock()
	all := append([]*templateFixture(nil), r.srv.fx.templates...)
	r.srv.fx.mu.RUnlock()
	page, next, err := paginate(r.srv, "templates", all, func(x *templateFixture) string { return x.tmpl.URITemplate }, p.Cursor)
	if err != nil {
		return nil, err
	}
	res := mcp.ListResourceTemplatesResult{ResourceTemplates: make([]mcp.ResourceTemplate, len(page)), Cacheable: cache(r, 300000, mcp.CachePublic)}
	res.NextCursor = next
	for i, x := range page {
		res.ResourceTemplates[i] = shapeTemplate(r.v, x.tmpl)
	}
	return res, nil
}

// customResource returns the resource of Options.Resources at uri, or nil.
func (f *fixtures) customResource(uri string) *resourceFixture {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if x := f.resources[uri]; x != nil && x.custom != nil {
		return x
	}
	return nil
}

// lookupResource returns the contents of uri, or nil when unknown.
func (f *fixtures) lookupResource(v spec.Version, uri string) []mcp.ResourceContents {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if x := f.resources[uri]; x != nil && x.wire.callable(v) {
		if x.read == nil {
			return []mcp.ResourceContents{mcp.TextContents(uri, "text/plain", x.res.Name)}
		}
		return x.read(uri)
	}
	for _, t := range f.templates {
		if strings.HasPrefix(uri, t.prefix) && strings.HasSuffix(uri, t.suffix) && len(uri) > len(t.prefix)+len(t.suffix) {
			id := uri[len(t.prefix) : len(uri)-len(t.suffix)]
			if !strings.Contains(id, "/") {
				return t.read(uri, id)
			}
		}
	}
	return nil
}

func readResource(r *request) (any, error) {
	var p mcp.ReadResourceParams
	if err := r.decodeParams(&p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, invalidParams("resources/read needs params.uri")
	}
	var contents []mcp.ResourceContents
	if x := r.srv.fx.customResource(p.URI); x != nil {
		var err error
		if contents, err = x.custom(&Call{r: r}); err != nil {
			return nil, err
		}
	} else {
		contents = r.srv.fx.lookupResource(r.v, p.URI)
	}
	if contents == nil {
		if res, err, ok := r.faultReadUnknown(p.URI); ok {
			return res, err
		}
		if r.srv.faults.on(FaultEmptyContentsForMissing) {
			return mcp.ReadResourceResult{Contents: []mcp.ResourceContents{}, Cacheable: cache(r, 0, mcp.CachePrivate)}, nil
		}
		code := jsonrpc.ResourceNotFound
		if r.stateless() {
			code = jsonrpc.InvalidParams
		}
		return nil, &Error{Code: code, Message: fmt.Sprintf("Resource not found: %s; call resources/list for the resources this server offers", p.URI), Data: map[string]string{"uri": p.URI}}
	}
	for i, c := range contents {
		contents[i] = shapeContents(r.v, c)
	}
	return mcp.ReadResourceResult{Contents: contents, Cacheable: cache(r, 300000, mcp.CachePrivate)}, nil
}

func subscribeResource(r *request) (any, error) {
	var p mcp.SubscribeParams
	if err := r.decodeParams(&p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, invalidParams("resources/subscribe needs params.uri")
	}
	r.s.mu.Lock()
	r.s.subs[p.URI] = true
	r.s.mu.Unlock()
	return struct{}{}, nil
}

func unsubscribeResource(r *request) (any, error) {
	var p mcp.UnsubscribeParams
	if err := r.decodeParams(&p); err != nil {
		return nil, err
	}
	r.s.mu.Lock()
	delete(r.s.subs, p.URI)
	r.s.mu.Unlock()
	return struct{}{}, nil
}

// resourceUpdated tells every session subscribed to uri (and every
// stateless listener that asked for it) that it changed.
func (s *Server) resourceUpdated(uri string) {
	for _, ss := range s.sessionList() {
		ss.mu.Lock()
		sub := ss.subs[uri]
		ss.mu.Unlock()
		if sub {
			ss.notifyGeneral(spec.MethodResourcesUpdated, mcp.ResourceUpdatedParams{URI: uri})
		}
	}
	s.broadcastListen(func(f mcp.SubscriptionFilter) bool {
		for _, u := range f.ResourceSubscriptions {
			if u == uri {
				return true
			}
		}
		return false
	}, spec.MethodResourcesUpdated, mcp.ResourceUpdatedParams{URI: uri})
}

// listChanged tells every session and stateless listener that a list
// changed; method is the list_changed notification.
func (s *Server) listChanged(method string) {
	for _, ss := range s.sessionList() {
		if ss.Initialized() {
			ss.notifyGeneral(method, struct{}{})
		}
	}
	s.broadcastListen(func(f mcp.SubscriptionFilter) bool {
		switch method {
		case spec.MethodToolsListChanged:
			return f.ToolsListChanged != nil && *f.ToolsListChanged
		case spec.MethodPromptsListChanged:
			return f.PromptsListChanged != nil && *f.PromptsListChanged
		case spec.MethodResourcesListChanged:
			return f.ResourcesListChanged != nil && *f.ResourcesListChanged
		}
		return false
	}, method, struct{}{})
}

func (s *Server) sessionList() []*Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Session, 0, len(s.sessions))
	for ss := range s.sessions {
		out = append(out, ss)
	}
	return out
}
