package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// rootsOnGet is a loopback proxy in front of the reference server that
// behaves as Playwright's MCP server 0.0.83 does over streamable HTTP:
// in a session whose client declared roots, the first tools/call waits
// until roots/list, sent on the session's standalone GET stream, is
// answered; a roots/list sent while no GET stream is open is lost (the
// TypeScript SDK drops it), so the call waits until the client gives
// up. The proxy serves the GET streams itself (one per session, a
// second gets 409 as in the TypeScript SDK) and passes everything else
// on. The spec lets a server send its requests on that stream.
type rootsOnGet struct {
	mu       sync.Mutex
	sessions map[string]*rootsSession
	asked    int // roots/list requests sent
	answered int // their answers received
}

type rootsSession struct {
	roots  bool          // the client declared roots
	get    chan string   // the open GET stream's events; nil when none
	done   chan struct{} // closed once roots/list is answered
	asked  bool
	closed bool
}

// rootsOnGetReference starts the reference server behind a rootsOnGet
// proxy and returns the proxy's MCP URL.
func rootsOnGetReference(t *testing.T) (string, *rootsOnGet) {
	t.Helper()
	ref, err := url.Parse(httpReference(t))
	if err != nil {
		t.Fatal(err)
	}
	p := &rootsOnGet{sessions: map[string]*rootsSession{}}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: ref.Scheme, Host: ref.Host})
	rp.FlushInterval = -1
	rp.ErrorLog = log.New(io.Discard, "", 0)
	rp.ModifyResponse = func(r *http.Response) error {
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" && r.Request.Header.Get("X-Roots-Declared") != "" {
			p.mu.Lock()
			if p.sessions[sid] == nil {
				p.sessions[sid] = &rootsSession{roots: r.Request.Header.Get("X-Roots-Declared") == "yes", done: make(chan struct{})}
			}
			p.mu.Unlock()
		}
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Host = ref.Host // the reference server validates Host
		sess := p.session(r.Header.Get("Mcp-Session-Id"))
		if r.Method == http.MethodGet && sess != nil && r.Header.Get("Last-Event-ID") == "" {
			p.serveGet(w, r, sess)
			return
		}
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Capabilities map[string]json.RawMessage `json:"capabilities"`
				} `json:"params"`
			}
			_ = json.Unmarshal(b, &m)
			switch {
			case m.Method == spec.MethodInitialize:
				declared := "no"
				if m.Params.Capabilities["roots"] != nil {
					declared = "yes"
				}
				r.Header.Set("X-Roots-Declared", declared)
			case sess != nil && m.Method == "" && string(m.ID) == `"proxy-roots"`:
				p.rootsAnswered(sess)
				w.WriteHeader(http.StatusAccepted)
				return
			case sess != nil && m.Method == spec.MethodToolsCall && !p.waitRoots(r, sess):
				return // the client gave up on the call
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
			r.ContentLength = int64(len(b))
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", p
}

func (p *rootsOnGet) session(sid string) *rootsSession {
	if sid == "" {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sessions[sid]
}

// serveGet is the session's standalone GET stream: it carries what
// waitRoots sends until the client closes it.
func (p *rootsOnGet) serveGet(w http.ResponseWriter, r *http.Request, s *rootsSession) {
	p.mu.Lock()
	if s.get != nil {
		p.mu.Unlock()
		http.Error(w, "Conflict: Only one SSE stream is allowed per session", http.StatusConflict)
		return
	}
	events := make(chan string, 1)
	s.get = events
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		s.get = nil
		p.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	for {
		select {
		case ev := <-events:
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", ev)
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
	}
}

// waitRoots holds a tools/call of a session whose client declared roots
// until roots/list is answered: it asks once, on the GET stream if one is
// open (else the request is lost). False when the client gave up first.
func (p *rootsOnGet) waitRoots(r *http.Request, s *rootsSession) bool {
	p.mu.Lock()
	if !s.roots {
		p.mu.Unlock()
		return true
	}
	if !s.asked {
		s.asked = true
		if s.get != nil {
			p.asked++
			s.get <- `{"jsonrpc":"2.0","id":"proxy-roots","method":"roots/list"}`
		}
	}
	p.mu.Unlock()
	select {
	case <-s.done:
		return true
	case <-r.Context().Done():
		return false
	}
}

func (p *rootsOnGet) rootsAnswered(s *rootsSession) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answered++
	if !s.closed {
		s.closed = true
		close(s.done)
	}
}

// TestToolsChecksAnswerRootsOnTheGetStream: against a server that asks
// for roots on the standalone GET stream and holds every tools/call until
// they come (Playwright's MCP server over streamable HTTP), the tools
// checks that call tools on the run's sessions pass in every stateful
// version: the session opens the GET stream after initialization and
// answers the request there. Before the sessions listened, each call went
// unanswered within the step and tools/unknown-tool failed (census
// triage, issue 31), a failure mcpcheck had provoked.
func TestToolsChecksAnswerRootsOnTheGetStream(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	u, proxy := rootsOnGetReference(t)
	ids := []string{"tools/unknown-tool", "tools/case-sensitive-names", "tools/input-validation"}
	res := runURL(t, u, target.Streamable, Config{Only: ids, Versions: []spec.Version{spec.V20241105, spec.V20250326, spec.V20250618, spec.V20251125}})
	unknown := 0
	for _, c := range res.Report.Checks {
		switch c.Outcome {
		case reports.Pass, reports.NA:
			if c.ID == "tools/unknown-tool" && c.Outcome == reports.Pass {
				unknown++
			}
		default:
			t.Errorf("%s [%s] %s: expected %s; actual %s (%s)", c.ID, c.Version, c.Outcome, c.Expected, c.Actual, c.Reason)
		}
	}
	if unknown != 4 {
		t.Errorf("tools/unknown-tool passed in %d of the 4 stateful versions; want all", unknown)
	}
	proxy.mu.Lock()
	asked, answered := proxy.asked, proxy.answered
	proxy.mu.Unlock()
	if asked == 0 || answered != asked {
		t.Errorf("the server sent roots/list on a GET stream %d times and got %d answers; want requests, each answered", asked, answered)
	}
}
