package fuzz

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// httpServer is the careful test server behind streamable HTTP, in
// process. Fault "500-on-garbage" answers a body that is not JSON with a
// server error; "max-sessions" refuses initialize with 503 while 8
// sessions are open; "silent-get" answers GET with an SSE stream that
// stays open and sends nothing.
func httpServer(t testing.TB, v spec.Version, fault string) *httptest.Server {
	srv, _ := httpServerSessions(t, v, fault)
	return srv
}

// httpServerSessions is httpServer and a function returning the number of
// open sessions.
func httpServerSessions(t testing.TB, v spec.Version, fault string) (*httptest.Server, func() int) {
	var mu sync.Mutex
	sessions := map[string]bool{}
	n := 0
	stateful := v.Era() == spec.Stateful && v != spec.V20241105
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		switch r.Method {
		case http.MethodPost:
		case http.MethodGet:
			if fault != "silent-get" {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			// A stream that stays open without an event.
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		case http.MethodDelete:
			mu.Lock()
			delete(sessions, sid)
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		fail := func(status int, code int64, msg string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write(errorReply(nil, code, msg))
		}
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			fail(http.StatusUnsupportedMediaType, jsonrpc.InvalidRequest, "Content-Type must be application/json")
			return
		}
		if pv := r.Header.Values("Mcp-Protocol-Version"); len(pv) > 1 || (len(pv) == 1 && pv[0] != string(v)) {
			fail(http.StatusBadRequest, jsonrpc.InvalidRequest, "unsupported MCP-Protocol-Version")
			return
		}
		msg := jsonrpc.Decode(body)
		if msg.Has(jsonrpc.ReasonNotJSON) && fault == "500-on-garbage" {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		isInit := msg.Shape == jsonrpc.KindRequest && msg.Method == spec.MethodInitialize
		if stateful && !isInit {
			mu.Lock()
			ok := sessions[sid]
			mu.Unlock()
			if sid == "" || len(r.Header.Values("Mcp-Session-Id")) > 1 {
				fail(http.StatusBadRequest, jsonrpc.InvalidRequest, "Mcp-Session-Id required")
				return
			}
			if !ok {
				fail(http.StatusNotFound, jsonrpc.InvalidRequest, "unknown session")
				return
			}
		}
		replies := handle(v, "", bytes.TrimSpace(body))
		if len(replies) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if stateful && isInit && sid == "" {
			mu.Lock()
			if fault == "max-sessions" && len(sessions) >= 8 {
				mu.Unlock()
				fail(http.StatusServiceUnavailable, jsonrpc.InternalError, "too many open sessions")
				return
			}
			n++
			sid = fmt.Sprintf("session-%d", n)
			sessions[sid] = true
			mu.Unlock()
			w.Header().Set("Mcp-Session-Id", sid)
		}
		w.Header().Set("Content-Type", "application/json")
		if m := jsonrpc.Decode(replies[0]); m.IDNull {
			w.WriteHeader(http.StatusBadRequest)
		}
		_, _ = w.Write(replies[0])
	}))
	t.Cleanup(srv.Close)
	return srv, func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(sessions)
	}
}

// TestHTTPSilentGetStreamDoesNotStall: a GET (http/forged-last-event-id)
// that the server answers with an SSE stream and then silence must not hold
// the worker until the wait bound each time; the session is replaced once
// it holds conn.MaxGetStreams such streams. The wait bound is an hour and a
// watchdog cancels the campaign after two minutes: a campaign that held
// its worker on a silent stream would be interrupted, not end by its 20
// executions.
func TestHTTPSilentGetStreamDoesNotStall(t *testing.T) {
	v := spec.V20251125
	srv := httpServer(t, v, "silent-get")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, Config{Target: conn.HTTPTarget{URL: srv.URL}, Version: v, MaxExecs: 20, Seed: 2,
		Mutators: []string{"http/forged-last-event-id"}, Wait: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		t.Errorf("finding: %s %s: %s", f.Kind, f.Check, f.Message)
	}
	if res.Interrupted != "" || res.Execs != 20 {
		t.Errorf("the campaign was stopped by the watchdog (%q) after %d execs: a silent GET stream held the worker", res.Interrupted, res.Execs)
	}
	if res.Restarts < 2 {
		t.Errorf("%d restarts after 20 GET streams; want the session replaced every %d", res.Restarts, conn.MaxGetStreams)
	}
}

