package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/sharedtest"
)

// slowTier is sharedtest.SlowTier: t is a long end-to-end run of the
// slow tier (make test-slow).
func slowTier(t *testing.T) {
	t.Helper()
	sharedtest.SlowTier(t)
}

// setenvOwn sets the environment variable key, which no other test
// reads or sets, for the rest of t (a parallel test may not call
// t.Setenv): the runs t starts, in this process or as children, read it.
func setenvOwn(t *testing.T, key, value string) {
	t.Helper()
	if err := os.Setenv(key, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Unsetenv(key) })
}

var (
	binOnce sync.Once
	binDir  string
	binFile string
	binHead string // the commit HEAD named while the binary was built, "" when unknown
	binErr  error
)

// mcpcheckBin builds the mcpcheck binary once per test process, without
// the race detector, for the tests that start it as a process: a target
// or peer (the reference server or client), or the command whose exit
// code, signals and process group a test judges. The race detector would
// make each such child several times slower (a server suite against a
// -race reference server took three times the CPU); mcpcheck's own code
// paths run under -race in the tests that call run and runEnv in this
// process, and the reference pair's in their packages' tests. The build is
// mostly served by the build cache, which make test's go vet fills.
// -short builds nothing: the test skips.
func mcpcheckBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the mcpcheck binary")
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "mcpcheck-cmd-")
		if binErr != nil {
			return
		}
		binFile = filepath.Join(binDir, "mcpcheck")
		// -buildvcs=auto, whatever GOFLAGS says: stamped with the
		// checkout's revision where go build can (not in a linked
		// worktree), as a user's build is; TestVersionPrintsTheBuildRevision
		// reads it. A build that cannot stamp is retried without.
		before := gitHead()
		out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", binFile, ".").CombinedOutput()
		if err != nil {
			out, err = exec.Command("go", "build", "-buildvcs=false", "-o", binFile, ".").CombinedOutput()
		}
		if err != nil {
			binErr = errors.New(string(out))
			return
		}
		if after := gitHead(); after == before {
			binHead = after
		}
	})
	if binErr != nil {
		t.Fatalf("mcpcheck does not build: %v", binErr)
	}
	return binFile
}

// gitHead is the commit the checkout's HEAD names, or "" (no git, not a
// checkout).
func gitHead() string {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
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
	// This package's tests spend most of their time waiting on the
	// processes they start (targets that answer late or never, campaigns
	// and suites of a fixed length), not computing: the ones that say
	// t.Parallel run four at a time, unless -parallel says otherwise, not
	// GOMAXPROCS (two on the machines this runs on) at a time. The
	// hostile zoo is one of them (its entries share the machine six at a
	// time within it).
	sharedtest.DefaultParallel(max(4, runtime.GOMAXPROCS(0)))
	code := m.Run()
	for _, dir := range []string{mainJobDir, faultyDir, clientDir, binDir, strictSSE.dir} {
		if dir != "" {
			os.RemoveAll(dir) // the shared runs' reports and the built binary
		}
	}
	os.Exit(code)
}
