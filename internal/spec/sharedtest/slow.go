package sharedtest

import (
	"os"
	"testing"
)

// SlowEnv is the environment variable that turns the slow tier on.
const SlowEnv = "MCPCHECK_SLOW"

// SlowTier skips t unless MCPCHECK_SLOW is set. A test that calls it is
// a long end-to-end run of the slow tier: `make test` leaves it out,
// `make test-slow` runs it (CI runs both). Every such test must be named
// in the Makefile's SLOW_TESTS and its package in SLOW_PKGS, which
// TestSlowTierIsInTheMakefile (repository root) holds; a test belongs
// there only when a faster test in `make test` judges the same code.
func SlowTier(t testing.TB) {
	t.Helper()
	if os.Getenv(SlowEnv) == "" {
		t.Skip("slow tier: make test-slow runs it (" + SlowEnv + "=1)")
	}
}
