package client

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// metadataOnly is the recording of a client that sends one MCP request,
// takes the stage's 401, fetches the protected resource metadata and the
// authorization server metadata (which names a registration endpoint), and
// sends nothing more: 'claude mcp list' of Claude Code 2.1.332 over
// streamable HTTP, as recorded in auth/metadata-default.
func metadataOnly() []stage.Event {
	const base = "http://127.0.0.1:9"
	// The auth stage's headers and paths, as authorization/stage.go names them.
	head := http.Header{"Mcpcheck-Auth-Base": {base}, "Mcpcheck-Auth-Key": {"k"}}
	req := func(stream, method, path, body string) stage.Event {
		f := wire.Classify([]byte(body))
		if body == "" {
			f = wire.Frame{Kind: wire.KindHTTPRequest}
		}
		f.Stream, f.HTTP = stream, &wire.HTTPInfo{Method: method, URL: base + path, Header: http.Header{}}
		return stage.Event{From: stage.FromClient, Frame: f}
	}
	ans := func(stream string, status int, body string) stage.Event {
		return stage.Event{From: stage.FromStage, Frame: wire.Frame{Kind: wire.KindStatus, Stream: stream, Raw: []byte(body),
			HTTP: &wire.HTTPInfo{Status: status, Header: head}}}
	}
	return rec(
		req("post-1", http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
		ans("post-1", http.StatusUnauthorized, ""),
		req("get-1", http.MethodGet, "/.well-known/oauth-protected-resource/mcp", ""),
		ans("get-1", http.StatusOK, `{"resource":"`+base+"/mcp"+`","authorization_servers":["`+base+`"]}`),
		req("get-2", http.MethodGet, "/.well-known/oauth-authorization-server", ""),
		ans("get-2", http.StatusOK, `{"issuer":"`+base+`","registration_endpoint":"`+base+`/register"}`),
	)
}

// TestAuthMetadataOnlyIsNotJudged: a client that fetched the metadata and
// then ended the launch itself with status 0 did not try to authorize in
// it (a listing command), so neither registration
// (client/authorization/dcr-supported) nor taking an upper-case resource
// for the server's (client/authorization/resource-case) can be judged:
// untestable, saying so. The harness ending it is no verdict either. The
// same traffic ended with a failure status is a client that tried and
// stopped short: it still warns.
func TestAuthMetadataOnlyIsNotJudged(t *testing.T) {
	for _, tc := range []struct{ id, scenario string }{
		{"client/authorization/dcr-supported", RideAuth},
		{"client/authorization/resource-case", "mcpcheck-auth-resource-uppercase"},
	} {
		for _, end := range []struct {
			exit     string
			code     int
			timedOut bool
			want     reports.Outcome
			reason   string
		}{
			{"exited with status 0", 0, false, reports.Untestable, "did not try to authorize in this launch"},
			{"was killed by the harness after 20s", -1, true, reports.Untestable, "the harness ended the launch"},
			{"exited with status 1", 1, false, reports.Warn, ""},
		} {
			t.Run(tc.id+"/"+end.exit, func(t *testing.T) {
				c := &Case{Scenario: scenarioNamed(tc.scenario), Version: spec.V20250618, Transport: Streamable, Events: metadataOnly(), Launched: true,
					Exit: end.exit, ExitCode: end.code, TimedOut: end.timedOut}
				got := judgeCases(t, tc.id, spec.V20250618, Streamable, []*Case{c})
				if got.Outcome != end.want || !strings.Contains(got.Reason, end.reason) {
					t.Errorf("metadata fetched, nothing more, the client %s: %s; want %s saying %q", c.Exit, describe(got), end.want, end.reason)
				}
			})
		}
	}
}
