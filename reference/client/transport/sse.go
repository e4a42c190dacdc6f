package transport

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
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
	lr     *jsonrpc.LineReader
	max    int
	lastID string
}

func newSSEReader(r io.Reader, max int) *sseReader {
	lr := jsonrpc.NewLineReader(r, max)
	lr.KeepEmpty = true
	return &sseReader{lr: lr, max: max}
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
