package harness

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/harness/record"
	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Shared is a target connection with a ready session of one protocol
// version: stateful sessions are initialized, stateless ones have run
// server/discover. Checks that only need a working session borrow one
// from a Pool of Shared values.
type Shared struct {
	Conn    *target.Conn
	Version spec.Version
	// Exactly one of Stateful and Stateless is set.
	Stateful  *session.Stateful
	Stateless *session.Stateless
	// OpenErr says why the handshake failed, when it did: the session is
	// still usable for checks about a server that fails it.
	OpenErr error
}

// OpenOptions say how Open opens a session.
type OpenOptions struct {
	// Session configures the session's built-in client (its Version is
	// set by Open).
	Session session.Config
	// Taps see everything sent and received on the connection from its
	// first byte (the run's recorder, passive taps); nil ones are skipped.
	Taps []wire.Tap
	// Fresh opens the session without its handshake: nothing is sent yet
	// (for checks about the handshake itself).
	Fresh bool
}

// Open connects to t, attaches the taps to the connection, and opens a
// session of version v (its era decides which kind), handshake included
// unless o.Fresh. A failed handshake is reported in OpenErr, not as an
// error (a *ProcessEnd when a stdio target's process had ended, or never
// answered and wrote to stderr); an error means the target could not be reached or started, or
// the transport cannot carry v (the HTTP+SSE transport carries the
// initialize-based versions only).
func Open(ctx context.Context, t target.Target, v spec.Version, o OpenOptions) (*Shared, error) {
	c, err := target.Connect(ctx, t, o.Taps...)
	if err != nil {
		return nil, err
	}
	if c.Mode == target.SSE && v.Era() != spec.Stateful {
		c.Close()
		return nil, fmt.Errorf("harness: the HTTP+SSE transport carries initialize-based protocol versions only, not %s", v)
	}
	cfg := o.Session
	cfg.Version = v
	s := &Shared{Conn: c, Version: v}
	var sc wire.Conn = c
	if c.Process != nil {
		sc = endNaming{c}
	}
	if v.Era() == spec.Stateless {
		s.Stateless = session.NewStateless(sc, cfg)
		if !o.Fresh {
			_, _, s.OpenErr = s.Stateless.Discover(ctx)
		}
	} else {
		s.Stateful = session.NewStateful(sc, cfg)
		if !o.Fresh {
			_, s.OpenErr = s.Stateful.Open(ctx)
		}
	}
	s.OpenErr = withProcessEnd(ctx, c, s.OpenErr, s.OpenErr != nil && s.validator().Checked() == 0)
	return s, nil
}

// validator is the session's schema validator.
func (s *Shared) validator() *session.Validator {
	if s.Stateless != nil {
		return s.Stateless.Validator()
	}
	return s.Stateful.Validator()
}

// Negotiated is the version the session speaks: for a stateful session the
// one the server answered initialize with, for a stateless one the
// requested version when server/discover lists it. It is "" when the
// handshake failed.
func (s *Shared) Negotiated() spec.Version {
	if s.OpenErr != nil {
		return ""
	}
	if s.Stateful != nil {
		return s.Stateful.Version()
	}
	if d := s.Stateless.DiscoverResult(); d != nil {
		for _, v := range d.SupportedVersions {
			if spec.Version(v) == s.Version {
				return s.Version
			}
		}
	}
	return ""
}

// Heard reports whether the target has sent anything on the connection:
// a handshake that failed on a connection the target never spoke on
// failed for want of any answer (a target still starting, or dead), not
// because of what it said.
func (s *Shared) Heard() bool {
	if s.Stateless != nil {
		return s.Stateless.Heard()
	}
	return s.Stateful.Heard()
}

// Supported reports whether the server speaks the requested version (the
// basis of --protocol all: a version the server negotiates away from is
// not supported, and its checks are n/a).
func (s *Shared) Supported() bool { return s.Negotiated() == s.Version }

// Findings are the session's findings so far.
func (s *Shared) Findings() []session.Finding {
	if s.Stateless != nil {
		return s.Stateless.Findings()
	}
	return s.Stateful.Findings()
}

// StderrTail is the tail of a stdio target's stderr ("" for HTTP).
func (s *Shared) StderrTail() string {
	if s.Conn.Process == nil {
		return ""
	}
	return string(s.Conn.Process.Stderr().Tail())
}

// Close ends the session and the connection (for stdio, stopping the
// process group).
func (s *Shared) Close() error {
	var errs []error
	if s.Stateful != nil {
		if h := s.Conn.HTTP(); h != nil && h.SessionID() != "" {
			ctx, cancel := context.WithTimeout(context.Background(), s.Conn.Target.Timeouts.WithDefaults().Grace)
			_, err := s.Stateful.Terminate(ctx)
			cancel()
			errs = append(errs, err)
		}
	}
	errs = append(errs, s.Conn.Close())
	return errors.Join(errs...)
}

// SessionPool returns a pool of Shared sessions on t keyed by protocol
// version, recorded by rec. The first session of an Auto URL target
// detects its transport (target.Resolve); later ones reuse the answer.
func SessionPool(t target.Target, cfg session.Config, rec *record.Recorder) *Pool[*Shared] {
	var mu sync.Mutex
	resolved := false
	conns := 0 // numbers the pool's connections in rec's transcript
	return &Pool[*Shared]{
		New: func(ctx context.Context, key string) (*Shared, error) {
			v, err := spec.ParseVersion(key)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			if !resolved {
				rt, _, err := target.Resolve(ctx, t)
				if err != nil {
					mu.Unlock()
					return nil, err
				}
				t, resolved = rt, true
			}
			tt := t
			conns++
			n := conns
			mu.Unlock()
			var taps []wire.Tap
			if rec != nil {
				taps = append(taps, rec.On(n))
			}
			return Open(ctx, tt, v, OpenOptions{Session: cfg, Taps: taps})
		},
		Close: func(s *Shared) error { return s.Close() },
	}
}
