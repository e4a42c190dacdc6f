package server

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec/mcp"
)

// Fault switches that prove the base, lifecycle and feature checks fire.
// Each breaks one catalog requirement at a hook point named in its
// comment; the helpers below do the faulty thing so that the hooks in the
// serving code stay one line each and change nothing with the switch off.
const (
	FaultBatchRefused              = "batch-refused"                     // isBatchFor
	FaultBatchAnswered             = "batch-answered"                    // isBatchFor
	FaultErrorWithoutMessage       = "error-without-message"             // request.finish
	FaultErrorWithResult           = "error-with-result"                 // request.finish
	FaultInvalidRequestResult      = "invalid-request-result"            // replyInvalid
	FaultParseErrorWrongCode       = "parse-error-wrong-code"            // replyInvalid
	FaultMetaVersionAssumed        = "meta-version-assumed"              // stdioMessage (stdio only)
	FaultStatelessServerRequest    = "stateless-server-request"          // discover
	FaultNotificationWithID        = "notification-with-id"              // request.notify
	FaultServerRequestIDReused     = "server-request-id-reused"          // Session.call
	FaultRequestProgressTokenFloat = "request-progress-token-float"      // Session.call
	FaultResultIDTruncated         = "result-id-truncated"               // request.finish
	FaultNoServerInfoMeta          = "no-server-info-meta"               // encodeResult
	FaultUnknownMethodWrongCode    = "unknown-method-wrong-code"         // dispatch
	FaultLatin1Ping                = "latin1-ping"                       // request.finish
	FaultPingMetaNotObject         = "ping-meta-not-object"              // ping
	FaultStaleCancelAnswered       = "stale-cancel-answered"             // handleNotification
	FaultCancelClientRequest       = "cancel-client-request"             // request.finish
	FaultClientCapsAssumed         = "client-caps-assumed"               // initialize
	FaultInitNoServerInfo          = "init-no-server-info"               // initialize
	FaultRequestBeforeInitialized  = "request-before-initialized"        // initialize
	FaultSecondInitUnanswered      = "second-initialize-unanswered"      // initialize
	FaultUnknownVersionOldest      = "unknown-version-oldest"            // negotiate
	FaultPromptsUndeclared         = "prompts-undeclared"                // capabilities
	FaultPromptNotesUndeclared     = "prompt-notifications-undeclared"   // capabilities, handleNotification
	FaultToolNotesUndeclared       = "tools-list-changed-undeclared"     // capabilities, handleNotification
	FaultLoggingUndeclared         = "logging-undeclared"                // capabilities, handleNotification
	FaultUndeclaredInputKinds      = "undeclared-input-kinds"            // inputRequired
	FaultCompletionBogusRefServed  = "completion-bogus-ref-served"       // complete
	FaultCompletionUndeclaredCode  = "completions-undeclared-wrong-code" // capabilities, complete
	FaultCompletionUnknownCode     = "completion-unknown-prompt-code"    // complete
	FaultCompletionUnbounded       = "completion-values-unbounded"       // complete
	FaultInvalidLogLevelIgnored    = "invalid-log-level-ignored"         // prepareStateless
	FaultUnsupportedNoList         = "unsupported-version-no-list"       // prepareStateless
	FaultCursorLoops               = "cursor-loops"                      // paginate
	FaultProgressWithoutToken      = "progress-without-token"            // call.progress
	FaultPromptImageNotBase64      = "prompt-image-not-base64"           // getPrompt
	FaultPromptArgsUnchecked       = "prompt-arguments-unchecked"        // getPrompt
	FaultUnknownPromptWrongCode    = "unknown-prompt-wrong-code"         // getPrompt
	FaultNoPromptsListChanged      = "no-prompts-list-changed"           // listChanged
	FaultNoResourcesListChanged    = "no-resources-list-changed"         // listChanged
	FaultPromptsListRefused        = "prompts-list-refused-stateless"    // listPrompts
	FaultResourcesListRefused      = "resources-list-refused-stateless"  // listResources
	FaultToolsListRefused          = "tools-list-refused-stateless"      // listTools
	FaultMalformedURIServed        = "malformed-uri-served"              // readResource
	FaultNotFoundInvalidParams     = "not-found-invalid-params-legacy"   // readResource
	FaultResourceURINoScheme       = "resource-uri-no-scheme"            // listResources
	FaultToolNamesCaseInsensitive  = "tool-names-case-insensitive"       // callTool
	FaultUnknownToolServed         = "unknown-tool-served"               // callTool
	FaultToolArgsUnchecked         = "tool-arguments-unchecked"          // callTool
	FaultInputSchemaNull           = "input-schema-null"                 // listTools
	FaultToolNameWithSpace         = "tool-name-with-space"              // listTools
	FaultOutputSchemaInvalid       = "output-schema-invalid"             // listTools
	FaultDuplicateXMCPHeader       = "duplicate-x-mcp-header"            // listTools
)

