package mcpchecktest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpcheck/mcpcheck/harness/target"
)

// Target is the MCP server a test checks. Make one with Command, URL,
// Handler or Pipe.
type Target struct {
	tg      target.Target
	handler http.Handler
	path    string
}

// Command is a server that speaks stdio: the program name (looked up in
// PATH when it has no slash) run with args, once per protocol version and
// more often for checks that need a fresh process. Its process group is
// killed when a check is done with it.
func Command(name string, args ...string) Target {
	return Target{tg: target.Command(name, args...)}
}

// URL is a server reached over HTTP at url (its MCP endpoint, such as
// http://127.0.0.1:8080/mcp); streamable HTTP or the 2024-11-05 HTTP+SSE
// transport is detected.
func URL(url string) Target {
	return Target{tg: target.URL(url)}
}

// Handler is a server given as an http.Handler, served on a loopback
// httptest.Server while the suite runs; path is the MCP endpoint on it
// ("/mcp"). It is the quickest target to test: no process, no port to pick.
func Handler(h http.Handler, path string) Target {
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return Target{handler: h, path: path}
}

// Pipe is a server served in process over the stdio transport: serve is
// called once per connection, in a goroutine of its own, with the
// messages the suite sends on in and the server's messages written to out
// one per line; it returns once in ends or ctx is done. Give each call a
// server of its own, as each process of a stdio server would be: the
// suite expects a fresh connection to be a fresh server. No process, no
// port: the fastest target, and the one whose panics the suite reports
// (as the server ending) instead of crashing the test binary.
func Pipe(serve func(ctx context.Context, in io.Reader, out io.Writer) error) Target {
	return Target{tg: target.Pipe(serve)}
}

// WithHeader returns the target with an HTTP header added to every request
// (an Authorization token, say); it applies to URL and Handler targets.
// Header values never appear in reports or test output.
func (t Target) WithHeader(name, value string) Target {
	t.tg.Headers = append(append([]target.Header(nil), t.tg.Headers...), target.Header{Name: name, Value: value})
	return t
}

// WithEnv returns the target with environment variables ("KEY=value")
// added to a Command's process.
func (t Target) WithEnv(kv ...string) Target {
	t.tg.Env = append(append([]string(nil), t.tg.Env...), kv...)
	return t
}

// start resolves the target for a run: a Handler is served on a loopback
// test server, which stop closes.
func (t Target) start() (tg target.Target, stop func(), err error) {
	if t.handler == nil {
		if t.tg.Command == "" && t.tg.URL == "" && t.tg.Pipe == nil {
			return target.Target{}, nil, fmt.Errorf("mcpchecktest: the target is empty; make one with Command, URL, Handler or Pipe")
		}
		if t.tg.IsStdio() && len(t.tg.Headers) > 0 {
			return target.Target{}, nil, fmt.Errorf("mcpchecktest: WithHeader applies to URL and Handler targets, not to a stdio one (%s)", t.tg.Report().Command)
		}
		if t.tg.Pipe != nil && len(t.tg.Env) > 0 {
			return target.Target{}, nil, fmt.Errorf("mcpchecktest: WithEnv applies to Command targets; a Pipe server runs in this process, set what it needs before the test")
		}
		return t.tg, func() {}, nil
	}
	srv := httptest.NewServer(t.handler) // binds 127.0.0.1
	tg = target.URL(srv.URL + t.path)
	tg.Headers = t.tg.Headers
	return tg, srv.Close, nil
}
