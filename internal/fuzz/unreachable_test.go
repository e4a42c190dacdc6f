package fuzz

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestRunNeverHandshakenJudgesNothing (issue 33): a target that never
// completes a handshake — initialize in a stateful version, server/discover
// in a stateless one — gets no input and no finding: Run returns a result
// that says nothing was judged, and an error wrapping ErrUnreachable.
func TestRunNeverHandshakenJudgesNothing(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<html>not MCP</html>")
	}))
	defer plain.Close()
	targets := map[string]conn.Target{"plain HTTP": conn.HTTPTarget{URL: plain.URL + "/mcp"}}
	if runtime.GOOS != "windows" {
		targets["silent stdio"] = &conn.ExecTarget{Argv: []string{"sleep", "60"}}
	}
	for name, tg := range targets {
		for _, v := range []spec.Version{spec.V20251125, spec.Latest} {
			t.Run(name+"/"+string(v), func(t *testing.T) {
				t.Parallel()
				res, err := Run(context.Background(), Config{Target: tg, Version: v, MaxExecs: 50, Seed: 1, Wait: DefaultWait, StartupTimeout: DefaultWait})
				if !errors.Is(err, ErrUnreachable) || res == nil {
					t.Fatalf("Run = %v, %v; want a result and an error wrapping ErrUnreachable", res, err)
				}
				if res.Execs != 0 || len(res.Findings) != 0 || !res.Verdict.Unjudged || res.Verdict.Failed {
					t.Errorf("execs %d, findings %d, verdict %+v: want nothing run, nothing found, nothing judged", res.Execs, len(res.Findings), res.Verdict)
				}
				if !strings.Contains(res.Unjudged, "never completed a handshake") || !strings.Contains(res.Verdict.Reason, "nothing judged") {
					t.Errorf("unjudged %q, reason %q", res.Unjudged, res.Verdict.Reason)
				}
			})
		}
	}
}
