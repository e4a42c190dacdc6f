package wire

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// checkGoroutines fails the test when the goroutine count does not come
// back to what it was when the test called it. HTTP keep-alive goroutines
// wind down asynchronously after CloseIdleConnections, so it polls with a
// deadline; it never synchronises the code under test.
func checkGoroutines(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(20 * time.Second)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("goroutine leak: %d goroutines after Close, %d before\n%s", n, before, buf)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// recvAll receives frames until one of kind stop arrives (included) or the
// context ends.
func recvUntil(t *testing.T, c Conn, stop Kind, d time.Duration) []Frame {
	t.Helper()
	ctx := ctxT(t, d)
	var out []Frame
	for {
		f, err := c.Recv(ctx)
		if err != nil {
			t.Fatalf("Recv after %d frames: %v (frames: %+v)", len(out), err, out)
		}
		out = append(out, f)
		if f.Kind == stop {
			return out
		}
	}
}
