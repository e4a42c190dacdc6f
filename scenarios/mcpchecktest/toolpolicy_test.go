package mcpchecktest

import (
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness/toolpolicy"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
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
		Def: mcp.Tool{Name: "wipe", Description: "Deletes everything", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
			Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}},
		Run: func(c *server.Call) (any, error) {
			called.Add(1)
			return json.RawMessage(`{"structuredContent":{"wiped":true}}`), nil // no content: not a CallToolResult
		},
	}
	srv, err := server.New(server.Options{Tools: []server.Tool{wipe}, NoFixtures: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	tg := Handler(srv.HTTPHandler(server.HTTPOptions{}), "/mcp")
	run := func(p ToolPolicy) reports.Check {
		t.Helper()
		res, err := Run(t.Context(), tg, Options{Versions: latest, ToolPolicy: p, only: []string{"tools/call-results"}})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Report.ToolPolicy.Calls, string(p.policy().Tier()); got != want {
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

	c := run(ToolPolicy{})
	if c.Outcome != reports.Untestable || !strings.Contains(c.Reason, "policy readonly skipped 1 tool not annotated read-only") || !strings.Contains(c.Reason, "wipe; --call-tools readonly,wipe calls them") {
		t.Errorf("readonly: %s (%s); want untestable naming wipe and --call-tools readonly,wipe", c.Outcome, c.Reason)
	}
	if n := called.Load(); n != 0 {
		t.Errorf("readonly called the destructive tool %d times", n)
	}
	for _, p := range []ToolPolicy{{Calls: CallAll}, {Calls: CallNamed, Names: []string{"wipe"}}} {
		before := called.Load()
		c = run(p)
		if c.Outcome != reports.Fail || !strings.Contains(c.Actual, `wipe({"path":"mcpcheck"})`) || !strings.Contains(c.Actual, `"content"`) {
			t.Errorf("%s: %s, actual %q; want a fail naming wipe's call and its missing content", p, c.Outcome, c.Actual)
		}
		if n := called.Load() - before; n != 1 {
			t.Errorf("%s called wipe %d times, want once", p, n)
		}
	}
}

// recorder counts the calls of the tools of a test server and keeps the
// arguments of each.
type recorder struct {
	mu    sync.Mutex
	calls map[string][]json.RawMessage
}

func (r *recorder) tool(def mcp.Tool) server.Tool {
	return server.Tool{Def: def, Run: func(c *server.Call) (any, error) {
		var p struct {
			Arguments json.RawMessage `json:"arguments"`
		}
		_ = json.Unmarshal(c.Params(), &p)
		r.mu.Lock()
		if r.calls == nil {
			r.calls = map[string][]json.RawMessage{}
		}
		r.calls[def.Name] = append(r.calls[def.Name], p.Arguments)
		r.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text("done")}}, nil
	}}
}

func (r *recorder) of(name string) []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]json.RawMessage(nil), r.calls[name]...)
}

