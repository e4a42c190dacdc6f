package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// StdioOptions describes the server process a Stdio transport launches.
type StdioOptions struct {
	// Command is the program; Args its arguments (without the program).
	Command string
	Args    []string
	// Env is added to the client's environment (KEY=VALUE entries).
	Env []string
	// Dir is the working directory; empty means the client's.
	Dir string
	// Stderr receives the server's stderr (its logs); nil discards it.
	Stderr io.Writer
	// MaxMessage bounds one line from the server; 0 means DefaultMaxMessage.
	MaxMessage int
	// Grace is how long Close waits at each step of the shutdown (after
	// closing stdin, after SIGTERM); 0 means 2 seconds.
	Grace time.Duration
	// SigtermFirst is a fault switch of the reference client
	// (stdio-sigterm-first): Close sends SIGTERM before it closes stdin.
	// Leave it false.
	SigtermFirst bool
	// SigtermWithoutWait is a fault switch of the reference client
	// (stdio-sigterm-without-wait): Close sends SIGTERM as soon as it has
	// closed stdin, without waiting for the server to exit. Leave it
	// false.
	SigtermWithoutWait bool
	// SigkillWithoutWait is a fault switch of the reference client
	// (stdio-sigkill-without-wait): Close sends SIGKILL as soon as it has
	// sent SIGTERM, without waiting for the server to exit. Leave it
	// false.
	SigkillWithoutWait bool
}

// Stdio runs an MCP server as a child process in its own process group and
// exchanges newline-delimited messages over its stdin and stdout.
//
// Concurrency: as Conn. Shutdown follows the specification's order: Close
// closes the server's stdin, waits, sends SIGTERM to the whole process
// group, waits, then SIGKILL.
type Stdio struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	w     *jsonrpc.LineWriter
	in    *inbox
	grace time.Duration
	// sigtermFirst is StdioOptions.SigtermFirst.
	sigtermFirst bool
	// sigtermWithoutWait is StdioOptions.SigtermWithoutWait.
	sigtermWithoutWait bool
	// sigkillWithoutWait is StdioOptions.SigkillWithoutWait.
	sigkillWithoutWait bool

	exited   chan struct{} // closed when Wait returned
	stdout   *os.File
	readDone chan struct{}
	stderr   *os.File
	errDone  chan struct{}
	waitErr  error
	stop     chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// StartStdio launches the server. The process is not tied to ctx: it lives
// until Close. ctx only bounds the start.
func StartStdio(ctx context.Context, o StdioOptions) (*Stdio, error) {
	if o.Command == "" {
		return nil, errors.New("transport: no server command given; pass the program to launch")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cmd := exec.Command(o.Command, o.Args...)
	cmd.Dir = o.Dir
	if len(o.Env) > 0 {
		cmd.Env = append(cmd.Environ(), o.Env...)
	}
	setProcessGroup(cmd)
	stderr := o.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	// Our own pipe for stderr too, so that Wait reports the process's exit
	// even when something it spawned keeps stderr open.
	errR, errW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("transport: cannot create the server's stderr: %w", err)
	}
	cmd.Stderr = errW
	stdin, err := cmd.StdinPipe()
	if err != nil {
		errR.Close()
		errW.Close()
		return nil, fmt.Errorf("transport: cannot create the server's stdin: %w", err)
	}
	// Our own pipe (rather than StdoutPipe) keeps reading independent of
	// Wait, and lets Close unblock the reader by closing the read end.
	stdout, pw, err := os.Pipe()
	if err != nil {
		stdin.Close()
		errR.Close()
		errW.Close()
		return nil, fmt.Errorf("transport: cannot create the server's stdout: %w", err)
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		stdin.Close()
		stdout.Close()
		pw.Close()
		errR.Close()
		errW.Close()
		return nil, fmt.Errorf("transport: cannot start the server %q: %w; check the command and that it is installed", o.Command, err)
	}
	pw.Close()
	errW.Close()
	grace := o.Grace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	s := &Stdio{
		cmd:      cmd,
		stdin:    stdin,
		w:        jsonrpc.NewLineWriter(stdin),
		in:       newInbox(64),
		grace:    grace,
		exited:   make(chan struct{}),
		stop:     make(chan struct{}),
		stdout:   stdout,
		readDone: make(chan struct{}),
		stderr:   errR,
		errDone:  make(chan struct{}),
	}
	s.sigtermFirst = o.SigtermFirst
	s.sigtermWithoutWait = o.SigtermWithoutWait
	s.sigkillWithoutWait = o.SigkillWithoutWait
	go func() {
		defer close(s.errDone)
		_, _ = io.Copy(stderr, errR)
	}()
	go s.read(stdout, o.MaxMessage, s.readDone)
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	return s, nil
}

