package stage

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
)

// Config configures one case: the engine behind it and how the stage
// behaves on each transport.
type Config struct {
	// Server configures the engine (versions, fixtures, Director, Rewrite).
	Server server.Options
	// HTTP configures the engine's HTTP transports; the stage sets
	// PathPrefix itself.
	HTTP server.HTTPOptions
	// Middleware, when set, wraps the engine's HTTP handler: it sees every
	// request (after the stage recorded it) and may answer it itself
	// (session loss, refusals, authorization).
	Middleware func(next http.Handler) http.Handler
	// Stdio configures stdio connections.
	Stdio StdioConfig
	// MaxEvents bounds the recording (default 20000).
	MaxEvents int
	// Dedicated serves the case on a loopback listener of its own, at the
	// root of its URL space (http://127.0.0.1:PORT/mcp), instead of under
	// /c/TOKEN/ on the stage's shared one: for scenarios whose clients
	// request root paths that could not be told apart between cases
	// (authorization's well-known documents).
	Dedicated bool
}

// StdioConfig says how the stage's server process behaves on stdio.
type StdioConfig struct {
	// Stderr is written to the server's stderr when a connection begins
	// (noise a client must not take for an error).
	Stderr []byte
	// HoldOnTerm keeps the server running after SIGTERM (it reports the
	// signal only), so that a client's escalation to SIGKILL shows.
	HoldOnTerm bool
	// StayAfterEOF keeps the server running after the client closes its
	// stdin, until a signal or the end of the case.
	StayAfterEOF bool
	// Write, when set, sees every write the engine makes to the client's
	// stdout (one message and its LF) and returns the writes to make
	// instead, each relayed to the client as one write call; exit true
	// then ends the server process (its relay exits with status 0), as a
	// server that dies right after those bytes. The recording holds the
	// bytes as sent. The client fuzzer damages the stdio framing with it:
	// a message without its LF, split over writes, bytes that are no
	// message at all. It runs on the engine's single stdout writer, so
	// writes keep their order; it must not block for long.
	Write func(b []byte) (writes [][]byte, exit bool)
}

// Case is one scenario run against one client launch: an engine, its
// transports on the stage, and the recording of everything exchanged.
type Case struct {
	stage   *Stage
	token   string
	cfg     Config
	engine  *server.Server
	handler http.Handler
	// respHeader is added to every HTTP response (Stage.SetResponseHeader).
	respHeader http.Header
	rec        *Recording
	ctx        context.Context
	cancel     context.CancelFunc

	own     *http.Server // the dedicated listener's server, when Config.Dedicated
	ownAddr string

	mu      sync.Mutex
	streams map[string]int
	conns   int
	relays  []*relayConn
	wg      sync.WaitGroup
	closed  bool
	busy    int           // HTTP exchanges and stdio connections in progress
	open    int           // stdio connections in progress
	quiet   chan struct{} // closed (and replaced) whenever busy drops to 0

	// Tests only: exitSent runs after the server's exit went to the
	// relay, readEnded when the relay's connection ended (to hold the
	// two in the order a busy machine may give them).
	exitSent, readEnded func()
	// Tests only: engineEnded runs when the engine has returned, before
	// the server's exit is noted (to hold the order where the relay's
	// connection ends first).
	engineEnded func()
}

// enter and leave count an HTTP exchange or stdio connection in progress.
func (c *Case) enter() {
	c.mu.Lock()
	c.busy++
	c.mu.Unlock()
}

func (c *Case) leave() {
	c.mu.Lock()
	c.busy--
	if c.busy == 0 && c.quiet != nil {
		close(c.quiet)
		c.quiet = nil
	}
	c.mu.Unlock()
}

