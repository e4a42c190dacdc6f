package target

import (
	"fmt"
	"net/http"
	"net/http/httptest"
)

// Spec is a target as the public API describes it (harness.Target): a
// Target, or an http.Handler that is served on a loopback test server
// while it is judged, with Path its MCP endpoint.
type Spec struct {
	Target  Target
	Handler http.Handler
	Path    string
}

// FromPublic returns the Spec of a public harness.Target, and false for
// any other value. The public harness package sets it when it is loaded;
// the packages that take a harness.Target (mcpchecktest, fuzz) import
// that package, so it is always set before they call it.
var FromPublic func(v any) (Spec, bool)

// Start resolves the spec for one run: a Handler is served on a loopback
// httptest.Server, which stop closes. who prefixes the errors ("fuzz"),
// which say what is wrong with the target as it was described.
func (s Spec) Start(who string) (tg Target, stop func(), err error) {
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
		return t, func() {}, nil
	}
	if len(s.Target.Env) > 0 {
		return Target{}, nil, fmt.Errorf("%s: WithEnv applies to Command targets; a Handler runs in this process, set what it needs before the test", who)
	}
	srv := httptest.NewServer(s.Handler) // binds 127.0.0.1
	tg = URL(srv.URL + s.Path)
	tg.Headers = s.Target.Headers
	return tg, srv.Close, nil
}
