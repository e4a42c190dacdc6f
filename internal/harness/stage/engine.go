package stage

import "github.com/mcpcheck/mcpcheck/internal/reference/server"

// The engine's seam under names of this package, for the packages that
// play the server through a stage and may not import the reference server
// themselves (the fuzzer: see deps_test.go). They are the reference
// server's types, not copies.
type (
	// ServerOptions configure a case's engine (Config.Server).
	ServerOptions = server.Options
	// EngineHTTPOptions configure the engine's HTTP transports
	// (Config.HTTP).
	EngineHTTPOptions = server.HTTPOptions
	// Tool is a tool added to the engine (ServerOptions.Tools).
	Tool = server.Tool
	// Call is one client request the engine serves, as a Tool or a
	// Director sees it.
	Call = server.Call
	// Outgoing is a message the engine is about to write, as
	// ServerOptions.Rewrite sees it.
	Outgoing = server.Outgoing
)
