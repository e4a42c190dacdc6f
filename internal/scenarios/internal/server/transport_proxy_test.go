package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

// A loopback proxy in front of the reference server breaks rules the
// reference server has no fault switch for, to prove the checks of those
// rules fire: it can strip headers, answer notifications 200, refuse GET
// with 404, and play an OAuth-protected resource server (401 challenges,
// protected resource metadata) that lets a fixed token through. The modes
// of proofs_transport_test.go: auth-no-as-metadata (a protected server
// without RFC 8414 metadata or default endpoints), ping-text-plain (ping
// answered with text/plain), require-version-header (a session request
// without MCP-Protocol-Version refused 400), sse-hold-open (a ping's SSE
// stream kept open after the response), sse-cut (a ping's SSE stream ended
// before the response, retry fields stripped), modern-only-get-served and
// modern-only-lenient (initialize refused as by a 2026-07-28-only server;
// GET and DELETE still reach the session endpoint, or a missing
// MCP-Protocol-Version is filled in from _meta), case-sensitive-headers
// (MCP header names sent in lower case are not found).

const proxyGoodToken = "Bearer mcpcheck-good-token"

// proxyReference starts the reference server and a proxy to it that
// misbehaves as mode says ("" = faithful); it returns the proxy's MCP URL.
func proxyReference(t *testing.T, mode string) string {
	t.Helper()
	ref, err := url.Parse(httpReference(t))
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: ref.Scheme, Host: ref.Host})
	// hold ends the streams sse-hold-open keeps open, when the test ends
	// (its cleanup runs before srv.Close, which waits for them). Not the
	// request's context: a stream must not end before the test is done
	// with it, whatever the proxy's own request handling does under load.
	hold := make(chan struct{})
	rp.FlushInterval = -1
	rp.ErrorLog = log.New(io.Discard, "", 0) // a client closing a stream is no news
	rp.ModifyResponse = func(r *http.Response) error {
		if mode == "strip-accel-buffering" {
			r.Header.Del("X-Accel-Buffering")
		}
		if mode == "status-200" && r.StatusCode >= 400 && r.StatusCode < 500 {
			r.StatusCode, r.Status = http.StatusOK, "200 OK"
		}
		if mode == "status-404" && r.StatusCode == http.StatusBadRequest {
			r.StatusCode, r.Status = http.StatusNotFound, "404 Not Found"
		}
		method := r.Request.Header.Get("X-Mcpcheck-Method")
		if mode == "ping-text-plain" && method == spec.MethodPing && r.Request.Method == http.MethodPost {
			r.Header.Set("Content-Type", "text/plain")
		}
		ct := r.Header.Get("Content-Type")
		switch {
		case strings.HasPrefix(ct, "application/json") && proxyJSONRewrite[mode] != nil:
			b, err := io.ReadAll(r.Body)
			r.Body.Close()
			if err != nil {
				return err
			}
			b = proxyJSONRewrite[mode](b)
			r.Body = io.NopCloser(bytes.NewReader(b))
			r.ContentLength = int64(len(b))
			r.Header.Set("Content-Length", strconv.Itoa(len(b)))
		case strings.HasPrefix(ct, "text/event-stream") && r.Request.Method == http.MethodPost:
			switch {
			case mode == "strip-priming" && method != spec.MethodSubscriptionsListen,
				mode == "listen-no-ack" && method == spec.MethodSubscriptionsListen:
				r.Body = proxyEvents(r.Body, func(n int, ev []string) []string {
					if n == 0 {
						return nil
					}
					return ev
				})
			case mode == "dup-event-ids":
				// Only events that carry a message get the shared id: a
				// priming event keeps its own, so a stream the server cuts
				// before its response (as it may under load) can still be
				// resumed and the run is not lost to the proxy.
				r.Body = proxyEvents(r.Body, func(n int, ev []string) []string {
					data := false
					for _, l := range ev {
						if strings.HasPrefix(l, "data:") && strings.TrimSpace(strings.TrimPrefix(l, "data:")) != "" {
							data = true
						}
					}
					for i, l := range ev {
						if data && strings.HasPrefix(l, "id:") {
							ev[i] = "id: mcpcheck-same-id"
						}
					}
					return ev
				})
			case mode == "sse-hold-open" && method == spec.MethodPing:
				r.Body = &proxyHoldOpen{ReadCloser: r.Body, done: hold}
			case mode == "sse-cut" && method == spec.MethodPing:
				r.Body = proxyEvents(r.Body, func(n int, ev []string) []string {
					var out []string
					for _, l := range ev {
						switch {
						case strings.HasPrefix(l, "retry:"):
						case strings.HasPrefix(l, "data:") && strings.TrimSpace(strings.TrimPrefix(l, "data:")) != "":
							return nil // the response: the stream ends without it
						default:
							out = append(out, l)
						}
					}
					return out
				})
			}
		}
		return nil
	}
	var srv *httptest.Server
	auth := strings.HasPrefix(mode, "auth")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := srv.URL
		if rc, ok := r.Context().Value(proxyRawConnKey{}).(*proxyRawConn); ok {
			// A server that matches header names case-sensitively finds no
			// Mcp-Method when it is sent as mcp-method.
			if raw := rc.take(); r.Method == http.MethodPost && bytes.Contains(raw, []byte("\r\nmcp-method:")) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32020,"message":"Header mismatch: the Mcp-Method header is required"}}`))
				return
			}
		}
		if auth && r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			doc := map[string]any{"resource": base + "/mcp", "authorization_servers": []string{"https://auth.mcpcheck.invalid"}}
			if mode == "auth-prm-no-servers" {
				doc["authorization_servers"] = []string{}
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(doc)
			return
		}
		if auth && r.URL.Path == "/mcp" {
			switch a := r.Header.Get("Authorization"); {
			case a == proxyGoodToken:
			case a != "" && mode == "auth-forged-accepted":
				r.Header.Set("Authorization", proxyGoodToken)
			case a != "":
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp", scope="mcp"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			default:
				if mode != "auth-no-challenge" {
					w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp", scope="mcp"`)
				}
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
		}
		if r.Host != "" {
			r.Host = ref.Host // the reference server validates Host
		}
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Name string                     `json:"name"`
					URI  string                     `json:"uri"`
					Meta map[string]json.RawMessage `json:"_meta"`
				} `json:"params"`
			}
			if json.Unmarshal(b, &m) == nil {
				r.Header.Set("X-Mcpcheck-Method", m.Method)
				if strings.HasPrefix(mode, "modern-only") && m.Method == spec.MethodInitialize {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusNotFound)
					msg := "Method not found: this server speaks 2026-07-28 only"
					if mode == "modern-only-silent" {
						msg = "Method not found"
					}
					_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"` + msg + `"}}`))
					return
				}
				if mode == "modern-only-lenient" && r.Header.Get("Mcp-Protocol-Version") == "" {
					var v string
					if json.Unmarshal(m.Params.Meta["io.modelcontextprotocol/protocolVersion"], &v) == nil && v != "" {
						r.Header.Set("Mcp-Protocol-Version", v)
					}
				}
				if mode == "require-version-header" && r.Header.Get("Mcp-Session-Id") != "" && r.Header.Get("Mcp-Protocol-Version") == "" {
					id := string(m.ID)
					if id == "" {
						id = "null"
					}
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32000,"message":"Bad Request: the MCP-Protocol-Version header is required"}}`))
					return
				}
				if mode == "no-listen" && m.Method == spec.MethodSubscriptionsListen {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusNotFound)
					_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"Method not found"}}`))
					return
				}
				if mode == "fix-headers" && r.Header.Get("Mcp-Method") != "" {
					// a server that ignores the headers: make them agree
					r.Header.Set("Mcp-Method", m.Method)
					if m.Params.Name != "" || m.Params.URI != "" {
						r.Header.Set("Mcp-Name", m.Params.Name+m.Params.URI)
					}
					var v string
					if json.Unmarshal(m.Params.Meta["io.modelcontextprotocol/protocolVersion"], &v) == nil && v != "" {
						r.Header.Set("Mcp-Protocol-Version", v)
					}
				}
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
			r.ContentLength = int64(len(b))
		}
		if mode == "get-404" && r.Method == http.MethodGet && r.URL.Path == "/mcp" {
			http.NotFound(w, r)
			return
		}
		if mode == "notification-200" && r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			var m map[string]json.RawMessage
			if json.Unmarshal(b, &m) == nil && m["method"] != nil && m["id"] == nil {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{}`))
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		rp.ServeHTTP(w, r)
	})
	srv = httptest.NewUnstartedServer(h)
	if mode == "case-sensitive-headers" {
		srv.Listener = proxyRawListener{srv.Listener}
		srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, proxyRawConnKey{}, c)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(hold) }) // runs first: srv.Close waits for held streams
	return srv.URL + "/mcp"
}

