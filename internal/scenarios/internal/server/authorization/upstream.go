package authorization

import (
	"bytes"
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Token passthrough (a fixture): the target is configured to call an
// upstream API at a loopback address mcpcheck listens on
// (target.AuthUpstream, "mcpcheck server --auth-upstream ADDR"). mcpcheck
// plays that API for the whole run, and every call it gets is searched
// for every access token mcpcheck presented to the target: the run's own
// (its Authorization header) and each token a check minted. A server may
// call its upstream only for some requests (a tool call, a resource read),
// so the calls every check's requests provoke count, not only those of
// the check's own requests; the check judges them once the version's
// other checks have run (it is exclusive, so it runs alone, after them).

// upstream is an upstream API the checks play at one address, shared
// by the checks of every version (one at a time, use), listening while
// the run or one of them holds it.
type upstream struct {
	addr string
	use  sync.Mutex
	refs int // under upstreams' lock
	srv  *http.Server

	mu       sync.Mutex
	watching bool           // a check is watching: calls are kept
	calls    []upstreamCall // while watching, at most 1000
	arrived  chan struct{}  // a token per call, never blocking the handler
	total    int            // every call since it listened
	jwts     map[string]string
	opaque   map[string]string // tokens that are no JWT, by what they are
	leaks    []upstreamLeak    // calls carrying a presented token, at most 100
	judged   int               // leaks reported already
}

// upstreamCall is one request the upstream got.
type upstreamCall struct {
	method, uri string
	header      http.Header
	body        []byte // at most 64 KiB
}

// upstreamLeak is a call that carried a token mcpcheck presented.
type upstreamLeak struct {
	call        upstreamCall
	where, what string
}

var upstreams = struct {
	sync.Mutex
	m map[string]*upstream
}{m: map[string]*upstream{}}

// acquireUpstream listens on addr (or shares the listener already there);
// release ends it.
func acquireUpstream(addr string) (*upstream, error) {
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
	u := &upstream{addr: addr, refs: 1, arrived: make(chan struct{}, 64), jwts: map[string]string{}, opaque: map[string]string{}}
	u.srv = &http.Server{Handler: http.HandlerFunc(u.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = u.srv.Serve(ln) }()
	upstreams.m[addr] = u
	return u, nil
}

func (u *upstream) release() {
	upstreams.Lock()
	defer upstreams.Unlock()
	if u.refs--; u.refs == 0 {
		delete(upstreams.m, u.addr)
		_ = u.srv.Close()
	}
}

// upstreamHook plays the target's upstream API for the whole run (the
// target's AuthUpstream), so that the calls every check provokes are
// searched for the tokens presented; its state is the *upstream, nil
// without one. When the address cannot be listened on, the token
// passthrough check says so.
var upstreamHook = server.AddRunHook(&server.RunHook{Start: watchUpstream})

func watchUpstream(tg target.Target) (any, func()) {
	if tg.AuthUpstream == "" {
		return nil, nil
	}
	up, err := acquireUpstream(tg.AuthUpstream)
	if err != nil {
		return nil, nil
	}
	for _, h := range tg.Headers {
		if strings.EqualFold(h.Name, "Authorization") {
			tok := h.Value
			if s, rest, ok := strings.Cut(tok, " "); ok && strings.EqualFold(s, "bearer") {
				tok = strings.TrimSpace(rest)
			}
			up.present(tok, "the run's access token (the Authorization header of every request of the run)")
		}
	}
	return up, up.release
}

// present adds a token mcpcheck presents to the target; what says which.
func (u *upstream) present(tok, what string) {
	if len(tok) < 8 {
		return // too short to tell from anything else
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if jwtLike.MatchString(tok) && jwtLike.FindString(tok) == tok {
		u.jwts[tok] = what
	} else {
		u.opaque[tok] = what
	}
}

// jwtLike finds the compact JWTs in a text (the tokens mcpcheck mints).
var jwtLike = regexp.MustCompile(`[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`)

// serve records a call, notes it when it carries a presented token, and
// answers an empty JSON object.
func (u *upstream) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	c := upstreamCall{method: r.Method, uri: r.RequestURI, header: r.Header.Clone(), body: b}
	u.mu.Lock()
	u.total++
	if u.watching && len(u.calls) < 1000 {
		u.calls = append(u.calls, c)
	}
	if len(u.leaks) < 100 {
		if where, what := u.carriesPresented(c); where != "" {
			u.leaks = append(u.leaks, upstreamLeak{call: c, where: where, what: what})
		}
	}
	u.mu.Unlock()
	select {
	case u.arrived <- struct{}{}:
	default:
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte("{}"))
}

// carriesPresented says where a call holds a token mcpcheck presented,
// and which; under u.mu.
func (u *upstream) carriesPresented(c upstreamCall) (where, what string) {
	parts := []struct {
		where string
		text  []byte
	}{{"its URL", []byte(c.uri)}, {"its body", c.body}}
	for k, vs := range c.header {
		for _, v := range vs {
			parts = append(parts, struct {
				where string
				text  []byte
			}{"its " + k + " header", []byte(v)})
		}
	}
	for _, p := range parts {
		for _, m := range jwtLike.FindAll(p.text, 64) {
			if what, ok := u.jwts[string(m)]; ok {
				return p.where, what
			}
		}
		for tok, what := range u.opaque {
			if bytes.Contains(p.text, []byte(tok)) {
				return p.where, what
			}
		}
	}
	return "", ""
}

// watch starts keeping the calls.
func (u *upstream) watch() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.watching, u.calls = true, nil
}

// since returns the calls kept since watch, waiting window for them to
// come (a target may call its upstream after it answered), and stops
// keeping them.
func (u *upstream) since(window time.Duration) []upstreamCall {
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
	out := u.calls
	u.watching, u.calls = false, nil
	return out
}

// unjudged returns the leaks no check reported yet, and how many calls
// the upstream got in all.
func (u *upstream) unjudged() ([]upstreamLeak, int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := append([]upstreamLeak(nil), u.leaks[u.judged:]...)
	u.judged = len(u.leaks)
	return out, u.total
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

// followUp goes on in the session the first request opened (sid, ""
// for none) with the token: the era's notification that the session is
// ready, then ping and tools/list, so that a target calling its upstream
// only for later requests is seen; it ends the session. It returns how
// many messages it sent.
func followUp(t *server.T, authorization, sid string) int {
	v := t.Version()
	hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Authorization": {authorization}, "Mcp-Protocol-Version": {string(v)}}
	if sid != "" {
		hdr.Set("Mcp-Session-Id", sid)
	}
	var params any
	type msg struct {
		method string
		body   []byte
	}
	var msgs []msg
	if v.Era() == spec.Stateless {
		params = map[string]any{"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    string(v),
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "mcpcheck-auth", "version": "1"},
		}}
	} else {
		n, err := jsonrpc.NewNotification(spec.MethodInitialized, nil)
		t.Must(err)
		msgs = append(msgs, msg{spec.MethodInitialized, n})
	}
	for i, m := range []string{spec.MethodPing, spec.MethodToolsList} {
		msgs = append(msgs, msg{m, t.EncodeRequest(jsonrpc.StringID(fmt.Sprintf("mcpcheck-auth-follow-%d", i)), m, params)})
	}
	sent := 0
	for _, m := range msgs {
		h := hdr.Clone()
		if v.Era() == spec.Stateless {
			h.Set("Mcp-Method", m.method)
		}
		if _, err := do(t, http.MethodPost, t.Target().URL, m.body, h); err != nil {
			break
		}
		sent++
	}
	if sid != "" {
		endSession(t, authorization, sid)
	}
	return sent
}

