package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// ServeStdio serves one client over the stdio transport: newline-delimited
// JSON-RPC on in and out, diagnostics on logs (nothing but MCP messages is
// ever written to out). It returns nil when in reaches EOF, ctx.Err() when
// ctx is cancelled, and the read error otherwise. Both eras are served, side
// by side: a message whose _meta names a stateless version is always
// answered statelessly by that version's rules, before and after an
// initialize on the same stream (as is one whose _meta names a version it
// cannot have: it gets the stateless errors); everything else belongs to
// the legacy session that initialize opens.
//
// When ctx is cancelled while a read of in is blocked, that read goroutine
// ends only when in is closed or delivers data; callers owning in should
// close it.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer, logs io.Writer) error {
	if logs == nil {
		logs = io.Discard
	}
	w := newStdioWriter(out, s.opts.QueueSize)
	defer w.close()
	if s.faults.on(FaultStdoutBanner) {
		w.Send([]byte("mcpcheck reference server ready"))
	}
	if s.faults.on(FaultSpeakBeforeInitialize) {
		w.Send(earlyLogNotification)
	}
	sess, err := s.NewSession(w)
	if err != nil {
		return err
	}
	defer sess.Close()

	type line struct {
		b   []byte
		err error
	}
	lines := make(chan line)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		lr := jsonrpc.NewLineReader(in, s.opts.MaxMessageSize)
		for {
			b, err := lr.ReadLine()
			select {
			case lines <- line{b, err}:
			case <-ctx.Done():
				return
			case <-sess.ctx.Done():
				return
			}
			if err != nil {
				var tooLong *jsonrpc.LineTooLongError
				if errors.As(err, &tooLong) {
					continue
				}
				return
			}
		}
	}()
	// Stateless requests run under sctx, cancelled (after a grace period
	// at EOF) before ServeStdio returns.
	sctx, scancel := context.WithCancel(ctx)
	var stateless sync.WaitGroup
	defer func() {
		waitGrace(&stateless, s.opts.DrainGrace, scancel)
		scancel()
	}()
	for {
		var l line
		select {
		case <-ctx.Done():
			return ctx.Err()
		case l = <-lines:
		}
		if l.err != nil {
			var tooLong *jsonrpc.LineTooLongError
			switch {
			case errors.As(l.err, &tooLong):
				fmt.Fprintf(logs, "mcpcheck reference server: %v\n", l.err)
				w.Send(errorForVersion(sess.Version(), jsonrpc.ID{}, jsonrpc.InvalidRequest, fmt.Sprintf("Invalid Request: message of %d bytes exceeds the limit of %d bytes and was dropped; send smaller messages or start the server with a larger limit", tooLong.Seen, tooLong.Limit), nil))
				continue
			case errors.Is(l.err, io.EOF):
				if s.faults.on(FaultStdinEOFIgnored) {
					<-ctx.Done()
					return ctx.Err()
				}
				sess.drain(s.opts.DrainGrace)
				return nil
			case errors.Is(l.err, jsonrpc.ErrUnterminatedLine):
				if len(l.b) > 0 {
					s.stdioMessage(sctx, sess, l.b, w, &stateless)
				}
				sess.drain(s.opts.DrainGrace)
				return nil
			default:
				return fmt.Errorf("server: reading stdin: %w", l.err)
			}
		}
		s.stdioMessage(sctx, sess, l.b, w, &stateless)
	}
}

// waitGrace waits for wg up to grace, then calls stop and waits on.
func waitGrace(wg *sync.WaitGroup, grace time.Duration, stop func()) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		stop()
		<-done
	}
}

