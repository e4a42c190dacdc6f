package stage

import (
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/record"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

// Peer says who put an event on the wire.
type Peer int

// The peers of a case.
const (
	// FromClient is the client under test.
	FromClient Peer = iota + 1
	// FromStage is the harness playing the server.
	FromStage
	// FromHarness marks an observation of the harness (a process exit,
	// stdin closed, a signal), not bytes on the wire.
	FromHarness
)

// String is "client", "stage" or "harness".
func (p Peer) String() string {
	switch p {
	case FromClient:
		return "client"
	case FromStage:
		return "stage"
	case FromHarness:
		return "harness"
	}
	return "unknown"
}

// What a harness event is about (Event.Note names it in words).
const (
	NoteStdinClosed   = "stdin-closed"   // the client closed the server's stdin
	NoteSignal        = "signal"         // the server process got a signal (Event.Detail names it)
	NoteServerExit    = "server-exit"    // the stage's server process exited (Detail: how)
	NoteRelayDropped  = "relay-dropped"  // the relay's connection ended without an exit: the process was killed
	NoteRelayConnect  = "relay-connect"  // a stdio connection began (the client started the server)
	NoteClientExit    = "client-exit"    // the launched client process exited (Detail: how)
	NoteClientStarted = "client-started" // the launched client process started
)

// Event is one thing in a case's recording: a message (or broken bytes,
// or a bodiless HTTP request) sent by the client or by the stage, or an
// observation of the harness.
type Event struct {
	// Seq numbers the events of a case from 1, in recording order.
	Seq  int
	From Peer
	// Conn numbers the stdio connections of a case (1, 2, ...: each time
	// the client started the server); 0 for HTTP, whose exchanges are told
	// apart by Stream.
	Conn int
	// Frame is what crossed the wire. For the client's HTTP requests,
	// Frame.HTTP holds the method, URL and request headers, and Stream
	// names the exchange ("post-3", "get-1", "delete-1"); a request without
	// a body is a wire.KindHTTPRequest frame. For the stage's HTTP answers,
	// Frame.HTTP holds the status and response headers; SSE events carry
	// their id and retry fields.
	wire.Frame
	// Note and Detail describe a Harness event (Note is one of the Note
	// constants).
	Note   string
	Detail string
	// Began is, for an HTTP event, when it began: for the client's
	// request, when the stage's handler took it (before its body was
	// read, so before it was recorded); for the stage's answer, when the
	// handler first wrote it (its bytes cannot have reached the client
	// before). Zero elsewhere. Concurrent exchanges are recorded in the
	// order their recording ends; Began tells a request that came before
	// an answer could have reached the client, though recorded after it.
	Began time.Time
}

// IsMessage reports whether the event is a JSON value sent as one message.
func (e Event) IsMessage() bool { return e.From != FromHarness && e.Kind == wire.KindMessage }

// Recording is the bounded, ordered list of a case's events. It feeds a
// record.Recorder for the transcript of every check that judges the case.
//
// Concurrency: safe for concurrent use.
type Recording struct {
	mu      sync.Mutex
	max     int
	events  []Event
	dropped int
	rec     *record.Recorder
	changed chan struct{}
}

func newRecording(max int, start time.Time) *Recording {
	if max <= 0 {
		max = 20000
	}
	return &Recording{max: max, rec: record.New(start, record.Options{MaxEvents: max}), changed: make(chan struct{})}
}

// add appends e, feeds the transcript, and wakes waiters.
func (r *Recording) add(e Event) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	switch e.From {
	case FromClient:
		r.rec.ReceivedOn(e.Conn, e.Frame)
	case FromStage:
		r.rec.SentOn(e.Conn, wire.Outgoing{Raw: e.Raw, Stream: e.Stream, HTTP: e.HTTP, Time: e.Time})
	case FromHarness:
		text := e.Note
		if e.Detail != "" {
			text += ": " + e.Detail
		}
		r.rec.NotedOn(e.Conn, text, e.Time)
	}
	r.mu.Lock()
	if len(r.events) >= r.max {
		r.dropped++
		r.mu.Unlock()
		return
	}
	e.Seq = len(r.events) + 1
	r.events = append(r.events, e)
	ch := r.changed
	r.changed = make(chan struct{})
	r.mu.Unlock()
	close(ch)
}

// note records a harness observation.
func (r *Recording) note(conn int, what, detail string) {
	r.noteAt(conn, what, detail, time.Now())
}

// noteAt is note for something that happened at a time of its own (the
// relay's clock: see stamp).
func (r *Recording) noteAt(conn int, what, detail string, at time.Time) {
	r.add(Event{From: FromHarness, Conn: conn, Note: what, Detail: detail, Frame: wire.Frame{Time: at}})
}

// Events returns a copy of the events so far.
func (r *Recording) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// Dropped is how many events were not kept over the bound.
func (r *Recording) Dropped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// Changed returns a channel closed when the next event is added.
func (r *Recording) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

// Recorder is the transcript of the case, for checks' reports.
func (r *Recording) Recorder() *record.Recorder { return r.rec }
