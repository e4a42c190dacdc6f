package server

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// handlerFunc serves one request method.
type handlerFunc func(r *request) (any, error)

var handlers map[string]handlerFunc

func init() {
	handlers = map[string]handlerFunc{
		spec.MethodPing:                   ping,
		spec.MethodToolsList:              listTools,
		spec.MethodToolsCall:              callTool,
		spec.MethodResourcesList:          listResources,
		spec.MethodResourcesRead:          readResource,
		spec.MethodResourcesTemplatesList: listTemplates,
		spec.MethodResourcesSubscribe:     subscribeResource,
		spec.MethodResourcesUnsubscribe:   unsubscribeResource,
		spec.MethodPromptsList:            listPrompts,
		spec.MethodPromptsGet:             getPrompt,
		spec.MethodCompletionComplete:     complete,
		spec.MethodLoggingSetLevel:        setLevel,
		spec.MethodTasksGet:               getTask,
		spec.MethodTasksResult:            taskResult,
		spec.MethodTasksList:              listTasks,
		spec.MethodTasksCancel:            cancelTask,
		spec.MethodServerDiscover:         discover,
	}
}

// dispatch serves a request by method, after checking that the version
// defines the method for clients to send.
func (s *Server) dispatch(r *request) (any, error) {
	m, ok := spec.LookupMethod(r.v, r.method)
	if !ok || m.Carrier || m.Kind != spec.RequestMethod || !m.Direction.Allows(spec.ClientToServer) {
		return nil, s.faultMethodNotFound(r.method)
	}
	h := handlers[r.method]
	if h == nil {
		return nil, methodNotFound(r.method)
	}
	return h(r)
}

// decodeParams unmarshals the request's params into p; absent params leave
// p zero.
func (r *request) decodeParams(p any) error {
	if len(r.params) == 0 || string(r.params) == "null" {
		return nil
	}
	if err := json.Unmarshal(r.params, p); err != nil {
		return invalidParams("%s params do not decode: %v", r.method, err)
	}
	return nil
}

// encodeResult encodes a result for the request's version. Stateless
// results get resultType, caching hints on cacheable methods and the
// server's identity in _meta.
func (s *Server) encodeResult(r *request, result any) (json.RawMessage, error) {
	raw, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	if !r.stateless() {
		return raw, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	if obj == nil {
		obj = map[string]json.RawMessage{}
	}
	if _, ok := obj["resultType"]; !ok {
		obj["resultType"] = json.RawMessage(`"complete"`)
	}
	if string(obj["resultType"]) == `"complete"` && mcp.CacheableMethod(r.method) {
		if _, ok := obj["ttlMs"]; !ok {
			obj["ttlMs"] = json.RawMessage(`0`)
		}
		if _, ok := obj["cacheScope"]; !ok {
			obj["cacheScope"] = json.RawMessage(`"private"`)
		}
	}
	if _, ack := result.(ackResult); ack {
		return raw, nil // tasks/update and tasks/cancel answer exactly this
	}
	var meta mcp.Meta
	if m, ok := obj["_meta"]; ok {
		_ = json.Unmarshal(m, &meta)
	}
	if !meta.Has(mcp.MetaServerInfo) {
		_ = meta.SetServerInfo(s.info(r.v))
		b, _ := json.Marshal(meta)
		obj["_meta"] = b
	}
	return json.Marshal(obj)
}

// cache sets the caching hints of a stateless list or read result.
func cache(r *request, ttl int64, scope mcp.CacheScope) mcp.Cacheable {
	if !r.stateless() {
		return mcp.Cacheable{}
	}
	return mcp.Cacheable{TTLMs: mcp.Int(ttl), CacheScope: scope}
}
