// Package fuzz runs mcpcheck's fuzz campaigns from Go: mutated and
// generated JSON-RPC thrown at an MCP server (a harness.Target), with
// crash, hang and protocol-violation oracles, each finding minimized and,
// with Options.FindingsDir, written as a replayable reproducer that
// "mcpcheck replay" runs again.
//
// It does no more harm than the command line does: a Command server runs
// in a sandbox of the campaign's own (see harness.Command; Result's
// SideEffects say what it did besides speaking MCP), and the tool-call
// mutators call only the tools a server annotates readOnlyHint: true.
//
// A campaign is bounded by Options.Duration or Options.MaxExecs and
// reproducible from Options.Seed. Its Result says what was found and
// whether the campaign judged the server at all: a server that never
// completed a handshake, or a campaign cancelled before its bound, is
// no pass however few findings it has.
//
// The engine (generators, mutators, oracles, client campaigns, merge and
// replay) lives under internal/fuzz and is free to change; the command
// line (mcpcheck fuzz) offers all of it. This package is public API and
// keeps its surface (testdata/api/fuzz.txt).
package fuzz
