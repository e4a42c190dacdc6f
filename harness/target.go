package harness

import (
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
)

// Target is the MCP server a run judges. Make one with Command, URL,
// Handler or Pipe; the zero Target is empty and every run refuses it.
type Target struct {
	spec target.Spec
}

func init() {
	target.FromPublic = func(v any) (target.Spec, bool) {
		t, ok := v.(Target)
		return t.spec, ok
	}
}

// Command is a server that speaks stdio: the program name (looked up in
// PATH when it has no slash) run with args, once per protocol version and
// more often for checks or campaign steps that need a fresh process. Its
// process group is killed when a check is done with it. Every process runs
// in a sandbox of the run's own, as the command line runs servers: a
// temporary working directory (see InDir), HOME and TMPDIR, watched for
// side effects (processes, sockets, files), and nothing it spawned left
// behind at the end; a relative program or argument that names a file
// where the test runs is made absolute.
func Command(name string, args ...string) Target {
	return Target{spec: target.Spec{Target: target.Command(name, args...)}}
}

// URL is a server reached over HTTP at url (its MCP endpoint, such as
// http://127.0.0.1:8080/mcp); streamable HTTP or the 2024-11-05 HTTP+SSE
// transport is detected.
func URL(url string) Target {
	return Target{spec: target.Spec{Target: target.URL(url)}}
}

// Handler is a server given as an http.Handler, served on a loopback
// httptest.Server while a run uses it; path is the MCP endpoint on it
// ("/mcp"). It is the quickest HTTP target: no process, no port to pick.
func Handler(h http.Handler, path string) Target {
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return Target{spec: target.Spec{Handler: h, Path: path}}
}

// Pipe is a server served in process over the stdio transport: serve is
// called once per connection, in a goroutine of its own, with the
// messages the harness sends on in and the server's messages written to
// out one per line; it returns once in ends or ctx is done. Give each
// call a server of its own, as each process of a stdio server would be:
// a fresh connection is expected to be a fresh server. No process, no
// port: the fastest target, and the one whose panics are reported (as
// the server ending) instead of crashing the test binary.
// reference.Server's ServeStdio has this shape.
func Pipe(serve func(ctx context.Context, in io.Reader, out io.Writer) error) Target {
	return Target{spec: target.Spec{Target: target.Pipe(serve)}}
}

// WithHeader returns the target with an HTTP header added to every request
// (an Authorization token, say); it applies to URL and Handler targets.
// Header values never appear in reports or test output.
func (t Target) WithHeader(name, value string) Target {
	t.spec.Target.Headers = append(append([]target.Header(nil), t.spec.Target.Headers...), target.Header{Name: name, Value: value})
	return t
}

// WithEnv returns the target with environment variables ("KEY=value")
// added to a Command's process.
func (t Target) WithEnv(kv ...string) Target {
	t.spec.Target.Env = append(append([]string(nil), t.spec.Target.Env...), kv...)
	return t
}

// InDir returns the target with its Command run in dir instead of its
// sandbox's own working directory (for a server that reads files where it
// runs); HOME and TMPDIR stay the sandbox's. It applies to Command
// targets only.
func (t Target) InDir(dir string) Target {
	t.spec.Cwd = dir
	return t
}

// String describes the target as reports name it: the command line of a
// stdio server, the URL of an HTTP one, "in-process handler" or
// "in-process pipe". Header values are never part of it.
func (t Target) String() string {
	switch {
	case t.spec.Handler != nil:
		return "in-process handler at " + t.spec.Path
	case t.spec.Target.Pipe != nil:
		return "in-process pipe"
	case t.spec.Target.URL != "":
		return t.spec.Target.URL
	case t.spec.Target.Command != "":
		return t.spec.Target.Report().Command
	}
	return "empty target"
}
