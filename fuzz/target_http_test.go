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

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
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
// the worker until the settle bound (10s) each time; the session is
// replaced once it holds maxGetStreams such streams.
func TestHTTPSilentGetStreamDoesNotStall(t *testing.T) {
	v := spec.V20251125
	srv := httpServer(t, v, "silent-get")
	res, err := Run(context.Background(), Config{Target: HTTPTarget{URL: srv.URL}, Version: v, MaxExecs: 20, Seed: 2,
		Mutators: []string{"http/forged-last-event-id"}, Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		t.Errorf("finding: %s %s: %s", f.Kind, f.Check, f.Message)
	}
	if res.Duration > 5*time.Second {
		t.Errorf("20 GETs took %v", res.Duration)
	}
	if res.Restarts < 2 {
		t.Errorf("%d restarts after 20 GET streams; want the session replaced every %d", res.Restarts, maxGetStreams)
	}
}

// TestHTTPStraySessionsAreEnded: a session the target opens for a request
// other than the handshake (an initialize POSTed without the session id)
// is ended on Close along with the connection's own.
func TestHTTPStraySessionsAreEnded(t *testing.T) {
	v := spec.V20251125
	srv, open := httpServerSessions(t, v, "")
	s, err := openSession(context.Background(), HTTPTarget{URL: srv.URL}, v, 5*time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	q := HTTPRequest{Method: http.MethodPost, Body: initializeRequest(v, "stray"), Session: "none"}
	if out := s.exec(Input{HTTP: &q}); out.dead || len(out.obs) > 0 {
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
	res, err := Run(context.Background(), Config{Target: HTTPTarget{URL: srv.URL}, Version: v, MaxExecs: 80, Seed: 4,
		Mutators: []string{"protocol/before-initialize", "http/expired-session", "protocol/valid"}, Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		t.Errorf("finding: %s %s (%s seed %d): %s", f.Kind, f.Check, f.Mutator, f.Seed, f.Message)
	}
	if len(res.Errors) > 0 {
		t.Errorf("campaign errors: %v", res.Errors)
	}
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
			res, err := Run(context.Background(), Config{Target: HTTPTarget{URL: srv.URL + "/mcp"}, Version: v, MaxExecs: 150, Seed: 9, Wait: 10 * time.Second})
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
				if LookupFamily(name) == "framing" {
					t.Errorf("framing mutator %s ran against an HTTP target", name)
				}
			}
		})
	}
}

func TestHTTPCampaignFindsServerErrorAndDeadServer(t *testing.T) {
	v := spec.V20251125
	srv := httpServer(t, v, "500-on-garbage")
	res, err := Run(context.Background(), Config{Target: HTTPTarget{URL: srv.URL}, Version: v, MaxExecs: 6, Seed: 1, Mutators: []string{"bytes/garbage-line"}, Wait: 10 * time.Second, MinimizeBudget: 10})
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
	if _, err := Run(context.Background(), Config{Target: HTTPTarget{URL: url}, Version: v, MaxExecs: 1}); err == nil {
		t.Error("a campaign against a closed port started")
	}
	_ = reports.FindingCrash
}
