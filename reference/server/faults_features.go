package server

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec/mcp"
)

// servesBatch reports whether a session of version v serves JSON-RPC
// batches: only 2025-03-26 does (FaultBatchRefused, FaultBatchAnswered).
func (s *Server) servesBatch(v spec.Version) bool {
	if v == spec.V20250326 {
		return !s.faults.on(FaultBatchRefused)
	}
	return v != "" && s.faults.on(FaultBatchAnswered)
}

// faultReplyInvalid answers an invalid message wrongly and reports true
// when FaultParseErrorWrongCode or FaultInvalidRequestResult applies.
func (s *Server) faultReplyInvalid(msg jsonrpc.Message, reply Sink, v spec.Version) bool {
	parse := msg.Has(jsonrpc.ReasonNotJSON) || msg.Has(jsonrpc.ReasonTooDeep) || msg.Has(jsonrpc.ReasonInvalidUTF8)
	batch := msg.Has(jsonrpc.ReasonBatch) || msg.Has(jsonrpc.ReasonEmptyBatch)
	switch {
	case parse && s.faults.on(FaultParseErrorWrongCode):
		_ = reply.Send(errorForVersion(v, msg.ID, jsonrpc.InvalidRequest, "Invalid Request", nil))
		return true
	case !parse && !batch && msg.Shape == jsonrpc.KindRequest && !msg.ID.IsZero() && s.faults.on(FaultInvalidRequestResult):
		b, _ := jsonrpc.NewResponse(msg.ID, struct{}{})
		_ = reply.Send(b)
		return true
	}
	return false
}

// faultErrorResponse spoils an encoded error response
// (FaultErrorWithoutMessage, FaultErrorWithResult).
func (s *Server) faultErrorResponse(b []byte) []byte {
	without, with := s.faults.on(FaultErrorWithoutMessage), s.faults.on(FaultErrorWithResult)
	if !without && !with {
		return b
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return b
	}
	if without {
		var e map[string]json.RawMessage
		if json.Unmarshal(m["error"], &e) == nil {
			delete(e, "message")
			m["error"], _ = json.Marshal(e)
		}
	}
	if with {
		m["result"] = json.RawMessage(`{}`)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return b
	}
	return out
}

// faultNewResponse encodes a successful response to r with result raw:
// string ids longer than 16 characters are cut to 16
// (FaultResultIDTruncated); a ping result carries a Latin-1 string, which
// jsonrpc.NewResponse refuses to encode (FaultLatin1Ping).
func (r *request) faultNewResponse(raw json.RawMessage) ([]byte, error) {
	id := r.id
	if str, ok := id.Str(); ok && len(str) > 16 && r.srv.faults.on(FaultResultIDTruncated) {
		id = jsonrpc.StringID(str[:16])
	}
	if r.method == spec.MethodPing && r.srv.faults.on(FaultLatin1Ping) {
		idb, err := json.Marshal(id)
		if err != nil {
			return nil, err
		}
		return jsonrpc.RawObject(jsonrpc.RawMember{Name: "jsonrpc", Value: []byte(`"2.0"`)}, jsonrpc.RawMember{Name: "id", Value: idb},
			jsonrpc.RawMember{Name: "result", Value: []byte("{\"_meta\":{\"note\":\"caf\xe9\"}}")}), nil
	}
	return jsonrpc.NewResponse(id, raw)
}

// faultMethodNotFound is the error for a method the version does not
// define: -32601, or -32602 (FaultUnknownMethodWrongCode).
func (s *Server) faultMethodNotFound(method string) *Error {
	if s.faults.on(FaultUnknownMethodWrongCode) {
		return invalidParams("Invalid params for %q", method)
	}
	return methodNotFound(method)
}

