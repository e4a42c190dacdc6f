package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

// ProcessEnd is the error of a handshake with a stdio target that failed
// while the target's process had ended or said something on stderr: the
// handshake's error, with how the process ended and the end of its stderr
// (a server that dies at start-up says why there). Every text that quotes
// the handshake's error (the reasons of the checks that needed it, the
// run's first cause) names them, and the report's target carries them.
type ProcessEnd struct {
	Err error
	// Exit says how the process ended ("exited with status 3"), "" when
	// it was still running.
	Exit string
	// Stderr is the tail of what the process wrote to stderr (at most
	// MaxStderrTail bytes).
	Stderr string
	// named is set when Err already says all that (the end of the stream
	// it quotes named it, see endNaming).
	named bool
}

// MaxStderrTail bounds ProcessEnd.Stderr.
const MaxStderrTail = 4096

// stderrQuoted bounds the stderr a ProcessEnd's text quotes.
const stderrQuoted = 300

// exitWait bounds how long Open waits for a process whose output has
// ended to exit, so that the reason can say how it ended.
const exitWait = time.Second

// closedInputWait bounds how long a failed write to a process whose input
// is closed (a broken pipe) waits for it to exit: it is ending, and on a
// loaded machine its exit can take longer than exitWait to be seen.
const closedInputWait = 5 * time.Second

func (e *ProcessEnd) Error() string {
	if e.named {
		return e.Err.Error()
	}
	return fmt.Sprintf("%v (%s)", e.Err, e.what())
}

// what says how the process ended and what its stderr ended with.
func (e *ProcessEnd) what() string {
	var parts []string
	if e.Exit != "" {
		parts = append(parts, "the target process "+e.Exit)
	}
	if e.Stderr != "" {
		s := e.Stderr
		if len(s) > stderrQuoted {
			s = "…" + s[len(s)-stderrQuoted:]
		}
		parts = append(parts, fmt.Sprintf("its stderr ends %q", s))
	} else if e.Exit != "" {
		parts = append(parts, "it wrote nothing on stderr")
	}
	return strings.Join(parts, "; ")
}

func (e *ProcessEnd) Unwrap() error { return e.Err }

// processEnd waits (up to exitWait) for the process of c, whose output
// has ended, to exit, and says how it ended and what its stderr ended
// with (nil when it has not exited and wrote nothing on stderr).
func processEnd(ctx context.Context, c *target.Conn) *ProcessEnd {
	return processEndWithin(ctx, c, exitWait)
}

// processEndWithin is processEnd waiting up to wait.
func processEndWithin(ctx context.Context, c *target.Conn, wait time.Duration) *ProcessEnd {
	p := c.Process
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for _, ch := range []<-chan struct{}{p.Exited(), p.StderrClosed()} {
		// Exited, then all it wrote on stderr (a child of it may hold
		// the stream: the wait is bounded).
		select {
		case <-ch:
		case <-wctx.Done():
		}
	}
	pe := &ProcessEnd{Stderr: string(bytes.TrimSpace(lastBytes(p.Stderr().Tail(), MaxStderrTail)))}
	if p.ExitState() != nil {
		pe.Exit = p.ExitDescription()
	}
	if pe.Exit == "" && pe.Stderr == "" {
		return nil
	}
	return pe
}

// endNaming is a stdio target connection whose end of output names how
// the process ended and the end of its stderr (wire.Frame.Err of the
// KindEnd frame), so that every wait it ends says so ("before that, the
// end of the stream (the target process exited with status 3; its stderr
// ends \"boom\")"). Sessions of Open read through it.
type endNaming struct {
	*target.Conn
}

// Recv is target.Conn's, naming the process's end on the end of stdout.
func (c endNaming) Recv(ctx context.Context) (wire.Frame, error) {
	f, err := c.Conn.Recv(ctx)
	if err == nil && f.Kind == wire.KindEnd && f.Stream == wire.StreamStdio && f.Err == nil && c.Process != nil {
		if pe := processEnd(ctx, c.Conn); pe != nil {
			f.Err = errors.New(pe.what())
		}
	}
	return f, err
}

// Send is target.Conn's; a write that failed because the process closed
// its input (a broken pipe) says how the process ended and what its
// stderr ended with, waiting up to closedInputWait for its exit: the
// error of a check whose first write found a dying target names its exit
// status, however late a loaded machine reaps it.
func (c endNaming) Send(ctx context.Context, msg []byte) (string, error) {
	st, err := c.Conn.Send(ctx, msg)
	return st, c.named(ctx, err)
}

// SendRaw is Send for raw bytes.
func (c endNaming) SendRaw(ctx context.Context, b []byte) (string, error) {
	st, err := c.Conn.SendRaw(ctx, b)
	return st, c.named(ctx, err)
}

func (c endNaming) named(ctx context.Context, err error) error {
	if err == nil || c.Process == nil || !errors.Is(err, syscall.EPIPE) {
		return err
	}
	pe := processEndWithin(ctx, c.Conn, closedInputWait)
	if pe == nil || pe.Exit == "" {
		return err
	}
	pe.Err, pe.named = err, strings.Contains(err.Error(), pe.what())
	return pe
}

// withProcessEnd makes err, a failed handshake on c, a *ProcessEnd when c
// is a process that ended (waiting up to exitWait for one whose output
// has ended), or one that never answered (silent is set) and wrote to
// stderr; else it returns err. A live process that answered keeps its
// error as it is: what it logs is no reason of the failure.
func withProcessEnd(ctx context.Context, c *target.Conn, err error, silent bool) error {
	if err == nil || c == nil || c.Process == nil {
		return err
	}
	if c.Process.ExitState() == nil {
		s := c.Stdio()
		if s == nil {
			return err
		}
		select {
		case <-s.Done(): // its output ended: it is going
		default:
			if silent {
				// A process that said nothing may be exiting: the
				// write of the handshake can fail on its closed input
				// (a broken pipe) before its output ends. Give it a
				// moment to say how it ended.
				if pe := processEnd(ctx, c); pe != nil && pe.Exit != "" {
					pe.Err, pe.named = err, strings.Contains(err.Error(), pe.what())
					return pe
				}
			}
			// Alive and talking: only a silent one's stderr says why.
			tail := bytes.TrimSpace(lastBytes(c.Process.Stderr().Tail(), MaxStderrTail))
			if !silent || len(tail) == 0 {
				return err
			}
			return &ProcessEnd{Err: err, Stderr: string(tail)}
		}
	}
	pe := processEnd(ctx, c)
	if pe == nil {
		return err
	}
	pe.Err, pe.named = err, strings.Contains(err.Error(), pe.what())
	return pe
}

// lastBytes is the last n bytes of b, starting at a line when one starts
// in them.
func lastBytes(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	b = b[len(b)-n:]
	if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
		b = b[i+1:]
	}
	return b
}
