package server

import (
	"encoding/json"
	"math"
	"net/url"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// servesBatch reports whether a session of version v serves JSON-RPC
// batches: only 2025-03-26 does (FaultBatchRefused, FaultBatchAnswered).
func (s *Server) servesBatch(v spec.Version) bool {
	if v == spec.V20250326 {
		return !s.faults.on(FaultBatchRefused)
	}
	return v != "" && s.faults.on(FaultBatchAnswered)
}

// faultReplyInvalid answers an invalid message that looks like a request
// with an empty result and reports true when FaultInvalidRequestResult
// applies.
func (s *Server) faultReplyInvalid(msg jsonrpc.Message, reply Sink) bool {
	if s.faultFractionID(msg, reply) {
		return true
	}
	parse := msg.Has(jsonrpc.ReasonNotJSON) || msg.Has(jsonrpc.ReasonTooDeep) || msg.Has(jsonrpc.ReasonInvalidUTF8)
	batch := msg.Has(jsonrpc.ReasonBatch) || msg.Has(jsonrpc.ReasonEmptyBatch)
	if parse || batch || msg.Shape != jsonrpc.KindRequest || msg.ID.IsZero() || !s.faults.on(FaultInvalidRequestResult) {
		return false
	}
	b, _ := jsonrpc.NewResponse(msg.ID, struct{}{})
	_ = reply.Send(b)
	return true
}

// faultFractionID answers a request whose id has a fraction part (1.5)
// with an empty result carrying the id's integer part (1), as go-sdk does
// over HTTP (FaultFractionIDsTruncated).
func (s *Server) faultFractionID(msg jsonrpc.Message, reply Sink) bool {
	if !msg.Has(jsonrpc.ReasonIDFloat) || msg.Method == "" || !s.faults.on(FaultFractionIDsTruncated) {
		return false
	}
	var m struct {
		ID json.Number `json:"id"`
	}
	if json.Unmarshal(msg.Raw, &m) != nil {
		return false
	}
	f, err := m.ID.Float64()
	if err != nil || math.Abs(f) > 1<<53 {
		return false
	}
	b, _ := jsonrpc.NewResponse(jsonrpc.IntID(int64(f)), struct{}{})
	_ = reply.Send(b)
	return true
}

// faultMethodNotFound is the error for a method the version does not
// define: -32601, or -32602 (FaultUnknownMethodWrongCode).
func (s *Server) faultMethodNotFound(method string) *Error {
	if s.faults.on(FaultUnknownMethodWrongCode) {
		return invalidParams("Invalid params for %q", method)
	}
	return methodNotFound(method)
}

// faultStaleCancel answers a cancellation that names no request in
// flight (FaultStaleCancelAnswered).
func (ss *Session) faultStaleCancel(msg jsonrpc.Message, reply Sink) {
	if !ss.srv.faults.on(FaultStaleCancelAnswered) {
		return
	}
	var p mcp.CancelledNotificationParams
	_ = json.Unmarshal(msg.Params, &p)
	ss.mu.Lock()
	live := !p.RequestID.IsZero() && (ss.inflight[p.RequestID] != nil || ss.stateless[p.RequestID] != nil)
	ss.mu.Unlock()
	if !live {
		_ = reply.Send(errorForVersion(ss.Version(), jsonrpc.ID{}, jsonrpc.InvalidParams, "no request in flight has that requestId", nil))
	}
}

// faultInitialize applies FaultClientCapsAssumed to a successful
// handshake: every client capability is taken as declared.
func (ss *Session) faultInitialize(r *request) {
	if !ss.srv.faults.on(FaultClientCapsAssumed) {
		return
	}
	all := mcp.ClientCapabilities{
		Roots:       &mcp.RootsCapability{},
		Sampling:    &mcp.SamplingCapability{Tools: mcp.Present()},
		Elicitation: &mcp.ElicitationCapability{Form: mcp.Present(), URL: mcp.Present()},
	}
	ss.mu.Lock()
	ss.caps = all
	ss.mu.Unlock()
	r.caps = all
}

// faultOldestStateful is the counter-offer to an unknown version under
// FaultUnknownVersionOldest: the oldest stateful version served ("" when
// the switch is off).
func (s *Server) faultOldestStateful() spec.Version {
	if !s.faults.on(FaultUnknownVersionOldest) {
		return ""
	}
	var oldest spec.Version
	for _, v := range s.opts.Versions {
		if v.Era() == spec.Stateful && (oldest == "" || v.Compare(oldest) < 0) {
			oldest = v
		}
	}
	return oldest
}

// faultCapabilities leaves out what the capability faults undeclare.
func (s *Server) faultCapabilities(c *mcp.ServerCapabilities) {
	if s.faults.on(FaultPromptNotesUndeclared) && c.Prompts != nil {
		c.Prompts = &mcp.ListChangedCapability{}
	}
	if s.faults.on(FaultToolNotesUndeclared) && c.Tools != nil {
		c.Tools = &mcp.ListChangedCapability{}
	}
	if s.faults.on(FaultLoggingUndeclared) {
		c.Logging = nil
	}
	if s.faults.on(FaultCompletionUndeclaredCode) {
		c.Completions = nil
	}
}

// faultInitialized sends what the capability faults send once the client
// says it is initialized, although the capability is not declared.
func (ss *Session) faultInitialized() {
	if ss.srv.faults.on(FaultLoggingUndeclared) {
		ss.notifyGeneral(spec.MethodLoggingMessage, mcp.LoggingMessageParams{Level: mcp.LevelInfo, Logger: "reference-server", Data: rawJSON("session initialized")})
	}
	if ss.srv.faults.on(FaultPromptNotesUndeclared) {
		ss.notifyGeneral(spec.MethodPromptsListChanged, struct{}{})
	}
	if ss.srv.faults.on(FaultToolNotesUndeclared) {
		ss.notifyGeneral(spec.MethodToolsListChanged, struct{}{})
	}
}

// faultComplete answers completion/complete wrongly under the completion
// faults; ok reports that it did.
func (r *request) faultComplete(p *mcp.CompleteParams) (res any, err error, ok bool) {
	switch {
	case r.srv.faults.on(FaultCompletionUndeclaredCode):
		return nil, invalidParams("completion/complete: invalid params"), true
	case r.srv.faults.on(FaultCompletionBogusRefServed) && p.Ref.Type != mcp.RefPrompt && p.Ref.Type != mcp.RefResource:
		return mcp.CompleteResult{Completion: mcp.Completion{Values: []string{}, Total: mcp.Int(0), HasMore: mcp.Bool(false)}}, nil, true
	case r.srv.faults.on(FaultCompletionUnknownCode) && p.Ref.Type == mcp.RefPrompt:
		r.srv.fx.mu.RLock()
		x := r.srv.fx.prompts[p.Ref.Name]
		r.srv.fx.mu.RUnlock()
		if x == nil {
			return nil, internalError("internal error completing %q", p.Ref.Name), true
		}
	}
	return nil, nil, false
}

// faultCursorEnd is the end of the page a nextCursor names: the page's
// own, or the first page's (FaultCursorLoops).
func (s *Server) faultCursorEnd(end int) int {
	if s.faults.on(FaultCursorLoops) {
		return s.opts.PageSize
	}
	return end
}

// faultProgressWithoutToken reports progress for a request that gave no
// token, under a made-up token (FaultProgressWithoutToken).
func (c *call) faultProgressWithoutToken(p float64, total *float64, message string) {
	if c.r.srv.faults.on(FaultProgressWithoutToken) {
		c.emit(spec.MethodProgress, progressParams(c.r.v, mcp.StringToken("ref-unrequested-token"), p, total, message))
	}
}

// faultListRefused refuses a 2026-07-28 list under the list faults
// (FaultToolsListRefused, FaultPromptsListRefused,
// FaultResourcesListRefused).
func (r *request) faultListRefused() error {
	if !r.stateless() {
		return nil
	}
	refused := false
	switch r.method {
	case spec.MethodToolsList:
		refused = r.srv.faults.on(FaultToolsListRefused)
	case spec.MethodPromptsList:
		refused = r.srv.faults.on(FaultPromptsListRefused)
	case spec.MethodResourcesList:
		refused = r.srv.faults.on(FaultResourcesListRefused)
	}
	if refused {
		return internalError("internal error: %s is unavailable", r.method)
	}
	return nil
}

// faultReadUnknown answers a read of a URI that does not parse as if it
// were an empty text resource (FaultMalformedURIServed).
func (r *request) faultReadUnknown(uri string) (any, error, bool) {
	if r.srv.faults.on(FaultMalformedURIServed) && !faultURIWellFormed(uri) {
		return mcp.ReadResourceResult{Contents: []mcp.ResourceContents{mcp.TextContents(uri, "text/plain", "")}, Cacheable: cache(r, 0, mcp.CachePrivate)}, nil, true
	}
	return nil, nil, false
}

// faultURIWellFormed reports whether uri parses and its percent-encoding is
// valid (url.Parse leaves the opaque part of "scheme:%zz" unchecked).
func faultURIWellFormed(uri string) bool {
	_, perr := url.Parse(uri)
	_, uerr := url.PathUnescape(uri)
	return perr == nil && uerr == nil
}

// faultUnknownTool is the tool a call of an unknown name runs: one whose
// name matches in another case (FaultToolNamesCaseInsensitive), or a
// stand-in that succeeds (FaultUnknownToolServed); nil otherwise.
func (s *Server) faultUnknownTool(name string) *toolFixture {
	if s.faults.on(FaultToolNamesCaseInsensitive) {
		s.fx.mu.RLock()
		defer s.fx.mu.RUnlock()
		for n, t := range s.fx.tools {
			if strings.EqualFold(n, name) {
				return t
			}
		}
		return nil
	}
	if s.faults.on(FaultUnknownToolServed) {
		return &toolFixture{def: noArgsTool(name), run: constText("called " + name)}
	}
	return nil
}

// faultAssumeVersion gives a request whose _meta names client capabilities
// but no protocol version the newest stateless version
// (FaultMetaVersionAssumed).
func (s *Server) faultAssumeVersion(b []byte) []byte {
	if !s.faults.on(FaultMetaVersionAssumed) || !mayHoldMeta(b) {
		return b
	}
	var m map[string]json.RawMessage
	var p map[string]json.RawMessage
	var meta map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || json.Unmarshal(m["params"], &p) != nil || json.Unmarshal(p["_meta"], &meta) != nil || meta == nil {
		return b
	}
	if _, has := meta[mcp.MetaProtocolVersion]; has {
		return b
	}
	if _, has := meta[mcp.MetaClientCapabilities]; !has {
		return b
	}
	meta[mcp.MetaProtocolVersion], _ = json.Marshal(spec.V20260728)
	p["_meta"], _ = json.Marshal(meta)
	m["params"], _ = json.Marshal(p)
	out, err := json.Marshal(m)
	if err != nil {
		return b
	}
	return out
}
