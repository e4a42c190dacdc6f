package jsonrpc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
)

// DefaultMaxLineSize is the line limit NewLineReader uses when given a limit
// of zero or less: 16 MiB, room for large tool results with embedded images.
const DefaultMaxLineSize = 16 << 20

// initialBufSize is the LineReader's starting buffer; it grows as needed up
// to the line limit.
const initialBufSize = 4 << 10

// ErrUnterminatedLine is returned by LineReader.ReadLine together with the
// last bytes of the stream when the stream ends without a final LF. The bytes
// may be a complete message from a peer that omits the last newline, or a
// message cut short; MCP's stdio framing requires the newline. It matches
// io.ErrUnexpectedEOF with errors.Is.
var ErrUnterminatedLine = fmt.Errorf("jsonrpc: the stream ended without a final newline, so the last line may be truncated: %w", io.ErrUnexpectedEOF)

// ErrEmbeddedNewline is matched (with errors.Is) by the error LineWriter
// returns for a message containing a raw CR or LF byte.
var ErrEmbeddedNewline = errors.New("jsonrpc: message contains a raw newline")

// LineTooLongError reports a line longer than the LineReader's limit. The
// whole line was read and discarded; the reader continues with the next line.
type LineTooLongError struct {
	// Limit is the reader's maximum line size in bytes.
	Limit int
	// Seen is the length of the discarded line in bytes, counting
	// everything but the terminating LF (a CR before it is counted).
	Seen int64
}

// Error says how long the line was, that it was dropped, and what to do.
func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("jsonrpc: discarded a line of %d bytes, over the %d-byte line limit; the reader resumes at the next line; if the peer legitimately sends messages this large, raise the limit given to NewLineReader",
		e.Seen, e.Limit)
}

// LineInfo describes the line most recently returned by ReadLine.
type LineInfo struct {
	// Offset is the stream offset of the line's first byte.
	Offset int64
	// CR reports that the line ended in CR LF and the CR was stripped. MCP
	// frames messages with a bare LF, so a conformance check may flag it.
	CR bool
	// Unterminated reports that the stream ended before an LF; ReadLine
	// returned ErrUnterminatedLine (or the read error) with this line.
	Unterminated bool
	// EmptySkipped is how many empty lines were skipped just before it.
	EmptySkipped int
}

// LineStats counts what a LineReader has seen so far.
type LineStats struct {
	// Lines is the number of lines returned (including unterminated ones).
	Lines int64
	// Bytes is the number of bytes read from the underlying reader.
	Bytes int64
	// Empty is the number of empty lines skipped (or returned, with
	// KeepEmpty).
	Empty int64
	// CRLF is the number of lines, empty ones included, whose CR was
	// stripped before the LF.
	CRLF int64
	// TooLong is the number of lines discarded for exceeding the limit.
	TooLong int64
	// Discarded is the total length of those lines (LineTooLongError.Seen).
	Discarded int64
}

// LineReader splits a byte stream into LF-terminated lines, the stdio
// framing of MCP, using memory bounded by about twice the line limit however
// long the lines the peer sends.
//
// Rules:
//   - ReadLine returns each line without its LF. When the line ends in CR LF
//     the CR is stripped too, and Info().CR reports it.
//   - Empty lines (nothing, or only CR, before the LF) carry no message and
//     are skipped, counted in Info().EmptySkipped and Stats().Empty. Set
//     KeepEmpty to receive them as empty, non-nil slices instead. Lines of
//     other whitespace are returned as they are.
//   - A line longer than the limit (not counting the LF and a CR before it)
//     is read to its end and discarded, and ReadLine returns a
//     *LineTooLongError; the next call continues with the next line. Note
//     that ReadLine keeps reading (in bounded memory) until that line ends.
//   - When the stream ends after a partial line, ReadLine returns it with
//     ErrUnterminatedLine; after that, and at a clean end, io.EOF.
//   - A read error other than io.EOF is returned wrapped, together with any
//     partial line, and again by every later call.
//
// Each returned slice is freshly allocated and owned by the caller.
//
// A LineReader is not safe for concurrent use: call it from one goroutine.
type LineReader struct {
	// KeepEmpty makes ReadLine return empty lines instead of skipping them.
	KeepEmpty bool

	rd      io.Reader
	limit   int
	buf     []byte
	r, w    int   // unread data is buf[r:w]
	off     int64 // stream offset of buf[r]
	err     error // sticky error from rd
	info    LineInfo
	stats   LineStats
	retries int
}

