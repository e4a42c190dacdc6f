// Package rules is the one place where mcpcheck's message rules live: the
// requirement IDs they enforce, which request a response answers, and what
// makes one JSON-RPC message from an MCP peer break the base protocol or
// its version's schema. The same rules judge a server (the messages it
// sends to mcpcheck's client) and a client (the messages it sends to
// mcpcheck's stage); the direction is a parameter, never a second copy.
//
// Users: internal/harness/session validates everything a target sends with Schema
// and remembers request methods with Methods; the passive checks of both
// suites hold observed messages to the per-message rules (ResponseShape,
// ErrorObject, NotificationID, RequestID, UTF8); the fuzz oracles map
// codec problems and schema violations to requirements with Invalid and
// Schema and follow outstanding requests with Pending. A schema a peer
// hands over (a tool's inputSchema or outputSchema, an elicitation's
// requestedSchema) is compiled and validated by PeerDialect,
// CompilePeerSchema and ValidatePeerValue, for both suites alike.
//
// Nothing here prints, waits or holds a connection: rules are pure
// functions over messages, and the trackers are bounded maps.
package rules