// WaitIdle waits up to d until no HTTP exchange and no stdio connection of
// the case is in progress (a client that exited leaves none behind once
// its last exchanges are recorded); it reports whether that happened.
func (c *Case) WaitIdle(d time.Duration) bool {
	c.mu.Lock()
	if c.busy == 0 {
		c.mu.Unlock()
		return true
	}
	if c.quiet == nil {
		c.quiet = make(chan struct{})
	}
	ch := c.quiet
	c.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// NewCase creates a case on the stage with its own engine.
func (s *Stage) NewCase(cfg Config) (*Case, error) {
	if cfg.Server.Logs == nil {
		cfg.Server.Logs = io.Discard
	}
	eng, err := server.New(cfg.Server)
	if err != nil {
		return nil, fmt.Errorf("stage: the case's server: %w", err)
	}
	c := &Case{stage: s, token: newToken(), cfg: cfg, engine: eng, rec: newRecording(cfg.MaxEvents, s.start), streams: map[string]int{}}
	s.mu.Lock()
	c.respHeader = s.respHeader.Clone()
	s.mu.Unlock()
	c.ctx, c.cancel = context.WithCancel(context.Background())
	prefix := "/c/" + c.token
	if cfg.Dedicated {
		prefix = ""
	}
	ho := cfg.HTTP
	ho.PathPrefix = prefix
	var h http.Handler = eng.HTTPHandler(ho)
	if cfg.Middleware != nil {
		h = cfg.Middleware(h)
	}
	c.handler = http.StripPrefix(prefix, c.recordHTTP(h))
	if cfg.Dedicated {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			eng.Close()
			return nil, fmt.Errorf("stage: cannot listen on 127.0.0.1 for a dedicated case: %w", err)
		}
		c.ownAddr = ln.Addr().String()
		c.own = &http.Server{Handler: c.handler, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 1 << 20}
		go c.own.Serve(ln)
	}
	if err := s.register(c); err != nil {
		eng.Close()
		if c.own != nil {
			c.own.Close()
		}
		return nil, err
	}
	return c, nil
}

// Base is the root of the case's URL space: http://127.0.0.1:PORT/c/TOKEN,
// or http://127.0.0.1:PORT for a dedicated case. Every path under it
// reaches the case's handler (the middleware first, then the engine).
func (c *Case) Base() string {
	if c.own != nil {
		return "http://" + c.ownAddr
	}
	return "http://" + c.stage.HTTPAddr() + "/c/" + c.token
}

// Token identifies the case on the stage.
func (c *Case) Token() string { return c.token }

// URL is the case's streamable HTTP endpoint (its path is "/mcp" unless
// Config.HTTP.Endpoint says otherwise).
func (c *Case) URL() string {
	ep := c.cfg.HTTP.Endpoint
	if ep == "" {
		ep = "/mcp"
	}
	return c.Base() + ep
}

// SSEURL is the case's legacy HTTP+SSE endpoint (Config.HTTP.LegacySSE).
func (c *Case) SSEURL() string { return c.Base() + "/sse" }

// RelayArgs are the arguments after the mcpcheck binary that make a relay
// for this case: relay --stage ADDR --case TOKEN.
func (c *Case) RelayArgs() []string {
	return []string{"relay", "--stage", c.stage.RelayAddr(), "--case", c.token}
}

// Recording is the case's recording.
func (c *Case) Recording() *Recording { return c.rec }

// Engine is the case's server.
func (c *Case) Engine() *server.Server { return c.engine }

// Note records an observation of the harness in the case (for example the
// launched client's exit).
func (c *Case) Note(what, detail string) { c.rec.note(0, what, detail) }

// StdioOpen returns how many relay connections (stdio servers the client
// started) are still running.
func (c *Case) StdioOpen() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open
}

// WaitStdio waits up to d for every stdio connection of the case to end
// by itself (the client closed stdin and the server exited, or the
// process was killed); it reports whether they all did.
func (c *Case) WaitStdio(d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		c.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// Close ends the case: relays are told to exit, the engine stops, and the
// case's URLs answer 404 from now on.
func (c *Case) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	relays := append([]*relayConn(nil), c.relays...)
	c.mu.Unlock()
	c.stage.unregister(c)
	c.cancel()
	for _, rc := range relays {
		_ = rc.send(frameExit, []byte("0"))
		rc.conn.Close()
	}
	c.engine.Close()
	if c.own != nil {
		c.own.Close()
	}
	c.wg.Wait()
}

