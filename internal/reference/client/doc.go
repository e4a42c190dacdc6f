// Package client is mcpcheck's reference MCP client: a complete client for
// every released protocol version (2024-11-05 to 2026-07-28) over any
// transport of the transport subpackage.
//
// Connect negotiates the protocol: for a stateful version it sends
// initialize and notifications/initialized; for 2026-07-28 it probes with
// server/discover, falls back to initialize when the server turns out to be
// a legacy one, and from then on stamps every request with the per-request
// _meta. Requests have a timeout, are cancelled (never initialize) when
// their context ends, and results are decoded into the types of internal/spec/mcp.
//
// The client side of the protocol is pluggable through Options: roots,
// sampling (a Model behind an approval hook), elicitation (form and URL
// modes), and tasks. In 2026-07-28 the same handlers answer the
// inputRequests of the multi round-trip loop; before, they answer the
// server's requests.
//
// A server is not trusted: every message is decoded with internal/spec/jsonrpc,
// whatever cannot be used is recorded and named in the errors of the
// requests it affects, and nothing the server does can make a call wait
// longer than its timeout.
package client
