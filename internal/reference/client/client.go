package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/client/transport"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// DefaultTimeout bounds every request when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Options configures a Client. The zero value is a client that offers the
// latest protocol version and declares no client features.
type Options struct {
	// Info names the client; empty means mcpcheck-reference-client.
	Info mcp.Implementation
	// Version is the protocol version to offer; empty means spec.Latest.
	// Its era decides the lifecycle: initialize up to 2025-11-25,
	// server/discover and per-request _meta from 2026-07-28 (with a
	// fallback to initialize for legacy servers).
	Version spec.Version
	// Timeout bounds every request; 0 means DefaultTimeout.
	Timeout time.Duration

	// Roots, when not nil, declares the roots capability and answers
	// roots/list. Change them with Client.SetRoots.
	Roots []mcp.Root
	// Sampling, when not nil, declares the sampling capability.
	Sampling *Sampling
	// Elicitation, when not nil, declares the elicitation capability for
	// the modes it has handlers for.
	Elicitation *Elicitation
	// Tasks declares the tasks capability (2025-11-25): the server may
	// augment sampling and elicitation requests with a task, and the client
	// runs them as tasks it can be polled about.
	Tasks bool

	// LogLevel, when set, is sent as the per-request log level in
	// 2026-07-28 (and with logging/setLevel by SetLogLevel before).
	LogLevel mcp.LoggingLevel

	// OnNotification receives every notification from the server after the
	// client has handled it (progress, list changes, log messages...).
	// It is called from the reader goroutine and must not block.
	OnNotification func(method string, params json.RawMessage)
	// Logf receives warnings about the server's behaviour (dropped input,
	// rejected tools, unknown response ids); nil discards them.
	Logf func(format string, args ...any)

	// Faults names fault switches to turn on (see Faults): deliberate
	// defects for proving mcpcheck's client checks. Leave it empty.
	Faults []string

	// MaxRounds bounds the rounds of the 2026-07-28 multi round-trip loop
	// for one request; 0 means 8.
	MaxRounds int
	// MaxInFlight bounds the server requests handled at once; more are
	// refused with an error. 0 means 16.
	MaxInFlight int
}

// Client is a connection to one MCP server.
//
// A Client is safe for concurrent use. Close it to end the connection.
type Client struct {
	// notes counts notifications sent in the background (cancellations);
	// Close waits for them.
	notes  sync.WaitGroup
	conn   transport.Conn // what the client sends through (raw, or the fault seam)
	raw    transport.Conn // the transport itself, for its optional interfaces
	faults faultSet
	opts   Options

	ctx    context.Context // lives until Close
	cancel context.CancelFunc

	timeoutNs  atomic.Int64 // the per-request timeout; see SetTimeout
	nextID     atomic.Int64
	nextToken  atomic.Int64
	readerDone chan struct{}
	inflight   chan struct{} // semaphore for server requests

	mu        sync.Mutex
	pending   map[jsonrpc.ID]chan response
	progress  map[string]func(mcp.ProgressNotificationParams)
	serverReq map[jsonrpc.ID]context.CancelFunc
	closedErr error
	garbage   string
	garbageN  int

	// Negotiated state (guarded by mu).
	version      spec.Version
	stateless    bool
	serverInfo   mcp.Implementation
	serverCaps   mcp.ServerCapabilities
	instructions string
	discover     *mcp.DiscoverResult
	roots        []mcp.Root
	tools        map[string]mcp.Tool
	listening    map[string]chan Notification // subscriptions by listen request id
	logLevel     mcp.LoggingLevel

	initMu sync.Mutex // serialises re-initialization

	tasks *taskStore
	race  raceFaults // state of the race fault switches only
	elic  *elicitationWaiter
}

// response is what the reader hands to a waiting call.
type response struct {
	result json.RawMessage
	err    error
}

// Notification is a notification from the server.
type Notification struct {
	Method string
	Params json.RawMessage
}

