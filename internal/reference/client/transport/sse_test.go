package transport

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestSSEReader(t *testing.T) {
	in := ": comment\n\nid: 1\nretry: 250\ndata:\n\nevent: endpoint\ndata: /x\n\ndata: a\ndata: b\r\n\r\n" +
		"data: " + strings.Repeat("z", 100) + "\n\ndata: ok\n\ndata: cut"
	r := newSSEReader(strings.NewReader(in), 50)
	ev, err := r.next()
	if err != nil || ev.ID != "1" || !ev.HasID || ev.Retry != 250*time.Millisecond || len(ev.Data) != 0 {
		t.Fatalf("priming event = %+v, %v", ev, err)
	}
	ev, _ = r.next()
	if ev.Name != "endpoint" || string(ev.Data) != "/x" || ev.ID != "1" || ev.HasID {
		t.Fatalf("endpoint event = %+v", ev)
	}
	ev, _ = r.next()
	if ev.Name != "message" || string(ev.Data) != "a\nb" {
		t.Fatalf("multi-line event = %+v", ev)
	}
	if _, err = r.next(); err == nil {
		t.Fatal("an oversized event was not reported")
	}
	ev, err = r.next()
	if err != nil || string(ev.Data) != "ok" {
		t.Fatalf("event after the oversized one = %+v, %v", ev, err)
	}
	if _, err = r.next(); !errors.Is(err, io.EOF) {
		t.Fatalf("a cut-off event must not be dispatched: %v", err)
	}
}

// TestSSEReaderLineEndsAndBOM: lines ended by a lone CR, CR LF split
// anywhere, and a byte order mark at the start are all SSE (found by
// mcpcheck fuzz --client: the reader lost such events).
func TestSSEReaderLineEndsAndBOM(t *testing.T) {
	for name, in := range map[string]string{
		"CR":     "id: 7\rdata: {\"a\":1}\r\rdata: two\r\r",
		"CRLF":   "id: 7\r\ndata: {\"a\":1}\r\n\r\ndata: two\r\n\r\n",
		"BOM":    "\xef\xbb\xbfid: 7\ndata: {\"a\":1}\n\ndata: two\n\n",
		"BOM+CR": "\xef\xbb\xbfid: 7\rdata: {\"a\":1}\r\rdata: two\r\r",
	} {
		r := newSSEReader(iotest.OneByteReader(strings.NewReader(in)), 100)
		ev, err := r.next()
		if err != nil || ev.ID != "7" || string(ev.Data) != `{"a":1}` {
			t.Errorf("%s: first event = %+v, %v", name, ev, err)
		}
		ev, err = r.next()
		if err != nil || string(ev.Data) != "two" {
			t.Errorf("%s: second event = %+v, %v", name, ev, err)
		}
		if _, err := r.next(); !errors.Is(err, io.EOF) {
			t.Errorf("%s: end of stream = %v", name, err)
		}
	}
}
