package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"sync"

	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec/mcp"
)

// Fault switches that prove the transport, 2026-07-28, tasks, sampling and
// elicitation checks fire. Like those of faults.go, each breaks one catalog
// requirement at one hook point and is off unless named in Options.Faults.
const (
	// Streamable HTTP, HTTP+SSE and stdio.
	FaultResponseOnGetStream    = "response-on-get-stream"
	FaultStatelessStreamRequest = "stateless-stream-request"
	FaultStateBoundToConnection = "state-bound-to-connection"
	FaultEndpointNotFirst       = "endpoint-not-first"
	FaultLegacyResponseInPost   = "legacy-response-in-post"
	FaultStdioServerRequest     = "stdio-server-request"
	FaultStdinEOFIgnored        = "stdin-eof-ignored"
	// 2026-07-28 stateless protocol.
	FaultNoServerDiscover         = "no-server-discover"
	FaultInputViaRequest          = "input-via-request"
	FaultInputRequiredOnComplete  = "input-required-on-complete"
	FaultSamplingInputBadRole     = "sampling-input-bad-role"
	FaultOneConversation          = "one-conversation-at-a-time"
	FaultMissingCapabilityCode    = "missing-capability-wrong-code"
	FaultCapsFromConnection       = "caps-from-connection"
	FaultListenNoSubscriptionID   = "listen-no-subscription-id"
	FaultSamplingToolsUndeclared  = "sampling-tools-undeclared"
	FaultSamplingToolResultsMixed = "sampling-tool-results-mixed"
	// Elicitation.
	FaultElicitURLUndeclared   = "elicit-url-undeclared"
	FaultElicitURLInvalid      = "elicit-url-invalid"
	FaultElicitCompleteWrongID = "elicit-complete-wrong-id"
	// Tasks (2025-11-25).
	FaultTaskCancelTerminalAccepted = "task-cancel-terminal-accepted"
	FaultTaskCancelAnswersWorking   = "task-cancel-answers-working"
	FaultTaskCreatedAtNotRFC3339    = "task-created-at-not-rfc3339"
	FaultTaskIDFromRequestor        = "task-id-from-requestor"
	FaultTaskIDCounter              = "task-ids-counter"
	FaultTaskResultNoRelatedMeta    = "task-result-no-related-meta"
	FaultTaskResultDiffers          = "task-result-differs"
	FaultTaskStatusRelatedMeta      = "task-status-related-meta"
	FaultTasksUndeclaredHonoured    = "tasks-undeclared-honoured"
	FaultUnknownTaskInternalError   = "unknown-task-internal-error"
)

