// Command relay is the stage's relay alone ("relay --stage ADDR --case
// TOKEN"), built by the client campaign tests so that the clients they
// launch start a small, fast server process instead of the race-built test
// binary.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "relay" {
		fmt.Fprintln(os.Stderr, "usage: relay relay --stage ADDR --case TOKEN")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("relay", flag.ExitOnError)
	addr := fs.String("stage", "", "")
	token := fs.String("case", "", "")
	_ = fs.Parse(os.Args[2:])
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(stage.RunRelay(context.Background(), stage.RelayOptions{Stage: *addr, Case: *token, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Signals: sigs}))
}
