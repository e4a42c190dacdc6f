package schema

import (
	"fmt"
	"strings"
)

// Kind classifies a Violation so callers can tell schema problems from
// problems with the message's place in the protocol.
type Kind string

// The kinds of Violation.
const (
	// KindNotJSON: the bytes are not a single JSON value.
	KindNotJSON Kind = "not-json"
	// KindNotMessage: valid JSON, but not shaped like any JSON-RPC message.
	KindNotMessage Kind = "not-a-message"
	// KindBatch: a JSON array (batch) where the version has no batching, or an empty batch.
	KindBatch Kind = "batch"
	// KindUnknownMethod: the method does not exist in this protocol version.
	KindUnknownMethod Kind = "unknown-method"
	// KindWrongDirection: the method exists but this peer may not send it.
	KindWrongDirection Kind = "wrong-direction"
	// KindWrongKind: a notification sent with an id, a request sent without
	// one, or a response to a notification.
	KindWrongKind Kind = "wrong-kind"
	// KindCarrier: a 2026-07-28 carrier shape (sampling, elicitation, roots)
	// sent as a JSON-RPC message instead of inside inputRequests/inputResponses.
	KindCarrier Kind = "carrier-as-message"
	// KindSchema: the message breaks the version's JSON Schema.
	KindSchema Kind = "schema"
	// KindNoSchema: mcpcheck has no schema (or no such definition) for the
	// version asked for.
	KindNoSchema Kind = "no-schema"
)

// Violation is one thing wrong with a message.
type Violation struct {
	Kind Kind
	// Pointer is the RFC 6901 JSON pointer of the offending value in the
	// instance ("" is the whole message, "/params/name" a member).
	Pointer string
	// Schema is the schema location that was broken, such as
	// "2025-11-25.json#/$defs/CallToolRequestParams/required"; empty for
	// violations that do not come from the schema.
	Schema string
	// Message says what is wrong, in words meant for a report.
	Message string
}

// String renders the violation on one line: pointer, message, schema location.
func (v Violation) String() string {
	var b strings.Builder
	p := v.Pointer
	if p == "" {
		p = "(message)"
	}
	fmt.Fprintf(&b, "%s: %s", p, v.Message)
	if v.Schema != "" {
		fmt.Fprintf(&b, " [%s]", v.Schema)
	}
	return b.String()
}

// escapeToken escapes one JSON pointer reference token.
func escapeToken(s string) string {
	s = strings.ReplaceAll(s, "~", "~0")
	return strings.ReplaceAll(s, "/", "~1")
}

// pointer joins reference tokens into a JSON pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}
