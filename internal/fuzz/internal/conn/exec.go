package conn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// ExecTarget is a stdio Target: every Start launches Argv as a new process
// through internal/harness/target.StartProcess (in its own process group, so Close
// kills everything it spawned; in the sandbox when one is set) and talks
// to it over pollable stdin and stdout pipes, with a deadline on every
// read and write.
type ExecTarget struct {
	// Argv is the command and its arguments.
	Argv []string
	// Env is added to the environment of the process.
	Env []string
	// Dir is the working directory; empty means the current one.
	Dir string
	// MaxLine bounds one stdout line; longer lines are cut (Frame.Problem
	// says so). Zero means 4 MiB.
	MaxLine int
	// StderrTail bounds the stderr kept per instance; zero means 64 KiB.
	StderrTail int
	// WriteTimeout bounds one write to stdin; zero means
	// DefaultWriteTimeout.
	WriteTimeout time.Duration
	// Sandbox, when set, runs every instance in it (see
	// target.Sandbox.Apply): its own working directory, HOME and TMPDIR,
	// and what an instance spawned outside its process group is ended
	// when the instance is closed.
	Sandbox *target.Sandbox
}

// CommandTarget splits a command line on spaces (quotes are honoured) into an
// ExecTarget, as "mcpcheck fuzz --stdio CMD" does.
func CommandTarget(cmdline string) (*ExecTarget, error) {
	argv, err := SplitCommand(cmdline)
	if err != nil {
		return nil, err
	}
	return &ExecTarget{Argv: argv}, nil
}

// SplitCommand splits a command line into an argv; it is
// target.SplitCommand, kept here for callers of this package.
func SplitCommand(s string) ([]string, error) { return target.SplitCommand(s) }

// Describe returns the command line.
func (t *ExecTarget) Describe() string { return strings.Join(t.Argv, " ") }

// Start launches the process through internal/harness/target (StartProcess: its
// own process group, the sandbox when set, stderr kept in a ring).
func (t *ExecTarget) Start(ctx context.Context) (Conn, error) {
	if len(t.Argv) == 0 {
		return nil, errors.New("fuzz: the stdio target has no command; set ExecTarget.Argv")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tail := t.StderrTail
	if tail <= 0 {
		tail = 64 << 10
	}
	wt := t.WriteTimeout
	if wt <= 0 {
		wt = DefaultWriteTimeout
	}
	maxLine := t.MaxLine
	if maxLine <= 0 {
		maxLine = 4 << 20
	}
	p, err := target.StartProcess(target.Target{Transport: target.Stdio, Command: t.Argv[0], Args: t.Argv[1:], Env: t.Env, Dir: t.Dir, Sandbox: t.Sandbox, StderrTail: tail})
	if err != nil {
		return nil, fmt.Errorf("fuzz: cannot start %s: %w; check the command and that the program is installed", t.Describe(), err)
	}
	c := &execConn{
		wt:     wt,
		p:      p,
		stdin:  p.Stdin(),
		stdout: p.Stdout(),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	// Our ends of stdin and stdout are pollable pipes: a write and a read
	// carry a deadline, with no goroutine per write and no reader
	// goroutine.
	c.polled = PollPipes && c.stdin.SetWriteDeadline(time.Time{}) == nil && c.stdout.SetReadDeadline(time.Time{}) == nil
	if c.polled {
		c.lines = NewPipeLines(c.stdout, maxLine)
	} else {
		c.frames = make(chan Frame, 64)
		go c.read(c.stdout, maxLine)
	}
	go func() {
		<-p.Exited()
		c.mu.Lock()
		c.exit = exitStatusOf(p.ExitState(), c.killed)
		c.mu.Unlock()
		close(c.exited)
	}()
	return c, nil
}

// PollPipes selects the deadline path where the pipes allow it; tests turn
// it off to exercise the goroutine path.
var PollPipes = true

type execConn struct {
	wt     time.Duration
	p      *target.Process
	stdin  *os.File
	stdout *os.File
	// polled: both pipes take deadlines, so stdout is read in Recv (lines)
	// and a write that the target does not take at once drains stdout
	// (queue) while it waits. Otherwise a goroutine reads stdout into
	// frames and a write waits on a goroutine of its own.
	polled bool
	lines  *PipeLines
	queue  []Frame // frames read while a write waited
	frames chan Frame
	done   chan struct{} // closed by Close
	exited chan struct{} // closed once the exit status is known
	timer  *time.Timer   // Recv's, reused (goroutine reader only)

	mu     sync.Mutex
	exit   *ExitStatus
	killed bool

	once sync.Once
	eof  bool

	answered atomic.Bool // Recv returned a frame
}

// sendSlice is how long a write waits for the target to take its input
// before stdout is drained (the target may be blocked writing to us), and
// maxQueued bounds the frames so drained: a target that writes that much
// while not reading is flooding, and the write then stalls.
const (
	sendSlice = 5 * time.Millisecond
	maxQueued = MaxFramesPerExec
)

func (c *execConn) Send(b []byte) error {
	if !c.polled {
		return c.sendAsync(b)
	}
	// The target is not taking its input: it may be blocked writing its
	// output, which nobody reads while we write. Read what it wrote so
	// far; Recv returns it first.
	return WritePolled(c.stdin, b, c.wt, func() { c.queue = DrainLines(c.queue, c.lines) })
}

// DrainLines appends to queue the frames lines holds already, up to
// maxQueued frames in queue.
func DrainLines(queue []Frame, lines *PipeLines) []Frame {
	for len(queue) < maxQueued {
		f, ok := lines.available()
		if !ok {
			break
		}
		queue = append(queue, f)
	}
	return queue
}

// WritePolled writes b to stdin in slices of sendSlice, calling drain
// between them. A target that takes its input slowly (a busy machine) is
// not one that stopped: the write stalls (ErrStalled) only when no byte
// was taken for the whole write timeout wt, and it is bounded overall by
// wt and the confirmation window a hang gets elsewhere (HangConfirm).
func WritePolled(stdin *os.File, b []byte, wt time.Duration, drain func()) error {
	start := time.Now()
	end := start.Add(wt)
	hard := start.Add(wt + HangConfirm(wt))
	total := len(b)
	for {
		slice := time.Now().Add(sendSlice)
		if slice.After(end) {
			slice = end
		}
		if err := stdin.SetWriteDeadline(slice); err != nil {
			return fmt.Errorf("%w: writing to stdin failed: %v", ErrClosed, err)
		}
		n, err := stdin.Write(b)
		b = b[n:]
		if n > 0 && err != nil {
			if end = time.Now().Add(wt); end.After(hard) {
				end = hard
			}
		}
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, os.ErrDeadlineExceeded):
			return fmt.Errorf("%w: writing to stdin failed: %v", ErrClosed, err)
		case !time.Now().Before(hard):
			return fmt.Errorf("%w: a %d-byte write was still not complete after %v, though the target kept taking input (%d bytes written)", ErrStalled, total, time.Since(start).Round(time.Millisecond), total-len(b))
		case !time.Now().Before(end):
			return fmt.Errorf("%w: the target took no byte for %v of a %d-byte write (%d bytes written)", ErrStalled, wt, total, total-len(b))
		}
		drain()
	}
}

