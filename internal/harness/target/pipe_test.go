package target

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

// TestPipeTargetCarriesLinesAndReportsTheEnd connects to an in-process
// pipe server that echoes each line and then panics on "boom": the echo
// arrives as a frame, the panic ends the stream (KindEnd) instead of the
// test binary, Description says it panicked, and Close returns at once.
func TestPipeTargetCarriesLinesAndReportsTheEnd(t *testing.T) {
	tg := Pipe(func(ctx context.Context, in io.Reader, out io.Writer) error {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			if sc.Text() == `"boom"` {
				panic("boom")
			}
			if _, err := io.WriteString(out, sc.Text()+"\n"); err != nil {
				return err
			}
		}
		return sc.Err()
	})
	if !tg.IsStdio() || tg.Validate() != nil || tg.Report().Command != "(in-process pipe)" {
		t.Fatalf("a pipe target: IsStdio %v, Validate %v, Report %+v; want a valid stdio target", tg.IsStdio(), tg.Validate(), tg.Report())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Connect(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Pipe == nil || c.Process != nil || c.Mode != Stdio {
		t.Fatalf("Conn of a pipe target: Pipe %v Process %v Mode %s", c.Pipe, c.Process, c.Mode)
	}
	if _, err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	f, err := c.Recv(ctx)
	if err != nil || f.Kind != wire.KindMessage || f.Msg.Method != "ping" {
		t.Fatalf("the echo: frame %+v, err %v; want the ping back", f, err)
	}
	if _, err := c.Send(ctx, []byte(`"boom"`)); err != nil {
		t.Fatal(err)
	}
	if f, err = c.Recv(ctx); err != nil || f.Kind != wire.KindEnd {
		t.Fatalf("after the panic: frame %+v, err %v; want the end of the stream", f, err)
	}
	<-c.Pipe.Done()
	if d := c.Pipe.Description(); !strings.HasPrefix(d, "panicked: boom") {
		t.Errorf("Description = %q; want it to say the server panicked", d)
	}
	// The server has ended, so Close has nothing to wait for: it says nil
	// (a server that ignores its end gets an error; see the next test). The
	// bound is the test's deadline, not a claim about speed.
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close of an ended pipe server: %v; want nil", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Close of an ended pipe server had not returned after a minute")
	}
}

// TestPipeTargetThatIgnoresItsEnd: Close of a server that returns neither
// at EOF nor when its context ends says so (its goroutine is left behind,
// not waited for forever); Validate refuses a pipe with a command or URL.
func TestPipeTargetThatIgnoresItsEnd(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	tg := Pipe(func(ctx context.Context, in io.Reader, out io.Writer) error {
		<-release
		return nil
	})
	c, err := Connect(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err == nil || !strings.Contains(err.Error(), "did not return") {
		t.Errorf("Close = %v; want an error saying the server did not return", err)
	}
	bad := tg
	bad.Command = "x"
	if err := bad.Validate(); err == nil {
		t.Error("Validate accepted a pipe target with a command")
	}
}

// seen is a tap that keeps the methods of the messages it was handed.
type seen struct {
	mu      sync.Mutex
	methods []string
}

func (s *seen) Sent(wire.Outgoing) {}
func (s *seen) Received(f wire.Frame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.methods = append(s.methods, f.Msg.Method)
}
func (s *seen) Noted(string, time.Time) {}

// TestConnectTapsSeeWhatTheTargetSaysFirst connects to a pipe server that
// writes a notification as soon as it starts, before it reads anything:
// the tap given to Connect sees it. A tap added after Connect (Observe)
// raced the reader goroutine and could miss it, which left the
// notification out of the transcript of lifecycle/silent-before-initialize
// while the check failed on it.
func TestConnectTapsSeeWhatTheTargetSaysFirst(t *testing.T) {
	tg := Pipe(func(ctx context.Context, in io.Reader, out io.Writer) error {
		if _, err := io.WriteString(out, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"early"}}`+"\n"); err != nil {
			return err
		}
		_, err := io.Copy(io.Discard, in)
		return err
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tap := &seen{}
	c, err := Connect(ctx, tg, tap)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, err := c.Recv(ctx)
	if err != nil || f.Msg.Method != "notifications/message" {
		t.Fatalf("first frame %+v, err %v; want the server's early notification", f, err)
	}
	// The reader hands a frame to the taps before it queues it, so the
	// tap has seen everything Recv returned.
	tap.mu.Lock()
	defer tap.mu.Unlock()
	if len(tap.methods) != 1 || tap.methods[0] != "notifications/message" {
		t.Errorf("the tap given to Connect saw %q; want the early notification", tap.methods)
	}
}