func (c *Case) nextStream(method string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	prefix := "req"
	switch method {
	case http.MethodPost:
		prefix = "post"
	case http.MethodGet:
		prefix = "get"
	case http.MethodDelete:
		prefix = "delete"
	}
	c.streams[prefix]++
	return prefix + "-" + strconv.Itoa(c.streams[prefix])
}

// serveStdio serves one relay connection: the engine reads what the client
// writes to the relay's stdin and writes the relay's stdout, and both
// directions are recorded line by line.
func (c *Case) serveStdio(rc *relayConn, br *bufio.Reader) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		rc.conn.Close()
		return
	}
	c.conns++
	conn := c.conns
	c.relays = append(c.relays, rc)
	c.wg.Add(1)
	c.busy++
	c.open++
	c.mu.Unlock()
	defer c.wg.Done()
	defer func() {
		c.mu.Lock()
		c.open--
		c.mu.Unlock()
	}()
	defer c.leave()
	defer rc.conn.Close()
	hold := []byte("0")
	if c.cfg.Stdio.HoldOnTerm {
		hold = []byte("1")
	}
	if rc.send(frameHoldTerm, hold) != nil {
		return
	}
	c.rec.note(conn, NoteRelayConnect, "connection "+strconv.Itoa(conn))
	if len(c.cfg.Stdio.Stderr) > 0 {
		_ = rc.send(frameStderr, c.cfg.Stdio.Stderr)
		c.rec.note(conn, "stderr", fmt.Sprintf("the server wrote %d bytes to stderr: %s", len(c.cfg.Stdio.Stderr), wire.Excerpt(c.cfg.Stdio.Stderr, 80)))
	}

	// What the client writes: recorded line by line, every line of a
	// chunk before the engine sees any of them (so an answer is never
	// recorded before the request it answers), then fed to the engine.
	inR, inW := io.Pipe()
	split := &lineSplitter{max: maxBody, emit: func(f wire.Frame) { c.rec.add(Event{From: FromClient, Conn: conn, Frame: f}) }}
	// What the engine writes: recorded and sent to the relay's stdout.
	out := &stdioOut{c: c, rc: rc, conn: conn}
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	engineDone := make(chan struct{})
	// exiting is closed before the server's exit goes to the relay: the
	// relay then ends and its connection with it, which is no kill even
	// when it is read before the engine is done.
	exiting := make(chan struct{})
	go func() {
		defer close(engineDone)
		err := c.engine.ServeStdio(ctx, inR, out, io.Discard)
		if c.engineEnded != nil {
			c.engineEnded()
		}
		how := "after its stdin closed"
		if err != nil {
			how = err.Error()
		}
		if c.cfg.Stdio.StayAfterEOF && ctx.Err() == nil {
			c.rec.note(conn, "server-stays", "the server keeps running after stdin closed (the scenario asks it to)")
			<-ctx.Done()
			return
		}
		c.rec.note(conn, NoteServerExit, "the server exited with status 0 "+how)
		close(exiting)
		_ = rc.send(frameExit, []byte("0"))
		if c.exitSent != nil {
			c.exitSent()
		}
	}()

	eof := false
	// endedOn is the signal the relay ends on (it returns at once on
	// SIGTERM unless the case holds out, and on every other signal), as a
	// server that does not handle it does: the end of its connection
	// after it is that signal's doing, not a kill.
	endedOn := ""
	for {
		typ, b, err := readFrame(br)
		if err != nil {
			if c.readEnded != nil {
				c.readEnded()
			}
			if !isDone(engineDone) && !isDone(exiting) && endedOn == "" && c.ctx.Err() == nil {
				c.rec.note(conn, NoteRelayDropped, "the server process ended without exiting by itself (killed, or its connection was cut)")
			}
			break
		}
		switch typ {
		case frameStdin:
			at, data := unstamp(b)
			split.at = at
			split.write(data)
			_, _ = inW.Write(data)
		case frameStdinEOF:
			if !eof {
				eof = true
				at, _ := unstamp(b)
				split.at = at
				split.end()
				c.rec.noteAt(conn, NoteStdinClosed, "the client closed the server's stdin", at)
				inW.Close()
			}
		case frameSignal:
			at, name := unstamp(b)
			c.rec.noteAt(conn, NoteSignal, string(name), at)
			if !c.cfg.Stdio.HoldOnTerm || !bytes.Contains(name, []byte("terminated")) {
				endedOn = string(name)
				cancel()
			}
		}
	}
	if !eof {
		split.end()
	}
	inW.CloseWithError(errRelayClosed)
	cancel()
	select {
	case <-engineDone:
	case <-time.After(5 * time.Second):
	}
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// stdioOut is the engine's stdout on one relay connection.
type stdioOut struct {
	c    *Case
	rc   *relayConn
	conn int
	mu   sync.Mutex
	buf  []byte
}

