package server

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

// TestConcurrentHTTPSessions runs 16 sessions at once, each calling tools,
// while one client reads nothing (a dead GET stream); run with -race.
func TestConcurrentHTTPSessions(t *testing.T) {
	s := newTestServer(t, Options{})
	base := startHTTP(t, s, HTTPOptions{EventBuffer: 8})
	// A dead client: opens its GET stream and never reads it.
	dead := &httpClient{t: t, srv: base.srv, header: map[string]string{}}
	dead.initialize(spec.V20251125)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base.srv.URL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", dead.session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()

	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := &httpClient{t: t, srv: base.srv, header: map[string]string{}}
			c.initialize(spec.V20251125)
			for j := 0; j < 10; j++ {
				rep := c.do("POST", rpc(10+j, "tools/call", map[string]any{"name": "ref_notify_stream", "arguments": map[string]any{"count": 20}}), nil)
				m := c.response(rep, "tools/call")
				if !strings.Contains(string(m.Result), "sent 20 notifications") {
					errs <- fmt.Errorf("session %d call %d: %s", i, j, m.raw)
					return
				}
				// Changing lists floods every session's GET stream,
				// including the dead one; nobody may block on it.
				c.do("POST", rpc(100+j, "tools/call", map[string]any{"name": "ref_change_lists", "arguments": map[string]any{"kind": "resources"}}), nil)
			}
			if r := c.do("DELETE", nil, nil); r.status != 200 {
				errs <- fmt.Errorf("session %d: DELETE status %d", i, r.status)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestLegacySSE(t *testing.T) {
	s := newTestServer(t, Options{})
	c := startHTTP(t, s, HTTPOptions{LegacySSE: true})
	resp, post := openLegacySSE(t, c)
	if st := post(rpc(1, "initialize", map[string]any{"protocolVersion": "2024-11-05", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})); st != 202 {
		t.Fatalf("POST initialize: %d", st)
	}
	got := readSSE(t, resp.Body, 1)
	validateServerMessage(t, spec.V20241105, "initialize", got[0].data)
	if got[0].event != "message" || !strings.Contains(string(got[0].data), `"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize response: %+v", got)
	}
	post(note("notifications/initialized", nil))
	post(rpc(2, "tools/call", map[string]any{"name": "test_simple_text"}))
	got = readSSE(t, resp.Body, 1)
	validateServerMessage(t, spec.V20241105, "tools/call", got[0].data)
	if !strings.Contains(string(got[0].data), "simple text") {
		t.Errorf("tools/call: %s", got[0].data)
	}
}

// TestLegacySSEFloodIsPacedNotDropped: the HTTP+SSE stream carries every
// server message of its session, so a burst larger than the event buffer
// must wait for the client rather than evict undelivered events (which
// ended the stream: the fuzz campaign's crash/closed-output finding with
// ref_notify_stream and count 100000). With a 4-event buffer, 500 related
// notifications and then the answer all arrive, in order.
func TestLegacySSEFloodIsPacedNotDropped(t *testing.T) {
	s := newTestServer(t, Options{})
	c := startHTTP(t, s, HTTPOptions{LegacySSE: true, EventBuffer: 4})
	resp, post := openLegacySSE(t, c)
	post(rpc(1, "initialize", map[string]any{"protocolVersion": "2024-11-05", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}))
	if got := readSSE(t, resp.Body, 1); len(got) != 1 {
		t.Fatal("no initialize response")
	}
	post(note("notifications/initialized", nil))
	const n = 500
	post(rpc(3, "tools/call", map[string]any{"name": "ref_notify_stream", "arguments": map[string]any{"count": n}}))
	got := readSSE(t, resp.Body, n+1)
	seqs := 0
	for _, e := range got {
		if strings.Contains(string(e.data), `"seq":`+strconv.Itoa(seqs)+`}`) {
			seqs++
		}
	}
	if len(got) != n+1 || seqs != n || !strings.Contains(string(got[n].data), `"id":3`) {
		last := ""
		if len(got) > 0 {
			last = string(got[len(got)-1].data)
		}
		t.Fatalf("got %d events, %d notifications in order (want %d and then the answer to id 3); the last: %s", len(got), seqs, n, last)
	}
}

// openLegacySSE opens the HTTP+SSE stream (closed when the test ends),
// checks its endpoint event, and returns the stream and a function that
// POSTs a message to the endpoint and returns the status.
func openLegacySSE(t *testing.T, c *httpClient) (*http.Response, func(body []byte) int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", c.srv.URL+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	ev := readSSE(t, resp.Body, 1)
	if len(ev) != 1 || ev[0].event != "endpoint" || !strings.HasPrefix(string(ev[0].data), "/message?sessionId=") {
		t.Fatalf("endpoint event: %+v", ev)
	}
	return resp, func(body []byte) int {
		r, err := http.Post(c.srv.URL+string(ev[0].data), "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r.StatusCode
	}
}
