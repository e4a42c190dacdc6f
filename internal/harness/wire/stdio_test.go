package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestStdioFramesWhatTheTargetWrites(t *testing.T) {
	checkGoroutines(t)
	c, peer := Pipe(Limits{MaxMessage: 64})
	defer c.Close()
	go func() {
		io.WriteString(peer, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n")
		io.WriteString(peer, "Server started on stdio\n")
		io.WriteString(peer, "\n")
		io.WriteString(peer, "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\r\n")
		io.WriteString(peer, strings.Repeat("y", 200)+"\n")
		io.WriteString(peer, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}")
		peer.Close()
	}()
	fs := recvUntil(t, c, KindEnd, 5*time.Second)
	kinds := []Kind{KindMessage, KindGarbage, KindGarbage, KindMessage, KindTooLong, KindMessage, KindEnd}
	if len(fs) != len(kinds) {
		t.Fatalf("got %d frames, want %d: %+v", len(fs), len(kinds), fs)
	}
	for i, k := range kinds {
		if fs[i].Kind != k {
			t.Errorf("frame %d is %v (%s), want %v", i, fs[i].Kind, fs[i].Describe(), k)
		}
	}
	if !fs[3].CR {
		t.Error("a CR LF line must be flagged CR")
	}
	if fs[4].Size != 200 {
		t.Errorf("too-long size = %d, want 200", fs[4].Size)
	}
	if !fs[5].Unterminated {
		t.Error("the last line without LF must be flagged Unterminated")
	}
	if fs[6].Err != nil {
		t.Errorf("a clean EOF has no error: %v", fs[6].Err)
	}
}

func TestStdioSendRefusesBrokenFramingButSendRawSendsIt(t *testing.T) {
	checkGoroutines(t)
	c, peer := Pipe(Limits{})
	defer c.Close()
	ctx := ctxT(t, 30*time.Second)
	if _, err := c.Send(ctx, []byte("{\n}")); err == nil {
		t.Fatal("Send must refuse a message with a raw newline")
	}
	got := make(chan []byte)
	go func() {
		buf := make([]byte, 64)
		n, _ := io.ReadAtLeast(peer, buf, 9)
		got <- buf[:n]
	}()
	if _, err := c.SendRaw(ctx, []byte("{\"a\":\n1}\r")); err != nil {
		t.Fatal(err)
	}
	if b := <-got; !bytes.Equal(b, []byte("{\"a\":\n1}\r")) {
		t.Errorf("the target read %q", b)
	}
}

// A target that never reads its input: Send must give up when ctx ends.
func TestStdioSendToATargetThatDoesNotRead(t *testing.T) {
	checkGoroutines(t)
	c, _ := Pipe(Limits{})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"x"}`))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Send to a target that does not read: err = %v, want deadline exceeded", err)
	}
}

// A flood: the target writes without end. The queue fills, the reader waits,
// and Close still returns and stops every goroutine.
func TestStdioFloodIsBoundedAndCloseStops(t *testing.T) {
	checkGoroutines(t)
	c, peer := Pipe(Limits{MaxFrames: 8})
	stop := make(chan struct{})
	flooded := make(chan struct{})
	go func() {
		defer close(flooded)
		line := []byte("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n")
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := peer.Write(line); err != nil {
				return
			}
		}
	}()
	ctx := ctxT(t, 30*time.Second)
	for i := 0; i < 100; i++ {
		if f, err := c.Recv(ctx); err != nil || f.Kind != KindMessage {
			t.Fatalf("frame %d: %v %v", i, f.Kind, err)
		}
	}
	c.q.mu.Lock()
	queued := len(c.q.items)
	c.q.mu.Unlock()
	if queued > 8 {
		t.Errorf("%d frames queued, over the limit of 8", queued)
	}
	close(stop)
	if err := c.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	peer.Close()
	<-flooded
	if _, err := c.Recv(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Recv after Close: %v, want ErrClosed", err)
	}
}

type tapLog struct {
	sent, recv chan struct{}
}

func (l tapLog) Sent(Outgoing)           { l.sent <- struct{}{} }
func (l tapLog) Received(Frame)          { l.recv <- struct{}{} }
func (l tapLog) Noted(string, time.Time) {}

func TestStdioTapsSeeBothDirections(t *testing.T) {
	checkGoroutines(t)
	c, peer := Pipe(Limits{})
	defer c.Close()
	l := tapLog{make(chan struct{}, 4), make(chan struct{}, 4)}
	remove := c.Observe(l)
	defer remove()
	go io.Copy(peer, peer) // echo
	ctx := ctxT(t, 30*time.Second)
	if _, err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Recv(ctx); err != nil {
		t.Fatal(err)
	}
	if len(l.sent) != 1 || len(l.recv) != 1 {
		t.Errorf("tap saw %d sent and %d received, want 1 and 1", len(l.sent), len(l.recv))
	}
}

// A write blocked on a target that does not read, with no deadline, must
// not keep Close from returning.
func TestStdioCloseDuringABlockedSend(t *testing.T) {
	checkGoroutines(t)
	c, peer := Pipe(Limits{})
	defer peer.Close()
	errc := make(chan error, 1)
	go func() {
		_, err := c.Send(context.Background(), []byte(`{"jsonrpc":"2.0","method":"x"}`))
		errc <- err
	}()
	done := make(chan struct{})
	go func() { c.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Close hung behind a blocked Send")
	}
	if err := <-errc; err == nil {
		t.Error("the blocked Send must fail when the connection closes")
	}
}
