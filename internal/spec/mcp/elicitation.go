package mcp

import (
	"encoding/json"
	"fmt"
)

// ElicitMode is the elicitation mode (2025-11-25 on). An absent mode means
// form.
type ElicitMode string

// The elicitation modes.
const (
	ElicitForm ElicitMode = "form"
	ElicitURL  ElicitMode = "url"
)

// ElicitParams is the params of elicitation/create (2025-06-18 on; in
// 2026-07-28 it is carried inside an InputRequiredResult). It holds both
// modes: form mode (RequestedSchema; Mode "form" or absent) and URL mode
// (2025-11-25 on: Mode "url", URL, and ElicitationID, which 2026-07-28
// removed).
type ElicitParams struct {
	Meta            Meta             `json:"_meta,omitzero"`
	Mode            ElicitMode       `json:"mode,omitempty"`
	Message         string           `json:"message"`
	RequestedSchema *RequestedSchema `json:"requestedSchema,omitempty"`
	URL             string           `json:"url,omitempty"`
	ElicitationID   string           `json:"elicitationId,omitempty"`
	// Task asks the client to run the elicitation as a task (2025-11-25).
	Task *TaskMetadata `json:"task,omitempty"`
}

// EffectiveMode returns Mode, or ElicitForm when it is absent.
func (p *ElicitParams) EffectiveMode() ElicitMode {
	if p.Mode == "" {
		return ElicitForm
	}
	return p.Mode
}

// Validate checks that the params are one of the two modes: form mode needs
// a requested schema and no URL, URL mode needs a URL and no schema.
func (p *ElicitParams) Validate() error {
	switch p.EffectiveMode() {
	case ElicitForm:
		if p.RequestedSchema == nil {
			return fmt.Errorf("mcp: form-mode elicitation has no requestedSchema; add one or set mode to %q", ElicitURL)
		}
		if p.URL != "" {
			return fmt.Errorf("mcp: form-mode elicitation has a url; set mode to %q or drop the url", ElicitURL)
		}
	case ElicitURL:
		if p.URL == "" {
			return fmt.Errorf("mcp: url-mode elicitation has no url")
		}
		if p.RequestedSchema != nil {
			return fmt.Errorf("mcp: url-mode elicitation has a requestedSchema; drop it or use form mode")
		}
	default:
		return fmt.Errorf("mcp: elicitation mode %q is unknown; use %q or %q", p.Mode, ElicitForm, ElicitURL)
	}
	return nil
}

// RequestedSchema is the flat object schema of a form-mode elicitation:
// every property is a primitive schema.
type RequestedSchema struct {
	Schema     string                     `json:"$schema,omitempty"`
	Type       string                     `json:"type"`
	Properties map[string]PrimitiveSchema `json:"properties"`
	Required   []string                   `json:"required,omitzero"`
}

// PrimitiveKind classifies a PrimitiveSchema.
type PrimitiveKind string

// The primitive schema kinds. The enum kinds other than EnumLegacy are
// 2025-11-25 on.
const (
	KindString        PrimitiveKind = "string"
	KindNumber        PrimitiveKind = "number"
	KindInteger       PrimitiveKind = "integer"
	KindBoolean       PrimitiveKind = "boolean"
	KindEnum          PrimitiveKind = "enum"           // untitled single-select
	KindTitledEnum    PrimitiveKind = "titled-enum"    // titled single-select (oneOf)
	KindMultiEnum     PrimitiveKind = "multi-enum"     // untitled multi-select
	KindTitledMulti   PrimitiveKind = "titled-multi"   // titled multi-select (items.anyOf)
	KindLegacyEnum    PrimitiveKind = "legacy-enum"    // enum with enumNames
	KindUnknownSchema PrimitiveKind = "unknown-schema" // none of the above
)

// PrimitiveSchema is one property schema of a form-mode elicitation (the
// PrimitiveSchemaDefinition union, 2025-06-18 on): a string (format,
// minLength, maxLength), number or integer (minimum, maximum), boolean, or
// an enum — untitled or titled, single- or multi-select (2025-11-25), or
// the legacy form with enumNames. Defaults are allowed on every kind since
// 2025-11-25. Kind tells which one it is.
type PrimitiveSchema struct {
	Type        string `json:"type"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Format is one of "email", "uri", "date", "date-time" (strings).
	Format    string   `json:"format,omitempty"`
	MinLength *int64   `json:"minLength,omitempty"`
	MaxLength *int64   `json:"maxLength,omitempty"`
	Minimum   *float64 `json:"minimum,omitempty"`
	Maximum   *float64 `json:"maximum,omitempty"`
	// Enum lists the allowed values of an untitled or legacy enum.
	Enum []string `json:"enum,omitzero"`
	// EnumNames are display names of a legacy titled enum.
	EnumNames []string `json:"enumNames,omitzero"`
	// OneOf lists the options of a titled single-select enum.
	OneOf []EnumOption `json:"oneOf,omitzero"`
	// Items describes the options of a multi-select enum.
	Items    *EnumItems `json:"items,omitempty"`
	MinItems *int64     `json:"minItems,omitempty"`
	MaxItems *int64     `json:"maxItems,omitempty"`
	// Default is the default value: a string, number, boolean or array of
	// strings depending on the kind.
	Default json.RawMessage `json:"default,omitempty"`
}

// EnumOption is one titled option of an enum.
type EnumOption struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// EnumItems is the items schema of a multi-select enum: untitled
// (Type "string", Enum) or titled (AnyOf).
type EnumItems struct {
	Type  string       `json:"type,omitempty"`
	Enum  []string     `json:"enum,omitzero"`
	AnyOf []EnumOption `json:"anyOf,omitzero"`
}

// Kind classifies the schema.
func (s PrimitiveSchema) Kind() PrimitiveKind {
	switch s.Type {
	case "string":
		switch {
		case s.OneOf != nil:
			return KindTitledEnum
		case s.Enum != nil && s.EnumNames != nil:
			return KindLegacyEnum
		case s.Enum != nil:
			return KindEnum
		}
		return KindString
	case "number":
		return KindNumber
	case "integer":
		return KindInteger
	case "boolean":
		return KindBoolean
	case "array":
		if s.Items != nil {
			if s.Items.AnyOf != nil {
				return KindTitledMulti
			}
			if s.Items.Enum != nil {
				return KindMultiEnum
			}
		}
	}
	return KindUnknownSchema
}

// ElicitAction is the user's answer to an elicitation.
type ElicitAction string

// The elicitation actions.
const (
	ActionAccept  ElicitAction = "accept"
	ActionDecline ElicitAction = "decline"
	ActionCancel  ElicitAction = "cancel"
)

// ElicitResult is the result of elicitation/create (2025-06-18 on).
// Content is present only when the user accepted a form: each value is a
// string, number, boolean or (2025-11-25 on) array of strings.
type ElicitResult struct {
	ResultBase
	Action  ElicitAction               `json:"action"`
	Content map[string]json.RawMessage `json:"content,omitzero"`
}

// ElicitationCompleteParams is the params of
// notifications/elicitation/complete (2025-11-25 only).
type ElicitationCompleteParams struct {
	Meta          Meta   `json:"_meta,omitzero"`
	ElicitationID string `json:"elicitationId"`
}
