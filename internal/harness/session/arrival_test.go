package session

import (
	"bufio"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestIdleSessionAnswersServerRequests: a server request that arrives
// while no check reads the session (a pooled session between checks) is
// answered at once, not when somebody next calls Recv; Recv later hands
// out the request with that answer and sends no second one.
func TestIdleSessionAnswersServerRequests(t *testing.T) {
	c, peer := wire.Pipe(wire.Limits{})
	t.Cleanup(func() { c.Close(); peer.Close() })
	s := NewStateful(c, Config{Version: spec.V20250618})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := peer.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(peer)
	r := bufio.NewScanner(peer)
	// The server asks for roots and pings; nobody calls Recv.
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":0,"method":"roots/list"}`,
		`{"jsonrpc":"2.0","id":"p","method":"ping"}`,
	} {
		w.WriteString(line + "\n")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for len(got) < 2 && r.Scan() {
		line := r.Text()
		switch {
		case strings.Contains(line, `"id":0`):
			got["roots"] = line
		case strings.Contains(line, `"id":"p"`):
			got["ping"] = line
		default:
			t.Fatalf("unexpected line from the session: %s", line)
		}
	}
	if !strings.Contains(got["roots"], "file:///mcpcheck/root") || !strings.Contains(got["ping"], `"result":{}`) {
		t.Fatalf("answers sent while idle = %v; want the configured root and an empty ping result", got)
	}
	// A check reading now sees both requests, with the answers already sent.
	for range 2 {
		if _, err := s.Recv(ctx); err != nil {
			t.Fatal(err)
		}
	}
	reqs := s.ServerRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d server requests recorded, want 2", len(reqs))
	}
	for _, q := range reqs {
		if len(q.Answer) == 0 {
			t.Errorf("request %s recorded without its answer", q.Frame.Msg.Method)
		}
	}
	// Nothing more was sent: the next line the server reads is the
	// session's own next request, not a second answer.
	next := make(chan string, 1)
	go func() {
		defer close(next)
		if r.Scan() {
			next <- r.Text()
		}
	}()
	if _, _, err := s.Request(ctx, "ping", nil); err != nil {
		t.Fatal(err)
	}
	line, ok := <-next
	if !ok {
		t.Fatalf("the session's ping never arrived: %v", r.Err())
	}
	if !strings.Contains(line, `"method":"ping"`) {
		t.Errorf("after the answers on arrival the session sent %s; want its own ping request, nothing answered twice", line)
	}
}
