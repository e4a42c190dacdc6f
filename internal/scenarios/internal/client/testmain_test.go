package client

import (
	"os"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/sharedtest"
)

// testParallel is how many parallel tests of this package run at once
// unless go test's -parallel says otherwise. Its default, GOMAXPROCS, is
// 2 on a 2-core runner, where these tests mostly wait (on the launched
// client's messages and exit, on case timeouts) rather than compute:
// TestProofs' 190 proofs, each launching the reference client, took
// 198 s two at a time.
const testParallel = 6

// TestMain runs the tests with -parallel testParallel unless the command
// line set -parallel.
func TestMain(m *testing.M) {
	if os.Getenv(envLazyClient) != "" {
		os.Exit(lazyCancelClient(os.Args[1:]))
	}
	sharedtest.DefaultParallel(testParallel)
	m.Run()
}