// NewLineReader returns a LineReader over r that accepts lines of up to
// maxLine bytes; maxLine <= 0 means DefaultMaxLineSize.
func NewLineReader(r io.Reader, maxLine int) *LineReader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLineSize
	}
	if maxLine > math.MaxInt-2 {
		maxLine = math.MaxInt - 2
	}
	return &LineReader{rd: r, limit: maxLine}
}

// Limit returns the maximum line size in bytes.
func (lr *LineReader) Limit() int { return lr.limit }

// Info describes the line most recently returned by ReadLine.
func (lr *LineReader) Info() LineInfo { return lr.info }

// Stats returns counts of everything read so far.
func (lr *LineReader) Stats() LineStats { return lr.stats }

// ReadLine returns the next line. See the LineReader documentation for the
// rules on empty lines, CR LF, long lines, and the end of the stream.
func (lr *LineReader) ReadLine() ([]byte, error) {
	skipped := 0
	for {
		line, empty, err := lr.next()
		if empty && !lr.KeepEmpty {
			skipped++
			continue
		}
		lr.info.EmptySkipped = skipped
		return line, err
	}
}

// next reads one line. empty reports a complete empty line (returned as a
// non-nil empty slice).
func (lr *LineReader) next() (line []byte, empty bool, err error) {
	lr.info = LineInfo{Offset: lr.off}
	maxPending := lr.limit + 1 // a full line plus a CR
	var seen int64             // bytes of this line already discarded
	discarding := false
	scan := lr.r // where to resume looking for LF
	for {
		if i := bytes.IndexByte(lr.buf[scan:lr.w], '\n'); i >= 0 {
			nl := scan + i
			content := lr.buf[lr.r:nl]
			lr.consume(nl + 1)
			if discarding || len(content) > maxPending {
				return nil, false, lr.tooLong(seen + int64(len(content)))
			}
			if n := len(content); n > 0 && content[n-1] == '\r' {
				content = content[:n-1]
				lr.info.CR = true
				lr.stats.CRLF++
			} else if n > lr.limit {
				return nil, false, lr.tooLong(int64(n))
			}
			if len(content) == 0 {
				lr.stats.Empty++
				return []byte{}, true, nil
			}
			lr.stats.Lines++
			return bytes.Clone(content), false, nil
		}
		if lr.err != nil {
			return lr.atEnd(seen, discarding)
		}
		if pending := lr.w - lr.r; discarding || pending > maxPending {
			// No LF within the limit: drop what we have and keep looking.
			seen += int64(pending)
			lr.consume(lr.w)
			discarding = true
		}
		if lr.w == len(lr.buf) {
			lr.makeRoom()
		}
		scan = lr.w // everything before w has been searched
		lr.fill()
	}
}

// atEnd handles the end of the stream (or a read error) with buf[r:w]
// holding the rest of the current line.
func (lr *LineReader) atEnd(seen int64, discarding bool) ([]byte, bool, error) {
	pending := lr.w - lr.r
	err := lr.err
	if err != io.EOF {
		err = fmt.Errorf("jsonrpc: reading a line: %w", err)
	}
	if discarding || pending > lr.limit {
		lr.consume(lr.w)
		return nil, false, lr.tooLong(seen + int64(pending))
	}
	if pending == 0 {
		return nil, false, err
	}
	line := bytes.Clone(lr.buf[lr.r:lr.w])
	lr.consume(lr.w)
	lr.info.Unterminated = true
	lr.stats.Lines++
	if err == io.EOF {
		err = ErrUnterminatedLine
	}
	return line, false, err
}

func (lr *LineReader) tooLong(n int64) error {
	lr.stats.TooLong++
	lr.stats.Discarded += n
	return &LineTooLongError{Limit: lr.limit, Seen: n}
}

func (lr *LineReader) consume(to int) {
	lr.off += int64(to - lr.r)
	lr.r = to
	if lr.r == lr.w {
		lr.r, lr.w = 0, 0
		if len(lr.buf) > shrinkAbove {
			// A long line grew the buffer: let it go, so that a reader
			// that once read a 10 MB line does not hold 16 MB for the
			// rest of its life (a run keeps many readers open).
			lr.buf = make([]byte, initialBufSize)
		}
	}
}

