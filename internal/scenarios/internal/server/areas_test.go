package server_test

// The area packages register their checks into this package's registry
// when they are initialised. Importing them here makes the tests of this
// package (the proofs, the whole-suite runs) see every check: Go builds
// them against this package's test variant, so they register into the
// registry the internal tests read.
import (
	_ "github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server/authorization"
	_ "github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server/tasks"
	_ "github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server/transport"
)
