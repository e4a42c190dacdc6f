package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Cursor is an opaque pagination position issued by a server (all versions).
type Cursor = string

// Role is the speaker of a message or the intended reader of content (all
// versions).
type Role string

// The roles every version defines.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Valid reports whether r is one of the defined roles.
func (r Role) Valid() bool { return r == RoleUser || r == RoleAssistant }

// Object is a JSON object whose members mcpcheck does not interpret, such as
// a capability marker ("logging": {}) or an extension's settings. A nil
// Object is absent and is omitted when encoded (fields of this type carry
// omitzero); an empty non-nil Object encodes as {}.
type Object map[string]json.RawMessage

// Present is a convenience for building capability markers: it returns an
// empty, non-nil Object, which encodes as {}.
func Present() Object { return Object{} }

// ProgressToken identifies the request a progress notification belongs to:
// a JSON string or integer (all versions). The zero ProgressToken is absent.
type ProgressToken struct {
	str   string
	num   int64
	isStr bool
	set   bool
}

// StringToken returns a string progress token.
func StringToken(s string) ProgressToken { return ProgressToken{str: s, isStr: true, set: true} }

// IntToken returns an integer progress token.
func IntToken(n int64) ProgressToken { return ProgressToken{num: n, set: true} }

// IsZero reports whether the token is absent.
func (t ProgressToken) IsZero() bool { return !t.set }

// IsString reports whether the token is a JSON string.
func (t ProgressToken) IsString() bool { return t.set && t.isStr }

// Str returns the string value and whether the token is a string.
func (t ProgressToken) Str() (string, bool) { return t.str, t.set && t.isStr }

// Int returns the integer value and whether the token is an integer.
func (t ProgressToken) Int() (int64, bool) { return t.num, t.set && !t.isStr }

// String renders the token as it appears on the wire (strings quoted).
func (t ProgressToken) String() string {
	switch {
	case !t.set:
		return "<none>"
	case t.isStr:
		return strconv.Quote(t.str)
	}
	return strconv.FormatInt(t.num, 10)
}

// MarshalJSON encodes the token; an absent token encodes as null, so fields
// of this type carry omitzero.
func (t ProgressToken) MarshalJSON() ([]byte, error) {
	switch {
	case !t.set:
		return []byte("null"), nil
	case t.isStr:
		return json.Marshal(t.str)
	}
	return strconv.AppendInt(nil, t.num, 10), nil
}

// UnmarshalJSON accepts a JSON string or an integer that fits in int64.
func (t *ProgressToken) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return fmt.Errorf("mcp: empty progress token")
	}
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("mcp: progress token is not a valid JSON string: %v", err)
		}
		*t = StringToken(s)
		return nil
	case 'n', 't', 'f', '{', '[':
		return fmt.Errorf("mcp: progress token is %s; it must be a string or an integer", jsonKind(b))
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("mcp: progress token %s is not an integer that fits in 64 bits; it must be a string or an integer", b)
	}
	*t = IntToken(n)
	return nil
}

// NullableInt is an integer member that may be absent, null, or a value,
// such as Task.ttl (null means unlimited). The zero NullableInt is absent;
// fields of this type carry omitzero.
type NullableInt struct {
	value   int64
	null    bool
	present bool
}

// IntValue returns a present, non-null NullableInt.
func IntValue(n int64) NullableInt { return NullableInt{value: n, present: true} }

// Null returns a present NullableInt whose value is JSON null.
func Null() NullableInt { return NullableInt{null: true, present: true} }

// IsZero reports whether the member is absent.
func (n NullableInt) IsZero() bool { return !n.present }

// IsNull reports whether the member is present and null.
func (n NullableInt) IsNull() bool { return n.present && n.null }

// Get returns the value and whether the member is present and not null.
func (n NullableInt) Get() (int64, bool) { return n.value, n.present && !n.null }

// MarshalJSON encodes the value, or null when it is null or absent.
func (n NullableInt) MarshalJSON() ([]byte, error) {
	if !n.present || n.null {
		return []byte("null"), nil
	}
	return strconv.AppendInt(nil, n.value, 10), nil
}

// UnmarshalJSON accepts null or an integer that fits in int64.
func (n *NullableInt) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*n = Null()
		return nil
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("mcp: %s is %s; want an integer or null", truncate(b), jsonKind(b))
	}
	*n = IntValue(v)
	return nil
}

