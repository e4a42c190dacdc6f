package wire

import (
	"io"
	"strings"
	"testing"
	"time"
)

func readAllEvents(t *testing.T, in string, max int) ([]SSEEvent, error) {
	t.Helper()
	r := NewSSEReader(strings.NewReader(in), max)
	var out []SSEEvent
	for {
		ev, err := r.Next()
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

func TestSSEFormat(t *testing.T) {
	in := "\xef\xbb\xbfdata: a\ndata:b\n\n" + // BOM, two data lines, optional space
		": comment\r\nevent: message\r\nid: 7\r\ndata: {\"x\":1}\r\n\r\n" + // CRLF
		"id: 8\rdata\r\r" + // bare CR, a data field without colon is empty data
		"retry: 1500\n\n" + // retry-only event
		"retry: 15x\nid: a\x00b\ndata: z\n\n" + // bad retry, id with NUL ignored
		"data: cut"
	evs, err := readAllEvents(t, in, 0)
	if err != io.ErrUnexpectedEOF {
		t.Fatalf("the stream ends inside an event: err = %v, want io.ErrUnexpectedEOF", err)
	}
	if len(evs) != 5 {
		t.Fatalf("got %d events, want 5: %+v", len(evs), evs)
	}
	if string(evs[0].Data) != "a\nb" {
		t.Errorf("event 0 data = %q, want \"a\\nb\"", evs[0].Data)
	}
	if evs[1].Type != "message" || evs[1].ID != "7" || !evs[1].HasID || string(evs[1].Data) != `{"x":1}` {
		t.Errorf("event 1 = %+v", evs[1])
	}
	if !evs[2].HasData || len(evs[2].Data) != 0 || evs[2].ID != "8" {
		t.Errorf("event 2 (priming) = %+v", evs[2])
	}
	if !evs[3].HasRetry || evs[3].Retry != 1500*time.Millisecond || evs[3].HasData {
		t.Errorf("event 3 (retry only) = %+v", evs[3])
	}
	if evs[4].HasRetry || evs[4].HasID || string(evs[4].Data) != "z" {
		t.Errorf("event 4 = %+v; a non-digit retry and an id with NUL must be ignored", evs[4])
	}
	if f := evs[2].Frame(); f.Kind != KindEmptyEvent || !f.HasEventID {
		t.Errorf("a priming event is frame %v, want empty-event with an id", f.Kind)
	}
}

func TestSSETooLong(t *testing.T) {
	big := strings.Repeat("x", 100)
	evs, err := readAllEvents(t, "data: "+big+"\n\ndata: small\n\ndata: "+big[:60]+"\ndata: "+big[:60]+"\n\n", 64)
	if err != io.EOF {
		t.Fatalf("err = %v", err)
	}
	if len(evs) != 3 || !evs[0].TooLong || evs[1].TooLong || string(evs[1].Data) != "small" || !evs[2].TooLong {
		t.Fatalf("events = %+v; want too-long, small, too-long", evs)
	}
	if f := evs[0].Frame(); f.Kind != KindTooLong || f.Size < 100 {
		t.Errorf("frame = %+v", f)
	}
}
