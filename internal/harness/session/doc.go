// Package session drives a target the way a conformant MCP client would,
// per protocol era, over any wire.Conn, while keeping every byte visible.
//
// Stateful (2024-11-05 through 2025-11-25) runs initialize with a chosen
// version and capabilities, sends initialized, on streamable HTTP opens the
// standalone GET stream where the server's own requests may come (when the
// client declared roots, sampling or elicitation), allocates request ids,
// correlates responses, and answers the server's requests with a built-in
// client: ping, roots/list from a configured root list, sampling with a
// deterministic canned model that follows the tool_use / tool_result rules,
// and elicitation accepted or declined per configuration, only in the
// modes declared. Stateless (2026-07-28) sends server/discover, puts the
// protocol version, client capabilities and client info in every request's
// _meta, adds the required HTTP headers (MCP-Protocol-Version, Mcp-Method,
// Mcp-Name, and Mcp-Param-* for x-mcp-header tool arguments) and runs the
// multi round-trip loop (answering inputRequests, resending with
// inputResponses and requestState under a fresh id, for a bounded number
// of rounds).
//
// Sessions pull: nothing happens in the background. Server requests are
// answered, and notifications collected, while the caller waits (Recv,
// Wait, Call). Every message the target sends, on every path, raw HTTP
// included, is validated against the JSON Schema of the session's version
// by a tap on the connection; violations are collected as Findings that
// the caller turns into checks.
//
// A session is used by one goroutine at a time, except Findings,
// Notifications and ServerRequests, which are safe to call concurrently.
package session