// Annotations are hints about how content or a resource is meant to be used
// (all versions; lastModified since 2025-06-18). In 2024-11-05 the same
// members sat in an "annotations" object of the Annotated base type.
type Annotations struct {
	// Audience lists who the content is intended for.
	Audience []Role `json:"audience,omitzero"`
	// Priority is the importance, from 0 (optional) to 1 (required).
	Priority *float64 `json:"priority,omitempty"`
	// LastModified is an ISO 8601 timestamp (since 2025-06-18).
	LastModified string `json:"lastModified,omitempty"`
}

// IconTheme says which UI theme an icon is designed for (2025-11-25 on).
type IconTheme string

// The icon themes.
const (
	IconThemeLight IconTheme = "light"
	IconThemeDark  IconTheme = "dark"
)

// Icon is a displayable image for an implementation, tool, prompt, resource
// or template (2025-11-25 on).
type Icon struct {
	// Src is an http(s) or data: URI of the image.
	Src string `json:"src"`
	// MimeType overrides the type the source would otherwise indicate.
	MimeType string `json:"mimeType,omitempty"`
	// Sizes lists sizes such as "48x48" or "any".
	Sizes []string `json:"sizes,omitzero"`
	// Theme is the UI theme the icon suits.
	Theme IconTheme `json:"theme,omitempty"`
}

// Implementation names a client or server program (all versions). Title is
// since 2025-06-18; Description, WebsiteURL and Icons since 2025-11-25.
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitzero"`
}

// ResultType says how a 2026-07-28 result is to be read.
type ResultType string

// The result types the core protocol defines (2026-07-28 on).
const (
	// ResultComplete marks a final result. Clients read an absent
	// resultType (from older servers) as complete.
	ResultComplete ResultType = "complete"
	// ResultInputRequired marks an InputRequiredResult: the server needs
	// more input from the client before it can finish the request.
	ResultInputRequired ResultType = "input_required"
)

// Known reports whether t is one of the core result types.
func (t ResultType) Known() bool { return t == ResultComplete || t == ResultInputRequired }

// OrComplete returns t, or ResultComplete when t is empty, as the
// 2026-07-28 rules tell clients to read an absent resultType.
func (t ResultType) OrComplete() ResultType {
	if t == "" {
		return ResultComplete
	}
	return t
}

// ResultBase holds the members every result may carry. It is embedded in
// every result type.
type ResultBase struct {
	// Meta is the result's _meta (all versions).
	Meta Meta `json:"_meta,omitzero"`
	// ResultType is required on every result in 2026-07-28 and absent
	// before.
	ResultType ResultType `json:"resultType,omitempty"`
}

// CacheScope says who may cache a result (2026-07-28 on).
type CacheScope string

// The cache scopes.
const (
	CachePublic  CacheScope = "public"
	CachePrivate CacheScope = "private"
)

// Cacheable holds the caching hints that 2026-07-28 requires on complete
// results of server/discover, the list methods and resources/read. It is
// embedded in those result types and absent in earlier versions.
type Cacheable struct {
	// TTLMs is how long, in milliseconds, the result may be considered
	// fresh. Servers must send a value >= 0.
	TTLMs *int64 `json:"ttlMs,omitempty"`
	// CacheScope says whether shared caches may store the result.
	CacheScope CacheScope `json:"cacheScope,omitempty"`
}

// EmptyResult is the result of requests that return nothing but _meta (and
// in 2026-07-28 resultType): ping, logging/setLevel, resources/subscribe,
// resources/unsubscribe.
type EmptyResult struct {
	ResultBase
}

// RequestParams is the params of requests that carry nothing but _meta:
// ping, roots/list, server/discover. In 2026-07-28 _meta is required on
// every request (see stateless.go).
type RequestParams struct {
	Meta Meta `json:"_meta,omitzero"`
}

// NotificationParams is the params of notifications that carry nothing but
// _meta: notifications/initialized and the list_changed notifications.
type NotificationParams struct {
	Meta Meta `json:"_meta,omitzero"`
}

// jsonKind names the JSON kind of a raw value for error messages.
func jsonKind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "empty"
	}
	switch b[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func truncate(b []byte) string {
	const max = 60
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}
