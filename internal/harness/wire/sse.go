package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// SSEEvent is one event of a text/event-stream, as the SSE format
// (WHATWG HTML, "Server-sent events") defines it.
type SSEEvent struct {
	// Type is the event field ("" when absent, which means "message").
	Type string
	// Data is the data lines joined with LF; HasData reports whether any
	// data field was present (an empty data field counts).
	Data    []byte
	HasData bool
	// ID is the id field; HasID reports whether the event carried one.
	ID    string
	HasID bool
	// Retry is the retry field, when it was a valid integer.
	Retry    time.Duration
	HasRetry bool
	// TooLong is set when the event's lines or data exceeded the limit; the
	// data was discarded and Size holds how many bytes were seen.
	TooLong bool
	Size    int64
}

// ErrSSELineTooLong is matched by the error SSEReader returns for a line
// longer than its limit inside an event; the reader skips the rest of the
// event and the event comes back with TooLong set.
var ErrSSELineTooLong = errors.New("wire: SSE line over the size limit")

// SSEReader parses a text/event-stream with bounded memory: lines end in
// CR LF, LF or CR; a leading UTF-8 BOM is dropped; lines starting with ':'
// are comments (counted in Comments); "field: value" drops one space after
// the colon; data lines are joined with LF; an id containing NUL is
// ignored; retry must be ASCII digits; a blank line dispatches the event.
// Unlike a browser it also returns events without data (priming events,
// retry-only events), so a conformance check can see them, and it never
// returns an incomplete event at the end of the stream.
//
// An SSEReader is not safe for concurrent use.
type SSEReader struct {
	br       *bufio.Reader
	max      int
	started  bool
	Comments int64 // comment lines seen so far
	pendCR   bool  // the previous line ended in CR; skip a following LF
}

// NewSSEReader returns a reader accepting lines and event data of up to
// max bytes (16 MiB when max <= 0).
func NewSSEReader(r io.Reader, max int) *SSEReader {
	if max <= 0 {
		max = 16 << 20
	}
	return &SSEReader{br: bufio.NewReaderSize(r, 4096), max: max}
}

// line reads one line without its terminator. It returns tooLong with the
// line's length when the line exceeded the limit (its bytes are dropped).
func (s *SSEReader) line() (line []byte, tooLong bool, n int64, err error) {
	var buf []byte
	for {
		b, err := s.br.ReadByte()
		if err != nil {
			if n > 0 || len(buf) > 0 {
				// An unterminated last line: the stream ended mid-event.
				return nil, false, n, io.ErrUnexpectedEOF
			}
			return nil, false, 0, err
		}
		if s.pendCR {
			s.pendCR = false
			if b == '\n' {
				continue
			}
		}
		switch b {
		case '\n':
			return buf, n > int64(s.max), n, nil
		case '\r':
			s.pendCR = true
			return buf, n > int64(s.max), n, nil
		}
		n++
		if n <= int64(s.max) {
			buf = append(buf, b)
		} else if buf != nil {
			buf = nil
		}
	}
}

// Next returns the next event. At the end of the stream it returns io.EOF,
// or io.ErrUnexpectedEOF when the stream ended inside an event (that event
// is discarded, as the SSE format says).
func (s *SSEReader) Next() (SSEEvent, error) {
	var ev SSEEvent
	var data bytes.Buffer
	fields := 0
	for {
		line, tooLong, n, err := s.line()
		if err != nil {
			if err == io.EOF && fields > 0 {
				err = io.ErrUnexpectedEOF
			}
			return SSEEvent{}, err
		}
		if !s.started {
			s.started = true
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if tooLong {
			ev.TooLong = true
			ev.Size += n
			fields++
			continue
		}
		if len(line) == 0 {
			if fields == 0 {
				continue // blank lines between events
			}
			if ev.HasData && !ev.TooLong {
				ev.Data = bytes.Clone(data.Bytes())
			}
			if ev.TooLong {
				ev.Size += int64(data.Len())
			}
			return ev, nil
		}
		if line[0] == ':' {
			s.Comments++
			continue
		}
		fields++
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(name) {
		case "event":
			ev.Type = string(value)
		case "data":
			if ev.HasData {
				data.WriteByte('\n')
			}
			ev.HasData = true
			if !ev.TooLong {
				if data.Len()+len(value) > s.max {
					ev.TooLong = true
					ev.Size = int64(data.Len())
					data.Reset()
				} else {
					data.Write(value)
				}
			}
			if ev.TooLong {
				ev.Size += int64(len(value))
			}
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.ID, ev.HasID = string(value), true
			}
		case "retry":
			if ms, err := strconv.ParseInt(string(value), 10, 64); err == nil && ms >= 0 && isDigits(value) {
				ev.Retry, ev.HasRetry = time.Duration(ms)*time.Millisecond, true
			}
		}
	}
}

func isDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Frame turns an event into a frame (its Stream and HTTP are the
// caller's to set).
func (ev SSEEvent) Frame() Frame {
	var f Frame
	switch {
	case ev.TooLong:
		f = Frame{Kind: KindTooLong, Size: ev.Size, Time: time.Now()}
	case ev.Type == "endpoint":
		f = Frame{Kind: KindEndpoint, Raw: ev.Data, Time: time.Now()}
	case !ev.HasData:
		f = Frame{Kind: KindEmptyEvent, Time: time.Now()}
	case len(ev.Data) == 0:
		f = Frame{Kind: KindEmptyEvent, Raw: []byte{}, Time: time.Now()}
	default:
		f = Classify(ev.Data)
	}
	f.Event, f.EventID, f.HasEventID, f.Retry, f.HasRetry = ev.Type, ev.ID, ev.HasID, ev.Retry, ev.HasRetry
	return f
}

// errStreamCut is the reason of an End frame when an SSE stream stopped in
// the middle of an event.
var errStreamCut = fmt.Errorf("the SSE stream ended in the middle of an event, which was discarded")
