// Command mcpcheck is a conformance test harness and fuzzer for the Model
// Context Protocol. Run it with no arguments to check the embedded reference
// server with the full suite; run "mcpcheck help" for everything else.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runEnv(&env{ctx: ctx, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}
