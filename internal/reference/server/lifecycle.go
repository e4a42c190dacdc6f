package server

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// instructions is the text the server offers clients in initialize and
// server/discover.
const instructions = "mcpcheck reference server. Tools, resources and prompts named test_* follow the official conformance fixtures; the ones named ref_* are mcpcheck's own."

// initialize negotiates the version and records the client's capabilities.
func (ss *Session) initialize(r *request) (any, error) {
	var p mcp.InitializeParams
	if err := json.Unmarshal(r.params, &p); err != nil {
		return nil, invalidParams("initialize params do not decode: %v", err)
	}
	if p.ProtocolVersion == "" {
		return nil, invalidParams("initialize params need protocolVersion (a version string such as %q)", ss.srv.latestStateful())
	}
	v := ss.srv.negotiate(p.ProtocolVersion)
	if v == "" {
		return nil, &Error{Code: jsonrpc.InvalidParams, Message: "Unsupported protocol version: this server serves no stateful version", Data: map[string]any{"supported": ss.srv.statelessVersions(), "requested": p.ProtocolVersion}}
	}
	ss.mu.Lock()
	if ss.state != stateNew {
		ss.mu.Unlock()
		return nil, newError(jsonrpc.InvalidRequest, "the session is already initialized; initialize may be sent only once per session")
	}
	ss.state = stateInitialized
	ss.version = v
	ss.caps = p.Capabilities
	ss.clientInfo = p.ClientInfo
	ss.mu.Unlock()
	r.v = v
	r.caps = p.Capabilities
	ss.faultInitialize(r)
	return mcp.InitializeResult{
		ProtocolVersion: string(v),
		Capabilities:    ss.srv.capabilities(v),
		ServerInfo:      ss.srv.info(v),
		Instructions:    instructions,
	}, nil
}

// negotiate picks the version to answer initialize with: the requested one
// when it is a stateful version we serve, else our latest stateful one.
func (s *Server) negotiate(requested string) spec.Version {
	latest := s.latestStateful()
	if s.faults.on(FaultInitWrongVersion) {
		oldest := latest
		for _, v := range s.opts.Versions {
			if v.Era() == spec.Stateful && v.Compare(oldest) < 0 {
				oldest = v
			}
		}
		return oldest
	}
	v := spec.Version(requested)
	if v.Era() == spec.Stateful && s.supports(v) {
		return v
	}
	if oldest := s.faultOldestStateful(); oldest != "" {
		return oldest
	}
	return latest
}

// capabilities is what the server declares for version v.
func (s *Server) capabilities(v spec.Version) mcp.ServerCapabilities {
	t := mcp.Bool(true)
	c := mcp.ServerCapabilities{
		Logging:   mcp.Present(),
		Prompts:   &mcp.ListChangedCapability{ListChanged: t},
		Resources: &mcp.ResourcesCapability{Subscribe: t, ListChanged: t},
		Tools:     &mcp.ListChangedCapability{ListChanged: t},
	}
	if v.Compare(spec.V20250326) >= 0 {
		c.Completions = mcp.Present()
	}
	if v == spec.V20251125 {
		c.Tasks = &mcp.ServerTasksCapability{
			List:     mcp.Present(),
			Cancel:   mcp.Present(),
			Requests: &mcp.ServerTaskRequests{Tools: &mcp.ToolsTaskRequests{Call: mcp.Present()}},
		}
	}
	if v.Era() == spec.Stateless {
		// Resource subscriptions moved to subscriptions/listen; logging is
		// per request.
		c.Resources = &mcp.ResourcesCapability{Subscribe: t, ListChanged: t}
	}
	s.faultCapabilities(&c)
	return c
}

// ping answers with an empty result.
func ping(*request) (any, error) {
	return struct{}{}, nil
}
