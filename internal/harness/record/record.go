// Package record keeps the transcript of a run: every frame sent to and
// received from the target, with its direction, time offset, exact bytes
// and HTTP metadata, as reports.WireEvent values that checks attach to
// their results.
package record

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
)

// Options bound a Recorder. Zero fields take the defaults.
type Options struct {
	// MaxEvents is how many events are kept (default 100000); beyond it the
	// oldest are dropped and counted.
	MaxEvents int
	// MaxRaw is how many bytes of one event are kept (default 64 KiB); the
	// rest is cut and the event's note says so.
	MaxRaw int
	// MaxBytes bounds the memory of the events kept (default 32 MiB, by
	// Cost); beyond it the oldest are dropped and counted, as for
	// MaxEvents.
	MaxBytes int
}

// Mark is a position in a transcript.
type Mark int

// Recorder is a wire.Tap that keeps a transcript. Attach it to every Conn
// of a run with Conn.Observe; take a Mark when a check begins and Since
// when it ends.
//
// Concurrency: all methods are safe for concurrent use.
type Recorder struct {
	mu      sync.Mutex
	start   time.Time
	opts    Options
	events  []reports.WireEvent
	bytes   int // Cost of events
	base    int // Mark of events[0]
	dropped int
}

// Cost is an estimate of the memory e holds, for byte budgets over
// transcripts.
func Cost(e reports.WireEvent) int {
	n := 128 + len(e.Raw) + len(e.Note)
	if e.HTTP != nil {
		n += 256 + len(e.HTTP.URL)
		for k, vs := range e.HTTP.Headers {
			n += len(k)
			for _, v := range vs {
				n += len(v)
			}
		}
	}
	return n
}

// New returns a recorder whose offsets count from start (the start of the
// run).
func New(start time.Time, o Options) *Recorder {
	if o.MaxEvents <= 0 {
		o.MaxEvents = 100000
	}
	if o.MaxRaw <= 0 {
		o.MaxRaw = 64 << 10
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 32 << 20
	}
	return &Recorder{start: start, opts: o}
}

// Start is the time offsets count from.
func (r *Recorder) Start() time.Time { return r.start }

func (r *Recorder) add(e reports.WireEvent, at time.Time) {
	if at.IsZero() {
		at = time.Now()
	}
	e.Offset = at.Sub(r.start)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	r.bytes += Cost(e)
	if len(r.events) <= r.opts.MaxEvents && r.bytes <= r.opts.MaxBytes {
		return
	}
	// Over a bound: drop the oldest, an eighth of them at least, so a
	// flood costs amortized constant time per event, not a copy each.
	n, bytes := 0, r.bytes
	for n < len(r.events)-1 && (n < len(r.events)/8 || len(r.events)-n > r.opts.MaxEvents || bytes > r.opts.MaxBytes) {
		bytes -= Cost(r.events[n])
		n++
	}
	r.drop(n)
	r.dropped += n
}

// drop forgets the first n events. r.mu is held.
func (r *Recorder) drop(n int) {
	for _, e := range r.events[:n] {
		r.bytes -= Cost(e)
	}
	r.events = append(r.events[:0:0], r.events[n:]...)
	r.base += n
}

func (r *Recorder) raw(e *reports.WireEvent, b []byte) string {
	note := ""
	if len(b) > r.opts.MaxRaw {
		note = fmt.Sprintf("%d bytes, cut to the first %d in this transcript", len(b), r.opts.MaxRaw)
		b = b[:r.opts.MaxRaw]
	}
	e.Raw, e.Base64 = reports.RawBytes(b)
	return note
}

func httpInfo(h *wire.HTTPInfo) *reports.HTTPInfo {
	if h == nil {
		return nil
	}
	return &reports.HTTPInfo{Method: h.Method, URL: h.URL, Status: h.Status, Headers: map[string][]string(h.Header.Clone())}
}

// Sent records something sent to the target.
func (r *Recorder) Sent(o wire.Outgoing) { r.SentOn(0, o) }

// SentOn records something sent to the target on connection conn
// (reports.WireEvent.Conn; 0 when not known).
func (r *Recorder) SentOn(conn int, o wire.Outgoing) {
	e := reports.WireEvent{Direction: reports.Sent, HTTP: httpInfo(o.HTTP), Conn: conn}
	notes := []string{}
	if o.Stream != "" && o.Stream != wire.StreamStdio {
		notes = append(notes, "stream "+o.Stream)
	}
	if n := r.raw(&e, o.Raw); n != "" {
		notes = append(notes, n)
	}
	e.Note = strings.Join(notes, "; ")
	r.add(e, o.Time)
}

// Received records a frame from the target.
func (r *Recorder) Received(f wire.Frame) { r.ReceivedOn(0, f) }