func init() {
	faultTable = append(faultTable, []Fault{
		{FaultBatchRefused, "base.batch.receiving-required", "in 2025-03-26 a JSON-RPC batch is refused with -32600 instead of answered with a batch response"},
		{FaultBatchAnswered, "base.jsonrpc.messages-are-jsonrpc-2", "from 2025-06-18 a JSON-RPC batch is still served and answered with a batch (array) response"},
		{FaultErrorWithoutMessage, "base.response.error-has-code-and-message", "error responses to requests carry no message member"},
		{FaultErrorWithResult, "base.response.not-both-result-and-error", "error responses to requests also carry an empty result member"},
		{FaultInvalidRequestResult, "base.jsonrpc.messages-are-jsonrpc-2", "a message that is not a valid request object (its method is not a string) is answered with an empty result"},
		{FaultParseErrorWrongCode, "base.jsonrpc.messages-are-jsonrpc-2", "a line that is not JSON is answered with -32600 (Invalid Request) instead of -32700 (Parse error)"},
		{FaultMetaVersionAssumed, "base.meta.missing-required-invalid-params", "on stdio a request whose _meta names client capabilities but no protocol version is served as 2026-07-28 instead of refused with -32602"},
		{FaultStatelessServerRequest, "base.patterns.server-never-sends-requests", "in 2026-07-28 server/discover sends a ping request to the client before its answer"},
		{FaultNotificationWithID, "base.notification.no-id", "notifications related to a request (progress, log messages) carry that request's id"},
		{FaultServerRequestIDReused, "base.request.id-unique-in-session", "every request to the client carries id 1, so request ids repeat within a session"},
		{FaultRequestProgressTokenFloat, "progress.token.string-or-integer", "requests to the client carry a progressToken that is the number 1.5, neither a string nor an integer"},
		{FaultResultIDTruncated, "base.response.id-matches-request", "string request ids longer than 16 characters are cut to 16 in successful responses"},
		{FaultNoServerInfoMeta, "base.meta.server-info-on-results", "2026-07-28 results other than server/discover lack io.modelcontextprotocol/serverInfo in _meta"},
		{FaultUnknownMethodWrongCode, "base.jsonrpc.messages-are-jsonrpc-2", "a method the version does not define is answered -32602 instead of -32601 (Method not found)"},
		{FaultLatin1Ping, "base.messages.utf8", "ping results carry a Latin-1 encoded string (byte 0xE9), which is not UTF-8"},
		{FaultPingMetaNotObject, "base.jsonrpc.messages-are-jsonrpc-2", "ping results carry a _meta that is a string, not an object, against the version's schema"},
		{FaultStaleCancelAnswered, "cancellation.invalid.ignored", "a notifications/cancelled naming no request in flight (unknown, already answered, or no requestId) is answered with an error"},
		{FaultCancelClientRequest, "cancellation.notify.only-in-flight-same-direction", "after answering a request the server sends notifications/cancelled naming the client's request"},
		{FaultClientCapsAssumed, "lifecycle.operation.respect-negotiated", "every client capability is taken as declared whatever initialize said, so sampling, elicitation and roots requests go to a client that declared none"},
		{FaultInitNoServerInfo, "lifecycle.initialize.server-replies-capabilities", "the initialize result has no serverInfo"},
		{FaultRequestBeforeInitialized, "lifecycle.initialize.server-only-ping-logging-before-initialized", "a roots/list request goes to the client right after the initialize response, before notifications/initialized"},
		{FaultSecondInitUnanswered, "lifecycle.errors.handle-negotiation-failures", "a second initialize on a live session gets no answer"},
		{FaultUnknownVersionOldest, "versioning.initialize.server-counters-latest", "initialize with an unknown version is answered with the oldest supported version instead of the newest"},
		{FaultPromptsUndeclared, "prompts.capability.server-declares", "the prompts capability is not declared, though prompts/list serves prompts"},
		{FaultPromptNotesUndeclared, "prompts.capability.both-respect-negotiation", "prompts.listChanged is not declared, yet notifications/prompts/list_changed is sent once the session is initialized"},
		{FaultToolNotesUndeclared, "lifecycle.operation.respect-negotiated", "tools.listChanged is not declared, yet notifications/tools/list_changed is sent once the session is initialized"},
		{FaultLoggingUndeclared, "logging.capability.server-declares", "the logging capability is not declared, yet a log notification is sent once the session is initialized"},
		{FaultUndeclaredInputKinds, "mrtr.server.only-declared-input-kinds", "input_required results ask for input kinds (elicitation, sampling, roots) the client did not declare instead of answering -32021"},
		{FaultCompletionBogusRefServed, "security.completion.input-and-disclosure", "completion/complete with a reference of an unknown type is answered with an empty completion instead of an error"},
		{FaultCompletionUndeclaredCode, "completion.errors.standard-codes", "the completions capability is not declared and completion/complete is answered -32602 instead of -32601"},
		{FaultCompletionUnknownCode, "completion.errors.standard-codes", "completion/complete for a prompt the server does not have is answered -32603 instead of -32602"},
		{FaultCompletionUnbounded, "completion.server.quality-and-limits", "completion/complete returns every match, more than 100 values"},
		{FaultInvalidLogLevelIgnored, "logging.per-request.invalid-level-rejected", "a 2026-07-28 request whose _meta logLevel is not a syslog level is served instead of refused with -32602"},
		{FaultUnsupportedNoList, "versioning.negotiation.unsupported-version-error", "the -32022 answer to an unsupported protocol version has no data.supported"},
		{FaultCursorLoops, "pagination.server.stable-cursors", "every nextCursor points to the end of the first page, so a walk of a list never ends"},
		{FaultProgressWithoutToken, "progress.notify.only-active-tokens", "requests without a progressToken get progress notifications with a token the server made up"},
		{FaultPromptImageNotBase64, "prompts.content.image-base64-mime", "image content in prompts/get messages is sent as raw text, not base64"},
		{FaultPromptArgsUnchecked, "prompts.get.server-validates-arguments", "prompts/get without a required argument is served as if the argument were empty"},
		{FaultUnknownPromptWrongCode, "prompts.errors.standard-codes", "prompts/get of a prompt the server does not have is answered -32603 instead of -32602"},
		{FaultNoPromptsListChanged, "prompts.list-changed.server-notifies", "the prompt list changes without notifications/prompts/list_changed although listChanged is declared"},
		{FaultNoResourcesListChanged, "resources.list-changed.server-notifies", "the resource list changes without notifications/resources/list_changed although listChanged is declared"},
		{FaultPromptsListRefused, "prompts.list.current-set-for-caller", "2026-07-28 prompts/list is answered with -32603 instead of the current prompts"},
		{FaultResourcesListRefused, "resources.list.current-set-for-caller", "2026-07-28 resources/list is answered with -32603 instead of the current resources"},
		{FaultToolsListRefused, "tools.list.current-set-for-caller", "2026-07-28 tools/list is answered with -32603 instead of the current tools"},
		{FaultMalformedURIServed, "security.resources.validate-uris", "resources/read of a URI that does not parse is served as an empty text resource instead of refused"},
		{FaultNotFoundInvalidParams, "resources.errors.standard-codes-legacy", "up to 2025-11-25 reading a resource that does not exist is answered -32602 instead of -32002"},
		{FaultResourceURINoScheme, "resources.uri.custom-scheme-rfc3986", "resources/list gives the test:// resources without their scheme"},
		{FaultToolNamesCaseInsensitive, "tools.name.case-sensitive", "tools/call finds a tool whose name differs from the one called only in case"},
		{FaultUnknownToolServed, "security.tools.server-hardening", "calling a tool the server does not have succeeds with a text result"},
		{FaultToolArgsUnchecked, "security.tools.server-hardening", "tools/call runs a tool without checking its arguments against the inputSchema"},
		{FaultInputSchemaNull, "tools.input-schema.valid-object-schema", "test_simple_text is listed with inputSchema null"},
		{FaultToolNameWithSpace, "tools.name.allowed-characters", "test_simple_text is listed as \"test simple text\", a name with spaces"},
		{FaultOutputSchemaInvalid, "base.schema.schemas-valid", "ref_structured is listed with an outputSchema that is not a valid JSON Schema (an unknown type)"},
		{FaultDuplicateXMCPHeader, "tools.x-mcp-header.unique-per-schema", "ref_header_params annotates two properties with the same x-mcp-header name"},
	}...)
}

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
