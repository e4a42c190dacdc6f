package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// Stdio is a Conn over a pair of byte streams framed one message per line:
// a child process's stdin and stdout, or any similar channel.
type Stdio struct {
	r    io.ReadCloser
	w    io.WriteCloser
	q    *queue
	taps taps

	wmu       sync.Mutex // serialises writes so lines never interleave
	closeOnce sync.Once
	wOnce     sync.Once
	wclosed   atomic.Bool
	wErr      error
	done      chan struct{}
}

// NewStdio returns a Conn that writes to w and reads lines from r, and
// starts its reader goroutine. The taps see every line from the first:
// one added later with Observe misses what the target wrote before (a
// target that speaks as soon as it starts). When w supports SetWriteDeadline (an
// *os.File pipe, a net.Conn), Send honours ctx even when the target stops
// reading; otherwise a blocked write is only released by Close.
// Close closes both streams.
func NewStdio(r io.ReadCloser, w io.WriteCloser, l Limits, taps ...Tap) *Stdio {
	l = l.withDefaults()
	c := &Stdio{r: r, w: w, q: newQueue(l), done: make(chan struct{})}
	for _, t := range taps {
		if t != nil {
			c.taps.add(t)
		}
	}
	go c.read(l.MaxMessage)
	return c
}

// Transport is TransportStdio.
func (c *Stdio) Transport() Transport { return TransportStdio }

// Observe adds a tap; see Conn.
func (c *Stdio) Observe(t Tap) func() { return c.taps.add(t) }

// Note passes an observation to the taps (used by the owner of the
// process, for example to record its exit). Safe for concurrent use.
func (c *Stdio) Note(text string) { c.taps.noted(text, time.Now()) }

// Send writes msg and a LF. It refuses an empty msg and one containing a
// raw CR or LF, which would break the framing; use SendRaw to send such
// bytes on purpose. Safe for concurrent use; lines never interleave.
func (c *Stdio) Send(ctx context.Context, msg []byte) (string, error) {
	if len(msg) == 0 {
		return StreamStdio, errors.New("wire: refusing to send an empty message on stdio; use SendRaw to send an empty line on purpose")
	}
	if i := bytes.IndexAny(msg, "\r\n"); i >= 0 {
		return StreamStdio, fmt.Errorf("wire: the message holds a raw newline at byte %d, which would split it into two lines; compact the JSON, or use SendRaw to send broken framing on purpose", i)
	}
	line := make([]byte, len(msg)+1)
	copy(line, msg)
	line[len(msg)] = '\n'
	return StreamStdio, c.write(ctx, line)
}

// SendRaw writes b exactly, adding nothing. Safe for concurrent use.
func (c *Stdio) SendRaw(ctx context.Context, b []byte) (string, error) {
	return StreamStdio, c.write(ctx, bytes.Clone(b))
}

type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

func (c *Stdio) write(ctx context.Context, b []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.wclosed.Load() {
		return ErrClosed
	}
	c.taps.sent(Outgoing{Raw: b, Stream: StreamStdio, Time: time.Now()})
	var n int
	var err error
	if wd, ok := c.w.(writeDeadliner); ok && wd.SetWriteDeadline(deadline(ctx)) == nil {
		stop := context.AfterFunc(ctx, func() { _ = wd.SetWriteDeadline(time.Unix(1, 0)) })
		n, err = c.w.Write(b)
		stop()
	} else {
		done := make(chan struct{})
		go func() {
			defer close(done)
			n, err = c.w.Write(b)
		}()
		select {
		case <-done:
		case <-ctx.Done():
			return fmt.Errorf("wire: the target stopped reading its input: wrote part of %d bytes before %w; the framing is now unreliable, close the connection", len(b), ctx.Err())
		}
	}
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// Deadlines are only ever set from ctx.
			err = context.DeadlineExceeded
			if ctx.Err() != nil {
				err = ctx.Err()
			}
		}
		err = fmt.Errorf("wire: wrote %d of %d bytes to the target's input: %w", n, len(b), err)
		c.taps.noted(err.Error(), time.Now())
		return err
	}
	return nil
}

// CloseWrite closes the target's input (stdin) only, the graceful shutdown
// signal of the stdio transport; frames keep arriving until the target
// closes its output. Safe for concurrent use; it does not wait for a
// write in progress, which fails instead.
func (c *Stdio) CloseWrite() error {
	c.wOnce.Do(func() {
		c.wclosed.Store(true)
		c.wErr = c.w.Close()
	})
	return c.wErr
}

// Recv returns the next frame; see Conn.
func (c *Stdio) Recv(ctx context.Context) (Frame, error) { return c.q.pop(ctx) }

// Done is closed when the reader goroutine has stopped: the target closed
// its output or the Conn was closed.
func (c *Stdio) Done() <-chan struct{} { return c.done }

// Close closes both streams and waits for the reader goroutine to stop.
func (c *Stdio) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.q.close()
		err = errors.Join(c.CloseWrite(), c.r.Close())
		<-c.done
	})
	return err
}

func (c *Stdio) read(max int) {
	defer close(c.done)
	ReadLines(c.r, max, func(f Frame) bool {
		c.taps.received(f)
		return c.q.push(f)
	})
}

// ReadLines reads LF-framed messages (MCP's stdio framing) from r until it
// ends, handing each line to emit as a frame: a message or garbage (with CR
// and Unterminated set as the line was framed), a KindTooLong frame for a
// line over max bytes (discarded), and last a KindEnd frame (with Err set
// when the stream failed rather than ended). Frames carry StreamStdio and
// the time they were read. It stops early when emit returns false, and
// quietly when r was closed by its owner.
func ReadLines(r io.Reader, max int, emit func(Frame) bool) {
	lr := jsonrpc.NewLineReader(r, max)
	lr.KeepEmpty = true
	send := func(f Frame) bool {
		f.Stream = StreamStdio
		if f.Time.IsZero() {
			f.Time = time.Now()
		}
		return emit(f)
	}
	for {
		line, err := lr.ReadLine()
		var tl *jsonrpc.LineTooLongError
		switch {
		case errors.As(err, &tl):
			if !send(Frame{Kind: KindTooLong, Size: tl.Seen}) {
				return
			}
			continue
		case line != nil:
			f := Classify(line)
			info := lr.Info()
			f.CR, f.Unterminated = info.CR, info.Unterminated
			if !send(f) {
				return
			}
		}
		if err == nil {
			continue
		}
		end := Frame{Kind: KindEnd}
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		case errors.Is(err, os.ErrClosed), errors.Is(err, io.ErrClosedPipe):
			return // we closed it
		default:
			end.Err = err
		}
		send(end)
		return
	}
}
