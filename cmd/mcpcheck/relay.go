package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
)

const relayUsage = `Usage: mcpcheck relay --stage HOST:PORT --case TOKEN

The server process a stdio client under test starts during 'mcpcheck client
--stdio': it connects to the mcpcheck stage and relays the client's stdin and
stdout to it, reporting stdin EOF and the signals it gets. mcpcheck builds
this command line itself; there is no reason to run it by hand.
`

// exitStatus makes runEnv exit with a given status (the relay's).
type exitStatus int

func (e exitStatus) Error() string { return "exit status " + strconv.Itoa(int(e)) }

// relayMain runs "mcpcheck relay --stage ADDR --case TOKEN".
func relayMain(e *env, args []string) error {
	fs := newFlags("relay")
	addr := fs.String("stage", "", "")
	token := fs.String("case", "", "")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, werr := io.WriteString(e.stdout, relayUsage)
			return werr
		}
		return err
	}
	if *addr == "" || *token == "" || fs.NArg() > 0 {
		return usagef("relay: give --stage HOST:PORT and --case TOKEN (mcpcheck client builds this command line)")
	}
	out, ok := e.stdout.(io.WriteCloser)
	if !ok {
		out = nopCloser{e.stdout}
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sigs)
	// A client that exits leaves the relay's stdout a broken pipe: the
	// write fails (EPIPE) instead of killing the relay with SIGPIPE, so the
	// stage sees what the client did to its server, not a relay that died.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	// The relay's life is the stage's to end (and its signals' to
	// report), not the process context's.
	code := stage.RunRelay(context.Background(), stage.RelayOptions{Stage: *addr, Case: *token, Stdin: e.stdin, Stdout: out, Stderr: e.stderr, Signals: sigs})
	if code == 0 {
		return nil
	}
	return exitStatus(code)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
