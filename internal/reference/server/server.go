// Package server is mcpcheck's reference MCP server: a complete, hardened
// implementation of every released protocol version (2024-11-05 through
// 2026-07-28) over stdio, Streamable HTTP and the legacy HTTP+SSE transport,
// with the conformance suite's fixtures and fault switches that each break
// one named catalog requirement.
//
// The core is transport-agnostic: a Server holds the fixtures and options,
// a Session is one stateful connection (initialize … close), and a transport
// feeds raw messages to Session.Handle together with a Sink that carries the
// messages related to that request. Stateless 2026-07-28 requests are served
// by Server.HandleStateless without any session.
package server

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Options configure a Server. The zero value is usable: every field has a
// documented default.
type Options struct {
	// Versions lists the protocol versions served; default all released
	// versions (spec.Versions).
	Versions []spec.Version
	// PageSize is the number of items per page of every list; default 100.
	PageSize int
	// Faults names the fault switches to turn on (see Faults()).
	Faults []string
	// MaxMessageSize bounds one incoming message in bytes; default 4 MiB.
	MaxMessageSize int
	// MaxSessions bounds concurrent stateful sessions; default 1024.
	MaxSessions int
	// MaxInflight bounds concurrent requests per session; default 64.
	MaxInflight int
	// MaxTasks bounds live tasks per session; default 256.
	MaxTasks int
	// MaxSubscriptions bounds open subscriptions/listen streams; default 256.
	MaxSubscriptions int
	// QueueSize bounds each outgoing queue (messages); default 1024.
	QueueSize int
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Rand is the source of session ids, task ids and keys; default
	// crypto/rand.Reader.
	Rand io.Reader
	// Logs receives the server's own diagnostics; default io.Discard.
	Logs io.Writer
	// StepDelay is the pause fixtures take between steps (progress, logs);
	// default 10ms; negative means no pause.
	StepDelay time.Duration
	// DrainGrace is how long a stdio connection waits at EOF for requests
	// in flight before cancelling them; default 2s, negative means none.
	DrainGrace time.Duration
	// TaskTTL is the default retention of a task; default 60s.
	TaskTTL time.Duration
	// Info overrides the serverInfo; default mcp-conformance-test-server.
	Info *mcp.Implementation

	// NoFixtures leaves out the built-in tools, resources, templates and
	// prompts, so that only Tools, Prompts and Resources are served.
	NoFixtures bool
	// Tools, Prompts and Resources are added to the fixtures (see seam.go).
	Tools     []Tool
	Prompts   []Prompt
	Resources []Resource
	// Director, when set, sees every client request first (see Director).
	Director Director
	// Rewrite, when set, sees every message the server core writes and
	// returns the messages to write instead: nil drops it, more than one
	// adds messages. Transport framing does not pass through it.
	Rewrite func(Outgoing) [][]byte
}

