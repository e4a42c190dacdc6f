package server

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/spec/sharedtest"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// slowStartChecks are the checks a late start used to fail: their verdict
// rests on the first answer of a fresh process (the handshake, a request
// before it, an unknown version), plus some that only need a session.
var slowStartChecks = []string{
	"lifecycle/initialize-result", "ping/before-initialize", "versioning/unknown-version",
	"versioning/echo-supported", "lifecycle/no-requests-before-initialized", "lifecycle/second-initialize",
	"ping/empty-result", "tools/call-results", "tools/input-validation", "base/response-id-echo",
	"resources/read-listed", "prompts/get-content", "transport-stdio/exit-on-stdin-close",
}

// busyLoops keeps n goroutines spinning until the returned stop is
// called: the load of a shared CI runner, in the test's own process.
func busyLoops(n int) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			x := 0
			for !done.Load() {
				for j := 0; j < 1<<16; j++ {
					x += j
				}
			}
			_ = x
		}()
	}
	return func() {
		done.Store(true)
		wg.Wait()
	}
}

// TestSlowStartUnderLoadSameOutcomes: every process of the server starts
// 1 to 3 s late (a random wait per process, as on a busy host) while two
// busy loops per core load the machine, and the checks whose verdict
// rests on a fresh process's first answer are judged exactly as against
// a server that starts at once with Parallel 1. The late run has
// Parallel 8, the harder case (eight late starts at a time under load);
// a late run with Parallel 1, one late start after the other (about a
// minute), proves nothing more about the start-up allowance, which is
// per connection, nor would a second version (the checks' first answers
// are the same handshake). A late start is no silence: the first wait on
// a fresh connection gets the start-up allowance, never the fail-fast
// deadline. The run that starts at once is the server in process over
// pipes (pipeReference), whose outcomes are the process's.
//
// It is of the slow tier (make test-slow): its busy loops hold both
// cores of a 2-core runner for its whole run, the other package go test
// runs beside it included, and it cannot run in parallel with this
// package's tests. make test keeps TestSilenceBeforeInitializeSeenOnALateStart,
// whose late starts take the same start-up allowance.
func TestSlowStartUnderLoadSameOutcomes(t *testing.T) {
	sharedtest.SlowTier(t)
	if testing.Short() {
		t.Skip("starts the reference server many times, late")
	}
	bin := mcpcheckBinary(t)
	versions := []spec.Version{spec.V20251125}
	normal := runOne(t, Config{Versions: versions, Only: slowStartChecks, Parallel: 1, Target: pipeReference()})

	tg := target.Command(bin, "reference", "server", "--stdio", "--page-size", "3", "--start-delay", "1s-3s")
	tg.Timeouts = target.Timeouts{Step: 5 * time.Second, Grace: time.Second}
	stop := busyLoops(2 * runtime.NumCPU())
	defer stop()
	start := time.Now()
	wide := runOne(t, Config{Versions: versions, Only: slowStartChecks, Parallel: wideParallel, Target: tg})
	tw := time.Since(start)
	stop()
	t.Logf("late start under load: Parallel %d %v; %d start-ups measured, slowest %v",
		wideParallel, tw.Round(time.Millisecond), wide.Report.Startup.Measured, wide.Report.Startup.Slowest.Round(time.Millisecond))
	sameOutcomes(t, "normal start, Parallel 1 vs late start under load, Parallel 8", normal, wide)
	if wide.Report.Startup == nil || wide.Report.Startup.Slowest < time.Second {
		t.Errorf("the report's start-up times %v do not show the late starts", wide.Report.Startup)
	}
}

// TestSilenceBeforeInitializeSeenOnALateStart: a server that speaks
// before the client's initialize is caught however late its process
// starts (1 to 2 s here, longer than any window timed from connecting),
// and one that starts as late and keeps quiet passes: the check waits for
// the answer to a ping, not for a fixed time.
func TestSilenceBeforeInitializeSeenOnALateStart(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBinary(t)
	const id = "lifecycle/silent-before-initialize"
	for _, tc := range []struct {
		faults []string
		want   reports.Outcome
	}{
		{[]string{"--fault", "speak-before-initialize"}, reports.Fail},
		{nil, reports.Pass},
	} {
		args := append([]string{"reference", "server", "--stdio", "--start-delay", "1s-2s"}, tc.faults...)
		res := runOne(t, Config{Versions: []spec.Version{spec.V20251125}, Only: []string{id}, Parallel: 1, Target: target.Command(bin, args...)})
		c, ok := outcomeOf(res, id, spec.V20251125)
		if !ok {
			t.Fatalf("%v: %s was not run", tc.faults, id)
		}
		if c.Outcome != tc.want {
			t.Errorf("%v, late start: %s ended %s (%s%s), want %s", tc.faults, id, c.Outcome, c.Actual, c.Reason, tc.want)
		}
	}
}
