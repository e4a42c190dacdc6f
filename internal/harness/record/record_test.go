package record

import (
	"context"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
)

func TestRecorderKeepsBothDirectionsPerCheck(t *testing.T) {
	r := New(time.Now(), Options{MaxRaw: 16})
	c, peer := wire.Pipe(wire.Limits{})
	defer c.Close()
	defer c.Observe(r)()
	go func() {
		buf := make([]byte, 1024)
		n, _ := peer.Read(buf)
		peer.Write(buf[:n])
		io.WriteString(peer, "\xff\xfe not utf8\n")
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r.Note("before the check")
	m := r.Mark()
	c.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	c.Recv(ctx)
	c.Recv(ctx)
	ev := r.Since(m)
	if len(ev) != 3 {
		t.Fatalf("got %d events: %+v", len(ev), ev)
	}
	if ev[0].Direction != reports.Sent || ev[1].Direction != reports.Received || ev[2].Direction != reports.Received {
		t.Errorf("directions: %v %v %v", ev[0].Direction, ev[1].Direction, ev[2].Direction)
	}
	if !strings.Contains(ev[0].Note, "cut to the first 16") || len(ev[0].Raw) != 16 {
		t.Errorf("the long event must be cut: %+v", ev[0])
	}
	if !ev[2].Base64 || !strings.Contains(ev[2].Note, "garbage") {
		t.Errorf("non-UTF-8 garbage: %+v", ev[2])
	}
	if ev[0].Offset <= 0 || ev[1].Offset < ev[0].Offset {
		t.Errorf("offsets %v %v", ev[0].Offset, ev[1].Offset)
	}
	r.Discard(m)
	if got := len(r.Events()); got != 3 {
		t.Errorf("after Discard %d events", got)
	}
}

func TestRecorderBound(t *testing.T) {
	r := New(time.Now(), Options{MaxEvents: 3})
	m := r.Mark()
	for i := 0; i < 5; i++ {
		r.Received(wire.Frame{Kind: wire.KindMessage, Raw: []byte("{}"), Time: time.Now()})
	}
	ev := r.Since(m)
	if len(ev) != 4 || ev[0].Direction != reports.Note || r.Dropped() != 2 {
		t.Errorf("events %+v dropped %d", ev, r.Dropped())
	}
}

// TestRecorderBoundsAFlood: a flood of events costs the recorder its byte
// budget, no more; a check's mark into the dropped part still gets the
// rest with a note; Trim keeps the head and tail of a long transcript.
func TestRecorderBoundsAFlood(t *testing.T) {
	r := New(time.Now(), Options{MaxBytes: 1 << 20})
	m := r.Mark()
	line := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("x", 900) + `"}}`)
	for i := 0; i < 20000; i++ {
		r.Received(wire.Frame{Kind: wire.KindMessage, Raw: line})
	}
	total := 0
	for _, e := range r.Events() {
		total += Cost(e)
	}
	if total > 1<<20 || len(r.Events()) < 500 {
		t.Fatalf("after a flood the recorder keeps %d events of %d bytes, want at most 1 MiB and most of it used", len(r.Events()), total)
	}
	since := r.Since(m)
	if !strings.Contains(since[0].Note, "dropped") {
		t.Fatalf("a mark into the dropped events gets no note saying so: %+v", since[0])
	}
	trimmed := Trim(since, 10, 1<<20)
	if len(trimmed) != 11 || !strings.Contains(trimmed[5].Note, "left out") || trimmed[10].Raw != since[len(since)-1].Raw || trimmed[0].Note != since[0].Note {
		t.Fatalf("Trim to 10 events: %d events, middle note %q", len(trimmed), trimmed[5].Note)
	}
	if short := Trim(since[:3], 10, 1<<20); len(short) != 3 {
		t.Fatalf("Trim changed a transcript within its bounds: %d events", len(short))
	}
}

// TestOnNumbersTheConnection: a tap from On labels every event it records
// with its connection; the recorder's own tap methods label none.
func TestOnNumbersTheConnection(t *testing.T) {
	r := New(time.Now(), Options{})
	r.On(2).Sent(wire.Outgoing{Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)})
	r.On(3).Received(wire.Frame{Kind: wire.KindMessage, Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)})
	r.On(3).Noted("the process exited with status 1", time.Now())
	r.Received(wire.Frame{Kind: wire.KindMessage, Raw: []byte(`{}`)})
	var got []int
	for _, e := range r.Events() {
		got = append(got, e.Conn)
	}
	if want := []int{2, 3, 3, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("connections %v, want %v", got, want)
	}
}
