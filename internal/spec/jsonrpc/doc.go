// Package jsonrpc is a JSON-RPC 2.0 codec for MCP that keeps every message's
// raw bytes and classifies what it decoded, including what is wrong with it.
//
// It is written for a conformance tool that talks to peers it does not trust,
// so decoding never fails with a Go error and never panics: malformed input is
// a classification. [Decode] returns a [Message] whose Raw field is the input,
// byte for byte, whose Kind says what the message is, and whose Problems list
// every deviation found, each with a machine-readable [Reason], a human
// detail, a JSON pointer and a byte offset.
//
// # Classification rules
//
// Decode first checks that the input is exactly one JSON value, following
// RFC 8259 strictly. A syntax error stops the classification with a single
// [ReasonNotJSON] problem, and nesting deeper than [MaxDepth] with a single
// [ReasonTooDeep]. Everything else is collected, so a message may carry
// several problems (trailing data, invalid UTF-8 inside strings, and the
// member-level problems); they are ordered from the most fundamental
// (document level) to the most specific (members), and the order is
// deterministic. Duplicate and unknown members are listed up to [MaxListed]
// per object.
//
// The Shape of an object is decided from which members are present, whatever
// their values:
//
//   - "method" and "id" present: a request;
//   - "method" present, "id" absent: a notification;
//   - no "method", "result" present: a (success) response, also when "error"
//     is present too ([ReasonResultAndError]);
//   - no "method", "error" present: an error response;
//   - none of "method", "result", "error": no shape ([KindInvalid]).
//
// Kind equals Shape when no problem of [SeverityInvalid] was found, and is
// [KindInvalid] otherwise. Problems of [SeverityNote] (unknown members, lone
// UTF-16 surrogates in escapes, params on a response) never make a message
// invalid. Callers that want to say "an invalid response" look at Shape.
//
// The codec is strict about MCP where MCP narrows JSON-RPC: ids must be
// strings or integers that fit in int64 (never null, except that an error
// response may carry a null or absent id, recorded in [Message.IDNull] and
// [Message.IDAbsent] without a problem, because JSON-RPC uses that for errors
// about unreadable requests); params must be an object; a result must be an
// object. Batches (JSON arrays) are reported, not judged: [Decode] calls them
// [ReasonBatch], [DecodeBatch] splits them; which protocol versions allow them
// is for the caller to decide.
//
// Members are compared by their decoded names, so "id" and "\u0069d" are the
// same member. When a top-level member (or a member of the error object)
// appears more than once, [ReasonDuplicateMember] is reported and the last
// occurrence is the one decoded, as encoding/json would do.
//
// # Encoding
//
// [NewRequest], [NewNotification], [NewResponse] and [NewErrorResponse] build
// canonical messages: members in the order jsonrpc, id, method, params (or
// result, or error), no insignificant whitespace, no HTML escaping, no
// trailing newline. They refuse to build a message MCP does not allow and say
// why. [RawObject] and [LineWriter.WriteRaw] are the deliberate way around
// those checks for tests that must send illegal bytes.
//
// # Framing
//
// [LineReader] and [LineWriter] implement the stdio framing: one message per
// line, terminated by LF, with bounded memory on the reading side.
package jsonrpc
