package server

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/sharedtest"
)

// testParallel is how many parallel tests of this package run at once
// unless go test's -parallel says otherwise. Its default, GOMAXPROCS, is
// 2 on a 2-core runner, where these tests mostly wait (on a server's
// answers and quiet windows, on processes starting) rather than compute:
// TestProofs' 223 proofs took 67 s two at a time.
const testParallel = 6

// TestMain runs the tests with -parallel testParallel unless the command
// line set -parallel, and starts building the mcpcheck binary
// (buildMcpcheck) while the tests that need none run, unless -short
// skips the tests that do. When the tests are done it stops a build
// still under way and removes the binary.
func TestMain(m *testing.M) {
	sharedtest.DefaultParallel(testParallel)
	if !testing.Short() {
		go buildMcpcheck()
	}
	m.Run()
	buildCancel()
	buildMcpcheck() // waits for a build under way to stop
	if binPath != "" {
		_ = os.RemoveAll(filepath.Dir(binPath))
	}
}