// stdioMessage routes one line: stateless requests to HandleStateless,
// everything else to the session.
//
// A message that declares a protocol version in its _meta is stateless
// whatever came before it on the stream: the request declares its version
// and is judged alone (an earlier initialize selects legacy semantics for
// the legacy traffic of this process, and a dual-era server may serve both
// eras in one process). A declared version that is malformed, stateful or
// unknown gets the stateless errors (-32602, -32022); legacy clients never
// send that reserved key. Cancellations always go to the session, which
// finds stateless requests in flight too.
func (s *Server) stdioMessage(ctx context.Context, sess *Session, b []byte, w Sink, wg *sync.WaitGroup) {
	b = s.faultAssumeVersion(b)
	// Before initialize, server/discover is stateless even without a usable
	// _meta, so that it is answered with the stateless errors; after it, a
	// bare server/discover is legacy traffic.
	stateless := (declaresVersion(b) && !isCancellation(b)) || (!sess.Initialized() && isDiscover(b))
	if !stateless {
		sess.Dispatch(b, w)
		return
	}
	m := jsonrpc.Decode(b)
	rctx, cancel := context.WithCancel(ctx)
	if m.Kind == jsonrpc.KindRequest {
		sess.mu.Lock()
		if sess.stateless == nil {
			sess.stateless = map[jsonrpc.ID]context.CancelFunc{}
		}
		sess.stateless[m.ID] = cancel
		sess.mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer cancel()
		if s.faults.on(FaultStdioServerRequest) && m.Kind == jsonrpc.KindRequest {
			_ = w.Send(faultPingRequest)
		}
		s.HandleStateless(rctx, b, cancelSilently{w, rctx})
		if m.Kind == jsonrpc.KindRequest {
			sess.mu.Lock()
			delete(sess.stateless, m.ID)
			sess.mu.Unlock()
		}
	}()
}

// cancelSilently drops everything once its context is cancelled: a
// cancelled stateless request sends nothing more, its response included.
type cancelSilently struct {
	to  Sink
	ctx context.Context
}

func (c cancelSilently) unsilenced() Sink { return c.to }

func (c cancelSilently) Send(b []byte) error {
	if c.ctx.Err() != nil {
		return nil
	}
	return c.to.Send(b)
}

// declaresVersion reports whether a message's params._meta holds the
// per-request protocol version key, whatever its value. Lines that cannot
// hold a _meta (the common case) cost one scan.
func declaresVersion(b []byte) bool {
	if !mayHoldMeta(b) {
		return false
	}
	msg := jsonrpc.Decode(b)
	var base struct {
		Meta mcp.Meta `json:"_meta"`
	}
	if len(msg.Params) == 0 || json.Unmarshal(msg.Params, &base) != nil {
		return false
	}
	_, ok := base.Meta[mcp.MetaProtocolVersion]
	return ok
}

func isCancellation(b []byte) bool {
	m := jsonrpc.Decode(b)
	return m.Kind == jsonrpc.KindNotification && m.Method == spec.MethodCancelled
}

func isDiscover(b []byte) bool {
	m := jsonrpc.Decode(b)
	return m.Method == spec.MethodServerDiscover
}

// stdioWriter writes messages to stdout from a bounded queue on one
// goroutine, so lines never interleave and senders never touch stdout.
type stdioWriter struct {
	lw      *jsonrpc.LineWriter
	queue   chan []byte
	closing chan struct{}
	done    chan struct{}
	once    sync.Once
}

func newStdioWriter(out io.Writer, size int) *stdioWriter {
	w := &stdioWriter{lw: jsonrpc.NewLineWriter(out), queue: make(chan []byte, size), closing: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			select {
			case b := <-w.queue:
				if err := w.lw.WriteLine(b); err != nil {
					<-w.closing // the client is gone; Send returns once closed
					return
				}
			case <-w.closing:
				for {
					select {
					case b := <-w.queue:
						if w.lw.WriteLine(b) != nil {
							return
						}
					default:
						return
					}
				}
			}
		}
	}()
	return w
}

// Send queues msg; it waits while the queue is full (stdout is the only
// way to the client, so dropping would lose responses) and fails once the
// writer is closed.
func (w *stdioWriter) Send(msg []byte) error {
	select {
	case <-w.closing:
		return ErrClosed
	default:
	}
	select {
	case w.queue <- msg:
		return nil
	case <-w.closing:
		return ErrClosed
	}
}

func (w *stdioWriter) close() {
	w.once.Do(func() { close(w.closing) })
	<-w.done
}
