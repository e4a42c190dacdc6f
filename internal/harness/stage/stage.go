package stage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Stage serves the cases of a run on loopback. Create it with New and
// release it with Close.
//
// Concurrency: all methods are safe for concurrent use; cases are
// independent of one another.
type Stage struct {
	httpLn  net.Listener
	relayLn net.Listener
	srv     *http.Server
	start   time.Time

	mu         sync.Mutex
	cases      map[string]*Case
	closed     bool
	respHeader http.Header
}

// SetResponseHeader adds h to every HTTP response of the cases created
// after the call (mcpcheck client --header: what a client needs from its
// server's gateway). The engine's own headers win over h.
func (s *Stage) SetResponseHeader(h http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respHeader = h.Clone()
}

// New starts a stage: an HTTP server and a relay listener, both on
// 127.0.0.1 with ports the system picks.
func New() (*Stage, error) {
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("stage: cannot listen on 127.0.0.1 for HTTP clients: %w", err)
	}
	rl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		hl.Close()
		return nil, fmt.Errorf("stage: cannot listen on 127.0.0.1 for stdio relays: %w", err)
	}
	s := &Stage{httpLn: hl, relayLn: rl, cases: map[string]*Case{}, start: time.Now()}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.route), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 1 << 20}
	go s.srv.Serve(hl)
	go s.acceptRelays()
	return s, nil
}

// HTTPAddr is the host:port of the HTTP server.
func (s *Stage) HTTPAddr() string { return s.httpLn.Addr().String() }

// RelayAddr is the host:port relays connect to.
func (s *Stage) RelayAddr() string { return s.relayLn.Addr().String() }

// Close stops the listeners and every case.
func (s *Stage) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	cases := make([]*Case, 0, len(s.cases))
	for _, c := range s.cases {
		cases = append(cases, c)
	}
	s.mu.Unlock()
	for _, c := range cases {
		c.Close()
	}
	s.relayLn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	return err
}

func (s *Stage) lookup(token string) *Case {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cases[token]
}

func (s *Stage) register(c *Case) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("stage: closed")
	}
	s.cases[c.token] = c
	return nil
}

func (s *Stage) unregister(c *Case) {
	s.mu.Lock()
	delete(s.cases, c.token)
	s.mu.Unlock()
}

// route sends /c/<token>/... to the case with that token.
func (s *Stage) route(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/c/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	token, _, _ := strings.Cut(rest, "/")
	c := s.lookup(token)
	if c == nil || c.handler == nil {
		http.Error(w, "no such case on this mcpcheck stage (it has ended)", http.StatusNotFound)
		return
	}
	c.handler.ServeHTTP(w, r)
}

func newToken() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
