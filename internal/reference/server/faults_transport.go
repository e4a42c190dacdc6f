package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

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
