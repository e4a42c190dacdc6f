package server

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Stateless requests (2026-07-28): no initialize and no session; every
// request carries its protocol version and client capabilities in _meta.

// removedStateless are the methods 2026-07-28 dropped.
var removedStateless = map[string]bool{
	spec.MethodInitialize: true, spec.MethodPing: true, spec.MethodLoggingSetLevel: true,
	spec.MethodResourcesSubscribe: true, spec.MethodResourcesUnsubscribe: true,
	spec.MethodTasksGet: true, spec.MethodTasksResult: true, spec.MethodTasksList: true, spec.MethodTasksCancel: true,
}

// metaVersion returns params._meta's protocolVersion.
func metaVersion(params json.RawMessage) (string, bool) {
	var base struct {
		Meta mcp.Meta `json:"_meta"`
	}
	if len(params) == 0 || json.Unmarshal(params, &base) != nil {
		return "", false
	}
	v, ok, err := base.Meta.ProtocolVersion()
	return v, ok && err == nil
}

// HandleStateless serves one stateless (2026-07-28) message and returns
// once it is answered. Related notifications and the response go to out.
// It returns the HTTP status the answer calls for (200 when nothing
// special). Notifications and responses are accepted and ignored.
func (s *Server) HandleStateless(ctx context.Context, raw []byte, out Sink) (status int) {
	msg := jsonrpc.Decode(raw)
	out = s.rewriting(out, &msg, func() spec.Version { return spec.V20260728 })
	switch msg.Kind {
	case jsonrpc.KindRequest:
	case jsonrpc.KindNotification, jsonrpc.KindResponse, jsonrpc.KindErrorResponse:
		return 202
	default:
		s.replyInvalid(msg, out, spec.V20260728)
		return 400
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	r := newRequest(s, nil, spec.V20260728, msg, out, ctx, cancel)
	defer func() {
		if status == 0 { // a handler panicked and was answered with -32603
			status = 500
		}
	}()
	defer r.recoverPanic()
	result, err := s.prepareStateless(r)
	directed := false
	if err == nil {
		result, err, directed = s.direct(r)
	}
	if err == nil && !directed {
		if r.method == spec.MethodSubscriptionsListen {
			s.listen(r)
			return 200
		}
		var ok bool
		if result, err, ok = s.extTaskMethod(r); !ok {
			result, err = s.dispatch(r)
		}
	}
	r.finish(result, err)
	if r.httpStatus == 0 {
		return 200
	}
	return r.httpStatus
}

// prepareStateless validates _meta and fills the request's version,
// capabilities and log level.
func (s *Server) prepareStateless(r *request) (any, error) {
	if missing := r.meta.MissingRequestMeta(); r.meta == nil || len(missing) > 0 {
		what := "params._meta"
		if r.meta != nil {
			what = fmt.Sprintf("params._meta %v", missing)
		}
		return nil, &Error{Code: jsonrpc.InvalidParams, Message: fmt.Sprintf("Invalid params: %s missing; every 2026-07-28 request needs _meta with %s and %s", what, mcp.MetaProtocolVersion, mcp.MetaClientCapabilities), HTTPStatus: 400}
	}
	v, _, err := r.meta.ProtocolVersion()
	if err != nil {
		return nil, &Error{Code: jsonrpc.InvalidParams, Message: "Invalid params: _meta protocolVersion must be a string", HTTPStatus: 400}
	}
	if ver := spec.Version(v); ver.Era() != spec.Stateless || !s.supports(ver) {
		return nil, &Error{Code: jsonrpc.UnsupportedProtocolVersion, Message: fmt.Sprintf("Unsupported protocol version %q; retry with one of the supported versions", v),
			Data: mcp.UnsupportedProtocolVersionData{Supported: s.statelessVersions(), Requested: v}, HTTPStatus: 400}
	}
	r.v = spec.Version(v)
	caps, _, err := r.meta.ClientCapabilities()
	if err != nil {
		return nil, &Error{Code: jsonrpc.InvalidParams, Message: "Invalid params: _meta clientCapabilities must be an object: " + err.Error(), HTTPStatus: 400}
	}
	r.caps = caps
	if s.faults.on(FaultCapsFromConnection) {
		r.caps = s.faultConnCaps(caps)
	}
	if l, ok, err := r.meta.LogLevel(); ok {
		if (err != nil || levelRank(l) < 0) && !s.faults.on(FaultInvalidLogLevelIgnored) {
			return nil, &Error{Code: jsonrpc.InvalidParams, Message: "Invalid params: _meta logLevel must be one of debug, info, notice, warning, error, critical, alert, emergency", HTTPStatus: 400}
		}
		r.logLevel = l
	}
	if r.method == "tasks/get" || r.method == "tasks/cancel" || r.method == methodTasksUpdate {
		return nil, nil
	}
	if removedStateless[r.method] {
		return nil, methodNotFound(r.method)
	}
	if r.method != spec.MethodSubscriptionsListen {
		if _, ok := handlers[r.method]; !ok {
			if r.srv.faults.on(FaultReservedCodeMisused) {
				return nil, misusedReservedCode(r.method)
			}
			return nil, methodNotFound(r.method)
		}
	}
	return nil, nil
}

// discover serves server/discover.
func discover(r *request) (any, error) {
	if r.stateless() && r.srv.faults.on(FaultNoServerDiscover) {
		return nil, methodNotFound(r.method)
	}
	var versions []string
	for i := len(spec.Versions) - 1; i >= 0; i-- {
		if r.srv.supports(spec.Versions[i]) {
			versions = append(versions, string(spec.Versions[i]))
		}
	}
	v := r.v
	if v.Era() != spec.Stateless {
		v = spec.V20260728
	}
	caps := r.srv.capabilities(v)
	caps.Extensions = map[string]mcp.Object{TasksExtension: mcp.Present()}
	res := mcp.DiscoverResult{SupportedVersions: versions, Capabilities: caps, Instructions: instructions, Cacheable: mcp.Cacheable{TTLMs: mcp.Int(300000), CacheScope: mcp.CachePublic}}
	_ = res.Meta.SetServerInfo(r.srv.info(v))
	return res, nil
}
