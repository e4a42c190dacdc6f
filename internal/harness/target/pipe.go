package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

// PipeServer serves one MCP connection in process, with stdio framing: it
// reads the harness's messages from in and writes its own to out, one per
// line, and returns once in ends (the harness closed the connection) or ctx
// is done. Each connection of a run calls it anew, in a goroutine of its
// own, so it must be safe to run several times at once.
type PipeServer func(ctx context.Context, in io.Reader, out io.Writer) error

// Pipe returns a target served in process by serve over a pair of pipes:
// the stdio transport without a process (no start cost, no port), for Go
// tests of a server written in Go.
func Pipe(serve PipeServer) Target { return Target{Pipe: serve, Transport: Stdio} }

// PipeRun is the running server of one connection to a pipe target.
type PipeRun struct {
	in     *io.PipeWriter // the server's input: closing it is its EOF
	cancel context.CancelFunc
	done   chan struct{}
	err    error // what serve returned, set before done closes
}

// CloseInput closes the server's input, as closing a process's stdin
// does: a well-behaved server returns.
func (p *PipeRun) CloseInput() error { return p.in.Close() }

// Done is closed once the server returned (or panicked).
func (p *PipeRun) Done() <-chan struct{} { return p.done }

// Description says how the server ended once Done is closed ("" before):
// "returned", "returned the error: …" or "panicked: …" with the stack.
func (p *PipeRun) Description() string {
	select {
	case <-p.done:
		return describeServe(p.err)
	default:
		return ""
	}
}

func describeServe(err error) string {
	if err == nil {
		return "returned"
	}
	return err.Error()
}

// pipeGrace bounds how long Close waits for a server that was told to
// stop (input closed, context cancelled) before leaving its goroutine
// behind: a goroutine cannot be killed.
const pipeGrace = 2 * time.Second

// connectPipe starts t.Pipe on a fresh pair of pipes.
func connectPipe(t Target, taps []wire.Tap) (*Conn, error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	run := &PipeRun{in: inW, cancel: cancel, done: make(chan struct{})}
	sc := wire.NewStdio(outR, inW, t.Limits, taps...)
	go func() {
		defer close(run.done)
		defer func() {
			if v := recover(); v != nil {
				run.err = fmt.Errorf("panicked: %v\n%s", v, debug.Stack())
			}
			sc.Note("the in-process server " + describeServe(run.err))
			_ = outW.Close() // the harness reads the end of the stream
			_ = inR.Close()  // and its writes fail instead of blocking
		}()
		if err := t.Pipe(ctx, inR, outW); err != nil {
			run.err = fmt.Errorf("returned the error: %w", err)
		}
	}()
	return &Conn{Conn: sc, Target: t, Mode: Stdio, Pipe: run}, nil
}

// stop ends a pipe server: its input closed and its context cancelled,
// then up to pipeGrace for it to return.
func (p *PipeRun) stop() error {
	_ = p.in.Close()
	p.cancel()
	t := time.NewTimer(pipeGrace)
	defer t.Stop()
	select {
	case <-p.done:
		return nil
	case <-t.C:
		return errors.New("target: the in-process server did not return within " + pipeGrace.String() + " of its input closing and its context ending; its goroutine is left running")
	}
}