// proxyJSONRewrite changes JSON bodies, per proxy mode.
var proxyJSONRewrite = map[string]func([]byte) []byte{
	"ttl-negative": func(b []byte) []byte {
		return regexp.MustCompile(`"ttlMs":\s*\d+`).ReplaceAll(b, []byte(`"ttlMs":-1`))
	},
	"bad-x-mcp-header": func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(`"x-mcp-header":"Region"`), []byte(`"x-mcp-header":"Bad Region"`))
	},
	"secret-header": func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(`"region":{`), []byte(`"api_key":{`))
	},
	"no-server-info": func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(`"io.modelcontextprotocol/serverInfo"`), []byte(`"mcpcheck/removed"`))
	},
}

// proxyEvents rewrites an SSE body event by event: edit gets the event's
// number and lines and returns the lines to send (nil drops the event).
func proxyEvents(body io.ReadCloser, edit func(n int, ev []string) []string) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		defer body.Close()
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		var ev []string
		n := 0
		for sc.Scan() {
			l := sc.Text()
			if l != "" {
				ev = append(ev, l)
				continue
			}
			if out := edit(n, ev); out != nil {
				if _, err := io.WriteString(pw, strings.Join(out, "\n")+"\n\n"); err != nil {
					return
				}
			}
			n++
			ev = nil
		}
		pw.CloseWithError(sc.Err())
	}()
	return pr
}