// ReceivedOn records a frame from the target on connection conn.
func (r *Recorder) ReceivedOn(conn int, f wire.Frame) {
	e := reports.WireEvent{Direction: reports.Received, HTTP: httpInfo(f.HTTP), Conn: conn}
	var notes []string
	if f.Stream != "" && f.Stream != wire.StreamStdio {
		notes = append(notes, "stream "+f.Stream)
	}
	if f.Kind != wire.KindMessage {
		notes = append(notes, f.Kind.String())
	}
	switch f.Kind {
	case wire.KindTooLong:
		notes = append(notes, fmt.Sprintf("%d bytes discarded", f.Size))
	case wire.KindEnd, wire.KindTransportError:
		if f.Err != nil {
			notes = append(notes, f.Err.Error())
		}
	}
	if f.Event != "" {
		notes = append(notes, "SSE event "+f.Event)
	}
	if f.HasEventID {
		notes = append(notes, fmt.Sprintf("SSE id %q", f.EventID))
	}
	if f.HasRetry {
		notes = append(notes, fmt.Sprintf("SSE retry %v", f.Retry))
	}
	if f.CR {
		notes = append(notes, "line ended in CR LF")
	}
	if f.Unterminated {
		notes = append(notes, "unterminated")
	}
	if n := r.raw(&e, f.Raw); n != "" {
		notes = append(notes, n)
	}
	e.Note = strings.Join(notes, "; ")
	r.add(e, f.Time)
}

// Noted records an observation of the harness.
func (r *Recorder) Noted(text string, at time.Time) { r.NotedOn(0, text, at) }

// NotedOn records an observation of the harness about connection conn
// ("the process exited with status 1").
func (r *Recorder) NotedOn(conn int, text string, at time.Time) {
	r.add(reports.WireEvent{Direction: reports.Note, Note: text, Conn: conn}, at)
}

// Cite adds events another recorder of the run recorded (their offsets
// count from the same start) as they are, in their order, after the
// events r holds: what a check judged without carrying it on its own
// connections (the version's handshake, a list another check fetched)
// shown as its evidence.
func (r *Recorder) Cite(evs []reports.WireEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range evs {
		r.events = append(r.events, e)
		r.bytes += Cost(e)
	}
}

// On returns a tap that records what one connection carries into r, each
// event numbered conn: attach one per connection (Conn.Observe) so that a
// transcript of several connections says which carried what.
func (r *Recorder) On(conn int) wire.Tap { return connTap{r, conn} }

// connTap is Recorder.On's tap.
type connTap struct {
	r    *Recorder
	conn int
}

func (t connTap) Sent(o wire.Outgoing)            { t.r.SentOn(t.conn, o) }
func (t connTap) Received(f wire.Frame)           { t.r.ReceivedOn(t.conn, f) }
func (t connTap) Noted(text string, at time.Time) { t.r.NotedOn(t.conn, text, at) }

// Note records an observation now.
func (r *Recorder) Note(format string, args ...any) {
	r.Noted(fmt.Sprintf(format, args...), time.Now())
}

// Mark returns the current end of the transcript.
func (r *Recorder) Mark() Mark {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Mark(r.base + len(r.events))
}

// Since returns a copy of the events recorded after m. When events after m
// were already dropped (MaxEvents), the copy starts with a note saying how
// many.
func (r *Recorder) Since(m Mark) []reports.WireEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := int(m) - r.base
	var out []reports.WireEvent
	if i < 0 {
		out = append(out, reports.WireEvent{Direction: reports.Note, Note: fmt.Sprintf("%d earlier events of this check were dropped from the transcript", -i)})
		i = 0
	}
	if i > len(r.events) {
		i = len(r.events)
	}
	return append(out, r.events[i:]...)
}

// Discard forgets the events before m, once no check needs them.
func (r *Recorder) Discard(m Mark) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := int(m) - r.base
	if i <= 0 {
		return
	}
	if i > len(r.events) {
		i = len(r.events)
	}
	r.drop(i)
}

// Events returns a copy of every event kept.
func (r *Recorder) Events() []reports.WireEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]reports.WireEvent(nil), r.events...)
}

// Dropped is how many events were dropped for MaxEvents.
func (r *Recorder) Dropped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

var _ wire.Tap = (*Recorder)(nil)

// Trim bounds a transcript for a report: at most maxEvents events and
// about maxBytes (by Cost). When it is over, the first and the last events
// are kept, half the budget each, with a note in between saying how many
// were left out: a check's transcript shows how it began and how it ended
// even when the target flooded it.
func Trim(events []reports.WireEvent, maxEvents, maxBytes int) []reports.WireEvent {
	total := 0
	for _, e := range events {
		total += Cost(e)
	}
	if len(events) <= maxEvents && total <= maxBytes {
		return events
	}
	head, hb := 0, 0
	for head < len(events) && head < maxEvents/2 && hb+Cost(events[head]) <= maxBytes/2 {
		hb += Cost(events[head])
		head++
	}
	tail, tb := len(events), 0
	for tail > head && len(events)-tail < maxEvents/2 && tb+Cost(events[tail-1]) <= maxBytes/2 {
		tb += Cost(events[tail-1])
		tail--
	}
	left, lb := tail-head, total-hb-tb
	out := make([]reports.WireEvent, 0, head+1+len(events)-tail)
	out = append(out, events[:head]...)
	out = append(out, reports.WireEvent{Direction: reports.Note, Offset: events[head].Offset,
		Note: fmt.Sprintf("%d events (about %d KiB) left out of this transcript; the first %d and the last %d are shown", left, (lb+1023)/1024, head, len(events)-tail)})
	return append(out, events[tail:]...)
}
