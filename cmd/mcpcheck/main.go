// Command mcpcheck is a conformance test harness and fuzzer for the Model
// Context Protocol. Run it with no arguments to check the embedded reference
// server with the full suite; run "mcpcheck help" for everything else.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
)

// memoryLimit is the Go runtime's soft memory limit for mcpcheck unless
// GOMEMLIMIT says otherwise: what mcpcheck keeps of a flooding target is
// bounded by byte budgets well under it, and the collector works harder
// near it instead of letting garbage double the heap (the zoo test holds
// every hostile target's run under 256 MiB of RSS).
const memoryLimit = 160 << 20

// sameSignal is how soon after the first stop signal another one counts
// as the same delivery (to the process and to its group).
const sameSignal = time.Second

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal ends the run: it stops, writes every report it
		// was asked for with what was judged, and exits with
		// exitInterrupted. A second one exits at once, unless it comes
		// within sameSignal of the first: that is the same stop delivered
		// twice (timeout(1), a terminal or a CI runner signal the process
		// and then its group), not a user pressing Ctrl-C again.
		first := <-sigs
		at := time.Now()
		cancel()
		fmt.Fprintf(os.Stderr, "mcpcheck: %v: stopping and writing the reports (a second signal exits at once)\n", first)
		for sig := range sigs {
			if time.Since(at) < sameSignal {
				continue
			}
			fmt.Fprintf(os.Stderr, "mcpcheck: second signal (%v): exiting at once, reports may be missing\n", sig)
			target.AbortSandboxes() // the target's processes and the sandbox go too
			os.Exit(exitInterrupted)
		}
	}()
	code := runEnv(&env{ctx: ctx, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	signal.Stop(sigs)
	cancel()
	os.Exit(code)
}
