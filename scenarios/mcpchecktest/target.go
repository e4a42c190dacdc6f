package mcpchecktest

import (
	"context"
	"io"
	"net/http"

	"github.com/mcpcheck/mcpcheck/harness"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
)

// Target is the MCP server a test checks: harness.Target, the one
// description of a target that the fuzzer takes too. Make one with
// Command, URL, Handler or Pipe (here or in package harness).
type Target = harness.Target

// Command is harness.Command: a server that speaks stdio, the program
// name run with args, its process group killed when a check is done.
func Command(name string, args ...string) Target { return harness.Command(name, args...) }

// URL is harness.URL: a server reached over HTTP at its MCP endpoint.
func URL(url string) Target { return harness.URL(url) }

// Handler is harness.Handler: an http.Handler served on a loopback
// httptest.Server while the suite runs, path its MCP endpoint.
func Handler(h http.Handler, path string) Target { return harness.Handler(h, path) }

// Pipe is harness.Pipe: a server served in process over the stdio
// transport, serve called once per connection.
func Pipe(serve func(ctx context.Context, in io.Reader, out io.Writer) error) Target {
	return harness.Pipe(serve)
}

// start resolves the target for a run: a Handler is served on a loopback
// test server, a Command runs in a sandbox; stop ends either and returns
// the target's side effects.
func start(tg Target) (target.Target, func() *reports.SideEffects, error) {
	s, _ := target.FromPublic(tg)
	return s.Start("mcpchecktest")
}
