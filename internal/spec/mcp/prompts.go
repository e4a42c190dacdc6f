package mcp

// Prompt describes a prompt template a server offers (all versions; Title
// and _meta since 2025-06-18, Icons since 2025-11-25).
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitzero"`
	Icons       []Icon           `json:"icons,omitzero"`
	Meta        Meta             `json:"_meta,omitzero"`
}

// PromptArgument is an argument a prompt accepts (all versions; Title since
// 2025-06-18).
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    *bool  `json:"required,omitempty"`
}

// ListPromptsResult is the result of prompts/list (all versions; caching
// hints 2026-07-28 on).
type ListPromptsResult struct {
	ResultBase
	PaginatedResult
	Cacheable
	Prompts []Prompt `json:"prompts"`
}

// GetPromptParams is the params of prompts/get (all versions;
// inputResponses and requestState 2026-07-28 on).
type GetPromptParams struct {
	Meta      Meta              `json:"_meta,omitzero"`
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitzero"`
	InputResponseParams
}

// GetPromptResult is the complete result of prompts/get. In 2026-07-28 the
// server may instead answer with an InputRequiredResult.
type GetPromptResult struct {
	ResultBase
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// PromptMessage is one message of a prompt (all versions). Its content is a
// ContentBlock variant (text, image, audio, resource_link, resource).
type PromptMessage struct {
	Role    Role         `json:"role"`
	Content ContentBlock `json:"content,omitzero"`
}
