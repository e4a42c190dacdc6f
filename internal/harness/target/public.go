package target

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
)

// Spec is a target as the public API describes it (harness.Target): a
// Target, or an http.Handler that is served on a loopback test server
// while it is judged, with Path its MCP endpoint. Cwd, for a command, is
// the working directory its processes get instead of the sandbox's own.
type Spec struct {
	Target  Target
	Handler http.Handler
	Path    string
	Cwd     string
}

// FromPublic returns the Spec of a public harness.Target, and false for
// any other value. The public harness package sets it when it is loaded;
// the packages that take a harness.Target (mcpchecktest, fuzz) import
// that package, so it is always set before they call it.
var FromPublic func(v any) (Spec, bool)

// sandboxCloseGrace bounds ending what a run's command left running.
const sandboxCloseGrace = 30 * time.Second

// Start resolves the spec for one run. A command runs in a sandbox of the
// run's own, as the command line runs it (its own working directory,
// HOME and TMPDIR, watched, and nothing it spawned left behind: see
// Sandbox); a Handler is served on a loopback httptest.Server. stop ends
// either and returns what the target did besides speaking MCP (not
// observed for an HTTP or in-process target). who prefixes the errors
// ("fuzz"), which say what is wrong with the target as it was described.
func (s Spec) Start(who string) (tg Target, stop func() *reports.SideEffects, err error) {
	notObserved := func(why string) func() *reports.SideEffects {
		return func() *reports.SideEffects { return &reports.SideEffects{NotObserved: why} }
	}
	if s.Cwd != "" {
		if s.Handler != nil || s.Target.URL != "" || s.Target.Pipe != nil {
			return Target{}, nil, fmt.Errorf("%s: InDir applies to Command targets: a server reached over HTTP or served in process runs where it runs", who)
		}
		if fi, err := os.Stat(s.Cwd); err != nil || !fi.IsDir() {
			return Target{}, nil, fmt.Errorf("%s: InDir(%q) is not a directory; give an existing one", who, s.Cwd)
		}
	}
	if s.Handler == nil {
		t := s.Target
		if t.Command == "" && t.URL == "" && t.Pipe == nil {
			return Target{}, nil, fmt.Errorf("%s: the target is empty; make one with harness.Command, URL, Handler or Pipe", who)
		}
		if t.IsStdio() && len(t.Headers) > 0 {
			return Target{}, nil, fmt.Errorf("%s: WithHeader applies to URL and Handler targets, not to a stdio one (%s)", who, t.Report().Command)
		}
		if t.Pipe != nil && len(t.Env) > 0 {
			return Target{}, nil, fmt.Errorf("%s: WithEnv applies to Command targets; a Pipe server runs in this process, set what it needs before the test", who)
		}
		if t.URL != "" && len(t.Env) > 0 {
			return Target{}, nil, fmt.Errorf("%s: WithEnv applies to Command targets, not to a server reached by URL (%s)", who, t.URL)
		}
		switch {
		case t.Pipe != nil:
			return t, notObserved("in-process pipe: the server runs in this process"), nil
		case t.URL != "":
			return t, notObserved("HTTP target: its processes are not mcpcheck's to watch"), nil
		}
		sbx, err := NewSandbox(SandboxOptions{Cwd: s.Cwd})
		if err != nil {
			return Target{}, nil, fmt.Errorf("%s: %w", who, err)
		}
		t.Sandbox = sbx
		return t, func() *reports.SideEffects {
			ctx, cancel := context.WithTimeout(context.Background(), sandboxCloseGrace)
			defer cancel()
			fx, err := sbx.Close(ctx)
			if err != nil {
				fx.Notes = append(fx.Notes, err.Error())
			}
			return &fx
		}, nil
	}
	if len(s.Target.Env) > 0 {
		return Target{}, nil, fmt.Errorf("%s: WithEnv applies to Command targets; a Handler runs in this process, set what it needs before the test", who)
	}
	srv := httptest.NewServer(s.Handler) // binds 127.0.0.1
	tg = URL(srv.URL + s.Path)
	tg.Headers = s.Target.Headers
	return tg, func() *reports.SideEffects {
		srv.Close()
		return &reports.SideEffects{NotObserved: "in-process handler: the server runs in this process"}
	}, nil
}