// faultPing returns the wrong ping result of FaultPingMetaNotObject.
func (s *Server) faultPing() (any, bool) {
	if s.faults.on(FaultPingMetaNotObject) {
		return json.RawMessage(`{"_meta":"pong"}`), true
	}
	return nil, false
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

// faultAfterFinish runs once a request is answered: FaultCancelClientRequest
// cancels the client's request it just answered.
func (r *request) faultAfterFinish() {
	if !r.srv.faults.on(FaultCancelClientRequest) {
		return
	}
	if b, err := jsonrpc.NewNotification(spec.MethodCancelled, map[string]any{"requestId": r.id, "reason": "fault: cancelling the client's request"}); err == nil {
		_ = r.out.Send(b)
	}
}

// faultNotification spoils a notification related to r
// (FaultNotificationWithID gives it the request's id).
func (r *request) faultNotification(b []byte) []byte {
	if !r.srv.faults.on(FaultNotificationWithID) {
		return b
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return b
	}
	m["id"], _ = json.Marshal(r.id)
	out, err := json.Marshal(m)
	if err != nil {
		return b
	}
	return out
}

// faultRequestParams spoils the params of a request to the client
// (FaultRequestProgressTokenFloat).
func (s *Server) faultRequestParams(params any) any {
	if !s.faults.on(FaultRequestProgressTokenFloat) {
		return params
	}
	b, _ := json.Marshal(params)
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(m["_meta"], &meta)
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta["progressToken"] = json.RawMessage(`1.5`)
	m["_meta"], _ = json.Marshal(meta)
	return m
}

// faultInitialize applies the initialize faults to a successful
// handshake and returns the result to send.
func (ss *Session) faultInitialize(r *request, res mcp.InitializeResult) any {
	f := ss.srv.faults
	if f.on(FaultClientCapsAssumed) {
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
	if f.on(FaultRequestBeforeInitialized) {
		r.afterResponse(func() {
			_ = r.out.Send([]byte(`{"jsonrpc":"2.0","id":"ref-early-roots","method":"roots/list"}`))
		})
	}
	if f.on(FaultInitNoServerInfo) {
		b, _ := json.Marshal(res)
		var m map[string]json.RawMessage
		_ = json.Unmarshal(b, &m)
		delete(m, "serverInfo")
		return m
	}
	return res
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
	f := s.faults
	if f.on(FaultPromptsUndeclared) {
		c.Prompts = nil
	}
	if f.on(FaultPromptNotesUndeclared) && c.Prompts != nil {
		c.Prompts = &mcp.ListChangedCapability{}
	}
	if f.on(FaultToolNotesUndeclared) && c.Tools != nil {
		c.Tools = &mcp.ListChangedCapability{}
	}
	if f.on(FaultLoggingUndeclared) {
		c.Logging = nil
	}
	if f.on(FaultCompletionUndeclaredCode) {
		c.Completions = nil
	}
}

// faultInitialized sends what the capability faults send once the client
// says it is initialized, although the capability is not declared.
func (ss *Session) faultInitialized() {
	f := ss.srv.faults
	if f.on(FaultLoggingUndeclared) {
		ss.notifyGeneral(spec.MethodLoggingMessage, mcp.LoggingMessageParams{Level: mcp.LevelInfo, Logger: "reference-server", Data: rawJSON("session initialized")})
	}
	if f.on(FaultPromptNotesUndeclared) {
		ss.notifyGeneral(spec.MethodPromptsListChanged, struct{}{})
	}
	if f.on(FaultToolNotesUndeclared) {
		ss.notifyGeneral(spec.MethodToolsListChanged, struct{}{})
	}
}

// faultComplete answers completion/complete wrongly under the completion
// faults; ok reports that it did.
func (r *request) faultComplete(p *mcp.CompleteParams) (res any, err error, ok bool) {
	f := r.srv.faults
	switch {
	case f.on(FaultCompletionUndeclaredCode):
		return nil, invalidParams("completion/complete: invalid params"), true
	case f.on(FaultCompletionBogusRefServed) && p.Ref.Type != mcp.RefPrompt && p.Ref.Type != mcp.RefResource:
		return mcp.CompleteResult{Completion: mcp.Completion{Values: []string{}, Total: mcp.Int(0), HasMore: mcp.Bool(false)}}, nil, true
	case f.on(FaultCompletionUnknownCode) && p.Ref.Type == mcp.RefPrompt:
		r.srv.fx.mu.RLock()
		x := r.srv.fx.prompts[p.Ref.Name]
		r.srv.fx.mu.RUnlock()
		if x == nil {
			return nil, internalError("internal error completing %q", p.Ref.Name), true
		}
	}
	return nil, nil, false
}

// faultUnsupportedData is the data of the -32022 error: without the
// supported versions under FaultUnsupportedNoList.
func (s *Server) faultUnsupportedData(d mcp.UnsupportedProtocolVersionData) mcp.UnsupportedProtocolVersionData {
	if s.faults.on(FaultUnsupportedNoList) {
		d.Supported = nil
	}
	return d
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

// faultPromptBlock spoils a prompt message's content block
// (FaultPromptImageNotBase64).
func (s *Server) faultPromptBlock(b mcp.ContentBlock) mcp.ContentBlock {
	if img, ok := b.Content.(*mcp.ImageContent); ok && s.faults.on(FaultPromptImageNotBase64) {
		n := *img
		n.Data = "\x89PNG raw bytes, not base64!"
		return mcp.Block(&n)
	}
	return b
}

// faultDropListChanged reports whether a list_changed notification is
// left out (FaultNoPromptsListChanged, FaultNoResourcesListChanged).
func (s *Server) faultDropListChanged(method string) bool {
	switch method {
	case spec.MethodPromptsListChanged:
		return s.faults.on(FaultNoPromptsListChanged)
	case spec.MethodResourcesListChanged:
		return s.faults.on(FaultNoResourcesListChanged)
	}
	return false
}

// faultListRefused refuses a 2026-07-28 list under the list faults.
func (r *request) faultListRefused(fault string) error {
	if r.stateless() && r.srv.faults.on(fault) {
		return internalError("internal error: %s is unavailable", r.method)
	}
	return nil
}

// faultTool spoils a listed tool under the tool listing faults.
func (s *Server) faultTool(t mcp.Tool) mcp.Tool {
	f := s.faults
	switch {
	case t.Name == "test_simple_text" && f.on(FaultInputSchemaNull):
		t.InputSchema = json.RawMessage(`null`)
	case t.Name == "test_simple_text" && f.on(FaultToolNameWithSpace):
		t.Name = "test simple text"
	case t.Name == "ref_structured" && len(t.OutputSchema) > 0 && f.on(FaultOutputSchemaInvalid):
		t.OutputSchema = json.RawMessage(`{"type":"object","properties":{"sum":{"type":"numbr"}}}`)
	case t.Name == "ref_header_params" && f.on(FaultDuplicateXMCPHeader):
		t.InputSchema = json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"priority":{"type":"integer","x-mcp-header":"Priority"},"query":{"type":"string","x-mcp-header":"region"}}}`)
	}
	return t
}

// faultResource spoils a listed resource (FaultResourceURINoScheme).
func (s *Server) faultResource(res mcp.Resource) mcp.Resource {
	if s.faults.on(FaultResourceURINoScheme) {
		res.URI = strings.TrimPrefix(res.URI, "test://")
	}
	return res
}

// faultReadUnknown answers a read of an unknown URI wrongly: a URI that
// does not parse is served (FaultMalformedURIServed), a missing one gets
// -32602 in the legacy versions (FaultNotFoundInvalidParams).
func (r *request) faultReadUnknown(uri string) (any, error, bool) {
	if r.srv.faults.on(FaultMalformedURIServed) && !faultURIWellFormed(uri) {
		return mcp.ReadResourceResult{Contents: []mcp.ResourceContents{mcp.TextContents(uri, "text/plain", "")}, Cacheable: cache(r, 0, mcp.CachePrivate)}, nil, true
	}
	if !r.stateless() && r.srv.faults.on(FaultNotFoundInvalidParams) {
		return nil, invalidParams("Resource not found: %s", uri), true
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

// faultDiscover sends a request to the client before server/discover is
// answered (FaultStatelessServerRequest).
func (r *request) faultDiscover() {
	if r.srv.faults.on(FaultStatelessServerRequest) {
		r.send([]byte(`{"jsonrpc":"2.0","id":"ref-stateless-ping","method":"ping"}`))
	}
}