func (o *stdioOut) Write(b []byte) (int, error) {
	writes, exit := [][]byte{b}, false
	if hook := o.c.cfg.Stdio.Write; hook != nil {
		writes, exit = hook(b)
	}
	for _, w := range writes {
		if err := o.write(w); err != nil {
			return 0, err
		}
	}
	if exit {
		o.c.rec.note(o.conn, NoteServerExit, "the server exited with status 0 after its last write (the case asked it to)")
		if err := o.rc.send(frameExit, []byte("0")); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// write records the lines b completes and relays b as one write.
func (o *stdioOut) write(b []byte) error {
	o.mu.Lock()
	o.buf = append(o.buf, b...)
	for {
		i := bytes.IndexByte(o.buf, '\n')
		if i < 0 {
			break
		}
		line := bytes.Clone(o.buf[:i])
		o.buf = o.buf[i+1:]
		f := wire.Classify(line)
		f.Stream = wire.StreamStdio
		o.c.rec.add(Event{From: FromStage, Conn: o.conn, Frame: f})
	}
	o.mu.Unlock()
	for rest := b; len(rest) > 0; {
		n := min(len(rest), maxRelayFrame)
		if err := o.rc.send(frameStdout, rest[:n]); err != nil {
			return err
		}
		rest = rest[n:]
	}
	return nil
}

// lineSplitter frames what a client writes to stdin into lines as it
// arrives (MCP's stdio framing: LF-terminated), synchronously, for the
// recording: messages or garbage (CR set for a CR LF ending), a KindTooLong
// frame for a line over max bytes, and at the end an Unterminated frame for
// bytes after the last LF.
type lineSplitter struct {
	max    int
	buf    []byte
	over   int64
	prefix []byte // the first bytes of a line over the limit
	emit   func(wire.Frame)
	// at, when set, is when the bytes being written were sent (the
	// relay's stamp): the time of the lines they complete.
	at time.Time
}

// tooLongPrefix is how much of a line over the limit the recording keeps.
const tooLongPrefix = 256

func (s *lineSplitter) write(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			s.add(b)
			return
		}
		s.add(b[:i])
		s.line(false)
		b = b[i+1:]
	}
}

func (s *lineSplitter) add(b []byte) {
	if s.over > 0 || len(s.buf)+len(b) > s.max {
		if s.over == 0 {
			s.prefix = append(append([]byte(nil), s.buf...), b[:min(len(b), tooLongPrefix)]...)
			s.prefix = s.prefix[:min(len(s.prefix), tooLongPrefix)]
		}
		s.over += int64(len(s.buf) + len(b))
		s.buf = nil
		return
	}
	s.buf = append(s.buf, b...)
}

func (s *lineSplitter) line(unterminated bool) {
	var f wire.Frame
	if s.over > 0 {
		f = wire.Frame{Kind: wire.KindTooLong, Raw: s.prefix, Size: s.over}
	} else {
		raw, cr := s.buf, false
		if n := len(raw); n > 0 && raw[n-1] == '\r' && !unterminated {
			raw, cr = raw[:n-1], true
		}
		f = wire.Classify(bytes.Clone(raw))
		f.CR = cr
	}
	f.Unterminated = unterminated
	f.Stream = wire.StreamStdio
	f.Time = s.at
	s.buf, s.over, s.prefix = s.buf[:0], 0, nil
	s.emit(f)
}

// end records bytes left after the last LF.
func (s *lineSplitter) end() {
	if len(s.buf) > 0 || s.over > 0 {
		s.line(true)
	}
}
