package fuzz

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/spec"
)

// inprocTarget is the careful test server (serve) run in the test's own
// process, one goroutine per instance, over a pair of OS pipes: the
// stdio transport with no process start. A campaign against it runs the
// same sessions, oracles and minimizer as against helperTarget, at a
// fraction of the cost (each instance of helperTarget is a start of the
// race-instrumented test binary). A panic of the server is reported as
// Go reports one (stderr "panic: …", status 2) and its exit as that
// status; the tests of process launching, exit statuses and stderr of a
// real process use helperTarget.
type inprocTarget struct {
	v     spec.Version
	fault string
	// delay is how long an instance waits before it reads anything (a
	// slowly starting target, as delayEnv).
	delay time.Duration
	// wt bounds one write (DefaultWriteTimeout when zero).
	wt time.Duration
}

// inprocHelper is the in-process twin of helperTarget(t, v, fault).
func inprocHelper(v spec.Version, fault string) *inprocTarget {
	return &inprocTarget{v: v, fault: fault}
}

func (t *inprocTarget) Describe() string {
	return fmt.Sprintf("fuzz-test-server --version %s --fault %q", t.v, t.fault)
}

// inprocExit is what a server instance panics with to exit with a status.
type inprocExit int

func (t *inprocTarget) Start(ctx context.Context) (conn.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	wt := t.wt
	if wt <= 0 {
		wt = conn.DefaultWriteTimeout
	}
	c := &inprocConn{wt: wt, stdin: inW, stdout: outR, lines: conn.NewPipeLines(outR, 4<<20), stderr: target.NewRing(64 << 10),
		done: make(chan struct{}), exited: make(chan struct{})}
	ends := serverEnds{
		exit: func(code int) { panic(inprocExit(code)) },
		hang: func() { <-c.done; panic(inprocExit(-1)) },
	}
	go func() {
		st := &conn.ExitStatus{}
		defer func() {
			if v := recover(); v != nil {
				switch e := v.(type) {
				case inprocExit:
					st.Code = int(e)
				default: // as the Go runtime reports an unrecovered panic
					fmt.Fprintf(c.stderr, "panic: %v\n\n%s", v, debug.Stack())
					st.Code = 2
				}
			}
			_ = inR.Close()
			_ = outW.Close()
			c.mu.Lock()
			if c.closing {
				st.Killed = true
			}
			if st.Code < 0 {
				st.Signal = "killed"
			}
			c.exit = st
			c.mu.Unlock()
			close(c.exited)
		}()
		if t.delay > 0 {
			select {
			case <-time.After(t.delay): // the target's own slow start
			case <-c.done:
				return
			}
		}
		serve(t.v, t.fault, inR, outW, ends)
	}()
	return c, nil
}

type inprocConn struct {
	wt     time.Duration
	stdin  *os.File
	stdout *os.File
	lines  *conn.PipeLines
	queue  []conn.Frame // frames read while a write waited
	stderr *target.Ring
	done   chan struct{} // closed by Close
	exited chan struct{} // closed when the server's goroutine ended

	mu      sync.Mutex
	exit    *conn.ExitStatus
	closing bool
	once    sync.Once
}

// Send writes as execConn's polled path does (conn.WritePolled), reading what
// the server wrote meanwhile.
func (c *inprocConn) Send(b []byte) error {
	return conn.WritePolled(c.stdin, b, c.wt, func() { c.queue = conn.DrainLines(c.queue, c.lines) })
}

func (c *inprocConn) CloseSend() error { return c.stdin.Close() }

func (c *inprocConn) Recv(deadline time.Time) (conn.Frame, error) {
	if len(c.queue) > 0 {
		f := c.queue[0]
		c.queue[0] = conn.Frame{}
		c.queue = c.queue[1:]
		return f, nil
	}
	return c.lines.Next(deadline)
}

func (c *inprocConn) Exit(deadline time.Time) *conn.ExitStatus {
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

func (c *inprocConn) StderrTail() []byte { return c.stderr.Tail() }

// Close ends the instance: its input and output closed (its reads end,
// its writes fail), a hanging instance told to stop, and its goroutine
// waited for.
func (c *inprocConn) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		select {
		case <-c.exited:
		default:
			c.closing = true
		}
		c.mu.Unlock()
		close(c.done)
		_ = c.stdin.Close()
		_ = c.stdout.Close()
		<-c.exited
	})
	return nil
}

// TestInprocTargetEndsAsAProcessWould: the in-process server's ends are
// those of the helper process: EOF ends it with status 0, the
// exit-garbage fault with status 3, panic-nul with status 2 and the
// panic on stderr, and Close ends a hanging one as killed.
func TestInprocTargetEndsAsAProcessWould(t *testing.T) {
	t.Parallel()
	v := spec.V20250618
	deadline := func() time.Time { return time.Now().Add(10 * time.Second) }
	for _, tc := range []struct {
		fault, send string
		code        int
		killed      bool
		stderr      string
	}{
		{"", "", 0, false, ""},
		{"exit-garbage", "not json\n", 3, false, ""},
		{"panic-nul", "\x00\n", 2, false, "panic: test server: NUL byte at offset 0"},
		{"hang-unknown", `{"jsonrpc":"2.0","id":1,"method":"no/such"}` + "\n", -1, true, ""},
	} {
		c, err := inprocHelper(v, tc.fault).Start(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if tc.send != "" {
			if err := c.Send([]byte(tc.send)); err != nil {
				t.Fatal(err)
			}
		}
		if tc.killed {
			if st := c.Exit(time.Now().Add(50 * time.Millisecond)); st != nil {
				t.Errorf("%s: the hanging server ended by itself: %v", tc.fault, st)
			}
		} else {
			_ = c.CloseSend()
			if st := c.Exit(deadline()); st == nil || st.Code != tc.code || st.Killed {
				t.Errorf("%s: ended %v, want status %d", tc.fault, st, tc.code)
			}
		}
		_ = c.Close()
		st := c.Exit(deadline())
		if st == nil || st.Code != tc.code || st.Killed != tc.killed {
			t.Errorf("%s: after Close %+v, want status %d, killed %v", tc.fault, st, tc.code, tc.killed)
		}
		if tail := string(c.StderrTail()); tc.stderr != "" && !strings.Contains(tail, tc.stderr) {
			t.Errorf("%s: stderr %q lacks %q", tc.fault, tail, tc.stderr)
		}
		if _, err := c.Recv(deadline()); !errors.Is(err, conn.ErrClosed) {
			t.Errorf("%s: Recv after the end: %v, want ErrClosed", tc.fault, err)
		}
	}
}
