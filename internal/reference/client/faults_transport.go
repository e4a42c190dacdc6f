package client

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/reference/client/transport"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Fault switches of the transports: streamable HTTP, the 2024-11-05
// HTTP+SSE transport and stdio. Most rewrite the HTTP requests or the
// messages the client sends. The few that change how the client reads
// what the server sends (SSE fields, JSON answers) or how it treats the
// server process (stderr, shutdown) are named hooks, applied where the
// transports are built: ApplyHTTPFaults and ApplyStdioFaults.

// The transport hooks.
const (
	FaultSSERetryIgnored   = "sse-retry-ignored"
	FaultSSEIDsIgnored     = "sse-event-ids-ignored"
	FaultJSONAnswersUnread = "json-answers-unread"
	FaultStderrIsFatal     = "stderr-is-fatal"
	FaultStdioSigtermFirst = "stdio-sigterm-first"
	FaultStdioNoWait       = "stdio-sigterm-without-wait"
	FaultStdioKillNoWait   = "stdio-sigkill-without-wait"
)

func init() {
	registerFaults([]string{FaultSSERetryIgnored, FaultSSEIDsIgnored, FaultJSONAnswersUnread, FaultStderrIsFatal, FaultStdioSigtermFirst, FaultStdioNoWait, FaultStdioKillNoWait},
		Fault{Name: "post-accept-json-only", Requirement: "transport-http.post.accept-both-types", Description: "POSTs carry Accept: application/json, without text/event-stream",
			RewriteHTTP: func(r *http.Request) {
				if r.Method == http.MethodPost {
					r.Header.Set("Accept", "application/json")
				}
			}},
		Fault{Name: "get-accept-json-only", Requirement: "transport-http.get.accept-event-stream", Description: "GETs to the MCP endpoint carry Accept: application/json, without text/event-stream",
			RewriteHTTP: func(r *http.Request) {
				if r.Method == http.MethodGet {
					r.Header.Set("Accept", "application/json")
				}
			}},
		Fault{Name: "tools-list-via-put", Requirement: "transport-http.post.one-message-per-post", Description: "tools/list requests go out with HTTP PUT instead of POST",
			RewriteHTTP: func(r *http.Request) {
				if r.Method == http.MethodPost && peekMessage(r).Method == spec.MethodToolsList {
					r.Method = http.MethodPut
				}
			}},
		Fault{Name: "batch-post", Requirement: "transport-http.post.body-single-message", Description: "notifications/initialized is POSTed inside a one-element batch array",
			Rewrite: onMethod(spec.MethodInitialized, func(b []byte) []byte {
				return append(append([]byte{'['}, b...), ']')
			})},
		Fault{Name: "mixed-batch-post", Requirement: "transport-http.post.body-single-or-batch", Description: "notifications/initialized is POSTed in a batch together with a stray response",
			Rewrite: onMethod(spec.MethodInitialized, func(b []byte) []byte {
				return append(append([]byte{'['}, b...), `,{"jsonrpc":"2.0","id":"mcpcheck-stray","result":{}}]`...)
			})},
		Fault{Name: "get-without-session-id", Requirement: "transport-http.session.client-echoes-id", Description: "GET requests leave out the Mcp-Session-Id header",
			RewriteHTTP: func(r *http.Request) {
				if r.Method == http.MethodGet {
					r.Header.Del(transport.HeaderSessionID)
				}
			}},
		Fault{Name: "reinitialize-with-old-session", Requirement: "transport-http.session.client-reinitializes-on-404", Description: "after the server forgot the session, the new initialize still carries the old Mcp-Session-Id",
			RewriteHTTP: func() func(*http.Request) {
				var mu sync.Mutex
				last := ""
				return func(r *http.Request) {
					mu.Lock()
					defer mu.Unlock()
					if sid := r.Header.Get(transport.HeaderSessionID); sid != "" {
						last = sid
						return
					}
					if last != "" && r.Method == http.MethodPost && peekMessage(r).Method == spec.MethodInitialize {
						r.Header.Set(transport.HeaderSessionID, last)
					}
				}
			}()},
		Fault{Name: "no-session-delete", Requirement: "transport-http.session.client-deletes-when-done", Description: "the DELETE that ends the session goes out as OPTIONS, so the session is never ended",
			RewriteHTTP: func(r *http.Request) {
				if r.Method == http.MethodDelete {
					r.Method = http.MethodOptions
				}
			}},
		Fault{Name: "get-without-protocol-version", Requirement: "transport-http.protocol-version-header.client-sends", Description: "GET requests leave out the MCP-Protocol-Version header",
			RewriteHTTP: func(r *http.Request) {
				if r.Method == http.MethodGet {
					r.Header.Del(transport.HeaderProtocolVersion)
				}
			}},
		Fault{Name: "protocol-version-not-negotiated", Requirement: "transport-http.protocol-version-header.negotiated-value", Description: "GET requests name another protocol version than the negotiated one in MCP-Protocol-Version",
			RewriteHTTP: func(r *http.Request) {
				v := r.Header.Get(transport.HeaderProtocolVersion)
				if r.Method != http.MethodGet || v == "" {
					return
				}
				other := spec.V20250326
				if spec.Version(v) == other {
					other = spec.V20250618
				}
				r.Header.Set(transport.HeaderProtocolVersion, string(other))
			}},
		Fault{Name: "stale-last-event-id", Requirement: "transport-http.resume.client-get-last-event-id", Description: "a GET that resumes a stream sends a Last-Event-ID the server never sent",
			RewriteHTTP: func(r *http.Request) {
				if v := r.Header.Get(transport.HeaderLastEventID); r.Method == http.MethodGet && v != "" {
					r.Header.Set(transport.HeaderLastEventID, "mcpcheck-stale-"+v)
				}
			}},
		Fault{Name: FaultSSERetryIgnored, Requirement: "transport-http.sse.client-honours-retry", Description: "the client reads every SSE retry field as 1 ms, so it reconnects after its own 50 ms floor"},
		Fault{Name: FaultSSEIDsIgnored, Requirement: "transport-http.sse.client-polls-after-close", Description: "the client ignores SSE event ids, so it never resumes a stream the server closed early"},
		Fault{Name: FaultJSONAnswersUnread, Requirement: "transport-http.post.client-handles-json-and-sse", Description: "the client cannot read application/json answers to its requests (it fails them as an unknown content type)"},
		Fault{Name: "sse-post-without-session", Requirement: "transport-sse.post.client-uses-endpoint-uri", Description: "HTTP+SSE POSTs drop the query of the endpoint URI (its sessionId)",
			RewriteHTTP: func(r *http.Request) {
				if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/message") && r.URL.RawQuery != "" {
					r.URL.RawQuery = ""
				}
			}},
		Fault{Name: "pretty-printed-message", Requirement: "transport-stdio.framing.no-embedded-newlines", Description: "notifications/initialized is written indented, over several lines",
			Rewrite: onMethod(spec.MethodInitialized, func(b []byte) []byte {
				var out bytes.Buffer
				if json.Indent(&out, b, "", "  ") != nil {
					return b
				}
				return out.Bytes()
			})},
		Fault{Name: "stdin-banner", Requirement: "transport-stdio.stdin.only-mcp-messages", Description: "a line of plain text goes to the server's stdin before the first message",
			Rewrite: func(w Written) [][]byte {
				if w.N != 1 {
					return [][]byte{w.Msg}
				}
				return [][]byte{[]byte("mcpcheck reference client starting"), w.Msg}
			}},
		Fault{Name: FaultStderrIsFatal, Requirement: "transport-stdio.stderr.not-an-error-signal", Description: "the client gives up (exits with status 1) as soon as the server writes to stderr"},
		Fault{Name: FaultStdioSigtermFirst, Requirement: "transport-stdio.shutdown.client-closes-stdin-first", Description: "at shutdown the client sends SIGTERM to the server before it closes the server's stdin"},
		Fault{Name: FaultStdioNoWait, Requirement: "transport-stdio.shutdown.client-closes-stdin-first", Description: "at shutdown the client sends SIGTERM to the server as soon as it has closed the server's stdin, without waiting for it to exit"},
		Fault{Name: FaultStdioKillNoWait, Requirement: "transport-stdio.shutdown.client-closes-stdin-first", Description: "at shutdown the client sends SIGKILL to the server as soon as it has sent SIGTERM, without waiting for it to exit"},
	)
}

