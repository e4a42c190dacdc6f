package transport

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

func startFake(t *testing.T, mode string, extra ...string) *Stdio {
	t.Helper()
	return startFakeGrace(t, mode, 300*time.Millisecond, extra...)
}

// startFakeGrace starts the fake with the given shutdown grace; tests that
// expect a clean exit give a generous one, since a loaded machine can be
// slow to schedule the child.
func startFakeGrace(t *testing.T, mode string, grace time.Duration, extra ...string) *Stdio {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := StartStdio(context.Background(), StdioOptions{
		Command:    exe,
		Env:        append([]string{"MCPCHECK_FAKE_SERVER=" + mode, "GORACE=atexit_sleep_ms=0"}, extra...),
		Grace:      grace,
		MaxMessage: 1024,
	})
	if err != nil {
		t.Fatalf("starting the fake server: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestStdioRoundTrip(t *testing.T) {
	s := startFakeGrace(t, "echo", 5*time.Second)
	ctx := ctxT(t)
	for i := range 3 {
		msg := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ping"}`
		if err := s.Send(ctx, []byte(msg)); err != nil {
			t.Fatalf("Send: %v", err)
		}
		got, err := s.Recv(ctx)
		if err != nil || string(got) != msg {
			t.Fatalf("Recv = %q, %v; want %q", got, err, msg)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close of a server that exits when stdin closes: %v", err)
	}
	if _, err := s.Recv(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Recv after Close = %v; want ErrClosed", err)
	}
	if err := s.Send(ctx, []byte(`{}`)); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close = %v; want ErrClosed", err)
	}
}

func TestStdioLongLineDropped(t *testing.T) {
	s := startFake(t, "longline")
	ctx := ctxT(t)
	_, err := s.Recv(ctx)
	var d *DroppedError
	if !errors.As(err, &d) {
		t.Fatalf("first Recv = %v; want a DroppedError for the 5000-byte line", err)
	}
	got, err := s.Recv(ctx)
	if err != nil || !strings.Contains(string(got), "after") {
		t.Fatalf("second Recv = %q, %v; want the message after the long line", got, err)
	}
}

func TestStdioShutdownEscalates(t *testing.T) {
	for _, tc := range []struct {
		mode, want string
	}{
		{"ignore-stdin", "SIGTERM"},
		{"ignore-all", "SIGKILL"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			s := startFake(t, tc.mode)
			ctx := ctxT(t)
			if got, err := s.Recv(ctx); err != nil || string(got) != "ready" {
				t.Fatalf("Recv = %q, %v", got, err)
			}
			err := s.Close()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Close = %v; want an error naming %s", err, tc.want)
			}
			select {
			case <-s.Exited():
			default:
				t.Fatal("Close returned before the process exited")
			}
		})
	}
}

func TestStdioEnvAndDir(t *testing.T) {
	exe, _ := os.Executable()
	dir := t.TempDir()
	s, err := StartStdio(context.Background(), StdioOptions{Command: exe, Env: []string{"MCPCHECK_FAKE_SERVER=env", "FAKE_VAR=hello"}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := ctxT(t)
	v, _ := s.Recv(ctx)
	wd, _ := s.Recv(ctx)
	if string(v) != `"hello"` {
		t.Errorf("env: got %s", v)
	}
	if !strings.Contains(string(wd), dir) {
		t.Errorf("dir: got %s; want %s", wd, dir)
	}
}

func TestStdioServerExits(t *testing.T) {
	s := startFake(t, "echo")
	ctx := ctxT(t)
	s.stdin.Close() // the server sees EOF and exits
	_, err := s.Recv(ctx)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("Recv after the server exited = %v; want io.EOF", err)
	}
}

func TestStdioBadCommand(t *testing.T) {
	_, err := StartStdio(context.Background(), StdioOptions{Command: "/nonexistent/mcp-server"})
	if err == nil || !strings.Contains(err.Error(), "cannot start") {
		t.Fatalf("err = %v", err)
	}
}

// TestStdioServerNotReading: a server that never reads its stdin makes Send
// fail at its deadline instead of blocking forever.
func TestStdioServerNotReading(t *testing.T) {
	s := startFake(t, "no-read")
	ctx := ctxT(t)
	if got, err := s.Recv(ctx); err != nil || string(got) != "ready" {
		t.Fatalf("Recv = %q, %v", got, err)
	}
	big := []byte(`{"jsonrpc":"2.0","method":"x","params":{"p":"` + strings.Repeat("a", 256<<10) + `"}}`)
	var err error
	for range 64 {
		sctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err = s.Send(sctx, big)
		cancel()
		if err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "did not read its stdin") {
		t.Fatalf("Send = %v; want a deadline error naming the unread stdin", err)
	}
}