var _ = server.Register(
	server.Def{
		ID: "authorization/token-passthrough", Area: "authorization", Transports: []wire.Transport{"streamable"}, Since: spec.V20250618,
		// Exclusive: it reads every call the shared upstream gets, and
		// runs alone once the version's other checks have run, whose
		// requests' upstream calls it judges too.
		Exclusive:    true,
		Title:        "an access token mcpcheck presented is never passed on to an upstream API the server calls, on any request of the run",
		Requirements: []string{"authorization.token-passthrough.forbidden"},
		Proofs: []server.Proof{{Fault: "auth-token-passthrough", Version: spec.V20251125, Transport: "streamable", Want: reports.Fail},
			{Fault: "auth-token-passthrough-tools", Also: []string{"tools/unknown-tool"}, Version: spec.V20251125, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			m, ok := minterFor(t)
			if !ok {
				return
			}
			addr := t.Target().AuthUpstream
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
			up.present(tok, "the valid token this check presented")
			up.watch()
			r, err := sendKeep(t, "Bearer "+tok, "")
			if err != nil {
				up.since(0)
				t.Error(err)
				return
			}
			if r.status == http.StatusUnauthorized || r.status == http.StatusForbidden {
				up.since(0)
				t.Untestable(fmt.Sprintf("the target refused a valid token of %s for %s with scope %q (HTTP %d): it does not trust that issuer for this resource", m.issuer, m.resource, m.scope, r.status))
				return
			}
			sent := 1 + followUp(t, "Bearer "+tok, r.header.Get("Mcp-Session-Id"))
			calls := up.since(t.Quiet())
			// The calls every other check's requests provoked so far, with
			// the run's token or one a check minted (this check's own
			// among them: each leak is reported once in the run).
			leaks, total := up.unjudged()
			for _, c := range calls {
				if where := c.carries(tok); where != "" {
					t.Violation("authorization.token-passthrough.forbidden", "the upstream API called with a credential the server obtained for it, never the client's token",
						fmt.Sprintf("the upstream at %s got %s %s with the client's access token (the valid token mcpcheck presented to the MCP server) in %s", addr, c.method, c.uri, where))
					return
				}
			}
			for _, l := range leaks {
				t.Violation("authorization.token-passthrough.forbidden", "the upstream API called with a credential the server obtained for it, never a token a client presented",
					fmt.Sprintf("the upstream at %s got %s %s with %s in %s, during the run's requests", addr, l.call.method, l.call.uri, l.what, l.where))
				return
			}
			if len(calls) == 0 && total == 0 {
				t.Untestable(fmt.Sprintf("the target called no upstream API at http://%s/ during the run (here %d messages with a valid token, %s to the first, then %s of watching): configure it to call that address", addr, sent, served(r), t.Quiet()))
				return
			}
			first := "none while this check's requests were served"
			if len(calls) > 0 {
				first = fmt.Sprintf("%d while this check's %d messages were served, the first with Authorization %s", len(calls), sent, upstreamAuthScheme(calls[0].header.Get("Authorization")))
			}
			t.Saw("a valid token was accepted (%s); the upstream at %s got %d call(s) during the run (%s), none with a token mcpcheck presented",
				served(r), addr, total, first)
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