// shrinkAbove is the buffer size over which an empty buffer is replaced
// by a fresh small one.
const shrinkAbove = 1 << 20

// makeRoom frees space at the end of a full buffer, by moving unread data
// to the front or by growing the buffer towards limit+2 bytes (a full line,
// a CR and the LF). Growth doubles, but jumps straight to the cap once the
// buffer would reach half of it, so the sizes allocated over a reader's life
// sum to less than twice the cap.
func (lr *LineReader) makeRoom() {
	if lr.r > 0 {
		n := copy(lr.buf, lr.buf[lr.r:lr.w])
		lr.r, lr.w = 0, n
		return
	}
	capLimit := lr.limit + 2
	size := max(len(lr.buf)*2, min(initialBufSize, capLimit))
	if size >= capLimit/2 || size > capLimit {
		size = capLimit
	}
	if size <= len(lr.buf) {
		return // already at the cap; next() discards before this happens
	}
	nb := make([]byte, size)
	copy(nb, lr.buf[:lr.w])
	lr.buf = nb
}

// fill reads once into the free space of the buffer, recording any error
// (and, after 100 empty reads in a row, io.ErrNoProgress) as sticky.
func (lr *LineReader) fill() {
	n, err := lr.rd.Read(lr.buf[lr.w:])
	if n < 0 || n > len(lr.buf)-lr.w {
		lr.err = fmt.Errorf("the underlying reader returned an impossible count %d", n)
		return
	}
	lr.w += n
	lr.stats.Bytes += int64(n)
	switch {
	case err != nil:
		lr.err = err
	case n == 0:
		lr.retries++
		if lr.retries >= 100 {
			lr.err = io.ErrNoProgress
		}
	default:
		lr.retries = 0
	}
}

// LineWriter writes messages one per line, the stdio framing of MCP.
//
// A LineWriter is safe for concurrent use: each call writes its whole line
// with a single Write to the underlying writer, under a mutex, so lines from
// different goroutines never interleave.
type LineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

// NewLineWriter returns a LineWriter writing to w.
func NewLineWriter(w io.Writer) *LineWriter { return &LineWriter{w: w} }

// WriteLine writes msg followed by LF. It refuses an empty msg and one that
// contains a raw CR or LF byte, which would break the framing (JSON never
// needs them: encoding/json escapes them inside strings and omits
// insignificant whitespace when compacting); use WriteLineUnsafe to send such
// bytes deliberately.
func (lw *LineWriter) WriteLine(msg []byte) error {
	if len(msg) == 0 {
		return errors.New("jsonrpc: refusing to write an empty message; an empty line carries no message (use WriteRaw to send one deliberately)")
	}
	if i := bytes.IndexAny(msg, "\r\n"); i >= 0 {
		return fmt.Errorf("%w: byte %d of %d is %q, which would split the line; compact the JSON (json.Compact) or use WriteLineUnsafe to send it deliberately",
			ErrEmbeddedNewline, i, len(msg), msg[i])
	}
	return lw.WriteLineUnsafe(msg)
}

// WriteLineUnsafe writes msg followed by LF without any check. It is meant
// for conformance tests that must send broken framing.
func (lw *LineWriter) WriteLineUnsafe(msg []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.buf = append(append(lw.buf[:0], msg...), '\n')
	err := lw.write(lw.buf)
	if cap(lw.buf) > 1<<20 {
		lw.buf = nil // do not pin a huge buffer after one large message
	}
	return err
}

// WriteRaw writes b exactly as given, with no LF added and no check, under
// the same lock as the other methods. It is meant for conformance tests that
// must send partial lines, bare CRs or other illegal bytes.
func (lw *LineWriter) WriteRaw(b []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.write(b)
}

func (lw *LineWriter) write(b []byte) error {
	n, err := lw.w.Write(b)
	if err != nil {
		return fmt.Errorf("jsonrpc: writing a line: wrote %d of %d bytes: %w", n, len(b), err)
	}
	if n != len(b) {
		return fmt.Errorf("jsonrpc: writing a line: wrote %d of %d bytes: %w", n, len(b), io.ErrShortWrite)
	}
	return nil
}