// proxyHoldOpen passes an SSE body on and then, instead of ending it,
// holds the stream open until done (the test that started the proxy ends).
type proxyHoldOpen struct {
	io.ReadCloser
	done <-chan struct{}
	eof  bool
}

func (h *proxyHoldOpen) Read(p []byte) (int, error) {
	if !h.eof {
		n, err := h.ReadCloser.Read(p)
		if err != io.EOF {
			return n, err
		}
		h.eof = true
		if n > 0 {
			return n, nil
		}
	}
	<-h.done
	return 0, io.EOF
}

// proxyRawListener keeps the bytes each connection reads, so the proxy can
// see header names as the client wrote them (net/http canonicalises them).
type proxyRawListener struct{ net.Listener }

func (l proxyRawListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &proxyRawConn{Conn: c}, nil
}

type proxyRawConnKey struct{}

type proxyRawConn struct {
	net.Conn
	mu  sync.Mutex
	buf []byte
}

func (c *proxyRawConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.buf = append(c.buf, p[:n]...)
	if len(c.buf) > 1<<20 {
		c.buf = c.buf[len(c.buf)-1<<20:]
	}
	c.mu.Unlock()
	return n, err
}

// take returns the bytes read since the last take: the head of the request
// being served (and the tail of the one before).
func (c *proxyRawConn) take() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.buf
	c.buf = nil
	return b
}
