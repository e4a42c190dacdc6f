package client_test

// The area sub-packages register their checks into this package's
// registry when they are initialized. Importing them here compiles them
// against this package's test variant, so the tests of this package (the
// proofs, the whole-suite runs, the registry's own tests) see every check
// of the suite, as internal/scenarios/client's importers do.
import (
	_ "github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client/authorization"
	_ "github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client/stateless"
	_ "github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client/tasks"
	_ "github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client/transport"
)
