package scenarios

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Token passthrough (a fixture): the target is configured to call an
// upstream API at a loopback address mcpcheck listens on
// (target.AuthUpstream, "mcpcheck server --auth-upstream ADDR"). The check
// presents a fresh valid token and sees whether the target hands that
// token to the upstream: it must use a credential of its own.

// authUpstream is an upstream API the checks play at one address, shared
// by the checks of every version (one at a time, use), listening while
// one of them holds it.
type authUpstream struct {
	addr string
	use  sync.Mutex
	refs int // under upstreams' lock
	srv  *http.Server

	mu      sync.Mutex
	calls   []upstreamCall
	arrived chan struct{} // a token per call, never blocking the handler
}

// upstreamCall is one request the upstream got.
type upstreamCall struct {
	method, uri string
	header      http.Header
	body        []byte // at most 64 KiB
}

var upstreams = struct {
	sync.Mutex
	m map[string]*authUpstream
}{m: map[string]*authUpstream{}}

// acquireUpstream listens on addr (or shares the listener already there);
// release ends it.
func acquireUpstream(addr string) (*authUpstream, error) {
	upstreams.Lock()
	defer upstreams.Unlock()
	if u := upstreams.m[addr]; u != nil {
		u.refs++
		return u, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("playing the upstream API at %s: %w", addr, err)
	}
	u := &authUpstream{addr: addr, refs: 1, arrived: make(chan struct{}, 64)}
	u.srv = &http.Server{Handler: http.HandlerFunc(u.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = u.srv.Serve(ln) }()
	upstreams.m[addr] = u
	return u, nil
}

func (u *authUpstream) release() {
	upstreams.Lock()
	defer upstreams.Unlock()
	if u.refs--; u.refs == 0 {
		delete(upstreams.m, u.addr)
		_ = u.srv.Close()
	}
}

// serve records a call and answers an empty JSON object.
func (u *authUpstream) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	u.mu.Lock()
	if len(u.calls) < 1000 {
		u.calls = append(u.calls, upstreamCall{method: r.Method, uri: r.RequestURI, header: r.Header.Clone(), body: b})
	}
	u.mu.Unlock()
	select {
	case u.arrived <- struct{}{}:
	default:
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte("{}"))
}

// mark is how many calls the upstream has had.
func (u *authUpstream) mark() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.calls)
}

// since returns the calls after mark, waiting window for them to come (a
// target may call its upstream after it answered).
func (u *authUpstream) since(mark int, window time.Duration) []upstreamCall {
	deadline := time.NewTimer(window)
	defer deadline.Stop()
wait:
	for {
		select {
		case <-u.arrived:
		case <-deadline.C:
			break wait
		}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]upstreamCall(nil), u.calls[mark:]...)
}

// carries says where a call holds tok, if anywhere.
func (c upstreamCall) carries(tok string) string {
	for k, vs := range c.header {
		for _, v := range vs {
			if strings.Contains(v, tok) {
				return "its " + k + " header"
			}
		}
	}
	switch {
	case strings.Contains(c.uri, tok):
		return "its URL"
	case bytes.Contains(c.body, []byte(tok)):
		return "its body"
	}
	return ""
}

var _ = Register(
	Def{
		ID: "authorization/token-passthrough", Area: "authorization", Transports: []string{"streamable"}, Since: spec.V20250618,
		// Exclusive: it reads every call the shared upstream gets.
		Exclusive:    true,
		Title:        "the client's access token is never passed on to an upstream API the server calls",
		Requirements: []string{"authorization.token-passthrough.forbidden"},
		Proofs:       []Proof{{Fault: "auth-token-passthrough", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *T) {
			m, ok := t.authMinter()
			if !ok {
				return
			}
			addr := t.vr.r.target.AuthUpstream
			if addr == "" {
				t.Untestable("no upstream API to watch: configure the target to call http://127.0.0.1:PORT/ as an upstream API while it serves requests, and give mcpcheck --auth-upstream 127.0.0.1:PORT to play it")
				return
			}
			up, err := acquireUpstream(addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer up.release()
			up.use.Lock()
			defer up.use.Unlock()
			tok, ok := m.mint(t, "valid", m.scope)
			if !ok {
				return
			}
			mark := up.mark()
			r, err := t.authSend("Bearer "+tok, "")
			if err != nil {
				t.Error(err)
				return
			}
			if r.status == http.StatusUnauthorized || r.status == http.StatusForbidden {
				t.Untestable(fmt.Sprintf("the target refused a valid token of %s for %s with scope %q (HTTP %d): it does not trust that issuer for this resource", m.issuer, m.resource, m.scope, r.status))
				return
			}
			calls := up.since(mark, t.Quiet())
			if len(calls) == 0 {
				t.Untestable(fmt.Sprintf("the target called no upstream API at http://%s/ while serving a request with a valid token (%s, then %s of watching): configure it to call that address", addr, authServed(r), t.Quiet()))
				return
			}
			for _, c := range calls {
				if where := c.carries(tok); where != "" {
					t.Violation("authorization.token-passthrough.forbidden", "the upstream API called with a credential the server obtained for it, never the client's token",
						fmt.Sprintf("the upstream at %s got %s %s with the client's access token (the valid token mcpcheck presented to the MCP server) in %s", addr, c.method, c.uri, where))
					return
				}
			}
			t.Saw("a valid token was accepted (%s); the upstream at %s got %d call(s) while the request was served, none with the client's token (the first with Authorization %s)",
				authServed(r), addr, len(calls), upstreamAuthScheme(calls[0].header.Get("Authorization")))
			t.Pass()
		},
	},
)

// upstreamAuthScheme names an Authorization value by its scheme only.
func upstreamAuthScheme(v string) string {
	if v == "" {
		return "none"
	}
	s, _, _ := strings.Cut(v, " ")
	return fmt.Sprintf("%q and a credential", s)
}
