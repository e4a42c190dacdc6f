package scenarios

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/spec/sharedtest"
)

// testParallel is how many parallel tests of this package run at once
// unless go test's -parallel says otherwise. Its default, GOMAXPROCS, is
// 2 on a 2-core runner, where these tests mostly wait (on a server's
// answers and quiet windows, on processes starting) rather than compute:
// TestProofs' 223 proofs took 67 s two at a time.
const testParallel = 6

// TestMain runs the tests with -parallel testParallel unless the command
// line set -parallel.
func TestMain(m *testing.M) {
	sharedtest.DefaultParallel(testParallel)
	m.Run()
}
