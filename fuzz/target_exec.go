package fuzz

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/harness/target"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
)

// ExecTarget is a stdio Target: every Start launches Argv as a new process
// (in its own process group, so Close kills everything it spawned) and talks
// to it over stdin/stdout. It is mcpcheck-fuzz's own adapter; the harness's
// stdio transport can replace it through the Target interface.
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

// Start launches the process.
func (t *ExecTarget) Start(ctx context.Context) (Conn, error) {
	if len(t.Argv) == 0 {
		return nil, errors.New("fuzz: the stdio target has no command; set ExecTarget.Argv")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cmd := exec.Command(t.Argv[0], t.Argv[1:]...)
	cmd.Dir = t.Dir
	var sp *target.SandboxProcess
	if t.Sandbox != nil {
		var err error
		if sp, err = t.Sandbox.Apply(cmd, t.Env); err != nil {
			return nil, fmt.Errorf("fuzz: %w", err)
		}
	} else {
		cmd.Env = append(os.Environ(), t.Env...)
	}
	setProcessGroup(cmd)
	// Our ends of stdin and stdout are pollable pipes: a write and a read
	// carry a deadline, with no goroutine per write and no reader
	// goroutine. The child gets the other ends as blocking descriptors,
	// as with exec.Cmd.StdinPipe and StdoutPipe (and Wait does not close
	// our stdout before we read it all).
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("fuzz: stdin pipe for %s: %w", t.Describe(), err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		if sp != nil {
			sp.Abandon()
		}
		return nil, fmt.Errorf("fuzz: stdout pipe for %s: %w", t.Describe(), err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
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
	c := &execConn{
		wt:     wt,
		cmd:    cmd,
		stdin:  inW,
		stdout: outR,
		stderr: &ringBuffer{max: tail},
		done:   make(chan struct{}),
		exited: make(chan struct{}),
		sp:     sp,
	}
	c.polled = pollPipes && inW.SetWriteDeadline(time.Time{}) == nil && outR.SetReadDeadline(time.Time{}) == nil
	cmd.Stderr = c.stderr
	err = cmd.Start()
	inR.Close() // the child has its copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		if sp != nil {
			sp.Abandon()
			return nil, fmt.Errorf("fuzz: cannot start %s: %w; check the command and that the program is installed (%s)", t.Describe(), err, t.Sandbox.Hint())
		}
		return nil, fmt.Errorf("fuzz: cannot start %s: %w; check the command and that the program is installed", t.Describe(), err)
	}
	if sp != nil {
		sp.Started(cmd.Process.Pid)
	}
	if c.polled {
		c.lines = newPipeLines(outR, maxLine)
	} else {
		c.frames = make(chan Frame, 64)
		go c.read(outR, maxLine)
	}
	go func() {
		err := cmd.Wait()
		c.mu.Lock()
		c.exit = exitStatus(cmd, err, c.killed)
		// Ended on its own, with a failure, before it answered anything:
		// it did not start (in the sandbox).
		early := !c.closing && !c.answered.Load() && (cmd.ProcessState == nil || !cmd.ProcessState.Success())
		c.mu.Unlock()
		if sp != nil {
			sp.Exited(early, early, c.exit.String())
		}
		close(c.exited)
	}()
	return c, nil
}

// pollPipes selects the deadline path where the pipes allow it; tests turn
// it off to exercise the goroutine path.
var pollPipes = true

type execConn struct {
	wt     time.Duration
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	// polled: both pipes take deadlines, so stdout is read in Recv (lines)
	// and a write that the target does not take at once drains stdout
	// (queue) while it waits. Otherwise a goroutine reads stdout into
	// frames and a write waits on a goroutine of its own.
	polled bool
	lines  *pipeLines
	queue  []Frame // frames read while a write waited
	frames chan Frame
	stderr *ringBuffer
	done   chan struct{} // closed by Close
	exited chan struct{} // closed when Wait returned
	timer  *time.Timer   // Recv's, reused (goroutine reader only)

	sp *target.SandboxProcess // the instance's place in its sandbox, else nil

	mu      sync.Mutex
	exit    *ExitStatus
	killed  bool
	closing bool

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
	maxQueued = maxFramesPerExec
)

func (c *execConn) Send(b []byte) error {
	if !c.polled {
		return c.sendAsync(b)
	}
	// The target is not taking its input: it may be blocked writing its
	// output, which nobody reads while we write. Read what it wrote so
	// far; Recv returns it first.
	return writePolled(c.stdin, b, c.wt, func() { c.queue = drainLines(c.queue, c.lines) })
}

// drainLines appends to queue the frames lines holds already, up to
// maxQueued frames in queue.
func drainLines(queue []Frame, lines *pipeLines) []Frame {
	for len(queue) < maxQueued {
		f, ok := lines.available()
		if !ok {
			break
		}
		queue = append(queue, f)
	}
	return queue
}

// writePolled writes b to stdin in slices of sendSlice, calling drain
// between them. A target that takes its input slowly (a busy machine) is
// not one that stopped: the write stalls (ErrStalled) only when no byte
// was taken for the whole write timeout wt, and it is bounded overall by
// wt and the confirmation window a hang gets elsewhere (hangConfirm).
func writePolled(stdin *os.File, b []byte, wt time.Duration, drain func()) error {
	start := time.Now()
	end := start.Add(wt)
	hard := start.Add(wt + hangConfirm(wt))
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
		c.answered.Store(true)
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
		return c.lines.next(deadline)
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

func (c *execConn) StderrTail() []byte { return c.stderr.Bytes() }

func (c *execConn) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		c.closing = true
		c.mu.Unlock()
		close(c.done)
		_ = c.stdin.Close()
		select {
		case <-c.exited:
		default:
			c.mu.Lock()
			c.killed = true
			c.mu.Unlock()
			killGroup(c.cmd)
			<-c.exited
		}
		if c.sp != nil {
			c.sp.EndStrays(100 * time.Millisecond)
		}
		_ = c.stdout.Close()
		if c.frames != nil {
			// Drain so the reader goroutine ends.
			for range c.frames {
			}
		}
	})
	return nil
}

// ringBuffer keeps the last max bytes written to it.
type ringBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (r *ringBuffer) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if len(r.buf) > r.max {
		r.buf = append(r.buf[:0], r.buf[len(r.buf)-r.max:]...)
	}
	return len(p), nil
}

func (r *ringBuffer) Bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]byte(nil), r.buf...)
}