// TestDefaultPolicyCallsOnlyReadOnlyTools runs the whole server suite,
// every version, with the default policy against a server whose tools
// record every call: an unannotated delete_all_files (the spec presumes
// it destructive), an additive one, a confirmation-gated one (git_clean's
// confirm enum, whose first value is "Y") and a read-only search. Only
// search is called; the report lists each tool, whether it was called,
// why not, and a flag that calls it. With --call-tools all every tool is
// called, and the gated one never with a value that consents.
func TestDefaultPolicyCallsOnlyReadOnlyTools(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole suite")
	}
	no, yes := false, true
	rec := &recorder{}
	tools := []server.Tool{
		rec.tool(mcp.Tool{Name: "delete_all_files", Description: "Deletes every file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}),
		rec.tool(mcp.Tool{Name: "create_note", Description: "Adds a note", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: &no, DestructiveHint: &no}}),
		rec.tool(mcp.Tool{Name: "git_clean", Description: "Removes untracked files once confirmed", InputSchema: json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"string","enum":["Y","N"]},"force":{"type":"boolean"},"acknowledgement":{"type":"string"}},"required":["confirm","force","acknowledgement"]}`),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: &no}}),
		rec.tool(mcp.Tool{Name: "search", Description: "Finds notes", InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: &yes}}),
	}
	srv, err := server.New(server.Options{Tools: tools, NoFixtures: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	tg := Handler(srv.HTTPHandler(server.HTTPOptions{}), "/mcp")

	res, err := Run(t.Context(), tg, Options{Versions: spec.Versions})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"delete_all_files", "create_note", "git_clean"} {
		if n := len(rec.of(name)); n != 0 {
			t.Errorf("the default policy called %s %d times; only tools annotated readOnlyHint: true may be called", name, n)
		}
	}
	if len(rec.of("search")) == 0 {
		t.Errorf("the default policy never called search, the read-only tool")
	}
	p := res.Report.ToolPolicy
	if p == nil || p.Calls != "readonly" {
		t.Fatalf("the report states the policy %+v, want readonly", p)
	}
	uses := map[string]reports.ToolUse{}
	for _, u := range p.Tools {
		uses[u.Name] = u
	}
	for name, flag := range map[string]string{"delete_all_files": "--call-tools readonly,delete_all_files", "create_note": "--call-tools readonly,create_note", "git_clean": "--call-tools readonly,git_clean"} {
		u, ok := uses[name]
		if !ok || u.Skipped == "" || u.Calls != 0 || u.Include != flag {
			t.Errorf("the report's entry of %s is %+v; want it not called, with why and %q", name, u, flag)
		}
	}
	if u := uses["delete_all_files"]; !strings.Contains(u.Skipped, "presumes") || u.Class != string(toolpolicy.ClassDestructive) {
		t.Errorf("delete_all_files: %+v; want it classed destructive because the spec presumes so", u)
	}
	if u := uses["search"]; u.Calls == 0 || u.Skipped != "" {
		t.Errorf("search: %+v; want it called", u)
	}

	// --call-tools all: everything is called, nothing consents.
	if _, err = Run(t.Context(), tg, Options{Versions: latest, ToolPolicy: ToolPolicy{Calls: CallAll}}); err != nil {
		t.Fatal(err)
	}
	gated := rec.of("git_clean")
	if len(gated) == 0 {
		t.Fatalf("--call-tools all never called git_clean")
	}
	for _, a := range gated {
		var d any
		_ = json.Unmarshal(a, &d)
		if at := toolpolicy.FindConsent(d); at != "" {
			t.Errorf("git_clean was called with %s, which consents at %s", a, at)
		}
		var args struct {
			Confirm string `json:"confirm"`
			Force   *bool  `json:"force"`
		}
		if json.Unmarshal(a, &args) != nil || args.Confirm == "Y" || args.Force == nil || *args.Force {
			t.Errorf("git_clean was called with %s; want confirm N and force false", a)
		}
	}
	if len(rec.of("delete_all_files")) == 0 {
		t.Errorf("--call-tools all never called delete_all_files")
	}
}

// TestToolPolicyTiersAreTheHarnesss: the public tier names are the ones
// the harness decides by (--call-tools), so a policy written with them
// means what it says.
func TestToolPolicyTiersAreTheHarnesss(t *testing.T) {
	for public, harness := range map[string]toolpolicy.Tier{CallReadOnly: toolpolicy.ReadOnly, CallAdditive: toolpolicy.Additive, CallAll: toolpolicy.All, CallNamed: toolpolicy.Named} {
		if p := (ToolPolicy{Calls: public}).policy(); p.Tier() != harness {
			t.Errorf("ToolPolicy{Calls: %q} is tier %q in the harness, want %q", public, p.Tier(), harness)
		}
	}
	if p := (ToolPolicy{}).policy(); p.Tier() != toolpolicy.ReadOnly {
		t.Errorf("the zero ToolPolicy is tier %q, want %q", p.Tier(), toolpolicy.ReadOnly)
	}
}
