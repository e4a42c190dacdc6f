package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec"
)

// ContentType is the "type" discriminator of a content block.
type ContentType string

// The content types of every version.
const (
	// ContentText is TextContent (all versions).
	ContentText ContentType = "text"
	// ContentImage is ImageContent (all versions).
	ContentImage ContentType = "image"
	// ContentAudio is AudioContent (2025-03-26 on).
	ContentAudio ContentType = "audio"
	// ContentResourceLink is ResourceLink (2025-06-18 on).
	ContentResourceLink ContentType = "resource_link"
	// ContentResource is EmbeddedResource (all versions).
	ContentResource ContentType = "resource"
	// ContentToolUse is ToolUseContent, sampling only (2025-11-25 on).
	ContentToolUse ContentType = "tool_use"
	// ContentToolResult is ToolResultContent, sampling only (2025-11-25 on).
	ContentToolResult ContentType = "tool_result"
)

// ContentTypes lists every content type, in the order above.
var ContentTypes = []ContentType{ContentText, ContentImage, ContentAudio, ContentResourceLink, ContentResource, ContentToolUse, ContentToolResult}

// Since is the first version that defines the content type, or "" when t is
// not a content type.
func (t ContentType) Since() spec.Version {
	switch t {
	case ContentText, ContentImage, ContentResource:
		return spec.V20241105
	case ContentAudio:
		return spec.V20250326
	case ContentResourceLink:
		return spec.V20250618
	case ContentToolUse, ContentToolResult:
		return spec.V20251125
	}
	return ""
}

// InContentBlock reports whether t may appear where the protocol expects a
// ContentBlock: tool results, prompt messages, tool_result content.
func (t ContentType) InContentBlock() bool {
	switch t {
	case ContentText, ContentImage, ContentAudio, ContentResourceLink, ContentResource:
		return true
	}
	return false
}

// InSampling reports whether t may appear in a sampling message or result.
func (t ContentType) InSampling() bool {
	switch t {
	case ContentText, ContentImage, ContentAudio, ContentToolUse, ContentToolResult:
		return true
	}
	return false
}

// Content is one variant of the content sum type. It is closed: only the
// types of this package implement it.
type Content interface {
	// ContentType is the variant's "type" discriminator.
	ContentType() ContentType
	isContent()
}

// TextContent is text (all versions; _meta since 2025-06-18).
type TextContent struct {
	Text        string       `json:"text"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitzero"`
}

// ImageContent is a base64-encoded image (all versions).
type ImageContent struct {
	Data        string       `json:"data"`
	MimeType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitzero"`
}

// AudioContent is base64-encoded audio (2025-03-26 on).
type AudioContent struct {
	Data        string       `json:"data"`
	MimeType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitzero"`
}

// ResourceLink points at a resource the client may read (2025-06-18 on).
// Its members are those of Resource.
type ResourceLink struct {
	Resource
}

// EmbeddedResource carries a resource's contents inline (all versions).
type EmbeddedResource struct {
	Resource    ResourceContents `json:"resource"`
	Annotations *Annotations     `json:"annotations,omitempty"`
	Meta        Meta             `json:"_meta,omitzero"`
}

// ToolUseContent is a model's request to call a tool, in sampling
// (2025-11-25 on).
type ToolUseContent struct {
	// ID identifies this tool use; a later tool_result refers to it.
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
	Meta  Meta            `json:"_meta,omitzero"`
}

// ToolResultContent is the result of a tool use, in sampling (2025-11-25
// on).
type ToolResultContent struct {
	ToolUseID string         `json:"toolUseId"`
	Content   []ContentBlock `json:"content"`
	// StructuredContent is an object in 2025-11-25 and any JSON value in
	// 2026-07-28.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           *bool           `json:"isError,omitempty"`
	Meta              Meta            `json:"_meta,omitzero"`
}

// ContentType implements Content.
func (*TextContent) ContentType() ContentType { return ContentText }

// ContentType implements Content.
func (*ImageContent) ContentType() ContentType { return ContentImage }

// ContentType implements Content.
func (*AudioContent) ContentType() ContentType { return ContentAudio }

// ContentType implements Content.
func (*ResourceLink) ContentType() ContentType { return ContentResourceLink }

// ContentType implements Content.
func (*EmbeddedResource) ContentType() ContentType { return ContentResource }

// ContentType implements Content.
func (*ToolUseContent) ContentType() ContentType { return ContentToolUse }

// ContentType implements Content.
func (*ToolResultContent) ContentType() ContentType { return ContentToolResult }

func (*TextContent) isContent()       {}
func (*ImageContent) isContent()      {}
func (*AudioContent) isContent()      {}
func (*ResourceLink) isContent()      {}
func (*EmbeddedResource) isContent()  {}
func (*ToolUseContent) isContent()    {}
func (*ToolResultContent) isContent() {}

// newContent returns a zero value of the variant named by t, or nil.
func newContent(t ContentType) Content {
	switch t {
	case ContentText:
		return &TextContent{}
	case ContentImage:
		return &ImageContent{}
	case ContentAudio:
		return &AudioContent{}
	case ContentResourceLink:
		return &ResourceLink{}
	case ContentResource:
		return &EmbeddedResource{}
	case ContentToolUse:
		return &ToolUseContent{}
	case ContentToolResult:
		return &ToolResultContent{}
	}
	return nil
}

