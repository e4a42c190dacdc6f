// Package reference is mcpcheck's reference MCP server as a library: a
// complete, hardened server of every released protocol version
// (2024-11-05 through 2026-07-28), over stdio and over Streamable HTTP
// (with the legacy HTTP+SSE transport on request), holding the fixtures
// the conformance suites exercise.
//
// It is the known-good peer of a test: serve it in process to see what a
// conforming server does (ServeStdio fits harness.Pipe, a Handler fits
// harness.Handler), or switch on a named fault (Faults lists them) to see
// a check fire on the one requirement that fault breaks. A client under
// test can be pointed at it the same way.
//
// The reference client is run as a command (mcpcheck reference client);
// the implementation of the pair lives under internal/reference and is free
// to change. This package is public API and keeps its surface
// (testdata/api/reference.txt).
package reference