// peekMessage decodes the JSON-RPC message in the body of r without
// consuming the body (zero when there is none).
func peekMessage(r *http.Request) jsonrpc.Message {
	if r.Body == nil || r.Body == http.NoBody {
		return jsonrpc.Message{}
	}
	var b []byte
	if r.GetBody != nil {
		rc, err := r.GetBody()
		if err != nil {
			return jsonrpc.Message{}
		}
		b, _ = io.ReadAll(rc)
		rc.Close()
	} else {
		b, _ = io.ReadAll(r.Body)
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	return jsonrpc.Decode(b)
}

// faultsOn returns the set of names.
func faultsOn(names []string) map[string]bool {
	on := map[string]bool{}
	for _, n := range names {
		on[n] = true
	}
	return on
}

// ApplyHTTPFaults builds the HTTP transport hooks among the named fault
// switches into o: they change what the client reads from the server
// (SSE retry and id fields, JSON answers), so they wrap o.Client's
// RoundTripper. Call it after o is complete; unknown names are ignored
// (Connect reports them).
func ApplyHTTPFaults(names []string, o *transport.HTTPOptions) {
	on := faultsOn(names)
	d := &distorting{retry: on[FaultSSERetryIgnored], ids: on[FaultSSEIDsIgnored], json: on[FaultJSONAnswersUnread]}
	if !d.retry && !d.ids && !d.json {
		return
	}
	if u, err := url.Parse(o.URL); err == nil {
		d.path = u.Path
	}
	hc := &http.Client{}
	if o.Client != nil {
		*hc = *o.Client
	}
	d.next = hc.Transport
	if d.next == nil {
		d.next = http.DefaultTransport
	}
	hc.Transport = d
	o.Client = hc
}

// ApplyStdioFaults builds the stdio transport hooks among the named fault
// switches into o. Call it after o is complete; unknown names are ignored.
// giveUp ends the client's connection; stderr-is-fatal calls it once when
// the server first writes to stderr.
func ApplyStdioFaults(names []string, o *transport.StdioOptions, giveUp func()) {
	on := faultsOn(names)
	if on[FaultStderrIsFatal] {
		o.Stderr = &fatalStderr{w: o.Stderr, giveUp: giveUp}
	}
	if on[FaultStdioSigtermFirst] {
		o.SigtermFirst = true
	}
	if on[FaultStdioNoWait] {
		o.SigtermWithoutWait = true
	}
	if on[FaultStdioKillNoWait] {
		o.SigkillWithoutWait = true
	}
}

// fatalStderr is the server's stderr under stderr-is-fatal: the first
// bytes end the client's connection.
type fatalStderr struct {
	w      io.Writer
	giveUp func()
	once   sync.Once
}

func (f *fatalStderr) Write(b []byte) (int, error) {
	if f.w != nil {
		_, _ = f.w.Write(b)
	}
	f.once.Do(func() {
		fmt.Fprintf(os.Stderr, "reference client (fault %s): the server wrote to stderr (%q); giving up\n", FaultStderrIsFatal, truncateBytes(b, 80))
		if f.giveUp != nil {
			f.giveUp()
		}
	})
	return len(b), nil
}

func truncateBytes(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// distorting is the RoundTripper of the HTTP transport hooks: it changes
// the answers the client reads.
type distorting struct {
	next             http.RoundTripper
	path             string // the MCP endpoint's
	retry, ids, json bool
}

func (d *distorting) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := d.next.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case d.json && mt == "application/json" && r.Method == http.MethodPost && r.URL.Path == d.path && resp.StatusCode/100 == 2:
		resp.Header.Set("Content-Type", "application/x-mcpcheck-unread")
	case (d.retry || d.ids) && mt == "text/event-stream":
		resp.Body = &sseFilter{br: bufio.NewReader(resp.Body), body: resp.Body, retry: d.retry, ids: d.ids}
	}
	return resp, nil
}

// sseFilter rewrites an SSE body line by line: retry fields read as 1 ms,
// id fields are dropped.
type sseFilter struct {
	br         *bufio.Reader
	body       io.Closer
	retry, ids bool
	pending    []byte
	err        error
}

func (f *sseFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, err := f.br.ReadBytes('\n')
		f.err = err
		switch {
		case f.ids && (bytes.HasPrefix(line, []byte("id:")) || bytes.Equal(bytes.TrimRight(line, "\r\n"), []byte("id"))):
			line = nil
		case f.retry && bytes.HasPrefix(line, []byte("retry:")):
			line = []byte("retry: 1\n")
		}
		f.pending = line
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *sseFilter) Close() error { return f.body.Close() }
