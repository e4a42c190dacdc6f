// Package mcp holds typed Model Context Protocol messages for every released
// protocol version (2024-11-05 through 2026-07-28) as one set of Go types.
//
// The types are the union across versions: a field that exists only in some
// versions is optional on the wire (omitempty or omitzero) and its doc
// comment names the versions that define it. Decoding is lossless for every
// field the protocol defines, so a message decoded and re-encoded compares
// equal to the original; fields the protocol does not define are dropped.
//
// Variants that the protocol distinguishes by a "type" member (content
// blocks) are a closed sum type with custom JSON methods that reject an
// unknown or missing discriminator. Unions the protocol distinguishes by
// shape (resource contents, elicitation modes, primitive schemas, sampling
// content that is one block or an array) are single structs that keep which
// shape was on the wire.
//
// The registry (NewParams, NewResult, DecodeParams, DecodeResult) maps each
// method name of spec/methods.go to its params and result types;
// DecodeResult also recognises the alternative result shapes
// (InputRequiredResult in 2026-07-28, CreateTaskResult in 2025-11-25).
// UnknownParamsMembers and UnknownResultMembers report the members of a raw
// message that the types do not model.
//
// Meta gives typed access to the reserved _meta keys, including the
// per-request protocol fields of 2026-07-28. headers.go implements the
// x-mcp-header rules of the 2026-07-28 Streamable HTTP transport: finding
// and checking annotated tool arguments, and encoding their header values.
package mcp
