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
	cmd.Env = append(os.Environ(), t.Env...)
	setProcessGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("fuzz: stdin pipe for %s: %w", t.Describe(), err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("fuzz: stdout pipe for %s: %w", t.Describe(), err)
	}
	tail := t.StderrTail
	if tail <= 0 {
		tail = 64 << 10
	}
	wt := t.WriteTimeout
	if wt <= 0 {
		wt = DefaultWriteTimeout
	}
	c := &execConn{
		wt:     wt,
		cmd:    cmd,
		stdin:  stdin,
		frames: make(chan Frame, 64),
		stderr: &ringBuffer{max: tail},
		done:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("fuzz: cannot start %s: %w; check the command and that the program is installed", t.Describe(), err)
	}
	maxLine := t.MaxLine
	if maxLine <= 0 {
		maxLine = 4 << 20
	}
	go c.read(stdout, maxLine)
	go func() {
		err := cmd.Wait()
		c.mu.Lock()
		c.exit = exitStatus(cmd, err, c.killed)
		c.mu.Unlock()
		close(c.exited)
	}()
	return c, nil
}

type execConn struct {
	wt     time.Duration
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	frames chan Frame
	stderr *ringBuffer
	done   chan struct{} // closed by Close
	exited chan struct{} // closed when Wait returned

	mu     sync.Mutex
	exit   *ExitStatus
	killed bool
	once   sync.Once
	eof    bool
}

func (c *execConn) read(r io.Reader, maxLine int) {
	defer close(c.frames)
	lr := jsonrpc.NewLineReader(r, maxLine)
	for {
		line, err := lr.ReadLine()
		var f Frame
		switch {
		case err == nil:
			f = Frame{Data: append([]byte(nil), line...)}
		case errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF):
			return
		default:
			var tooLong *jsonrpc.LineTooLongError
			switch {
			case errors.As(err, &tooLong):
				f = Frame{Data: append([]byte(nil), line...), Problem: err.Error()}
			case errors.Is(err, jsonrpc.ErrUnterminatedLine):
				f = Frame{Data: append([]byte(nil), line...), Problem: "the output ended without a final newline"}
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

func (c *execConn) Send(b []byte) error {
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
		// The write goroutine ends when Close closes stdin.
		return fmt.Errorf("%w: a %d-byte write did not complete in %v", ErrStalled, len(b), c.wt)
	}
}

func (c *execConn) CloseSend() error { return c.stdin.Close() }

func (c *execConn) Recv(deadline time.Time) (Frame, error) {
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
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case f, ok := <-c.frames:
		if !ok {
			c.eof = true
			return Frame{}, ErrClosed
		}
		return f, nil
	case <-timer.C:
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
		// Drain so the reader goroutine ends.
		for range c.frames {
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
