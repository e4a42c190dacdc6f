package conn

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSlowReaderIsNotAStall: a target that takes its input steadily but
// slowly (32 KiB every 200 ms, a busy machine) gets a 384 KiB write
// through although the whole write takes about twice the write timeout;
// the stall verdict is kept for a target that takes no byte for the whole
// timeout. Before, a write not complete within the timeout was a stall
// however much it had taken (a hang/stdin finding on a careful server at
// load 60: "3801088 of 4194257 bytes written").
func TestSlowReaderIsNotAStall(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	done := make(chan struct{})
	defer close(done)
	go func() {
		buf := make([]byte, 32<<10)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if _, err := io.ReadFull(r, buf); err != nil {
				return
			}
		}
	}()
	payload := make([]byte, 384<<10)
	if err := WritePolled(w, payload, time.Second, func() {}); err != nil {
		t.Fatalf("a steady slow reader: %v; want the write to complete", err)
	}
}

// TestReaderThatTakesNothingStalls: a target that takes no byte of a
// write larger than the pipe's buffer stalls the write after the timeout,
// and the error says so.
func TestReaderThatTakesNothingStalls(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	err = WritePolled(w, make([]byte, 4<<20), 200*time.Millisecond, func() {})
	if !errors.Is(err, ErrStalled) || !strings.Contains(err.Error(), "took no byte") {
		t.Fatalf("a reader that takes nothing: %v; want ErrStalled saying it took no byte", err)
	}
}
