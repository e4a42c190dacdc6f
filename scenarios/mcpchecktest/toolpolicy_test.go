package mcpchecktest

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpcheck/mcpcheck/reference/server"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/scenarios"
	"github.com/mcpcheck/mcpcheck/spec/mcp"
)

// TestToolPolicySkipsDestructive: against a server with a tool annotated
// destructive, the default policy does not call it and tools/call-results
// is untestable, naming it and the flag that calls it; --call-tools all
// (and a list naming it) call it and judge its result: a result without
// content fails, and the report states the policy each time.
func TestToolPolicySkipsDestructive(t *testing.T) {
	yes := true
	var called atomic.Int32
	wipe := server.Tool{
		Def: mcp.Tool{Name: "wipe", Description: "Deletes everything", InputSchema: json.RawMessage(`{"type":"object","properties":{"really":{"type":"boolean"}},"required":["really"]}`),
			Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}},
		Run: func(c *server.Call) (any, error) {
			called.Add(1)
			return json.RawMessage(`{"structuredContent":{"wiped":true}}`), nil // no content: not a CallToolResult
		},
	}
	srv, err := server.New(server.Options{Tools: []server.Tool{wipe}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	tg := Handler(srv.HTTPHandler(server.HTTPOptions{}), "/mcp")
	run := func(p scenarios.ToolPolicy) reports.Check {
		t.Helper()
		res, err := Run(t.Context(), tg, Options{Versions: latest, ToolPolicy: p, only: []string{"tools/call-results"}})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Report.ToolPolicy.Calls, string(p.Calls); got != want && !(want == "" && got == "safe") {
			t.Errorf("the report states the policy %q, want %q", got, want)
		}
		for _, c := range res.Report.Checks {
			if c.ID == "tools/call-results" {
				return c
			}
		}
		t.Fatal("tools/call-results did not run")
		return reports.Check{}
	}

	c := run(scenarios.ToolPolicy{})
	if c.Outcome != reports.Untestable || !strings.Contains(c.Reason, "policy safe skipped 1 tool annotated destructive: wipe; use --call-tools all") {
		t.Errorf("safe: %s (%s); want untestable naming wipe and --call-tools all", c.Outcome, c.Reason)
	}
	if n := called.Load(); n != 0 {
		t.Errorf("safe called the destructive tool %d times", n)
	}
	for _, p := range []scenarios.ToolPolicy{{Calls: scenarios.CallAll}, {Calls: scenarios.CallNamed, Names: []string{"wipe"}}} {
		before := called.Load()
		c = run(p)
		if c.Outcome != reports.Fail || !strings.Contains(c.Actual, `wipe({"really":false})`) || !strings.Contains(c.Actual, `"content"`) {
			t.Errorf("%s: %s, actual %q; want a fail naming wipe's call and its missing content", p, c.Outcome, c.Actual)
		}
		if n := called.Load() - before; n != 1 {
			t.Errorf("%s called wipe %d times, want once", p, n)
		}
	}
}
