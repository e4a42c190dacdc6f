package server

import (
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Unprompted traffic: what the unprompted fault switches make a stateful
// session send on its own, right after the client's
// notifications/initialized, with no request of the client involved. The
// passive checks must catch it on whatever session it lands, against
// what that session declared and did.

// unprompted ids of the requests FaultUnpromptedClientRequest sends; the
// client's answers to them are dropped (no request of ours waits).
const (
	unpromptedSamplingID    = "ref-unprompted-sampling"
	unpromptedRootsID       = "ref-unprompted-roots"
	unpromptedElicitationID = "ref-unprompted-elicitation"
	// unpromptedToken is the progress token FaultUnpromptedProgress makes up.
	unpromptedToken = "ref-unprompted-token"
	// unpromptedURI is the resource FaultUnsubscribedResourceUpdated
	// announces as updated, although nobody subscribed to it.
	unpromptedURI = "test://static-text"
)

// faultUnprompted sends what the unprompted switches send once the
// client says it is initialized: a sampling/createMessage, roots/list
// and (from 2025-06-18) elicitation/create request for each of those
// capabilities the client did not declare, an update of a resource the
// session never subscribed to, a progress notification for a token the
// client never gave.
func (ss *Session) faultUnprompted() {
	faults := ss.srv.faults
	if !faults.on(FaultUnpromptedClientRequest) && !faults.on(FaultUnsubscribedResourceUpdated) && !faults.on(FaultUnpromptedProgress) {
		return
	}
	v := ss.Version()
	ss.mu.Lock()
	caps := ss.caps
	ss.mu.Unlock()
	if faults.on(FaultUnpromptedClientRequest) {
		if caps.Sampling == nil {
			ss.sendGeneralRequest(unpromptedSamplingID, spec.MethodSamplingCreateMessage, map[string]any{
				"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Unprompted: summarise the session so far."}}},
				"maxTokens": 16,
			})
		}
		if caps.Roots == nil {
			ss.sendGeneralRequest(unpromptedRootsID, spec.MethodRootsList, nil)
		}
		if since(v, spec.V20250618) && caps.Elicitation == nil {
			ss.sendGeneralRequest(unpromptedElicitationID, spec.MethodElicitationCreate, map[string]any{
				"message":         "Unprompted: what is your name?",
				"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
			})
		}
	}
	if faults.on(FaultUnsubscribedResourceUpdated) {
		ss.notifyGeneral(spec.MethodResourcesUpdated, map[string]any{"uri": unpromptedURI})
	}
	if faults.on(FaultUnpromptedProgress) {
		ss.notifyGeneral(spec.MethodProgress, progressParams(v, mcp.StringToken(unpromptedToken), 1, nil, "unprompted"))
	}
}

// sendGeneralRequest sends a request to the client, unrelated to any of
// its requests, without waiting for the answer.
func (ss *Session) sendGeneralRequest(id, method string, params any) {
	b, err := jsonrpc.NewRequest(jsonrpc.StringID(id), method, params)
	if err != nil {
		ss.srv.logf("cannot encode %s: %v", method, err)
		return
	}
	if err := ss.general.Send(b); err != nil {
		ss.srv.logf("dropped %s: %v", method, err)
	}
}
