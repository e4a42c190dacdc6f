// Package scenarios is the server conformance suite's entry point: what
// cmd/mcpcheck, cmd/interop, scenarios/mcpchecktest and the tests use of
// it. The suite itself lives in internal/scenarios/internal/server (T, the runner,
// the registry and the small areas) and its area packages under it
// (internal/scenarios/internal/server/...), which register their checks into its
// registry; this package imports them all, so every check is registered
// whenever the suite is used. It holds no logic: aliases and wrappers.
package scenarios

import (
	"context"
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server"
	// The area packages: importing them registers their checks.
	_ "github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server/authorization"
	_ "github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server/tasks"
	_ "github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server/transport"
)

// Def declares one server check (server.Def).
type Def = server.Def

// Config says what a run checks and how (server.Config).
type Config = server.Config

// Result is what a run found (server.Result).
type Result = server.Result

// Shard is one part of a run split N ways (server.Shard).
type Shard = server.Shard

// ToolPolicy says which tools the checks may call (server.ToolPolicy).
type ToolPolicy = server.ToolPolicy

// The tool-call tiers of a ToolPolicy.
const (
	CallReadOnly = server.CallReadOnly
	CallAll      = server.CallAll
)

// QuietFactor and MaxQuietStretch bound a silence window (server.QuietFactor).
const (
	QuietFactor     = server.QuietFactor
	MaxQuietStretch = server.MaxQuietStretch
)

// Errors a run returns.
var (
	ErrUnreachable = server.ErrUnreachable
	ErrToolPolicy  = server.ErrToolPolicy
)

// Exclusions maps a requirement ID to why it has no check (server.Exclusions).
var Exclusions = server.Exclusions

// Run runs the suite against a target (server.Run).
func Run(ctx context.Context, cfg Config) (Result, error) { return server.Run(ctx, cfg) }

// Checks returns the registered checks in listing order (server.Checks).
func Checks() []Def { return server.Checks() }

// Lookup returns the registered check with the ID id (server.Lookup).
func Lookup(id string) (Def, bool) { return server.Lookup(id) }

// CheckedRequirements maps every requirement ID cited by a registered
// check to the IDs of the checks citing it (server.CheckedRequirements).
func CheckedRequirements() map[string][]string { return server.CheckedRequirements() }

// ParseToolPolicy parses a --call-tools value (server.ParseToolPolicy).
func ParseToolPolicy(s string) (ToolPolicy, error) { return server.ParseToolPolicy(s) }

// ReadToolArgs reads a --tool-args file (server.ReadToolArgs).
func ReadToolArgs(path string) (map[string][]json.RawMessage, error) {
	return server.ReadToolArgs(path)
}
