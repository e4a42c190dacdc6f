package fuzz

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	htarget "github.com/mcpcheck/mcpcheck/harness/target"
	"github.com/mcpcheck/mcpcheck/harness/wire"
)

// HarnessTarget adapts the harness's target description (harness/target)
// and its raw stdio connection (harness/wire) to the fuzz Target interface,
// so campaigns launch and talk to processes exactly as the conformance
// suites do (process groups, bounded reads, stderr ring, graceful stop).
// Only stdio targets are supported so far; HTTP targets need the HTTP
// runner (see HTTPRequest), which is not built yet.
type HarnessTarget struct {
	T htarget.Target
}

// Describe returns the command line or URL.
func (h HarnessTarget) Describe() string {
	if h.T.IsStdio() {
		return strings.TrimSpace(h.T.Command + " " + strings.Join(h.T.Args, " "))
	}
	return h.T.URL
}

// Start launches the process through harness/target.Connect.
func (h HarnessTarget) Start(ctx context.Context) (Conn, error) {
	if !h.T.IsStdio() {
		return nil, fmt.Errorf("fuzz: %s is an HTTP target; the fuzz campaign runner drives stdio targets only so far, so start the server with its stdio transport", h.T.URL)
	}
	c, err := htarget.Connect(ctx, h.T)
	if err != nil {
		return nil, err
	}
	if c.Stdio() == nil || c.Process == nil {
		_ = c.Close()
		return nil, errors.New("fuzz: the harness returned a non-stdio connection for a stdio target")
	}
	return &harnessConn{c: c}, nil
}

type harnessConn struct {
	c   *htarget.Conn
	eof bool
}

func (h *harnessConn) Send(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultWriteTimeout)
	defer cancel()
	if _, err := h.c.SendRaw(ctx, b); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %v", ErrStalled, err)
		}
		return fmt.Errorf("%w: %v", ErrClosed, err)
	}
	return nil
}

func (h *harnessConn) CloseSend() error { return h.c.Stdio().CloseWrite() }

func (h *harnessConn) Recv(deadline time.Time) (Frame, error) {
	if h.eof {
		return Frame{}, ErrClosed
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	for {
		f, err := h.c.Recv(ctx)
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return Frame{}, ErrDeadline
		case err != nil:
			h.eof = true
			return Frame{}, ErrClosed
		}
		switch f.Kind {
		case wire.KindEnd, wire.KindTransportError:
			h.eof = true
			return Frame{}, ErrClosed
		case wire.KindTooLong:
			return Frame{At: f.Time, Problem: fmt.Sprintf("a %d-byte line over the line limit was discarded", f.Size)}, nil
		}
		if len(f.Raw) == 0 {
			continue // empty lines carry no message
		}
		out := Frame{Data: f.Raw, At: f.Time}
		if f.Unterminated {
			out.Problem = "the output ended without a final newline"
		}
		return out, nil
	}
}

func (h *harnessConn) Exit(deadline time.Time) *ExitStatus {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-h.c.Process.Exited():
	case <-timer.C:
		return nil
	}
	st := h.c.Process.ExitState()
	if st == nil {
		return nil
	}
	if st.ExitCode() < 0 {
		return &ExitStatus{Code: -1, Signal: strings.TrimPrefix(st.String(), "signal: ")}
	}
	return &ExitStatus{Code: st.ExitCode()}
}

func (h *harnessConn) StderrTail() []byte { return h.c.Process.Stderr().Tail() }

func (h *harnessConn) Close() error {
	_ = h.c.Close()
	return nil
}
