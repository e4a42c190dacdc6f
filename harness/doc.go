// Package harness will hold the machinery that drives a target MCP peer:
// transports that see and send exact bytes, wire recording, version-aware
// session drivers, expectations and the verdict model. It is not built yet;
// the server-conformance work builds it on spec/jsonrpc, spec/mcp and
// spec/schema.
package harness
