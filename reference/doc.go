// Package reference holds mcpcheck's reference MCP peers: reference/server,
// a complete server for every protocol version and transport with fault
// switches that each break one named requirement, and reference/client, a
// complete client library and CLI. They are ordinary MCP implementations:
// they never import the harness or the suites that judge them.
//
// Not part of mcpcheck's public API: it may change in any release (the
// README's package picture lists what is public).
package reference
