// Package stage is the harness playing the server: it serves MCP clients
// under test on loopback, one case (a scenario run against one client
// launch) at a time or many at once, and records every byte both ways for
// the client checks to judge.
//
// A Stage owns two loopback listeners: an HTTP server, on which each case
// has its own path prefix (/c/<token>/mcp for streamable HTTP, /c/<token>/sse
// for the legacy HTTP+SSE transport), and a relay listener for stdio
// clients. A stdio client is given a server command line that runs
// "mcpcheck relay --stage ADDR --case TOKEN": the relay is the process the
// client spawns, and it pipes the client's stdin and stdout to the stage
// over one TCP connection, reporting stdin EOF and the signals it gets, so
// the harness sees and controls the exact bytes the client writes and
// reads (the address travels in the arguments because hosts often filter
// the environment they pass to servers).
//
// Behind each case runs an engine: mcpcheck's reference server
// (internal/reference/server), configured per scenario through its seam (fixtures,
// a Director that provokes the client, a Rewrite that bends what is
// written) and, for HTTP, an optional middleware in front of it (session
// loss, refusals, authorization). The stage never decides what is right:
// it records, and the checks (internal/scenarios/client) judge the recording with
// the rules of internal/harness/rules.
//
// Everything is bounded: request bodies, the events kept per case, the
// time a relay may wait, the output of launched clients; launched clients
// are killed as a process group.
package stage
