package mcp

import "encoding/json"

// Tool describes a tool a server offers (all versions). Annotations since
// 2025-03-26; Title, OutputSchema and _meta since 2025-06-18; Icons and
// Execution since 2025-11-25 (Execution only in 2025-11-25: tasks left the
// core protocol in 2026-07-28).
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema is a JSON Schema object whose root type is "object". In
	// 2026-07-28 it may use any 2020-12 keyword, and property schemas may
	// carry the x-mcp-header annotation (see headers.go).
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema describes StructuredContent of the tool's results.
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Execution    *ToolExecution   `json:"execution,omitempty"`
	Icons        []Icon           `json:"icons,omitzero"`
	Meta         Meta             `json:"_meta,omitzero"`
}

// ToolAnnotations are untrusted hints about a tool's behaviour (2025-03-26
// on).
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// TaskSupport says whether a tool may be called as a task (2025-11-25).
type TaskSupport string

// The task support levels. Absent means forbidden.
const (
	TaskForbidden TaskSupport = "forbidden"
	TaskOptional  TaskSupport = "optional"
	TaskRequired  TaskSupport = "required"
)

// ToolExecution describes how a tool runs (2025-11-25).
type ToolExecution struct {
	TaskSupport TaskSupport `json:"taskSupport,omitempty"`
}

// ListToolsResult is the result of tools/list (all versions; caching hints
// 2026-07-28 on).
type ListToolsResult struct {
	ResultBase
	PaginatedResult
	Cacheable
	Tools []Tool `json:"tools"`
}

// CallToolParams is the params of tools/call (all versions). Task is
// 2025-11-25 only; InputResponses and RequestState are 2026-07-28 on.
type CallToolParams struct {
	Meta      Meta            `json:"_meta,omitzero"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Task asks the server to run the call as a task (2025-11-25).
	Task *TaskMetadata `json:"task,omitempty"`
	InputResponseParams
}

// CallToolResult is the complete result of tools/call (all versions). In
// 2025-11-25 a task-augmented call answers with a CreateTaskResult instead,
// and in 2026-07-28 the server may answer with an InputRequiredResult.
type CallToolResult struct {
	ResultBase
	Content []ContentBlock `json:"content"`
	// StructuredContent is the tool's structured output (2025-06-18 on): an
	// object until 2025-11-25, any JSON value in 2026-07-28.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           *bool           `json:"isError,omitempty"`
}
