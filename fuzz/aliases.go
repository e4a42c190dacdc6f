package fuzz

import (
	"github.com/mcpcheck/mcpcheck/fuzz/internal/conn"
)

// The names of the fuzzer's internal packages that its users (cmd/mcpcheck,
// cmd/fuzzseeds and the tests) need, under the public path fuzz.

// Target is something to fuzz: it starts connections (conn.Target).
type Target = conn.Target

// ExecTarget starts a stdio server process per connection (conn.ExecTarget).
type ExecTarget = conn.ExecTarget

// CommandTarget splits a command line on spaces (quotes are honoured) into an
// ExecTarget, as "mcpcheck fuzz --stdio CMD" does (conn.CommandTarget).
func CommandTarget(cmdline string) (*ExecTarget, error) { return conn.CommandTarget(cmdline) }

// HTTPTarget is a server reached over HTTP (conn.HTTPTarget).
type HTTPTarget = conn.HTTPTarget