func init() {
	faultTable = append(faultTable, []Fault{
		{FaultResponseOnGetStream, "transport-http.get.no-responses", "with a GET stream open, responses to POSTed requests are sent on the GET stream too"},
		{FaultStatelessStreamRequest, "transport-http.sse.no-server-requests", "a 2026-07-28 POST's response stream starts with a ping request to the client"},
		{FaultStateBoundToConnection, "base.stateless.no-connection-affinity", "a retry carrying a requestState is refused unless it comes on the TCP connection the state was issued on"},
		{FaultEndpointNotFirst, "transport-sse.endpoint-event.on-connect", "the HTTP+SSE stream sends a ping request before its endpoint event"},
		{FaultLegacyResponseInPost, "transport-sse.endpoints.sse-and-post", "HTTP+SSE responses are written in the body of the POST instead of on the SSE stream"},
		{FaultStdioServerRequest, "transport-stdio.messages.server-no-requests", "on stdio every 2026-07-28 request is preceded by a ping request to the client"},
		{FaultStdinEOFIgnored, "transport-stdio.shutdown.server-exits-on-eof", "the stdio server keeps running after its stdin is closed"},
		{FaultNoServerDiscover, "discovery.versioning.server-implements-discover", "server/discover is answered -32601 although 2026-07-28 requests are served"},
		{FaultInputViaRequest, "mrtr.server.input-via-mrtr-only", "a 2026-07-28 retry carrying inputResponses is answered by asking again with elicitation/create requests to the client, then failing"},
		{FaultInputRequiredOnComplete, "mrtr.server.only-supported-requests", "2026-07-28 completion/complete is answered with resultType input_required"},
		{FaultSamplingInputBadRole, "sampling.messages.role-and-content", "the sampling messages of input_required results have role system"},
		{FaultOneConversation, "base.stateless.handle-interleaved-conversations", "only the input_required issued last is honoured: inputResponses to an earlier one are discarded and the input asked again"},
		{FaultMissingCapabilityCode, "base.meta.missing-capability-error", "a request that needs an undeclared client capability is refused with -32602 instead of -32021"},
		{FaultCapsFromConnection, "base.stateless.no-connection-context", "a 2026-07-28 request declaring no client capabilities gets those an earlier request declared"},
		{FaultListenNoSubscriptionID, "subscriptions.meta.notification-carries-subscription-id", "notifications on a subscriptions/listen stream carry no subscriptionId in _meta"},
		{FaultSamplingToolsUndeclared, "sampling.tools.server-requires-tools-capability", "ref_sampling_tools offers tools in sampling/createMessage to a client that did not declare sampling.tools"},
		{FaultSamplingToolResultsMixed, "sampling.messages.tool-results-not-mixed", "in the sampling tool loop the user turn mixes a text block with the tool results"},
		{FaultElicitURLUndeclared, "elicitation.capability.server-respects-modes", "ref_elicit_url sends a url-mode elicitation to a client that declared form mode only"},
		{FaultElicitURLInvalid, "elicitation.url.valid-url", "ref_elicit_url's url-mode elicitation carries a relative url"},
		{FaultElicitCompleteWrongID, "elicitation.complete.carries-elicitation-id", "notifications/elicitation/complete names an elicitationId no elicitation carried"},
		{FaultTaskCancelTerminalAccepted, "tasks.cancel.terminal-invalid-params", "tasks/cancel of a task that already finished succeeds instead of answering -32602"},
		{FaultTaskCancelAnswersWorking, "tasks.cancel.cancelled-before-response", "tasks/cancel answers with the task still reported working"},
		{FaultTaskCreatedAtNotRFC3339, "tasks.ttl.created-at", "the CreateTaskResult gives createdAt as Unix seconds, not an RFC 3339 timestamp"},
		{FaultTaskIDFromRequestor, "tasks.id.receiver-generated", "a taskId the requestor puts in params.task is adopted as the task's id"},
		{FaultTaskIDCounter, "tasks.security.unguessable-ids", "task ids come from a counter (task-1, task-2, ...)"},
		{FaultTaskResultNoRelatedMeta, "tasks.related.result-response-carries-meta", "tasks/result returns the tool result without the related-task _meta"},
		{FaultTaskResultDiffers, "tasks.result.terminal-returns-outcome", "tasks/result of a completed task returns a canned result instead of the call's"},
		{FaultTaskStatusRelatedMeta, "tasks.notify.status-omits-related-meta", "notifications/tasks/status carry the related-task _meta"},
		{FaultTasksUndeclaredHonoured, "tasks.support.undeclared-type-ignores-task", "tasks.requests.tools.call is not declared, yet the task field of tools/call is acted on instead of ignored"},
		{FaultUnknownTaskInternalError, "tasks.errors.protocol-error-codes", "tasks/get, tasks/result and tasks/cancel of an unknown taskId answer -32603 instead of -32602"},
	}...)
}

// faultPingRequest is the request the request-sending faults put on a
// stream.
var faultPingRequest = []byte(`{"jsonrpc":"2.0","id":"mcpcheck-ref-fault-ping","method":"ping"}`)

// faultMemory is what the faults that remember across requests keep, per
// server (allocated only when such a fault is used).
type faultMemory struct {
	mu      sync.Mutex
	taskSeq int
	inputs  map[string]bool         // keys of the input_required issued last
	caps    *mcp.ClientCapabilities // last non-empty capabilities declared
	states  map[string]string       // requestState -> remote address it was issued to
}

var faultMemories sync.Map // *Server -> *faultMemory

func (s *Server) faultMem() *faultMemory {
	m, _ := faultMemories.LoadOrStore(s, &faultMemory{})
	return m.(*faultMemory)
}

// faultTaskID is the task id under FaultTaskIDFromRequestor (the taskId of
// params.task, when given) or FaultTaskIDCounter (task-N).
func (s *Server) faultTaskID(params json.RawMessage, id string) string {
	if s.faults.on(FaultTaskIDFromRequestor) {
		var p struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		}
		if json.Unmarshal(params, &p) == nil && p.Task.TaskID != "" {
			return p.Task.TaskID
		}
	}
	if s.faults.on(FaultTaskIDCounter) {
		m := s.faultMem()
		m.mu.Lock()
		defer m.mu.Unlock()
		m.taskSeq++
		return fmt.Sprintf("task-%d", m.taskSeq)
	}
	return id
}

