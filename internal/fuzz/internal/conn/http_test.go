package conn

import (
	"testing"
	"time"
)

// TestHTTPSlowBodyIsBounded: a trickle that would take minutes is sent
// in bigger chunks, within maxTrickle.
func TestHTTPSlowBodyIsBounded(t *testing.T) {
	for _, q := range []HTTPRequest{
		{Body: make([]byte, 10000), BodyChunk: 1, BodyDelay: 20 * time.Millisecond},
		{Body: make([]byte, 10), BodyChunk: 1, BodyDelay: time.Hour},
		{Body: make([]byte, 100), BodyChunk: 16, BodyDelay: 3 * time.Millisecond},
	} {
		o := rawOptions(q)
		if d := trickleTime(len(q.Body), o.Chunk, o.Delay); d > maxTrickle || o.Chunk < q.BodyChunk {
			t.Errorf("%d bytes %d at a time every %v: %d at a time every %v takes %v", len(q.Body), q.BodyChunk, q.BodyDelay, o.Chunk, o.Delay, d)
		}
		if o.Timeout > rawWait+maxTrickle {
			t.Errorf("timeout %v", o.Timeout)
		}
		// A body shorter than it says is waited for lieWait after it
		// went out, never rawWait.
		q.DeclaredLength = int64(len(q.Body)) + 100
		if o := rawOptions(q); o.Timeout != lieWait+trickleTime(len(q.Body), o.Chunk, o.Delay) {
			t.Errorf("lying length: timeout %v, want lieWait (%v) after the trickle", o.Timeout, lieWait)
		}
	}
	if o := rawOptions(HTTPRequest{Body: make([]byte, 100), BodyChunk: 16, BodyDelay: 3 * time.Millisecond}); o.Chunk != 16 || o.Delay != 3*time.Millisecond {
		t.Errorf("a short trickle was changed: %+v", o)
	}
}
