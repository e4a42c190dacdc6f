package transport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// sseEvent is one dispatched Server-Sent Event.
type sseEvent struct {
	// Name is the event type ("message" when the stream gave none).
	Name string
	// Data is the data lines joined with LF.
	Data []byte
	// ID is the last event id seen so far on the stream (the SSE rules
	// carry it over to later events); HasID says whether this event set it.
	ID    string
	HasID bool
	// Retry is the reconnection delay the event set, zero if none.
	Retry time.Duration
}

// sseReader parses an event stream with bounded memory: a line longer than
// the limit is dropped, and so is an event whose data grows past it.
//
// An sseReader is not safe for concurrent use.
type sseReader struct {
	lr     *sseLines
	max    int
	lastID string
}

func newSSEReader(r io.Reader, max int) *sseReader {
	return &sseReader{lr: &sseLines{br: bufio.NewReaderSize(r, 4096), max: max}, max: max}
}

// sseLines splits an event stream into lines as the SSE format does:
// a line ends in CR LF, LF or a lone CR, and a UTF-8 byte order mark at
// the very start of the stream is dropped (mcpcheck fuzz --client found
// that streams framed with CR alone, or starting with a BOM, lost their
// events). A line longer than max is dropped (a *jsonrpc.LineTooLongError);
// a last line the stream ends inside gives jsonrpc.ErrUnterminatedLine.
type sseLines struct {
	br      *bufio.Reader
	max     int
	pendCR  bool // the last line ended in CR: a LF right after belongs to it
	started bool
}

// ReadLine returns the next line without its terminator.
func (l *sseLines) ReadLine() ([]byte, error) {
	var line []byte
	var n int64
	for {
		b, err := l.br.ReadByte()
		if err != nil {
			if n > 0 {
				return nil, jsonrpc.ErrUnterminatedLine
			}
			return nil, err
		}
		if l.pendCR {
			l.pendCR = false
			if b == '\n' {
				continue
			}
		}
		if b == '\n' || b == '\r' {
			l.pendCR = b == '\r'
			if n > int64(l.max) {
				return nil, &jsonrpc.LineTooLongError{Limit: l.max, Seen: n}
			}
			if !l.started {
				l.started = true
				line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			}
			if line == nil {
				line = []byte{}
			}
			return line, nil
		}
		n++
		if n <= int64(l.max) {
			line = append(line, b)
		} else {
			line = nil
		}
	}
}

// errEventTooLarge is returned (wrapped in a DroppedError by callers) for an
// event whose data exceeded the limit.
var errEventTooLarge = errors.New("an SSE event was larger than the message size limit and was dropped")

// next returns the next event. Events without data (a priming event that only
// sets id and retry, for example) are returned too, with empty Data, so the
// caller learns the id and retry. It returns io.EOF at the end of the stream,
// and errEventTooLarge or a *jsonrpc.LineTooLongError for dropped input
// (after which it can be called again).
func (s *sseReader) next() (sseEvent, error) {
	var (
		ev       sseEvent
		data     []byte
		haveData bool
		any      bool
		tooLarge bool
	)
	for {
		line, err := s.lr.ReadLine()
		if err != nil {
			var tl *jsonrpc.LineTooLongError
			if errors.As(err, &tl) {
				tooLarge = true
				continue
			}
			if errors.Is(err, jsonrpc.ErrUnterminatedLine) {
				// An event cut off by the end of the stream is not dispatched.
				return sseEvent{}, io.EOF
			}
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if tooLarge {
				return sseEvent{}, errEventTooLarge
			}
			if !any {
				continue
			}
			if ev.Name == "" {
				ev.Name = "message"
			}
			ev.Data = data
			if !haveData {
				ev.Data = nil
			}
			ev.ID = s.lastID
			return ev, nil
		}
		if line[0] == ':' {
			continue // comment
		}
		field, value := string(line), ""
		if i := strings.IndexByte(field, ':'); i >= 0 {
			field, value = field[:i], field[i+1:]
			value = strings.TrimPrefix(value, " ")
		}
		any = true
		switch field {
		case "event":
			ev.Name = value
		case "data":
			if haveData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			haveData = true
			if len(data) > s.max {
				tooLarge = true
				data = nil
			}
		case "id":
			if !strings.ContainsRune(value, 0) {
				s.lastID = value
				ev.HasID = true
			}
		case "retry":
			if ms, err := strconv.ParseUint(value, 10, 31); err == nil {
				ev.Retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
}
