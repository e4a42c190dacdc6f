package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// Multi round-trip requests (2026-07-28): instead of sending requests to
// the client, a handler answers with resultType "input_required", a map of
// inputRequests and an opaque requestState. The client retries the same
// method with inputResponses and the state echoed.
//
// requestState is base64url(JSON payload) "." base64url(HMAC-SHA256) under
// a per-server random key. The payload names the tool, a nonce and an
// expiry; a state is accepted once (single use) and only by the tool that
// issued it.

const stateLifetime = 10 * time.Minute

// signState seals payload into a requestState for tool.
func (s *Server) signState(tool string, payload map[string]any) string {
	p := map[string]any{}
	for k, v := range payload {
		p[k] = v
	}
	p["tool"] = tool
	p["nonce"] = s.randomID(12)
	p["exp"] = s.opts.Now().Add(stateLifetime).Unix()
	b, _ := json.Marshal(p)
	body := base64.RawURLEncoding.EncodeToString(b)
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("state|" + body))
	return body + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

var errTampered = &Error{Code: jsonrpc.InvalidParams, Message: "requestState integrity check failed: send back exactly the requestState of the previous input_required result", HTTPStatus: 400}

// verifyState checks a requestState and returns its payload.
func (s *Server) verifyState(tool, state string) (map[string]any, error) {
	body, sig, ok := strings.Cut(state, ".")
	var payload map[string]any
	if ok {
		m := hmac.New(sha256.New, s.key)
		m.Write([]byte("state|" + body))
		want := base64.RawURLEncoding.EncodeToString(m.Sum(nil))
		ok = hmac.Equal([]byte(sig), []byte(want))
	}
	if b, err := base64.RawURLEncoding.DecodeString(body); err == nil {
		_ = json.Unmarshal(b, &payload)
	}
	if s.faults.on(FaultAcceptTamperedState) {
		if payload == nil {
			payload = map[string]any{}
		}
		return payload, nil
	}
	if !ok || payload == nil {
		return nil, errTampered
	}
	if payload["tool"] != tool {
		return nil, &Error{Code: jsonrpc.InvalidParams, Message: "requestState was issued for another tool; retry the tool that returned it", HTTPStatus: 400}
	}
	if exp, _ := payload["exp"].(float64); int64(exp) < s.opts.Now().Unix() {
		return nil, &Error{Code: jsonrpc.InvalidParams, Message: "requestState has expired; call the tool again without it", HTTPStatus: 400}
	}
	nonce, _ := payload["nonce"].(string)
	if !s.useNonce(nonce, int64(0)) {
		return nil, &Error{Code: jsonrpc.InvalidParams, Message: "requestState was already used; each state is accepted once, call the tool again without it", HTTPStatus: 400}
	}
	return payload, nil
}

// useNonce records a state nonce; it reports false when it was used
// before. The record is bounded: the oldest nonces are forgotten first
// (they have expired by then in any realistic use).
func (s *Server) useNonce(nonce string, _ int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nonces == nil {
		s.nonces = map[string]struct{}{}
	}
	if _, used := s.nonces[nonce]; used {
		return false
	}
	s.nonces[nonce] = struct{}{}
	s.nonceOrder = append(s.nonceOrder, nonce)
	if len(s.nonceOrder) > 100000 {
		old := s.nonceOrder[0]
		s.nonceOrder = s.nonceOrder[1:]
		delete(s.nonces, old)
	}
	return true
}

// readInputs decodes the MRTR members of a retried request.
func (c *call) readInputs(inputs json.RawMessage, state *string) error {
	if len(inputs) > 0 {
		if string(inputs) == "null" || inputs[0] != '{' {
			return invalidParams("inputResponses must be an object keyed like the previous inputRequests")
		}
		if err := json.Unmarshal(inputs, &c.inputs); err != nil {
			return invalidParams("inputResponses do not decode: %v", err)
		}
		if c.r.srv.faults.on(FaultInputViaRequest) {
			return faultAskByRequest(c.r, c.inputs)
		}
		if c.r.srv.faults.on(FaultOneConversation) {
			c.inputs = c.r.srv.faultDropStaleInputs(c.inputs)
		}
	}
	if state != nil {
		p, err := c.r.srv.verifyState(c.tool.def.Name, *state)
		if err != nil {
			return err
		}
		c.state = p
	}
	return nil
}