// getStreamTee sends a request's messages to its POST stream and, under
// FaultResponseOnGetStream, its response to the session's GET stream too.
type getStreamTee struct {
	post, general Sink
	id            jsonrpc.ID
}

func (g getStreamTee) Send(b []byte) error {
	if isResponseTo(b, g.id) {
		_ = g.general.Send(b)
	}
	return g.post.Send(b)
}

// faultAskByRequest asks again for each input a retry answered, with an
// elicitation/create request on the request's stream
// (FaultInputViaRequest), and returns the error the retry then ends with:
// nobody answers requests in 2026-07-28.
func faultAskByRequest(r *request, inputs map[string]json.RawMessage) error {
	keys := make([]string, 0, len(inputs))
	for k := range inputs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		q := elicitRequest("Please confirm your answer to "+k, "value", "string")
		if b, err := jsonrpc.NewRequest(jsonrpc.StringID("mcpcheck-ref-input-"+k), q.Method, q.Params); err == nil {
			_ = r.out.Send(b)
		}
	}
	return internalError("waiting for the client's answers to the %d request(s) sent on the stream", len(keys))
}

// faultBadRoles gives every sampling message of reqs the role system
// (FaultSamplingInputBadRole).
func faultBadRoles(reqs map[string]mcp.InputRequest) map[string]mcp.InputRequest {
	out := make(map[string]mcp.InputRequest, len(reqs))
	for k, q := range reqs {
		if p, ok := q.Params.(*mcp.CreateMessageParams); ok {
			cp := *p
			cp.Messages = append([]mcp.SamplingMessage(nil), p.Messages...)
			for i := range cp.Messages {
				cp.Messages[i].Role = mcp.Role("system")
			}
			q.Params = &cp
		}
		out[k] = q
	}
	return out
}

// faultRememberInputs records the keys of the input_required issued last
// (FaultOneConversation).
func (s *Server) faultRememberInputs(reqs map[string]mcp.InputRequest) {
	m := s.faultMem()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.inputs = map[string]bool{}
	for k := range reqs {
		m.inputs[k] = true
	}
}

// faultDropStaleInputs discards inputResponses that do not answer the
// input_required issued last (FaultOneConversation).
func (s *Server) faultDropStaleInputs(in map[string]json.RawMessage) map[string]json.RawMessage {
	m := s.faultMem()
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range in {
		if !m.inputs[k] {
			return nil
		}
	}
	return in
}

// faultConnCaps returns the capabilities of the last request that declared
// any when caps is empty (FaultCapsFromConnection).
func (s *Server) faultConnCaps(caps mcp.ClientCapabilities) mcp.ClientCapabilities {
	m := s.faultMem()
	m.mu.Lock()
	defer m.mu.Unlock()
	if b, _ := json.Marshal(caps); string(b) == "{}" {
		if m.caps != nil {
			return *m.caps
		}
		return caps
	}
	c := caps
	m.caps = &c
	return caps
}

// faultStateAffinity binds each requestState a JSON answer carries to the
// remote address it went to, and replaces the answer to a retry whose
// requestState was issued to another address by a -32602 error
// (FaultStateBoundToConnection).
func (s *Server) faultStateAffinity(remote string, req, resp []byte, status int) ([]byte, int) {
	var in struct {
		ID     jsonrpc.ID `json:"id"`
		Params struct {
			RequestState string `json:"requestState"`
		} `json:"params"`
	}
	_ = json.Unmarshal(req, &in)
	m := s.faultMem()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.states == nil || len(m.states) > 10000 {
		m.states = map[string]string{}
	}
	if st := in.Params.RequestState; st != "" {
		if to, ok := m.states[st]; ok && to != remote {
			return errorMessage(in.ID, jsonrpc.InvalidParams, "requestState was issued on another connection; send the retry on the connection that started the conversation", nil), http.StatusBadRequest
		}
	}
	var out struct {
		Result struct {
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	if json.Unmarshal(resp, &out) == nil && out.Result.RequestState != "" {
		m.states[out.Result.RequestState] = remote
	}
	return resp, status
}

// faultPostAnswer keeps the response to id (FaultLegacyResponseInPost)
// and passes every other message on to the SSE stream.
type faultPostAnswer struct {
	id   jsonrpc.ID
	rest Sink
	mu   sync.Mutex
	resp []byte
}

func (f *faultPostAnswer) Send(b []byte) error {
	if isResponseTo(b, f.id) {
		f.mu.Lock()
		f.resp = b
		f.mu.Unlock()
		return nil
	}
	return f.rest.Send(b)
}

func (f *faultPostAnswer) response() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.resp
}
