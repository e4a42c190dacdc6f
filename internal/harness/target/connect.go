package target

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

// Conn is an open connection to a target: the raw wire.Conn, plus the
// process of a stdio target and how an HTTP transport was chosen.
//
// Concurrency: as wire.Conn; Close is idempotent and safe to call from any
// goroutine.
type Conn struct {
	wire.Conn
	// Target is the description the connection was opened from.
	Target Target
	// Mode is the transport in use: Stdio, Streamable, Stateless or SSE.
	// For a Stdio target the era is not known until a session probes it
	// (see session.ProbeEra).
	Mode Transport
	// Process is the running command of a stdio target, else nil.
	Process *Process
	// Pipe is the running server of a pipe target (Target.Pipe), else nil.
	Pipe *PipeRun
	// Detection says how an Auto transport was resolved, else nil.
	Detection *Detection

	closeOnce sync.Once
	closeErr  error
	stopNotes chan struct{}
	notesDone chan struct{}
}

// Connect starts or dials the target. A stdio target's process is started
// (Connect does not wait for it to say anything); an HTTP target's
// transport is detected when it is Auto, which sends requests (see
// Detect). The taps see the connection's traffic from its first byte (a
// target may speak as soon as it starts; a tap added later with Observe
// would miss that). The returned Conn must be closed.
func Connect(ctx context.Context, t Target, taps ...wire.Tap) (*Conn, error) {
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	if t.Pipe != nil {
		return connectPipe(t, taps)
	}
	if t.IsStdio() {
		return connectStdio(t, taps)
	}
	h, err := t.HTTPHeader()
	if err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	opts := wire.HTTPOptions{URL: t.URL, Header: h, Limits: t.Limits}
	c := &Conn{Target: t, Mode: t.Transport}
	if c.Mode == "" || c.Mode == Auto {
		dctx, cancel := context.WithTimeout(ctx, t.Timeouts.WithDefaults().Start)
		d, err := Detect(dctx, opts, t.Timeouts.WithDefaults().Step)
		cancel()
		if err != nil {
			return nil, err
		}
		c.Detection, c.Mode = &d, d.Transport
	}
	opts.Taps = taps // after detection, whose traffic is not the connection's
	switch c.Mode {
	case SSE:
		c.Conn, err = wire.NewLegacySSE(opts)
	default:
		c.Conn, err = wire.NewHTTP(opts)
	}
	if err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	return c, nil
}

// Resolve pins the transport of an Auto URL target by running Detect once,
// so that later Connects (a pool of sessions, one per check) do not probe
// the server again. Other targets are returned unchanged.
func Resolve(ctx context.Context, t Target) (Target, *Detection, error) {
	if t.IsStdio() || (t.Transport != "" && t.Transport != Auto) {
		return t, nil, nil
	}
	if err := t.Validate(); err != nil {
		return t, nil, fmt.Errorf("target: %w", err)
	}
	h, err := t.HTTPHeader()
	if err != nil {
		return t, nil, fmt.Errorf("target: %w", err)
	}
	dctx, cancel := context.WithTimeout(ctx, t.Timeouts.WithDefaults().Start)
	defer cancel()
	d, err := Detect(dctx, wire.HTTPOptions{URL: t.URL, Header: h, Limits: t.Limits}, t.Timeouts.WithDefaults().Step)
	if err != nil {
		return t, nil, err
	}
	t.Transport = d.Transport
	return t, &d, nil
}

func connectStdio(t Target, taps []wire.Tap) (*Conn, error) {
	p, err := StartProcess(t)
	if err != nil {
		return nil, err
	}
	sc := wire.NewStdio(p.SaidReader(), p.Stdin(), t.Limits, taps...)
	c := &Conn{Conn: sc, Target: t, Mode: Stdio, Process: p, stopNotes: make(chan struct{}), notesDone: make(chan struct{})}
	go func() {
		defer close(c.notesDone)
		select {
		case <-p.Exited():
			sc.Note("the target process " + p.ExitNote())
		case <-c.stopNotes:
		}
	}()
	return c, nil
}

// Stdio returns the stdio wire connection, or nil for an HTTP target.
func (c *Conn) Stdio() *wire.Stdio { s, _ := c.Conn.(*wire.Stdio); return s }

// HTTP returns the streamable HTTP wire connection, or nil.
func (c *Conn) HTTP() *wire.HTTP { h, _ := c.Conn.(*wire.HTTP); return h }

// LegacySSE returns the HTTP+SSE wire connection, or nil.
func (c *Conn) LegacySSE() *wire.LegacySSE { l, _ := c.Conn.(*wire.LegacySSE); return l }

// Close ends the connection. For a stdio target it stops the process (see
// Process.Stop: stdin closed, SIGTERM, SIGKILL to the group) before closing
// the pipes; the outcome is in Process.ShutdownLog.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		var errs []error
		if c.Process != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 4*c.Target.Timeouts.WithDefaults().Grace)
			errs = append(errs, c.Process.Stop(ctx))
			cancel()
			close(c.stopNotes)
			<-c.notesDone
		}
		if c.Pipe != nil {
			errs = append(errs, c.Pipe.stop())
		}
		err := c.Conn.Close()
		if c.Process == nil {
			errs = append(errs, err) // a stdio Conn's pipes were already closed by Stop
		}
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}

// Unwrap returns the underlying wire connection (*wire.Stdio, *wire.HTTP
// or *wire.LegacySSE), for code that needs its transport-specific methods.
func (c *Conn) Unwrap() wire.Conn { return c.Conn }
