package mcp

import "encoding/json"

// IncludeContext asks the client to add MCP context to a sampling prompt.
type IncludeContext string

// The includeContext values. ThisServer and AllServers are soft-deprecated
// from 2025-11-25 and need the sampling.context capability.
const (
	IncludeNone       IncludeContext = "none"
	IncludeThisServer IncludeContext = "thisServer"
	IncludeAllServers IncludeContext = "allServers"
)

// CreateMessageParams is the params of sampling/createMessage (all
// versions). Tools and ToolChoice are 2025-11-25 on; Task is 2025-11-25
// only. In 2026-07-28 it is carried inside an InputRequiredResult.
type CreateMessageParams struct {
	Meta             Meta              `json:"_meta,omitzero"`
	Messages         []SamplingMessage `json:"messages"`
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	IncludeContext   IncludeContext    `json:"includeContext,omitempty"`
	Temperature      *float64          `json:"temperature,omitempty"`
	MaxTokens        int64             `json:"maxTokens"`
	StopSequences    []string          `json:"stopSequences,omitzero"`
	// Metadata is passed through to the LLM provider.
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	Tools      []Tool          `json:"tools,omitzero"`
	ToolChoice *ToolChoice     `json:"toolChoice,omitempty"`
	Task       *TaskMetadata   `json:"task,omitempty"`
}

// SamplingMessage is one message of a sampling conversation (all versions;
// array content and _meta since 2025-11-25).
type SamplingMessage struct {
	Role    Role            `json:"role"`
	Content SamplingContent `json:"content,omitzero"`
	Meta    Meta            `json:"_meta,omitzero"`
}

// ModelPreferences are the server's hints for model selection (all
// versions). The priorities range from 0 to 1.
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitzero"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// ModelHint is a model name or family the server would like.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// ToolChoiceMode says whether the model must, may or must not use tools
// (2025-11-25 on).
type ToolChoiceMode string

// The tool choice modes.
const (
	ToolChoiceAuto     ToolChoiceMode = "auto"
	ToolChoiceRequired ToolChoiceMode = "required"
	ToolChoiceNone     ToolChoiceMode = "none"
)

// ToolChoice controls tool use in sampling (2025-11-25 on).
type ToolChoice struct {
	Mode ToolChoiceMode `json:"mode,omitempty"`
}

// Stop reasons the pages name; any other string is allowed.
const (
	StopEndTurn      = "endTurn"
	StopStopSequence = "stopSequence"
	StopMaxTokens    = "maxTokens"
	StopToolUse      = "toolUse"
)

// CreateMessageResult is the result of sampling/createMessage (all
// versions). Content is one block, or (2025-11-25 on) an array.
type CreateMessageResult struct {
	ResultBase
	Role       Role            `json:"role"`
	Content    SamplingContent `json:"content,omitzero"`
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
}