// Connect negotiates the protocol over conn and returns a ready client. On
// failure it closes conn. ctx bounds the negotiation.
func Connect(ctx context.Context, conn transport.Conn, opts Options) (*Client, error) {
	if opts.Info.Name == "" {
		opts.Info = mcp.Implementation{Name: "mcpcheck-reference-client", Version: "0.1.0"}
	}
	if opts.Version == "" {
		opts.Version = spec.Latest
	}
	if !opts.Version.Known() {
		conn.Close()
		_, err := spec.ParseVersion(string(opts.Version))
		return nil, err
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxRounds <= 0 {
		opts.MaxRounds = 8
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = 16
	}
	for _, r := range opts.Roots {
		if err := ValidateRoot(r); err != nil {
			conn.Close()
			return nil, err
		}
	}
	fs, err := parseFaults(opts.Faults)
	if err != nil {
		conn.Close()
		return nil, err
	}
	cctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		conn:       conn,
		raw:        conn,
		faults:     fs,
		opts:       opts,
		ctx:        cctx,
		cancel:     cancel,
		readerDone: make(chan struct{}),
		inflight:   make(chan struct{}, opts.MaxInFlight),
		pending:    map[jsonrpc.ID]chan response{},
		progress:   map[string]func(mcp.ProgressNotificationParams){},
		serverReq:  map[jsonrpc.ID]context.CancelFunc{},
		roots:      append([]mcp.Root(nil), opts.Roots...),
		tools:      map[string]mcp.Tool{},
		listening:  map[string]chan Notification{},
		tasks:      newTaskStore(),
		elic:       newElicitationWaiter(),
		logLevel:   opts.LogLevel,
	}
	c.conn = withFaults(c, conn, fs)
	c.timeoutNs.Store(int64(opts.Timeout))
	go c.readLoop()
	if err := c.negotiate(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close ends the connection: it fails every pending call, stops the reader
// and closes the transport (which, for stdio, shuts the server down).
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closedErr == nil {
		c.closedErr = ErrClosed
	}
	c.mu.Unlock()
	// Cancellations on their way go out first (bounded by the timeout of
	// each), so a client that gives up and closes still says so.
	c.notes.Wait()
	c.cancel()
	err := c.conn.Close()
	<-c.readerDone
	c.tasks.close()
	return err
}

// SetTimeout changes the time limit of every later request (d > 0).
func (c *Client) SetTimeout(d time.Duration) {
	if d > 0 {
		c.timeoutNs.Store(int64(d))
	}
}

func (c *Client) timeout() time.Duration { return time.Duration(c.timeoutNs.Load()) }

// ProtocolVersion returns the negotiated protocol version.
func (c *Client) ProtocolVersion() spec.Version {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// Stateless reports whether the connection uses the 2026-07-28 lifecycle.
func (c *Client) Stateless() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stateless
}

// ServerInfo returns what the server said about itself (from initialize, or
// from the serverInfo _meta of a 2026-07-28 result).
func (c *Client) ServerInfo() mcp.Implementation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.serverInfo
}

// ServerCapabilities returns the server's capabilities.
func (c *Client) ServerCapabilities() mcp.ServerCapabilities {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.serverCaps
}

// Instructions returns the server's instructions, if it gave any.
func (c *Client) Instructions() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.instructions
}

// Discover returns the server/discover result of a 2026-07-28 connection,
// or nil.
func (c *Client) Discover() *mcp.DiscoverResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.discover
}

// capabilities builds the client capabilities from the options.
func (c *Client) capabilities(stateless bool, v spec.Version) mcp.ClientCapabilities {
	var caps mcp.ClientCapabilities
	if c.opts.Roots != nil {
		caps.Roots = &mcp.RootsCapability{}
		if !stateless {
			caps.Roots.ListChanged = mcp.Bool(true)
		}
	}
	if s := c.opts.Sampling; s != nil {
		caps.Sampling = &mcp.SamplingCapability{}
		if s.Tools {
			caps.Sampling.Tools = mcp.Present()
		}
	}
	if e := c.opts.Elicitation; e != nil {
		caps.Elicitation = &mcp.ElicitationCapability{}
		if e.Form != nil {
			caps.Elicitation.Form = mcp.Present()
		}
		if e.URL != nil {
			caps.Elicitation.URL = mcp.Present()
		}
	}
	if c.opts.Tasks && !stateless && hasTasks(v) {
		caps.Tasks = &mcp.ClientTasksCapability{List: mcp.Present(), Cancel: mcp.Present()}
		req := &mcp.ClientTaskRequests{}
		if caps.Sampling != nil {
			req.Sampling = &mcp.SamplingTaskRequests{CreateMessage: mcp.Present()}
		}
		if caps.Elicitation != nil {
			req.Elicitation = &mcp.ElicitationTaskRequests{Create: mcp.Present()}
		}
		caps.Tasks.Requests = req
	}
	return caps
}

func (c *Client) logf(format string, args ...any) {
	if c.opts.Logf != nil {
		c.opts.Logf(format, args...)
	}
}

// noteGarbage records unusable input from the server.
func (c *Client) noteGarbage(what string) {
	c.mu.Lock()
	c.garbage = what
	c.garbageN++
	n := c.garbageN
	c.mu.Unlock()
	if n <= 10 {
		c.logf("server sent unusable input: %s", what)
	} else if n == 11 {
		c.logf("server keeps sending unusable input; not logging more of it")
	}
}

func (c *Client) lastGarbage() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.garbageN == 0 {
		return ""
	}
	if c.garbageN == 1 {
		return c.garbage
	}
	return fmt.Sprintf("%s (and %d more)", c.garbage, c.garbageN-1)
}