// TestHTTPStraySessionsAreEnded: a session the target opens for a request
// other than the handshake (an initialize POSTed without the session id)
// is ended on Close along with the connection's own.
func TestHTTPStraySessionsAreEnded(t *testing.T) {
	v := spec.V20251125
	srv, open := httpServerSessions(t, v, "")
	s, err := openSession(context.Background(), conn.HTTPTarget{URL: srv.URL}, v, 5*time.Second, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	q := conn.HTTPRequest{Method: http.MethodPost, Body: gen.InitializeRequest(v, "stray"), Session: "none"}
	if out := s.exec(mutate.Input{HTTP: &q}); out.dead || len(out.obs) > 0 {
		t.Fatalf("the stray initialize: %+v", out)
	}
	if n := open(); n != 2 {
		t.Fatalf("%d sessions open, want ours and the stray one", n)
	}
	s.close()
	if n := open(); n != 0 {
		t.Errorf("%d sessions left open after Close", n)
	}
}

// TestHTTPSessionsAreEndedAndRenewed: the fuzzer ends every session it
// opens (DELETE), so a server with a small session table keeps serving a
// campaign that opens many; and once a session is gone (the probe gets
// 404, here after http/expired-session) the worker starts a new one
// instead of fuzzing a dead session.
func TestHTTPSessionsAreEndedAndRenewed(t *testing.T) {
	v := spec.V20251125
	srv, open := httpServerSessions(t, v, "max-sessions")
	res := runClean(t, "the session-bounded HTTP server", Config{Target: conn.HTTPTarget{URL: srv.URL}, Version: v, MaxExecs: 240, Seed: 4,
		Mutators: []string{"protocol/before-initialize", "http/expired-session", "protocol/valid"}, Wait: 10 * time.Second})
	if res.Mutators["http/expired-session"] == 0 || res.Mutators["protocol/before-initialize"] < 4 {
		t.Fatalf("the mutators that end or open sessions did not run: %v", res.Mutators)
	}
	if res.Restarts < res.Mutators["http/expired-session"] {
		t.Errorf("%d restarts after %d expired sessions", res.Restarts, res.Mutators["http/expired-session"])
	}
	t.Logf("%d execs in %v, %d restarts, mutators %v", res.Execs, res.Duration, res.Restarts, res.Mutators)
	if n := open(); n != 0 {
		t.Errorf("%d sessions left open after the campaign", n)
	}
}

func TestHTTPCampaignCarefulServerIsClean(t *testing.T) {
	for _, v := range []spec.Version{spec.V20250326, spec.V20251125, spec.V20260728} {
		t.Run(string(v), func(t *testing.T) {
			srv := httpServer(t, v, "")
			res, err := Run(context.Background(), Config{Target: conn.HTTPTarget{URL: srv.URL + "/mcp"}, Version: v, MaxExecs: 150, Seed: 9, Wait: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Findings {
				t.Errorf("finding on the careful HTTP server: %s %s (%s seed %d): %s", f.Kind, f.Check, f.Mutator, f.Seed, f.Message)
			}
			if res.Mutators["http/forged-session"]+res.Mutators["http/wrong-method"]+res.Mutators["http/missing-accept"] == 0 {
				t.Errorf("no HTTP mutator ran: %v", res.Mutators)
			}
			for name := range res.Mutators {
				if mutate.LookupFamily(name) == "framing" {
					t.Errorf("framing mutator %s ran against an HTTP target", name)
				}
			}
		})
	}
}

func TestHTTPCampaignFindsServerErrorAndDeadServer(t *testing.T) {
	v := spec.V20251125
	srv := httpServer(t, v, "500-on-garbage")
	res, err := Run(context.Background(), Config{Target: conn.HTTPTarget{URL: srv.URL}, Version: v, MaxExecs: 6, Seed: 1, Mutators: []string{"bytes/garbage-line"}, Wait: 10 * time.Second, MinimizeBudget: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 || res.Findings[0].Check != "http/status-500" || !res.Findings[0].Reproduced {
		t.Fatalf("want a reproduced http/status-500 finding, got %+v", res.Findings)
	}
	if r := res.Findings[0].Reproducer; !strings.Contains(r, "--url "+srv.URL) {
		t.Errorf("reproducer %q does not name the URL", r)
	}
	if s := res.Summary(nil, 10); s.Findings[0].Reproducer != res.Findings[0].Reproducer {
		t.Errorf("summary reproducer %q", s.Findings[0].Reproducer)
	}
	// A server that is gone: the target cannot even start a session.
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	if _, err := Run(context.Background(), Config{Target: conn.HTTPTarget{URL: url}, Version: v, MaxExecs: 1}); err == nil {
		t.Error("a campaign against a closed port started")
	}
	_ = reports.FindingCrash
}

// refHTTPServer serves the reference server's HTTP transports (o) on
// 127.0.0.1, through wrap when it is set.
func refHTTPServer(t testing.TB, o server.HTTPOptions, wrap func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	ref, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = ref.HTTPHandler(o)
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	// Cleanups run last first: the reference server ends its streams
	// before the HTTP server waits for its handlers.
	t.Cleanup(func() { _ = ref.Close() })
	return srv
}

// readLog wraps a handler and records, for every POST, the body the
// handler read and in how many reads (each returning at least one byte)
// it arrived.
type readLog struct {
	mu    sync.Mutex
	posts []postRead
}

type postRead struct {
	body     []byte
	reads    int
	declared int64 // Content-Length
	err      error // how reading the body ended, nil at its end
}

func (l *readLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			r.Body = &countingBody{ReadCloser: r.Body, log: l, declared: r.ContentLength}
		}
		next.ServeHTTP(w, r)
	})
}

// find returns the record of the last POST whose body (as read) and
// prefix start alike.
func (l *readLog) find(prefix []byte) (postRead, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.posts) - 1; i >= 0; i-- {
		p := l.posts[i]
		if len(p.body) > 0 && bytes.HasPrefix(prefix, p.body[:min(len(p.body), len(prefix))]) && bytes.HasPrefix(p.body, prefix[:min(len(p.body), len(prefix))]) {
			return p, true
		}
	}
	return postRead{}, false
}

// countingBody counts reads; it records the body when reading it ends,
// which is before the handler answers.
type countingBody struct {
	io.ReadCloser
	log      *readLog
	declared int64
	data     []byte
	reads    int
	done     bool
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	if n > 0 {
		c.reads++
		c.data = append(c.data, p[:n]...)
	}
	if err != nil && !c.done {
		c.done = true
		rec := postRead{body: c.data, reads: c.reads, declared: c.declared}
		if err != io.EOF {
			rec.err = err
		}
		c.log.mu.Lock()
		c.log.posts = append(c.log.posts, rec)
		c.log.mu.Unlock()
	}
	return n, err
}

// TestHTTPSlowBodyIsTrickled: http/slow-body's body reaches the server a
// chunk at a time (in many reads), under its true Content-Length, and the
// server's answer to it is judged within the same input.
func TestHTTPSlowBodyIsTrickled(t *testing.T) {
	v := spec.V20251125
	var log readLog
	srv := refHTTPServer(t, server.HTTPOptions{}, log.wrap)
	s, err := openSession(context.Background(), conn.HTTPTarget{URL: srv.URL + "/mcp"}, v, 10*time.Second, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	body := gen.Marshal(gen.Request(v, "mcpcheck-slow", spec.MethodToolsList, nil))
	const chunk = 8
	q := conn.HTTPRequest{Method: http.MethodPost, Body: body, BodyChunk: chunk, BodyDelay: 5 * time.Millisecond}
	// How long the trickle may take is rawOptions' (TestHTTPSlowBodyIsBounded).
	out := s.exec(mutate.Input{HTTP: &q})
	if out.dead || len(out.obs) > 0 {
		t.Fatalf("the slow body: %+v", out)
	}
	answered := len(out.answered) == 1 && out.answered[0] == spec.MethodToolsList
	// The server may answer the probe first (its POSTs run in parallel):
	// the slow request's answer then comes after.
	deadline := time.Now().Add(10 * time.Second)
	for !answered {
		f, err := s.conn.Recv(deadline)
		if err != nil {
			t.Fatalf("no answer to the slow request (%v); answered before the probe: %v", err, out.answered)
		}
		m := jsonrpc.Decode(f.Data)
		answered = m.Result != nil && m.ID.String() == `"mcpcheck-slow"`
	}
	p, ok := log.find(body)
	if !ok || !bytes.Equal(p.body, body) || p.declared != int64(len(body)) || p.err != nil {
		t.Fatalf("the server read %q (Content-Length %d, %v); want the whole body under its true length", p.body, p.declared, p.err)
	}
	// The writes may merge now and then on their way; most must not.
	if chunks := (len(body) + chunk - 1) / chunk; p.reads < chunks/2 || p.reads < 3 {
		t.Errorf("the %d-byte body arrived in %d reads; trickled %d bytes at a time it takes %d writes", len(body), p.reads, chunk, chunks)
	}
	t.Logf("%d bytes in %d reads", len(body), p.reads)
}

// stallHeader marks the requests the stalling wrapper never answers.
const stallHeader = "X-Mcpcheck-Test-Stall"

// TestHTTPLyingLength: a Content-Length shorter than the body makes the
// reference server read a truncated message and answer it (a parse error,
// HTTP 400), judged like any answer; a longer one, whether the server
// answers the early end or keeps waiting, costs the fuzzer at most its
// bound and is neither a finding nor the end of the session.
func TestHTTPLyingLength(t *testing.T) {
	v := spec.V20251125
	var log readLog
	stall := make(chan struct{})
	srv := refHTTPServer(t, server.HTTPOptions{}, func(next http.Handler) http.Handler {
		next = log.wrap(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(stallHeader) != "" {
				// A server waiting for the bytes the request promised.
				select {
				case <-stall:
				case <-r.Context().Done():
				}
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	t.Cleanup(func() { close(stall) })
	s, err := openSession(context.Background(), conn.HTTPTarget{URL: srv.URL + "/mcp"}, v, 10*time.Second, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	body := gen.Marshal(gen.Request(v, "mcpcheck-lie", spec.MethodToolsList, nil))

	t.Run("short", func(t *testing.T) {
		s.reset()
		q := conn.HTTPRequest{Method: http.MethodPost, Body: body, DeclaredLength: int64(len(body) / 2)}
		out := s.exec(mutate.Input{HTTP: &q})
		if out.dead || len(out.obs) > 0 {
			t.Fatalf("the short length: %+v", out)
		}
		if p, ok := log.find(body[:len(body)/2]); !ok || len(p.body) != len(body)/2 {
			t.Errorf("the server read %q, want the first %d bytes", p.body, len(body)/2)
		}
		var answer []byte
		for _, e := range s.events {
			if e.dir == reports.Received && e.status == http.StatusBadRequest {
				answer = e.data
			}
		}
		if m := jsonrpc.Decode(answer); m.Error == nil || m.Error.Code != jsonrpc.ParseError {
			t.Errorf("want the server's 400 parse error to the truncated body among what was read: %+v", s.transcript())
		}
	})

	for _, declared := range []int64{int64(len(body)) + 100, 1 << 40} {
		t.Run(fmt.Sprintf("long-%d", declared), func(t *testing.T) {
			s.reset()
			q := conn.HTTPRequest{Method: http.MethodPost, Body: body, DeclaredLength: declared}
			out := s.exec(mutate.Input{HTTP: &q})
			if out.dead || len(out.obs) > 0 {
				t.Fatalf("the long length: %+v", out)
			}
			if p, ok := log.find(body); !ok || p.err == nil || !bytes.Equal(p.body, body) {
				t.Errorf("the server read %q (%v); want the body, then its early end", p.body, p.err)
			}
		})
	}

	t.Run("server-waits", func(t *testing.T) {
		s.reset()
		hc := s.conn.(*conn.HTTPConn)
		// The raw exchange ends at its bound with a transport error; a
		// tap tells when it arrived.
		failed := make(chan struct{}, 1)
		defer hc.Client.(*wire.HTTP).Observe(tapFunc(func(f wire.Frame) {
			if f.Kind == wire.KindTransportError {
				select {
				case failed <- struct{}{}:
				default:
				}
			}
		}))()
		q := conn.HTTPRequest{Method: http.MethodPost, Body: body, DeclaredLength: int64(len(body)) + 100, Header: [][2]string{{stallHeader, "1"}}}
		// The request is given up at its bound (rawOptions: lieWait,
		// TestHTTPSlowBodyIsBounded); the watchdog only catches a
		// request never given up.
		if err := hc.DoHTTP(q); err != nil {
			t.Fatal(err)
		}
		select {
		case <-failed:
		case <-time.After(2 * time.Minute):
			t.Fatal("the request that got no answer was not given up")
		}
		// No frame, no error: the transport error is swallowed.
		if f, err := hc.Recv(time.Now().Add(200 * time.Millisecond)); err != conn.ErrDeadline {
			t.Errorf("Recv after the unanswered request: %+v, %v; want nothing (ErrDeadline)", f, err)
		}
		if hc.Dead || len(hc.RawStreams) != 0 {
			t.Errorf("dead %v, raw streams %v", hc.Dead, hc.RawStreams)
		}
		// The session goes on.
		if out := s.exec(mutate.Input{}); out.dead || len(out.obs) > 0 {
			t.Errorf("the next input: %+v", out)
		}
	})
}

// tapFunc is a wire.Tap that sees received frames.
type tapFunc func(wire.Frame)

func (f tapFunc) Sent(wire.Outgoing)      {}
func (f tapFunc) Received(fr wire.Frame)  { f(fr) }
func (f tapFunc) Noted(string, time.Time) {}

// TestHTTPCampaignSlowAndLyingBodies: the two mutators that need the raw
// writer run against the reference server without findings (their time
// is bounded by rawOptions, TestHTTPSlowBodyIsBounded).
func TestHTTPCampaignSlowAndLyingBodies(t *testing.T) {
	v := spec.V20251125
	var log readLog
	srv := refHTTPServer(t, server.HTTPOptions{}, log.wrap)
	// One campaign each: slow-body is drawn a sixty-fourth as often as
	// lying-length (Schedule).
	const execs = 8
	for _, m := range []string{"http/slow-body", "http/lying-length"} {
		res := runClean(t, "the reference server", Config{Target: conn.HTTPTarget{URL: srv.URL + "/mcp"}, Version: v, MaxExecs: execs, Seed: 3,
			Mutators: []string{m}, Wait: 10 * time.Second})
		if res.Mutators[m] != execs {
			t.Errorf("mutators run: %v, want %d of %s", res.Mutators, execs, m)
		}
		t.Logf("%s: %d execs in %v, %d restarts", m, res.Execs, res.Duration, res.Restarts)
	}
	trickled, cut := 0, 0
	log.mu.Lock()
	for _, p := range log.posts {
		if p.reads >= 3 {
			trickled++
		}
		if p.err != nil { // a declared length longer than the body
			cut++
		}
	}
	log.mu.Unlock()
	if trickled == 0 || cut == 0 {
		t.Errorf("%d bodies arrived trickled, %d ended early; want some of each", trickled, cut)
	}
	t.Logf("%d bodies trickled, %d cut", trickled, cut)
}

// TestReplayOfAnHTTPRequestFinding: a finding whose input is a hostile HTTP
// request (no stream chunks) is written, loaded and replayed with that
// request; before, LoadReplay refused it for having no chunks.
func TestReplayOfAnHTTPRequestFinding(t *testing.T) {
	v := spec.V20251125
	srv := httpServer(t, v, "")
	body := []byte(`{"jsonrpc":"2.0","id":"mcpcheck-replayed","method":"ping"}`)
	in := mutate.Input{Mutator: "http/wrong-content-type", Seed: 1, HTTP: &conn.HTTPRequest{Method: "POST", Header: [][2]string{{"Content-Type", "text/plain"}}, Omit: []string{"Content-Type"}, Body: body}}
	f := &Finding{Observation: oracle.Observation{Kind: reports.FindingViolation, Check: "response/id-unknown", Message: "made up for the test"},
		ID: "0123456789ab", Version: v, Mutator: in.Mutator, Input: in, Minimized: in, Wait: 5 * time.Second}
	if err := f.Write(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	rf, err := LoadReplay(f.Dir)
	if err != nil {
		t.Fatalf("LoadReplay of an HTTP finding: %v", err)
	}
	if rf.Input.HTTP == nil || string(rf.Input.HTTP.Body) != string(body) {
		t.Fatalf("the replay file lost the HTTP request: %+v", rf.Input)
	}
	res, err := Replay(context.Background(), f.Dir, conn.HTTPTarget{URL: srv.URL}, ReplayOptions{})
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	sent := false
	for _, e := range res.Transcript {
		sent = sent || (e.Direction == reports.Sent && strings.Contains(string(e.Raw), "mcpcheck-replayed"))
	}
	if !sent {
		t.Fatalf("the replay did not send the finding's HTTP request; transcript %+v", res.Transcript)
	}
	if res.Reproduced {
		t.Errorf("a careful server reproduced a made-up violation: %+v", res.Observations)
	}
}
