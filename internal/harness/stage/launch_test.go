package stage

import (
	"context"
	"testing"
	"time"
)

// TestLaunchedClientStdinIsClosed: a client's stdin is never its MCP
// channel (it speaks to the relay it starts, or over HTTP), so it reads
// end of file at once. A host that reads its stdin until it closes (codex
// exec waits for it) goes on instead of hanging until the case's time
// limit.
func TestLaunchedClientStdinIsClosed(t *testing.T) {
	s := newStage(t)
	c, err := s.NewCase(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := c.Launch(Launch{Command: "cat >/dev/null; echo read-to-eof # {url}"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(context.Background())
	select {
	case <-p.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("the client still waits on its stdin after 10 s: it was left open")
	}
	// Stop after the exit waits for the client's output to be read to
	// its end (Exited can come before the last bytes are copied).
	_ = p.Stop(context.Background())
	if out, _ := p.Output(); string(out) != "read-to-eof\n" {
		t.Errorf("stdout %q, want %q", out, "read-to-eof\n")
	}
}
