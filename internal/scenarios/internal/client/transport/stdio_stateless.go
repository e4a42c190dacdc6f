package transport

import (
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The stdio binding of 2026-07-28: the opening probe and the message kinds.
var _ = client.Register(
	client.Def{
		ID: "client/transport-stdio/stateless-probe-first", Area: "transport-stdio", Eras: client.StatelessEra, Transports: client.StatelessStdio,
		Title:        "on stdio the client's first request is server/discover with a 2026-07-28 version in _meta",
		Requirements: []string{"transport-stdio.compat.modern-client-probes", "transport-stdio.compat.dual-era-probe-discover"},
		Proofs:       []client.Proof{{Fault: "skip-discover-probe", Want: reports.Warn}},
		Body:         client.StatelessProbeFirst,
	},
	client.Def{
		ID: "client/transport-stdio/stateless-no-responses", Area: "transport-stdio", Eras: client.StatelessEra, Transports: client.StatelessStdio,
		Title:        "the client writes only requests and notifications to the server's stdin",
		Requirements: []string{"transport-stdio.messages.client-no-responses"},
		Proofs:       []client.Proof{{Fault: "stdio-stray-response", Want: reports.Fail}},
		Body:         client.StatelessNoResponses,
	},
)

// The dual-era stdio scenarios: a stage that serves only 2025-11-25 and
// refuses the server/discover probe with -32601, -32602 or -32600, and the
// check that the fallback to initialize does not hang on one code. The
// messages of the legacy session a dual-era client opens there are held to
// the version negotiated in it (Case.SchemaVersion).

// fallbackCodes are the errors the dual-era scenarios answer the probe
// with, as legacy servers do to a request before initialize.
var fallbackCodes = []struct {
	code int64
	msg  string
}{
	{jsonrpc.MethodNotFound, "Method not found"},
	{jsonrpc.InvalidParams, "Invalid params: the session is not initialized"},
	{jsonrpc.InvalidRequest, "Invalid Request: initialize first"},
}

var _ = registerDualEra()

func registerDualEra() bool {
	var names []string
	for _, fc := range fallbackCodes {
		fc := fc
		name := fmt.Sprintf("mcpcheck-stdio-legacy%d", fc.code)
		names = append(names, name)
		client.RegisterScenarios(client.Scenario{
			Name: name, Eras: client.StatelessEra, Transports: client.StatelessStdio,
			Title: fmt.Sprintf("a legacy stdio server: it serves only 2025-11-25 and answers server/discover with error %d", fc.code),
			Acts:  "probe with server/discover, fall back to initialize on the error, list every tool and call each once, then exit",
			Stage: func(client.Env) stage.Config {
				cfg := client.StatelessFlowStage()
				cfg.Server.Versions = []spec.Version{spec.V20251125}
				cfg.Server.Rewrite = func(o server.Outgoing) [][]byte {
					m := jsonrpc.Decode(o.Msg)
					if o.Method != spec.MethodServerDiscover || m.Shape != jsonrpc.KindErrorResponse {
						return [][]byte{o.Msg}
					}
					b, err := jsonrpc.NewErrorResponse(m.ID, fc.code, fc.msg, nil)
					if err != nil {
						return [][]byte{o.Msg}
					}
					return [][]byte{b}
				}
				return cfg
			},
		})
	}
	client.Register(client.Def{
		ID: "client/transport-stdio/stateless-fallback-any-error", Area: "transport-stdio", Eras: client.StatelessEra, Transports: client.StatelessStdio, Scenarios: names,
		Title:        "a dual-era client falls back to initialize whichever non-2026 error answers its server/discover probe",
		Requirements: []string{"transport-stdio.compat.fallback-any-error"},
		Proofs:       []client.Proof{{Fault: "fallback-only-on-32601", Want: reports.Fail}},
		Body: func(t *client.T) {
			var fell, stayed []string
			for _, c := range t.Cases() {
				if len(c.Requests(spec.MethodServerDiscover)) == 0 {
					continue
				}
				if len(c.Requests(spec.MethodInitialize)) > 0 {
					fell = append(fell, c.Scenario.Name)
				} else {
					stayed = append(stayed, fmt.Sprintf("%s (it %s)", c.Scenario.Name, c.Exit))
				}
			}
			switch {
			case len(fell) == 0:
				t.NotApplicable("the client fell back to initialize after none of the errors to its server/discover probe (-32601, -32602, -32600): it shows no dual-era behaviour on stdio" + t.WhyNothing())
			case len(stayed) > 0:
				t.Fail("a dual-era client falls back to initialize on any error to its probe that is not a 2026-07-28 one",
					"it fell back in "+strings.Join(fell, ", ")+" but not in "+strings.Join(stayed, ", "))
			default:
				t.Saw("the client fell back to initialize in %s", strings.Join(fell, ", "))
				t.Pass()
			}
		},
	})
	return true
}