func (s *Stdio) read(stdout io.Reader, max int, done chan<- struct{}) {
	defer close(done)
	lr := jsonrpc.NewLineReader(stdout, max)
	for {
		line, err := lr.ReadLine()
		if err == nil {
			if !s.in.put(s.stop, item{msg: line}) {
				return
			}
			continue
		}
		var tl *jsonrpc.LineTooLongError
		if errors.As(err, &tl) {
			if !s.in.put(s.stop, item{err: &DroppedError{What: tl.Error()}}) {
				return
			}
			continue
		}
		if errors.Is(err, jsonrpc.ErrUnterminatedLine) && len(line) > 0 {
			s.in.put(s.stop, item{err: &DroppedError{What: fmt.Sprintf("the server's last output %q had no final newline", truncate(line, 80))}})
		}
		if errors.Is(err, io.EOF) || errors.Is(err, jsonrpc.ErrUnterminatedLine) {
			s.in.fail(fmt.Errorf("transport: the server closed its stdout (it exited or stopped talking): %w", io.EOF))
		} else {
			s.in.fail(fmt.Errorf("transport: reading the server's stdout: %w", err))
		}
		return
	}
}

// Send writes msg as one line to the server's stdin.
func (s *Stdio) Send(ctx context.Context, msg []byte) error {
	return s.write(ctx, func() error { return s.w.WriteLine(msg) })
}

// SendRaw writes b to the server's stdin exactly as given, in one write
// (no LF added, no check): for the reference client's fault switches,
// which send broken framing on purpose.
func (s *Stdio) SendRaw(ctx context.Context, b []byte) error {
	return s.write(ctx, func() error { return s.w.WriteRaw(b) })
}

// write runs one write to stdin, bounded by ctx and Close.
func (s *Stdio) write(ctx context.Context, write func() error) error {
	select {
	case <-s.stop:
		return ErrClosed
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// A write to a pipe blocks when the server does not read; bound it by
	// ctx by writing in a goroutine that Close unblocks.
	errc := make(chan error, 1)
	go func() { errc <- write() }()
	select {
	case err := <-errc:
		if err != nil {
			return fmt.Errorf("transport: writing to the server's stdin: %w", err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("transport: the server did not read its stdin in time: %w", ctx.Err())
	case <-s.stop:
		return ErrClosed
	}
}

// Recv returns the next line the server wrote.
func (s *Stdio) Recv(ctx context.Context) ([]byte, error) {
	select {
	case <-s.stop:
		return nil, ErrClosed
	default:
	}
	msg, err := s.in.recv(ctx)
	return msg, err
}

// Exited is closed when the server process has exited.
func (s *Stdio) Exited() <-chan struct{} { return s.exited }

// Close shuts the server down: close stdin, wait, SIGTERM the process
// group, wait, SIGKILL the process group. It returns nil when the server
// exited on its own after stdin closed, and an error saying which signal
// it took otherwise.
func (s *Stdio) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		s.in.fail(ErrClosed)
		if s.sigtermFirst {
			// The fault: SIGTERM first, and stdin closed only once the
			// server exited or the grace period ran out.
			signalGroup(s.cmd, false)
			t := time.NewTimer(s.grace)
			select {
			case <-s.exited:
			case <-t.C:
			}
			t.Stop()
		}
		s.stdin.Close()
		defer func() {
			// Unblock the reader even if a stray process still holds the
			// write end of stdout.
			s.stdout.Close()
			<-s.readDone
			// Give the last log lines a moment, then stop copying.
			t := time.NewTimer(100 * time.Millisecond)
			select {
			case <-s.errDone:
			case <-t.C:
			}
			t.Stop()
			s.stderr.Close()
			<-s.errDone
		}()
		t := time.NewTimer(s.grace)
		defer t.Stop()
		if !s.sigtermWithoutWait {
			select {
			case <-s.exited:
				return
			case <-t.C:
			}
			t.Reset(s.grace)
		}
		signalGroup(s.cmd, false)
		if !s.sigkillWithoutWait {
			select {
			case <-s.exited:
				s.closeErr = errors.New("transport: the server did not exit when its stdin closed; it stopped after SIGTERM")
				return
			case <-t.C:
			}
		}
		signalGroup(s.cmd, true)
		<-s.exited
		s.closeErr = errors.New("transport: the server ignored stdin closing and SIGTERM; it was killed with SIGKILL")
	})
	return s.closeErr
}
