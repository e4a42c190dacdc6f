package conn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// PipeLines reads the target's stdout straight from a pollable pipe with
// read deadlines, in the goroutine that drives the session: no reader
// goroutine, so a frame reaches the judge without a goroutine hand-off. It
// splits lines as jsonrpc.LineReader does: LF ends a line, a CR before it
// is dropped, empty lines are skipped, a line longer than the limit is
// discarded as it streams by (Frame.Problem says so), and a last line
// without LF is returned with a Problem. Memory is bounded by about the
// limit plus one read.
type PipeLines struct {
	f     *os.File
	limit int
	buf   []byte
	r, w  int
	// discarding is set while skipping the rest of a line over the limit;
	// seen counts its bytes.
	discarding bool
	seen       int64
	err        error // sticky: io.EOF or a read error
	done       bool  // everything up to err has been returned
}

// readChunk is how much one read asks for.
const readChunk = 64 << 10

// NewPipeLines reads frames of at most limit bytes from f.
func NewPipeLines(f *os.File, limit int) *PipeLines {
	return &PipeLines{f: f, limit: limit, buf: make([]byte, readChunk)}
}

// Next returns the next frame, reading until deadline. It returns
// ErrDeadline when no complete line came in time (a partial line stays
// buffered) and ErrClosed once the output ended and every line was
// returned.
func (p *PipeLines) Next(deadline time.Time) (Frame, error) {
	for {
		if f, ok := p.line(); ok {
			f.At = time.Now()
			return f, nil
		}
		if p.err != nil {
			if f, ok := p.tail(); ok {
				f.At = time.Now()
				return f, nil
			}
			return Frame{}, ErrClosed
		}
		if err := p.fill(deadline); err != nil {
			return Frame{}, err
		}
	}
}

// availableWait is how long available lets a read wait: a deadline already
// past would fail the read before it is tried.
const availableWait = 100 * time.Microsecond

// available returns the next frame among what the pipe holds right now
// (waiting at most availableWait); ok is false when there is none (or the
// output ended).
func (p *PipeLines) available() (Frame, bool) {
	for {
		if f, ok := p.line(); ok {
			f.At = time.Now()
			return f, true
		}
		if p.err != nil {
			return Frame{}, false
		}
		if err := p.fill(time.Now().Add(availableWait)); err != nil {
			return Frame{}, false
		}
	}
}

// line cuts the next complete line out of the buffer.
func (p *PipeLines) line() (Frame, bool) {
	for {
		i := bytes.IndexByte(p.buf[p.r:p.w], '\n')
		if i < 0 {
			if p.discarding || p.w-p.r > p.limit+1 {
				// No LF within the limit: drop what is buffered and keep
				// skipping until the line ends.
				p.seen += int64(p.w - p.r)
				p.r, p.w = 0, 0
				p.discarding = true
			}
			return Frame{}, false
		}
		content := p.buf[p.r : p.r+i]
		p.r += i + 1
		if p.discarding {
			n := p.seen + int64(len(content))
			p.discarding, p.seen = false, 0
			return tooLongFrame(p.limit, n), true
		}
		if n := len(content); n > 0 && content[n-1] == '\r' {
			content = content[:n-1]
		}
		if len(content) > p.limit {
			return tooLongFrame(p.limit, int64(len(content))), true
		}
		if len(content) == 0 {
			continue // an empty line carries no message
		}
		return Frame{Data: bytes.Clone(content)}, true
	}
}

// tail returns what is left after the output ended: a last line without
// LF (or the end of one over the limit), once.
func (p *PipeLines) tail() (Frame, bool) {
	if p.done {
		return Frame{}, false
	}
	p.done = true
	rest := p.buf[p.r:p.w]
	p.r, p.w = 0, 0
	switch {
	case p.discarding || len(rest) > p.limit:
		return tooLongFrame(p.limit, p.seen+int64(len(rest))), true
	case len(rest) == 0:
		return Frame{}, false
	}
	return Frame{Data: bytes.Clone(rest), Problem: "the output ended without a final newline"}, true
}

func tooLongFrame(limit int, n int64) Frame {
	return Frame{Problem: (&jsonrpc.LineTooLongError{Limit: limit, Seen: n}).Error()}
}

// fill reads once, waiting until deadline.
func (p *PipeLines) fill(deadline time.Time) error {
	if p.r > 0 {
		p.w = copy(p.buf, p.buf[p.r:p.w])
		p.r = 0
	}
	if p.w == len(p.buf) {
		// A partial line fills the buffer: grow it, up to the limit
		// (line discards what is beyond).
		p.buf = append(p.buf, make([]byte, min(len(p.buf), p.limit+2))...)
	}
	if err := p.f.SetReadDeadline(deadline); err != nil {
		p.err = fmt.Errorf("%w: %v", io.ErrUnexpectedEOF, err)
		return nil
	}
	n, err := p.f.Read(p.buf[p.w:])
	p.w += n
	switch {
	case err == nil:
		return nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		if n > 0 {
			return nil
		}
		return ErrDeadline
	}
	p.err = err // io.EOF, or the pipe is gone
	return nil
}
