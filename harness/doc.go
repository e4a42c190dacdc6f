// Package harness is the public face of mcpcheck's harness: the MCP peer
// to judge and how to reach it. A Target made here is what the server
// suite (scenarios/mcpchecktest) and the fuzzer (fuzz) take, so one
// description serves a conformance run and a fuzz campaign alike.
//
// A Target is a server over stdio (Command, or Pipe in process) or over
// HTTP (URL, or Handler on a loopback test server). Every process the
// harness starts for it runs in a process group of its own and is killed
// with the group when a check or a campaign is done with it; every read
// and wait on it is bounded.
//
// The harness's engine (connections, transcripts, expectations, session
// drivers, the check API) lives under internal/harness and is free to
// change; this package is public API and keeps its surface
// (testdata/api/harness.txt).
package harness
