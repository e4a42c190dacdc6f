package mcp

import "fmt"

// Resource describes a resource a server offers (all versions). Title is
// since 2025-06-18, Icons since 2025-11-25, _meta since 2025-06-18.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
	// Size is the raw content size in bytes, if known.
	Size        *int64       `json:"size,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitzero"`
	Meta        Meta         `json:"_meta,omitzero"`
}

// ResourceTemplate describes a family of resources by an RFC 6570 URI
// template (all versions; Title since 2025-06-18, Icons since 2025-11-25).
type ResourceTemplate struct {
	URITemplate string       `json:"uriTemplate"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MimeType    string       `json:"mimeType,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitzero"`
	Meta        Meta         `json:"_meta,omitzero"`
}

// ResourceContents is the contents of one resource: text
// (TextResourceContents) or base64 binary (BlobResourceContents), told apart
// by which of Text or Blob is set. Exactly one must be set; Validate checks
// that.
type ResourceContents struct {
	URI      string  `json:"uri"`
	MimeType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
	Meta     Meta    `json:"_meta,omitzero"`
}

// TextContents returns text resource contents.
func TextContents(uri, mimeType, text string) ResourceContents {
	return ResourceContents{URI: uri, MimeType: mimeType, Text: &text}
}

// BlobContents returns binary resource contents; blob is base64.
func BlobContents(uri, mimeType, blob string) ResourceContents {
	return ResourceContents{URI: uri, MimeType: mimeType, Blob: &blob}
}

// IsText reports whether the contents are text.
func (r ResourceContents) IsText() bool { return r.Text != nil }

// IsBlob reports whether the contents are binary.
func (r ResourceContents) IsBlob() bool { return r.Blob != nil }

// Validate reports contents that are neither text nor blob, or both.
// Decoding accepts them so that a harness can read the rest of the message
// and report this precisely.
func (r ResourceContents) Validate() error {
	switch {
	case r.Text == nil && r.Blob == nil:
		return fmt.Errorf("mcp: resource contents for %q have neither \"text\" nor \"blob\"; set exactly one", r.URI)
	case r.Text != nil && r.Blob != nil:
		return fmt.Errorf("mcp: resource contents for %q have both \"text\" and \"blob\"; set exactly one", r.URI)
	}
	return nil
}

// ListResourcesResult is the result of resources/list (all versions;
// caching hints 2026-07-28 on).
type ListResourcesResult struct {
	ResultBase
	PaginatedResult
	Cacheable
	Resources []Resource `json:"resources"`
}

// ListResourceTemplatesResult is the result of resources/templates/list.
type ListResourceTemplatesResult struct {
	ResultBase
	PaginatedResult
	Cacheable
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates"`
}

// ReadResourceParams is the params of resources/read (all versions;
// inputResponses and requestState 2026-07-28 on).
type ReadResourceParams struct {
	Meta Meta   `json:"_meta,omitzero"`
	URI  string `json:"uri"`
	InputResponseParams
}

// ReadResourceResult is the complete result of resources/read. In
// 2026-07-28 the server may instead answer with an InputRequiredResult.
type ReadResourceResult struct {
	ResultBase
	Cacheable
	Contents []ResourceContents `json:"contents"`
}

// SubscribeParams is the params of resources/subscribe (2024-11-05 through
// 2025-11-25; replaced by subscriptions/listen in 2026-07-28).
type SubscribeParams struct {
	Meta Meta   `json:"_meta,omitzero"`
	URI  string `json:"uri"`
}

// UnsubscribeParams is the params of resources/unsubscribe (2024-11-05
// through 2025-11-25).
type UnsubscribeParams struct {
	Meta Meta   `json:"_meta,omitzero"`
	URI  string `json:"uri"`
}

// ResourceUpdatedParams is the params of notifications/resources/updated
// (all versions).
type ResourceUpdatedParams struct {
	Meta Meta   `json:"_meta,omitzero"`
	URI  string `json:"uri"`
}
