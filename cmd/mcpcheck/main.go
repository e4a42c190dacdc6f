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
)

// memoryLimit is the Go runtime's soft memory limit for mcpcheck unless
// GOMEMLIMIT says otherwise: what mcpcheck keeps of a flooding target is
// bounded by byte budgets well under it, and the collector works harder
// near it instead of letting garbage double the heap (the zoo test holds
// every hostile target's run under 256 MiB of RSS).
const memoryLimit = 160 << 20

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
		// exitInterrupted. A second one exits at once.
		<-sigs
		cancel()
		<-sigs
		fmt.Fprintln(os.Stderr, "mcpcheck: second signal: exiting at once, reports may be missing")
		os.Exit(exitInterrupted)
	}()
	code := runEnv(&env{ctx: ctx, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	signal.Stop(sigs)
	cancel()
	os.Exit(code)
}
