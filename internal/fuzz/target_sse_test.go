package fuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestSSECampaignReferenceServerIsClean: a campaign against the reference
// server's HTTP+SSE transport, HTTP mutators included, finds nothing: the
// endpoint event and the 202 acknowledgements are not judged as messages,
// and the answers on the SSE stream are judged like any others.
func TestSSECampaignReferenceServerIsClean(t *testing.T) {
	v := spec.V20241105
	srv := refHTTPServer(t, server.HTTPOptions{LegacySSE: true}, nil)
	execs := int64(300)
	if raceEnabled {
		execs = 120
	}
	res := runClean(t, "the reference HTTP+SSE server", Config{Target: conn.LegacySSETarget(srv.URL+"/sse", nil), Version: v, MaxExecs: execs, Seed: 11, Wait: 10 * time.Second})
	if res.Execs != execs {
		t.Errorf("%d execs, want %d", res.Execs, execs)
	}
	if len(res.MethodsCovered) < 2 {
		t.Errorf("methods covered: %v", res.MethodsCovered)
	}
	http := 0
	for name, n := range res.Mutators {
		switch mutate.LookupFamily(name) {
		case "framing":
			t.Errorf("framing mutator %s ran against an HTTP+SSE target", name)
		case "http":
			http += int(n)
		}
	}
	if http == 0 {
		t.Errorf("no HTTP mutator ran: %v", res.Mutators)
	}
	t.Logf("%d execs in %v, %d restarts, methods %v", res.Execs, res.Duration, res.Restarts, res.MethodsCovered)
}

// legacyServer is a small HTTP+SSE server: GET /sse opens a session whose
// endpoint event names /message?session=N; POST /message acknowledges
// with 202 and the text "Accepted" and answers requests on the stream:
// initialize and ping with a result, anything else with "method not
// found". With garbage set it writes an event whose data is not JSON before every
// answer but initialize's.
type legacyServer struct {
	garbage bool
	mu      sync.Mutex
	n       int
	streams map[string]chan []byte
}

func (l *legacyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/sse":
		l.mu.Lock()
		l.n++
		id := fmt.Sprint(l.n)
		ch := make(chan []byte, 64)
		l.streams[id] = ch
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			delete(l.streams, id)
			l.mu.Unlock()
		}()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: /message?session=%s\n\n", id)
		w.(http.Flusher).Flush()
		for {
			select {
			case b := <-ch:
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", b)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	case r.Method == http.MethodPost && r.URL.Path == "/message":
		l.mu.Lock()
		ch := l.streams[r.URL.Query().Get("session")]
		l.mu.Unlock()
		if ch == nil {
			http.NotFound(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "Accepted")
		if json.Unmarshal(body, &m) != nil || m.Method == "" || len(m.ID) == 0 {
			return
		}
		send := func(b []byte) {
			select {
			case ch <- b:
			default: // a client that does not read loses messages
			}
		}
		if m.Method == spec.MethodInitialize {
			send([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"tiny","version":"0"}}}`))
			return
		}
		if l.garbage {
			send([]byte("oops, this is not JSON"))
		}
		if m.Method == spec.MethodPing {
			send([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`))
			return
		}
		send([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"Method not found"}}`))
	default:
		http.NotFound(w, r)
	}
}

func newLegacyServer(t *testing.T, garbage bool) *httptest.Server {
	srv := httptest.NewServer(&legacyServer{garbage: garbage, streams: map[string]chan []byte{}})
	t.Cleanup(srv.Close)
	return srv
}

// TestSSEBrokenServerIsFound: an HTTP+SSE server that writes an event
// whose data is not JSON is a finding, reproduced; its "Accepted"
// acknowledgements and endpoint events are not.
func TestSSEBrokenServerIsFound(t *testing.T) {
	v := spec.V20241105
	srv := newLegacyServer(t, true)
	res, err := Run(context.Background(), Config{Target: conn.LegacySSETarget(srv.URL+"/sse", nil), Version: v, MaxExecs: 10, Seed: 1,
		Mutators: []string{"protocol/valid"}, Wait: 10 * time.Second, MinimizeBudget: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 {
		t.Fatalf("no finding in %d execs", res.Execs)
	}
	for _, f := range res.Findings {
		if !strings.Contains(f.Message, "oops") {
			t.Errorf("finding %s %s: %s; want only the event that is not JSON", f.Kind, f.Check, f.Message)
		}
		if !f.Reproduced {
			t.Errorf("finding %s was not reproduced", f.Check)
		}
	}
	if f := res.Findings[0]; f.Kind != reports.FindingViolation || !res.Verdict.Failed {
		t.Errorf("finding %s %s, verdict %+v; want a violation that fails the verdict", f.Kind, f.Check, res.Verdict)
	}

	// The same server without the garbage is clean.
	res, err = Run(context.Background(), Config{Target: conn.LegacySSETarget(newLegacyServer(t, false).URL+"/sse", nil), Version: v, MaxExecs: 10, Seed: 1,
		Mutators: []string{"protocol/valid"}, Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		t.Errorf("finding on the tidy server: %s %s: %s", f.Kind, f.Check, f.Message)
	}
}

// TestSSEStreamEndIsTheEndOfTheInstance: once the SSE stream ends, the
// target can answer nothing more: Recv says ErrClosed.
func TestSSEStreamEndIsTheEndOfTheInstance(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: endpoint\ndata: /message\n\n")
	}))
	defer srv.Close()
	c, err := conn.LegacySSETarget(srv.URL+"/sse", nil).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if f, err := c.Recv(time.Now().Add(10 * time.Second)); err != conn.ErrClosed {
		t.Errorf("Recv: %+v, %v; want ErrClosed", f, err)
	}
}

// TestSSEStartNeedsAnEventStream: a URL that is no SSE endpoint fails the
// start with an explanation.
func TestSSEStartNeedsAnEventStream(t *testing.T) {
	srv := refHTTPServer(t, server.HTTPOptions{}, nil)
	_, err := Run(context.Background(), Config{Target: conn.LegacySSETarget(srv.URL+"/sse", nil), Version: spec.V20241105, MaxExecs: 1})
	if err == nil || !strings.Contains(err.Error(), "SSE endpoint") {
		t.Errorf("campaign against a server without HTTP+SSE: %v", err)
	}
}

// TestReproducerForNamesTheTransport: a finding against an HTTP+SSE target
// replays with --transport sse; one against streamable HTTP without it.
func TestReproducerForNamesTheTransport(t *testing.T) {
	f := &Finding{Dir: "findings/x", Version: spec.V20241105}
	if got := ReproducerFor(conn.LegacySSETarget("http://127.0.0.1:1/sse", nil))(f); !strings.Contains(got, "--url http://127.0.0.1:1/sse --transport sse --protocol 2024-11-05") {
		t.Errorf("HTTP+SSE reproducer = %q; want it to name --transport sse", got)
	}
	if got := ReproducerFor(conn.HTTPTarget{URL: "http://127.0.0.1:1/mcp"})(f); strings.Contains(got, "--transport") {
		t.Errorf("streamable reproducer = %q; want no --transport", got)
	}
}