// Server is the reference MCP server. It is safe for concurrent use; create
// it with New and release it with Close.
type Server struct {
	opts   Options
	faults faultSet
	// rewriters are the fault rewriters of the switches that are on.
	rewriters []func(Outgoing) [][]byte
	fx        *fixtures
	schemas   schemaCache
	key       []byte // HMAC key for requestState and cursors

	mu       sync.Mutex
	sessions map[*Session]struct{}
	listens  map[*listener]struct{}
	closed   bool

	extTasks   map[string]*extTask
	nonces     map[string]struct{}
	nonceOrder []string

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New returns a Server for opts. It fails when a fault switch is unknown or a
// version is not a released one.
func New(opts Options) (*Server, error) {
	if len(opts.Versions) == 0 {
		opts.Versions = append([]spec.Version(nil), spec.Versions...)
	}
	for _, v := range opts.Versions {
		if _, err := spec.ParseVersion(string(v)); err != nil {
			return nil, fmt.Errorf("server: %v", err)
		}
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 100
	}
	if opts.MaxMessageSize <= 0 {
		opts.MaxMessageSize = 4 << 20
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 1024
	}
	if opts.MaxInflight <= 0 {
		opts.MaxInflight = 64
	}
	if opts.MaxTasks <= 0 {
		opts.MaxTasks = 256
	}
	if opts.MaxSubscriptions <= 0 {
		opts.MaxSubscriptions = 256
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = 1024
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = rand.Reader
	}
	if opts.Logs == nil {
		opts.Logs = io.Discard
	}
	switch {
	case opts.StepDelay == 0:
		opts.StepDelay = 10 * time.Millisecond
	case opts.StepDelay < 0:
		opts.StepDelay = 0
	}
	switch {
	case opts.DrainGrace == 0:
		opts.DrainGrace = 2 * time.Second
	case opts.DrainGrace < 0:
		opts.DrainGrace = 0
	}
	if opts.TaskTTL <= 0 {
		opts.TaskTTL = 60 * time.Second
	}
	fs, err := parseFaults(opts.Faults)
	if err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := io.ReadFull(opts.Rand, key); err != nil {
		return nil, fmt.Errorf("server: cannot read a random key from Options.Rand: %v", err)
	}
	s := &Server{
		opts:      opts,
		faults:    fs,
		rewriters: faultRewritersFor(fs),
		key:       key,
		sessions:  map[*Session]struct{}{},
		listens:   map[*listener]struct{}{},
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.fx = newFixtures(s)
	return s, nil
}

// Close stops every session, task and subscription and waits for the
// server's goroutines to end.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	sessions := make([]*Session, 0, len(s.sessions))
	for ss := range s.sessions {
		sessions = append(sessions, ss)
	}
	s.mu.Unlock()
	s.cancel()
	for _, ss := range sessions {
		ss.Close()
	}
	s.wg.Wait()
	return nil
}

// goTracked runs f on a goroutine the server waits for in Close.
// After Close it runs f inline instead (everything f touches is closed
// by then, so it returns at once).
func (s *Server) goTracked(f func()) {
	if !s.enter() {
		f()
		return
	}
	go func() {
		defer s.wg.Done()
		f()
	}()
}

// enter registers work with the server's wait group unless the server is
// closed.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	return true
}

// supports reports whether the server serves version v.
func (s *Server) supports(v spec.Version) bool {
	for _, w := range s.opts.Versions {
		if w == v {
			return true
		}
	}
	return false
}

// latestStateful is the newest stateful version served, or "" if none.
func (s *Server) latestStateful() spec.Version {
	var best spec.Version
	for _, v := range s.opts.Versions {
		if v.Era() == spec.Stateful && (best == "" || v.Compare(best) > 0) {
			best = v
		}
	}
	return best
}

// statelessVersions lists the stateless versions served.
func (s *Server) statelessVersions() []string {
	var out []string
	for _, v := range s.opts.Versions {
		if v.Era() == spec.Stateless {
			out = append(out, string(v))
		}
	}
	return out
}

// logf writes one diagnostic line to Options.Logs.
func (s *Server) logf(format string, a ...any) {
	fmt.Fprintf(s.opts.Logs, "mcpcheck reference server: "+format+"\n", a...)
}

// randomID returns n random bytes as lowercase hex, from Options.Rand.
func (s *Server) randomID(n int) string {
	b := make([]byte, n)
	if _, err := io.ReadFull(s.opts.Rand, b); err != nil {
		// A broken random source is a configuration error; fall back to the
		// clock so ids stay unique, and say so.
		s.logf("random source failed (%v); using a time-based id", err)
		return fmt.Sprintf("t%x", s.opts.Now().UnixNano())
	}
	const hex = "0123456789abcdef"
	out := make([]byte, 2*n)
	for i, c := range b {
		out[2*i], out[2*i+1] = hex[c>>4], hex[c&15]
	}
	return string(out)
}

// info is the serverInfo shaped for version v.
func (s *Server) info(v spec.Version) mcp.Implementation {
	in := mcp.Implementation{
		Name:        "mcp-conformance-test-server",
		Title:       "mcpcheck reference server",
		Version:     "1.0.0",
		Description: "The reference MCP server of mcpcheck: every feature, every version.",
		WebsiteURL:  "https://github.com/mcpcheck/mcpcheck",
		Icons:       []mcp.Icon{{Src: pngDataURI, MimeType: "image/png", Sizes: []string{"1x1"}}},
	}
	if s.opts.Info != nil {
		in = *s.opts.Info
	}
	return shapeImplementation(v, in)
}
