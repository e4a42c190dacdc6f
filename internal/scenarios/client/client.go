// Package client is mcpcheck's client conformance suite: mcpcheck plays
// the server (internal/harness/stage) and judges any MCP client, over stdio or
// HTTP, against the client-side requirements of the catalog, in every
// protocol version.
//
// This package is the suite's entry point and holds no logic: the suite
// lives in internal/scenarios/internal/client (the runner, T, the registry, the
// scenarios and checks of the small areas, the helpers areas share) and in
// one sub-package of it per grown protocol area (tasks, transport,
// authorization, and stateless for the helpers and scenarios of the
// 2026-07-28 stateless era). Importing this package registers every
// area's checks; the names here are aliases of the internal package's.
package client

import (
	"context"

	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client"
	// The area sub-packages register their checks into the suite's
	// registry: every user of the suite gets every check.
	_ "github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client/authorization"
	_ "github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client/stateless"
	_ "github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client/tasks"
	_ "github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client/transport"
)

// Launch says how the client under test is started.
type Launch = client.Launch

// Config says what a client run checks and how.
type Config = client.Config

// Result is a finished client run.
type Result = client.Result

// Def declares one client check.
type Def = client.Def

// DefaultStartupTimeout is Config.StartupTimeout's default.
const DefaultStartupTimeout = client.DefaultStartupTimeout

// ErrClientSilent is returned by Run when the client sent nothing in any
// case: it never connected, so nothing was judged.
var ErrClientSilent = client.ErrClientSilent

// Exclusions maps client-side MUST/SHOULD requirements that have no client
// check to the written reason why (the internal package's map itself).
var Exclusions = client.Exclusions

// Run runs the client suite as cfg says.
func Run(ctx context.Context, cfg Config) (Result, error) { return client.Run(ctx, cfg) }

// Checks returns the registered checks in listing order.
func Checks() []Def { return client.Checks() }

// Lookup returns the registered check with the ID id (or the check an old
// ID was renamed to).
func Lookup(id string) (Def, bool) { return client.Lookup(id) }

// CheckedRequirements maps every requirement a client check cites to the
// checks citing it.
func CheckedRequirements() map[string][]string { return client.CheckedRequirements() }
