package server

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// sseEvent is one stored event of a stream.
type sseEvent struct {
	seq  int64
	data []byte
}

// stream is one SSE stream of a session: a POST response stream, the
// standalone GET stream, or a legacy HTTP+SSE stream. Messages are stored
// in a bounded buffer (the event store) and written by whichever HTTP
// handler is attached, so Send never blocks on the network and a stream
// can be resumed with Last-Event-ID after a disconnect. Each message is
// sent on exactly one stream.
type stream struct {
	id    string
	limit int

	mu       sync.Mutex
	seq      int64
	events   []sseEvent
	notify   chan struct{}
	finished bool
	attached bool
	dropConn chan struct{} // closed to make the attached writer disconnect
	drained  chan struct{} // closed when the writer delivers events
	// backpressure makes Send wait while an attached writer is behind by
	// limit events (request streams: only the request's own work waits);
	// without it the oldest events are dropped (shared streams, where a
	// slow client must never block anybody).
	backpressure bool
	delivered    int64 // last seq a standalone GET delivered
}

func newStream(id string, limit int) *stream {
	return &stream{id: id, limit: limit, notify: make(chan struct{}), dropConn: make(chan struct{}), drained: make(chan struct{})}
}

// Send stores msg as the next event and wakes the writer.
func (st *stream) Send(msg []byte) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	for st.backpressure && st.attached && !st.finished && st.seq-st.delivered >= int64(st.limit) {
		ch := st.drained
		st.mu.Unlock()
		<-ch
		st.mu.Lock()
	}
	if st.finished {
		return fmt.Errorf("stream %s is finished; message dropped", st.id)
	}
	st.seq++
	st.events = append(st.events, sseEvent{seq: st.seq, data: msg})
	if len(st.events) > st.limit {
		st.events = st.events[len(st.events)-st.limit:]
	}
	close(st.notify)
	st.notify = make(chan struct{})
	return nil
}

// finish marks the stream complete: the writer ends after the last event.
func (st *stream) finish() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.finished {
		st.finished = true
		close(st.notify)
		st.notify = make(chan struct{})
		close(st.drained)
		st.drained = make(chan struct{})
	}
}

// Disconnect makes the attached writer close the connection (SSE polling);
// the events stay stored for resumption.
func (st *stream) Disconnect() {
	st.mu.Lock()
	defer st.mu.Unlock()
	select {
	case <-st.dropConn:
	default:
		close(st.dropConn)
	}
}

// seqNow returns the sequence number of the last event stored.
func (st *stream) seqNow() int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.seq
}

// waitDelivered waits until an attached writer has delivered event seq,
// the writer detaches, or the wait bound passes; it reports whether the
// event was delivered.
func (st *stream) waitDelivered(seq int64, bound time.Duration) bool {
	t := time.NewTimer(bound)
	defer t.Stop()
	for {
		st.mu.Lock()
		if st.delivered >= seq {
			st.mu.Unlock()
			return true
		}
		if !st.attached || st.finished {
			st.mu.Unlock()
			return false
		}
		ch := st.drained
		st.mu.Unlock()
		select {
		case <-ch:
		case <-t.C:
			return false
		}
	}
}

// markDelivered records that events up to seq reached the client and
// wakes senders waiting for room.
func (st *stream) markDelivered(seq int64) {
	st.mu.Lock()
	if seq > st.delivered {
		st.delivered = seq
	}
	close(st.drained)
	st.drained = make(chan struct{})
	st.mu.Unlock()
}

// eventID is the id of event seq: "<stream>.<seq>", so the stream can be
// found from a Last-Event-ID.
func (st *stream) eventID(seq int64) string { return st.id + "." + strconv.FormatInt(seq, 10) }

// parseEventID splits an event id into stream id and sequence number.
func parseEventID(id string) (string, int64, bool) {
	i := strings.LastIndexByte(id, '.')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.ParseInt(id[i+1:], 10, 64)
	if err != nil || n < 0 {
		return "", 0, false
	}
	return id[:i], n, true
}

// sseWriter writes SSE frames and flushes them.
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func newSSEWriter(w http.ResponseWriter) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	return &sseWriter{w: w, rc: http.NewResponseController(w)}
}

// flush sends what was written so far to the client.
func (s *sseWriter) flush() error {
	_ = s.rc.SetWriteDeadline(time.Now().Add(30 * time.Second))
	return s.rc.Flush()
}

// event writes one event, buffered (call flush to send it); id and name
// may be empty.
func (s *sseWriter) event(id, name string, data []byte, retry time.Duration) error {
	var b bytes.Buffer
	if id != "" {
		b.WriteString("id: " + id + "\n")
	}
	if retry > 0 {
		b.WriteString("retry: " + strconv.FormatInt(retry.Milliseconds(), 10) + "\n")
	}
	if name != "" {
		b.WriteString("event: " + name + "\n")
	}
	b.WriteString("data: ")
	b.Write(data)
	b.WriteString("\n\n")
	_, err := s.w.Write(b.Bytes())
	return err
}

// pump writes the stream's events after seq `after` until the stream is
// finished, the client goes away, the server asks to disconnect, or stop
// is closed. It reports whether the stream was fully delivered.
func (st *stream) pump(sw *sseWriter, after int64, withIDs bool, name string, clientGone <-chan struct{}, stop <-chan struct{}) bool {
	for {
		st.mu.Lock()
		var evs []sseEvent
		gap := false
		if n := len(st.events); n > 0 && st.events[0].seq > after+1 {
			gap = true // events were evicted before delivery
		}
		for _, e := range st.events {
			if e.seq > after {
				evs = append(evs, e)
			}
		}
		finished := st.finished
		ch, drop := st.notify, st.dropConn
		st.mu.Unlock()
		if gap {
			return false
		}
		for _, e := range evs {
			id := ""
			if withIDs {
				id = st.eventID(e.seq)
			}
			if sw.event(id, name, e.data, 0) != nil {
				return false
			}
			after = e.seq
			st.markDelivered(after)
		}
		if finished && len(evs) == 0 {
			return true // the handler's return sends the rest
		}
		if len(evs) > 0 {
			continue
		}
		if sw.flush() != nil {
			return false
		}
		select {
		case <-ch:
		case <-drop:
			return false
		case <-clientGone:
			return false
		case <-stop:
			return false
		}
	}
}

// isResponseTo reports whether msg is the response to id.
func isResponseTo(msg []byte, id jsonrpc.ID) bool {
	m := jsonrpc.Decode(msg)
	return m.Shape.IsResponse() && m.ID == id
}