// sendAsync bounds a write to a pipe that takes no deadline with a
// goroutine; it ends when Close closes stdin.
func (c *execConn) sendAsync(b []byte) error {
	done := make(chan error, 1)
	go func() {
		_, err := c.stdin.Write(b)
		done <- err
	}()
	timer := time.NewTimer(c.wt)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%w: writing to stdin failed: %v", ErrClosed, err)
		}
		return nil
	case <-timer.C:
		return fmt.Errorf("%w: a %d-byte write did not complete in %v", ErrStalled, len(b), c.wt)
	}
}

func (c *execConn) CloseSend() error { return c.stdin.Close() }

// read is the stdout reader goroutine of a pipe that takes no deadline.
func (c *execConn) read(r io.Reader, maxLine int) {
	defer close(c.frames)
	lr := jsonrpc.NewLineReader(r, maxLine)
	for {
		line, err := lr.ReadLine()
		var f Frame
		switch {
		case err == nil:
			f = Frame{Data: line} // the LineReader's lines are fresh copies
		case errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF):
			return
		default:
			var tooLong *jsonrpc.LineTooLongError
			switch {
			case errors.As(err, &tooLong):
				f = Frame{Data: line, Problem: err.Error()}
			case errors.Is(err, jsonrpc.ErrUnterminatedLine):
				f = Frame{Data: line, Problem: "the output ended without a final newline"}
			default:
				return // read error: the pipe is gone
			}
		}
		f.At = time.Now()
		select {
		case c.frames <- f:
		case <-c.done:
			return
		}
		if errors.Is(err, jsonrpc.ErrUnterminatedLine) {
			return
		}
	}
}

func (c *execConn) Recv(deadline time.Time) (Frame, error) {
	f, err := c.recv(deadline)
	if err == nil && !c.answered.Load() {
		// A sandboxed instance that fails after this did start.
		c.answered.Store(true)
		c.p.NoteSaid()
	}
	return f, err
}

func (c *execConn) recv(deadline time.Time) (Frame, error) {
	if len(c.queue) > 0 {
		f := c.queue[0]
		c.queue[0] = Frame{}
		c.queue = c.queue[1:]
		return f, nil
	}
	if c.polled {
		return c.lines.Next(deadline)
	}
	if c.eof {
		return Frame{}, ErrClosed
	}
	select {
	case f, ok := <-c.frames:
		if ok {
			return f, nil
		}
		c.eof = true
		return Frame{}, ErrClosed
	default:
	}
	d := time.Until(deadline)
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Reset(d)
	}
	select {
	case f, ok := <-c.frames:
		c.timer.Stop()
		if !ok {
			c.eof = true
			return Frame{}, ErrClosed
		}
		return f, nil
	case <-c.timer.C:
		return Frame{}, ErrDeadline
	}
}

func (c *execConn) Exit(deadline time.Time) *ExitStatus {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-c.exited:
	case <-timer.C:
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exit
}

// stderrSettle bounds how long StderrTail waits, once the process has
// exited, for its stderr to end (a child that outlives it may hold it).
const stderrSettle = 250 * time.Millisecond

// StderrTail returns the tail of the process's stderr; once the process
// has exited it first waits (up to stderrSettle) for everything it wrote
// to be read, so that a crash's stack is whole in the campaign as in a
// replay (the crash's check names the function the stack says failed).
func (c *execConn) StderrTail() []byte {
	select {
	case <-c.p.Exited():
		t := time.NewTimer(stderrSettle)
		select {
		case <-c.p.StderrClosed():
		case <-t.C:
		}
		t.Stop()
	default:
	}
	return c.p.Stderr().Tail()
}

func (c *execConn) Close() error {
	c.once.Do(func() {
		close(c.done)
		c.mu.Lock()
		select {
		case <-c.p.Exited():
		default:
			// Killed before it exited: its end is ours, not a crash.
			c.killed = true
		}
		c.mu.Unlock()
		_, _ = c.p.Kill(100 * time.Millisecond)
		<-c.exited
		if c.frames != nil {
			// Drain so the reader goroutine ends.
			for range c.frames {
			}
		}
	})
	return nil
}
