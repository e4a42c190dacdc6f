package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec"
)

// DiscoverParams is the params of server/discover (2026-07-28 on): only the
// required request _meta.
type DiscoverParams = RequestParams

// DiscoverResult is the result of server/discover (2026-07-28 on): the
// versions, capabilities and (in _meta, see Meta.ServerInfo) identity of the
// server, with caching hints.
type DiscoverResult struct {
	ResultBase
	Cacheable
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
}

// InputResponseParams holds the multi round-trip members a client adds when
// it retries tools/call, prompts/get or resources/read (2026-07-28 on). It
// is embedded in those params types.
type InputResponseParams struct {
	// InputResponses answers the previous InputRequiredResult's
	// inputRequests, by the same keys.
	InputResponses map[string]InputResponse `json:"inputResponses,omitzero"`
	// RequestState echoes the previous InputRequiredResult's requestState
	// exactly.
	RequestState string `json:"requestState,omitempty"`
}

// InputRequiredResult is what a server returns from tools/call, prompts/get
// or resources/read when it needs input from the client first (2026-07-28
// on). ResultType is "input_required"; at least one of InputRequests and
// RequestState must be present.
type InputRequiredResult struct {
	ResultBase
	InputRequests map[string]InputRequest `json:"inputRequests,omitzero"`
	RequestState  string                  `json:"requestState,omitempty"`
}

// InputRequest is a server-to-client request carried inside an
// InputRequiredResult (2026-07-28 on): sampling/createMessage,
// elicitation/create or roots/list, with its params decoded by method
// (*CreateMessageParams, *ElicitParams or *ListRootsParams). Params is nil
// when the message had none.
type InputRequest struct {
	Method string
	Params any
}

// MarshalJSON encodes {"method":..., "params":...}, leaving params out when
// nil.
func (r InputRequest) MarshalJSON() ([]byte, error) {
	if !isInputMethod(r.Method) {
		return nil, fmt.Errorf("mcp: input request method %q cannot be carried in inputRequests; use %s", r.Method, strings.Join(inputMethods, ", "))
	}
	type wire struct {
		Method string `json:"method"`
		Params any    `json:"params,omitempty"`
	}
	return json.Marshal(wire{r.Method, r.Params})
}

// UnmarshalJSON decodes the method and its params.
func (r *InputRequest) UnmarshalJSON(data []byte) error {
	var w struct {
		Method *string          `json:"method"`
		Params *json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("mcp: input request: %v", err)
	}
	if w.Method == nil {
		return fmt.Errorf("mcp: input request has no \"method\"; use one of %s", strings.Join(inputMethods, ", "))
	}
	if !isInputMethod(*w.Method) {
		return fmt.Errorf("mcp: input request method %q cannot be carried in inputRequests; use one of %s", *w.Method, strings.Join(inputMethods, ", "))
	}
	r.Method, r.Params = *w.Method, nil
	if w.Params != nil {
		p, err := DecodeParams(*w.Method, *w.Params)
		if err != nil {
			return err
		}
		r.Params = p
	}
	return nil
}

var inputMethods = []string{spec.MethodSamplingCreateMessage, spec.MethodElicitationCreate, spec.MethodRootsList}

func isInputMethod(m string) bool {
	for _, x := range inputMethods {
		if x == m {
			return true
		}
	}
	return false
}

// InputResponse is a client's answer to one InputRequest (2026-07-28 on):
// *ElicitResult, *CreateMessageResult or *ListRootsResult. Decoding tells
// them apart by their required members (action; role, model and content;
// roots); use DecodeAs when the request's method is known.
type InputResponse struct {
	Result any
}

// MarshalJSON encodes the result.
func (r InputResponse) MarshalJSON() ([]byte, error) {
	if r.Result == nil {
		return nil, fmt.Errorf("mcp: input response is empty; set Result to *ElicitResult, *CreateMessageResult or *ListRootsResult")
	}
	return json.Marshal(r.Result)
}

