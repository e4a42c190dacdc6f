package mcp

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mcpcheck/mcpcheck/spec"
)

// shape is the registry entry of one method.
type shape struct {
	params func() any
	result func() any // nil for notifications
}

func p[T any]() func() any { return func() any { return new(T) } }

// registry maps every method of spec.Methods to its params and result types.
var registry = map[string]shape{
	spec.MethodInitialize:               {p[InitializeParams](), p[InitializeResult]()},
	spec.MethodInitialized:              {p[NotificationParams](), nil},
	spec.MethodPing:                     {p[RequestParams](), p[EmptyResult]()},
	spec.MethodCancelled:                {p[CancelledNotificationParams](), nil},
	spec.MethodProgress:                 {p[ProgressNotificationParams](), nil},
	spec.MethodToolsList:                {p[PaginatedParams](), p[ListToolsResult]()},
	spec.MethodToolsCall:                {p[CallToolParams](), p[CallToolResult]()},
	spec.MethodToolsListChanged:         {p[NotificationParams](), nil},
	spec.MethodResourcesList:            {p[PaginatedParams](), p[ListResourcesResult]()},
	spec.MethodResourcesRead:            {p[ReadResourceParams](), p[ReadResourceResult]()},
	spec.MethodResourcesTemplatesList:   {p[PaginatedParams](), p[ListResourceTemplatesResult]()},
	spec.MethodResourcesSubscribe:       {p[SubscribeParams](), p[EmptyResult]()},
	spec.MethodResourcesUnsubscribe:     {p[UnsubscribeParams](), p[EmptyResult]()},
	spec.MethodResourcesListChanged:     {p[NotificationParams](), nil},
	spec.MethodResourcesUpdated:         {p[ResourceUpdatedParams](), nil},
	spec.MethodPromptsList:              {p[PaginatedParams](), p[ListPromptsResult]()},
	spec.MethodPromptsGet:               {p[GetPromptParams](), p[GetPromptResult]()},
	spec.MethodPromptsListChanged:       {p[NotificationParams](), nil},
	spec.MethodCompletionComplete:       {p[CompleteParams](), p[CompleteResult]()},
	spec.MethodLoggingSetLevel:          {p[SetLevelParams](), p[EmptyResult]()},
	spec.MethodLoggingMessage:           {p[LoggingMessageParams](), nil},
	spec.MethodRootsList:                {p[RequestParams](), p[ListRootsResult]()},
	spec.MethodRootsListChanged:         {p[NotificationParams](), nil},
	spec.MethodSamplingCreateMessage:    {p[CreateMessageParams](), p[CreateMessageResult]()},
	spec.MethodElicitationCreate:        {p[ElicitParams](), p[ElicitResult]()},
	spec.MethodElicitationComplete:      {p[ElicitationCompleteParams](), nil},
	spec.MethodTasksGet:                 {p[GetTaskParams](), p[GetTaskResult]()},
	spec.MethodTasksResult:              {p[GetTaskPayloadParams](), p[GetTaskPayloadResult]()},
	spec.MethodTasksList:                {p[PaginatedParams](), p[ListTasksResult]()},
	spec.MethodTasksCancel:              {p[CancelTaskParams](), p[CancelTaskResult]()},
	spec.MethodTasksStatus:              {p[TaskStatusParams](), nil},
	spec.MethodServerDiscover:           {p[RequestParams](), p[DiscoverResult]()},
	spec.MethodSubscriptionsListen:      {p[SubscriptionsListenParams](), p[SubscriptionsListenResult]()},
	spec.MethodSubscriptionsAcknowledge: {p[SubscriptionsAcknowledgedParams](), nil},
}

// Known reports whether method is in the registry.
func Known(method string) bool {
	_, ok := registry[method]
	return ok
}

// RegisteredMethods returns every method the registry knows, sorted.
func RegisteredMethods() []string {
	out := make([]string, 0, len(registry))
	for m := range registry {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// NewParams returns a pointer to a zero params value for method (for example
// *CallToolParams for tools/call), or nil when the method is unknown.
func NewParams(method string) any {
	s, ok := registry[method]
	if !ok {
		return nil
	}
	return s.params()
}

// NewResult returns a pointer to a zero value of method's complete result
// type (for example *CallToolResult for tools/call), or nil when the method
// is unknown or is a notification. See DecodeResult for results that may
// take another shape.
func NewResult(method string) any {
	s, ok := registry[method]
	if !ok || s.result == nil {
		return nil
	}
	return s.result()
}

// DecodeParams decodes raw as the params of method. Absent params (nil or
// empty raw) decode as the zero value, which suits the methods whose params
// are optional.
func DecodeParams(method string, raw json.RawMessage) (any, error) {
	v := NewParams(method)
	if v == nil {
		return nil, fmt.Errorf("mcp: unknown method %q: it has no params type; known methods are listed by RegisteredMethods", method)
	}
	if len(raw) == 0 {
		return v, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("mcp: %s params: %v", method, err)
	}
	return v, nil
}

// DecodeResult decodes raw as the result of method, choosing the shape the
// result actually has:
//
//   - resultType "input_required" on tools/call, prompts/get or
//     resources/read gives *InputRequiredResult (2026-07-28);
//   - a "task" object and no "content" on tools/call, or no "model" on
//     sampling/createMessage, or no "action" on elicitation/create, gives
//     *CreateTaskResult (2025-11-25 task-augmented requests);
//   - anything else gives NewResult(method).
//
// An unknown resultType is an error: clients must treat it as invalid.
func DecodeResult(method string, raw json.RawMessage) (any, error) {
	v := NewResult(method)
	if v == nil {
		if Known(method) {
			return nil, fmt.Errorf("mcp: %s is a notification and has no result", method)
		}
		return nil, fmt.Errorf("mcp: unknown method %q: it has no result type", method)
	}
	rt, err := ResultTypeOf(raw)
	if err != nil {
		return nil, fmt.Errorf("mcp: %s result: %v", method, err)
	}
	switch {
	case rt == ResultInputRequired:
		if !SupportsInputRequired(method) {
			return nil, fmt.Errorf("mcp: %s result has resultType %q, which only tools/call, prompts/get and resources/read may return", method, rt)
		}
		v = &InputRequiredResult{}
	case rt != "" && !rt.Known():
		return nil, fmt.Errorf("mcp: %s result has unknown resultType %q; want %q or %q", method, rt, ResultComplete, ResultInputRequired)
	case isCreateTaskResult(method, raw):
		v = &CreateTaskResult{}
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("mcp: %s result: %v", method, err)
	}
	return v, nil
}

// isCreateTaskResult tells a 2025-11-25 CreateTaskResult from the normal
// result of a task-augmentable method.
func isCreateTaskResult(method string, raw json.RawMessage) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(raw, &probe) != nil || probe["task"] == nil {
		return false
	}
	switch method {
	case spec.MethodToolsCall:
		return probe["content"] == nil
	case spec.MethodSamplingCreateMessage:
		return probe["model"] == nil
	case spec.MethodElicitationCreate:
		return probe["action"] == nil
	}
	return false
}
