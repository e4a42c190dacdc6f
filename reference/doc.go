// Package reference will hold mcpcheck's reference MCP server and client
// (in reference/server and reference/client): complete peers for every
// protocol version and transport, with fault switches that break one named
// requirement each. It is not built yet.
package reference
