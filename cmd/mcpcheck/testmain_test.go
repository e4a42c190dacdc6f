package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// slowTier skips t unless MCPCHECK_SLOW is set: t is a long end-to-end
// run of the slow tier, which `make test-slow` runs (and CI after `make
// test`); what it holds is named in the Makefile's test-slow target.
func slowTier(t *testing.T) {
	t.Helper()
	if os.Getenv("MCPCHECK_SLOW") == "" {
		t.Skip("slow tier: make test-slow runs it (MCPCHECK_SLOW=1)")
	}
}

// TestMain lets the test binary stand in for the mcpcheck binary. The
// default run starts "<self> reference server --stdio"; under go test, self
// is this test binary, which must then behave as mcpcheck does instead of
// running the tests again (which would start itself again, without end).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-test.") {
		e := &env{ctx: context.Background(), stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
		os.Exit(runEnv(e, os.Args[1:]))
	}
	code := m.Run()
	if mainJobDir != "" {
		os.RemoveAll(mainJobDir) // the main job's reports, shared by the tests that read them
	}
	os.Exit(code)
}