// inputRequired builds an input_required result, after checking that the
// client declared every capability the requests need.
func inputRequired(r *request, reqs map[string]mcp.InputRequest, state string) (any, error) {
	var missing mcp.ClientCapabilities
	need := false
	for _, q := range reqs {
		switch q.Method {
		case "elicitation/create":
			if r.caps.Elicitation == nil {
				missing.Elicitation, need = &mcp.ElicitationCapability{}, true
			}
		case "sampling/createMessage":
			if r.caps.Sampling == nil {
				missing.Sampling, need = &mcp.SamplingCapability{}, true
			}
		case "roots/list":
			if r.caps.Roots == nil {
				missing.Roots, need = &mcp.RootsCapability{}, true
			}
		}
	}
	if need && !r.srv.faults.on(FaultUndeclaredInputKinds) {
		return nil, missingCapability(missing)
	}
	if r.srv.faults.on(FaultOneConversation) {
		r.srv.faultRememberInputs(reqs)
	}
	return &mcp.InputRequiredResult{ResultBase: mcp.ResultBase{ResultType: mcp.ResultInputRequired}, InputRequests: reqs, RequestState: state}, nil
}

// missingCapability is the -32021 error for capabilities the client lacks.
func missingCapability(caps mcp.ClientCapabilities) *Error {
	return &Error{Code: jsonrpc.MissingRequiredClientCapability, Message: "MissingRequiredClientCapabilityError: this request needs client capabilities that the request's _meta does not declare",
		Data: mcp.MissingRequiredClientCapabilityData{RequiredCapabilities: caps}, HTTPStatus: 400}
}

// elicitRequest is a form elicitation asking for one required property.
func elicitRequest(message, prop, typ string) mcp.InputRequest {
	return mcp.InputRequest{Method: "elicitation/create", Params: &mcp.ElicitParams{
		Mode: mcp.ElicitForm, Message: message,
		RequestedSchema: &mcp.RequestedSchema{Type: "object", Properties: map[string]mcp.PrimitiveSchema{prop: {Type: typ}}, Required: []string{prop}},
	}}
}

// samplingRequest is a one-message sampling request.
func samplingRequest(text string, maxTokens int64) mcp.InputRequest {
	return mcp.InputRequest{Method: "sampling/createMessage", Params: &mcp.CreateMessageParams{
		Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Single(&mcp.TextContent{Text: text})}},
		MaxTokens: maxTokens,
	}}
}

func rootsRequest() mcp.InputRequest {
	return mcp.InputRequest{Method: "roots/list", Params: &mcp.ListRootsParams{}}
}

// elicitedString reads content[prop] of an accepted elicitation response.
func elicitedString(raw json.RawMessage, prop string) (string, bool) {
	var er struct {
		Action  string                     `json:"action"`
		Content map[string]json.RawMessage `json:"content"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &er) != nil || er.Action != "accept" {
		return "", false
	}
	var s string
	if json.Unmarshal(er.Content[prop], &s) != nil {
		return "", false
	}
	return s, true
}

// declined returns the action of an elicitation response that declined or
// cancelled ("" for anything else): the server must treat those as
// answers, not ask again.
func declined(raw json.RawMessage) string {
	var er struct {
		Action string `json:"action"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &er) != nil {
		return ""
	}
	if er.Action == "decline" || er.Action == "cancel" {
		return er.Action
	}
	return ""
}

// elicitedValue reads content[prop] of an accepted elicitation response.
func elicitedValue(raw json.RawMessage, prop string) (json.RawMessage, bool) {
	var er struct {
		Action  string                     `json:"action"`
		Content map[string]json.RawMessage `json:"content"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &er) != nil || er.Action != "accept" {
		return nil, false
	}
	v, ok := er.Content[prop]
	return v, ok
}

// sampledText reads the text of a sampling response.
func sampledText(raw json.RawMessage) (string, bool) {
	var res mcp.CreateMessageResult
	if len(raw) == 0 || json.Unmarshal(raw, &res) != nil {
		return "", false
	}
	for _, b := range res.Content.Blocks {
		if t, ok := b.Content.(*mcp.TextContent); ok {
			return t.Text, true
		}
	}
	return "", false
}

// rootCount reads the number of roots of a roots/list response.
func rootCount(raw json.RawMessage) (int, bool) {
	var res struct {
		Roots []json.RawMessage `json:"roots"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &res) != nil || res.Roots == nil {
		return 0, false
	}
	return len(res.Roots), true
}
