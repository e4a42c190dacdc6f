package mcp

import "encoding/json"

// The MarshalJSON methods in this file make values built in Go encode valid
// messages: a required array left nil encodes as [] rather than null, and a
// Tool without an input schema gets the empty object schema. Decoded values
// are unaffected, since decoding never leaves a present array nil.

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// MarshalJSON encodes the result with Content as [] when nil.
func (r CallToolResult) MarshalJSON() ([]byte, error) {
	type plain CallToolResult
	r.Content = orEmpty(r.Content)
	return json.Marshal(plain(r))
}

// MarshalJSON encodes the block with Content as [] when nil.
func (c ToolResultContent) MarshalJSON() ([]byte, error) {
	type plain ToolResultContent
	c.Content = orEmpty(c.Content)
	return json.Marshal(plain(c))
}

// MarshalJSON encodes the result with Tools as [] when nil.
func (r ListToolsResult) MarshalJSON() ([]byte, error) {
	type plain ListToolsResult
	r.Tools = orEmpty(r.Tools)
	return json.Marshal(plain(r))
}

// MarshalJSON encodes the result with Resources as [] when nil.
func (r ListResourcesResult) MarshalJSON() ([]byte, error) {
	type plain ListResourcesResult
	r.Resources = orEmpty(r.Resources)
	return json.Marshal(plain(r))
}

// MarshalJSON encodes the result with ResourceTemplates as [] when nil.
func (r ListResourceTemplatesResult) MarshalJSON() ([]byte, error) {
	type plain ListResourceTemplatesResult
	r.ResourceTemplates = orEmpty(r.ResourceTemplates)
	return json.Marshal(plain(r))
}

// MarshalJSON encodes the result with Contents as [] when nil.
func (r ReadResourceResult) MarshalJSON() ([]byte, error) {
	type plain ReadResourceResult
	r.Contents = orEmpty(r.Contents)
	return json.Marshal(plain(r))
}

// MarshalJSON encodes the result with Prompts as [] when nil.
func (r ListPromptsResult) MarshalJSON() ([]byte, error) {
	type plain ListPromptsResult
	r.Prompts = orEmpty(r.Prompts)
	return json.Marshal(plain(r))
}

// MarshalJSON encodes the result with Messages as [] when nil.
func (r GetPromptResult) MarshalJSON() ([]byte, error) {
	type plain GetPromptResult
	r.Messages = orEmpty(r.Messages)
	return json.Marshal(plain(r))
}

// MarshalJSON encodes the result with Roots as [] when nil.
func (r ListRootsResult) MarshalJSON() ([]byte, error) {
	type plain ListRootsResult
	r.Roots = orEmpty(r.Roots)
	return json.Marshal(plain(r))
}

// MarshalJSON encodes the params with Messages as [] when nil.
func (p CreateMessageParams) MarshalJSON() ([]byte, error) {
	type plain CreateMessageParams
	p.Messages = orEmpty(p.Messages)
	return json.Marshal(plain(p))
}

// MarshalJSON encodes the completion with Values as [] when nil.
func (c Completion) MarshalJSON() ([]byte, error) {
	type plain Completion
	c.Values = orEmpty(c.Values)
	return json.Marshal(plain(c))
}

// MarshalJSON encodes the result with Tasks as [] when nil.
func (r ListTasksResult) MarshalJSON() ([]byte, error) {
	type plain ListTasksResult
	r.Tasks = orEmpty(r.Tasks)
	return json.Marshal(plain(r))
}

// MarshalJSON encodes the result with SupportedVersions as [] when nil.
func (r DiscoverResult) MarshalJSON() ([]byte, error) {
	type plain DiscoverResult
	r.SupportedVersions = orEmpty(r.SupportedVersions)
	return json.Marshal(plain(r))
}

// MarshalJSON encodes the data with Supported as [] when nil.
func (d UnsupportedProtocolVersionData) MarshalJSON() ([]byte, error) {
	type plain UnsupportedProtocolVersionData
	d.Supported = orEmpty(d.Supported)
	return json.Marshal(plain(d))
}

// MarshalJSON encodes the data with Elicitations as [] when nil.
func (d URLElicitationRequiredData) MarshalJSON() ([]byte, error) {
	type plain URLElicitationRequiredData
	d.Elicitations = orEmpty(d.Elicitations)
	return json.Marshal(plain(d))
}

// MarshalJSON encodes the schema with Type "object" and Properties {} when
// they are unset.
func (s RequestedSchema) MarshalJSON() ([]byte, error) {
	type plain RequestedSchema
	if s.Type == "" {
		s.Type = "object"
	}
	if s.Properties == nil {
		s.Properties = map[string]PrimitiveSchema{}
	}
	return json.Marshal(plain(s))
}

// emptyObjectSchema is the input schema of a tool that takes no arguments.
var emptyObjectSchema = json.RawMessage(`{"type":"object"}`)

// MarshalJSON encodes the tool with InputSchema {"type":"object"} when it is
// unset.
func (t Tool) MarshalJSON() ([]byte, error) {
	type plain Tool
	if len(t.InputSchema) == 0 {
		t.InputSchema = emptyObjectSchema
	}
	return json.Marshal(plain(t))
}

// MarshalJSON encodes a nil payload as {}.
func (r GetTaskPayloadResult) MarshalJSON() ([]byte, error) {
	if r == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(map[string]json.RawMessage(r))
}