// ContentBlock holds one content variant and is what messages contain. It
// encodes as the variant's members plus "type"; decoding reads "type" and
// rejects a missing, non-string or unknown discriminator.
type ContentBlock struct {
	Content Content
}

// Block wraps a content variant.
func Block(c Content) ContentBlock { return ContentBlock{Content: c} }

// Text returns a text block.
func Text(s string) ContentBlock { return Block(&TextContent{Text: s}) }

// IsZero reports whether the block is empty. Members of this type carry
// omitzero, so an absent block stays absent when re-encoded.
func (b ContentBlock) IsZero() bool { return b.Content == nil }

// Type returns the variant's discriminator, or "" for an empty block.
func (b ContentBlock) Type() ContentType {
	if b.Content == nil {
		return ""
	}
	return b.Content.ContentType()
}

// MarshalJSON encodes the variant with its "type" member first. An empty
// block is an error.
func (b ContentBlock) MarshalJSON() ([]byte, error) {
	if b.Content == nil {
		return nil, fmt.Errorf("mcp: content block is empty; set Content to one of %s", contentTypeList())
	}
	body, err := json.Marshal(b.Content)
	if err != nil {
		return nil, err
	}
	return withType(b.Content.ContentType(), body)
}

// withType prepends "type":t to the JSON object body.
func withType(t ContentType, body []byte) ([]byte, error) {
	body = bytes.TrimSpace(body)
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("mcp: %s content encoded as %s, want an object", t, jsonKind(body))
	}
	var buf bytes.Buffer
	buf.WriteString(`{"type":`)
	tb, _ := json.Marshal(string(t))
	buf.Write(tb)
	if rest := bytes.TrimSpace(body[1:]); len(rest) > 0 && rest[0] != '}' {
		buf.WriteByte(',')
	}
	buf.Write(body[1:])
	return buf.Bytes(), nil
}

// UnmarshalJSON decodes a content block, choosing the variant by "type".
func (b *ContentBlock) UnmarshalJSON(data []byte) error {
	t, err := readType(data, "content block")
	if err != nil {
		return err
	}
	c := newContent(ContentType(t))
	if c == nil {
		return fmt.Errorf("mcp: content block has unknown type %q; known types are %s", t, contentTypeList())
	}
	if err := json.Unmarshal(data, c); err != nil {
		return fmt.Errorf("mcp: %s content block: %v", t, err)
	}
	b.Content = c
	return nil
}

// readType extracts the string "type" member of a JSON object.
func readType(data []byte, what string) (string, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return "", fmt.Errorf("mcp: %s is %s; want a JSON object with a \"type\" member", what, jsonKind(data))
	}
	raw, ok := probe["type"]
	if !ok {
		return "", fmt.Errorf("mcp: %s has no \"type\" member; add one of %s", what, contentTypeList())
	}
	var t string
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) || json.Unmarshal(raw, &t) != nil {
		return "", fmt.Errorf("mcp: %s \"type\" is %s; want a string such as %q", what, jsonKind(raw), ContentText)
	}
	return t, nil
}

func contentTypeList() string {
	s := make([]string, len(ContentTypes))
	for i, t := range ContentTypes {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// SamplingContent is the content of a sampling message or result: one block
// in every version, or (2025-11-25 on) an array of blocks. Array records
// which form was on the wire so that a decoded value re-encodes the same
// way; a value with Array false and exactly one block encodes as an object.
type SamplingContent struct {
	Blocks []ContentBlock
	Array  bool
}

// Single returns sampling content of one block, encoded as an object.
func Single(c Content) SamplingContent { return SamplingContent{Blocks: []ContentBlock{Block(c)}} }

// Many returns sampling content encoded as an array (2025-11-25 on).
func Many(cs ...Content) SamplingContent {
	out := SamplingContent{Array: true, Blocks: make([]ContentBlock, len(cs))}
	for i, c := range cs {
		out.Blocks[i] = Block(c)
	}
	return out
}

// IsZero reports whether the content is absent (no blocks, not an array).
// Members of this type carry omitzero.
func (s SamplingContent) IsZero() bool { return s.Blocks == nil && !s.Array }

// MarshalJSON encodes an object when there is one block and Array is false,
// and an array otherwise.
func (s SamplingContent) MarshalJSON() ([]byte, error) {
	if !s.Array && len(s.Blocks) == 1 {
		return json.Marshal(s.Blocks[0])
	}
	if s.Blocks == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(s.Blocks)
}

// UnmarshalJSON accepts one content block or an array of them.
func (s *SamplingContent) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var blocks []ContentBlock
		if err := json.Unmarshal(data, &blocks); err != nil {
			return err
		}
		*s = SamplingContent{Blocks: blocks, Array: true}
		if s.Blocks == nil {
			s.Blocks = []ContentBlock{}
		}
		return nil
	}
	if len(data) == 0 || data[0] != '{' {
		return fmt.Errorf("mcp: sampling content is %s; want a content block object or an array of them", jsonKind(data))
	}
	var b ContentBlock
	if err := json.Unmarshal(data, &b); err != nil {
		return err
	}
	*s = SamplingContent{Blocks: []ContentBlock{b}}
	return nil
}