// UnmarshalJSON decodes the result, choosing its type by shape.
func (r *InputResponse) UnmarshalJSON(data []byte) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return fmt.Errorf("mcp: input response is %s; want an object", jsonKind(data))
	}
	var method string
	switch {
	case probe["action"] != nil:
		method = spec.MethodElicitationCreate
	case probe["roots"] != nil:
		method = spec.MethodRootsList
	case probe["model"] != nil || probe["role"] != nil || probe["content"] != nil:
		method = spec.MethodSamplingCreateMessage
	default:
		keys := make([]string, 0, len(probe))
		for k := range probe {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return fmt.Errorf("mcp: input response with members %v is none of ElicitResult (action), ListRootsResult (roots), CreateMessageResult (role, content, model)", keys)
	}
	return r.DecodeAs(method, data)
}

// DecodeAs decodes data as the result of method.
func (r *InputResponse) DecodeAs(method string, data []byte) error {
	if !isInputMethod(method) {
		return fmt.Errorf("mcp: %q is not an input request method", method)
	}
	v := NewResult(method)
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("mcp: input response as %s result: %v", method, err)
	}
	r.Result = v
	return nil
}

// SubscriptionFilter selects the notifications of a subscriptions/listen
// stream (2026-07-28 on). In the acknowledgement it is the subset the server
// agreed to send.
type SubscriptionFilter struct {
	ToolsListChanged      *bool    `json:"toolsListChanged,omitempty"`
	PromptsListChanged    *bool    `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  *bool    `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitzero"`
}

// SubscriptionsListenParams is the params of subscriptions/listen
// (2026-07-28 on).
type SubscriptionsListenParams struct {
	Meta          Meta               `json:"_meta,omitzero"`
	Notifications SubscriptionFilter `json:"notifications"`
}

// SubscriptionsListenResult is the response that ends a subscription
// gracefully (2026-07-28 on). Its _meta must carry the subscription id.
type SubscriptionsListenResult struct {
	ResultBase
}

// SubscriptionsAcknowledgedParams is the params of
// notifications/subscriptions/acknowledged, the first message of a
// subscription (2026-07-28 on).
type SubscriptionsAcknowledgedParams struct {
	Meta          Meta               `json:"_meta,omitzero"`
	Notifications SubscriptionFilter `json:"notifications"`
}

// ResultTypeOf reads the resultType member of a raw result without decoding
// the rest. It returns "" when the member is absent (read it as complete,
// see ResultType.OrComplete) and an error when it is not a string.
func ResultTypeOf(raw json.RawMessage) (ResultType, error) {
	var probe struct {
		ResultType *json.RawMessage `json:"resultType"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return "", fmt.Errorf("mcp: result is %s; want an object", jsonKind(raw))
	}
	if probe.ResultType == nil || bytes.Equal(bytes.TrimSpace(*probe.ResultType), []byte("null")) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(*probe.ResultType, &s); err != nil {
		return "", fmt.Errorf("mcp: resultType is %s; want a string", jsonKind(*probe.ResultType))
	}
	return ResultType(s), nil
}

// SupportsInputRequired reports whether method may be answered with an
// InputRequiredResult in 2026-07-28.
func SupportsInputRequired(method string) bool {
	switch method {
	case spec.MethodToolsCall, spec.MethodPromptsGet, spec.MethodResourcesRead:
		return true
	}
	return false
}

// CacheableMethod reports whether a complete result of method must carry caching
// hints in 2026-07-28.
func CacheableMethod(method string) bool {
	switch method {
	case spec.MethodServerDiscover, spec.MethodToolsList, spec.MethodPromptsList,
		spec.MethodResourcesList, spec.MethodResourcesTemplatesList, spec.MethodResourcesRead:
		return true
	}
	return false
}

// Validate checks the shape rules of an InputRequiredResult: resultType is
// "input_required" and at least one of inputRequests and requestState is
// present. Whether the client declared the capabilities the requests need
// is for the caller to check.
func (r *InputRequiredResult) Validate() error {
	if r.ResultType != ResultInputRequired {
		return fmt.Errorf("mcp: input-required result has resultType %q; want %q", r.ResultType, ResultInputRequired)
	}
	if len(r.InputRequests) == 0 && r.RequestState == "" {
		return fmt.Errorf("mcp: input-required result has neither inputRequests nor requestState; a server must send at least one")
	}
	for key, req := range r.InputRequests {
		if !isInputMethod(req.Method) {
			return fmt.Errorf("mcp: inputRequests[%q] has method %q; use one of %s", key, req.Method, strings.Join(inputMethods, ", "))
		}
	}
	return nil
}
