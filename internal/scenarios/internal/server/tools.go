package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Tools: names, schemas valid in their dialect, input validation, unknown
// tools, list changes, and the 2026-07-28 list and x-mcp-header rules.
// The results of called tools are judged in tools_results.go; which tools
// may be called, and with which arguments, is the run's tool policy
// (tools_policy.go, tools_args.go).

var toolsNameChars = regexp.MustCompile(`^[A-Za-z0-9_.-]*$`)

var _ = Register(
	Def{
		ID: "tools/names", Area: "tools",
		Title:        "tool names are 1 to 128 characters of ASCII letters, digits, _, - and ., unique within the server",
		Requirements: []string{"tools.name.length-1-to-128", "tools.name.allowed-characters", "tools.name.no-special-characters", "tools.name.unique-per-server"},
		Proofs:       []Proof{{Fault: "tool-name-with-space", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			tools, ok := t.RequireTools()
			if !ok {
				return
			}
			seen := map[string]bool{}
			for _, tl := range tools {
				n := tl.Name
				if len(n) < 1 || len(n) > 128 {
					t.Violation("tools.name.length-1-to-128", "tool names of 1 to 128 characters", fmt.Sprintf("%q has %d characters", n, len(n)))
				}
				if !toolsNameChars.MatchString(n) {
					t.Violation("tools.name.allowed-characters", "only A-Z, a-z, 0-9, _, - and . in tool names", fmt.Sprintf("%q", n))
					if strings.ContainsAny(n, " ,;:!?/\\'\"()[]{}") {
						t.Violation("tools.name.no-special-characters", "no spaces, commas or other punctuation in tool names", fmt.Sprintf("%q", n))
					}
				}
				if seen[n] {
					t.Violation("tools.name.unique-per-server", "each tool name once", fmt.Sprintf("%q is listed twice", n))
				}
				seen[n] = true
			}
			t.Saw("%d tool names", len(tools))
			if t.Open() {
				t.Pass()
			}
		},
	},
	Def{
		ID: "tools/input-schema-valid", Area: "tools",
		Title:        "every inputSchema is a JSON Schema object (not null) valid in its declared dialect, 2020-12 by default",
		Requirements: []string{"tools.input-schema.valid-object-schema", "base.schema.schemas-valid"},
		Proofs:       []Proof{{Fault: "input-schema-null", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			toolsSchemas(t, false)
		},
	},
	Def{
		ID: "tools/output-schema-valid", Area: "tools",
		Title:        "every outputSchema is valid in its declared dialect, 2020-12 by default",
		Requirements: []string{"base.schema.schemas-valid"},
		Proofs:       []Proof{{Fault: "output-schema-invalid", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			toolsSchemas(t, true)
		},
	},
	Def{
		ID: "tools/unknown-tool", Area: "tools",
		Title:        "calling a tool the server does not have is refused (a JSON-RPC error, -32602 by the spec's example, or an isError result), never run",
		Requirements: []string{"security.tools.server-hardening"},
		Proofs:       []Proof{{Fault: "unknown-tool-served", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			if !t.RequireCapability("tools") {
				return
			}
			c := t.Session()
			id, st := t.Ask(c, spec.MethodToolsCall, map[string]any{"name": "mcpcheck_no_such_tool_7f3a", "arguments": map[string]any{}})
			t.Expect("servers validate every tool input: an unknown tool name is refused with a JSON-RPC error (the specification's example uses -32602) or an isError result")
			t.Judge(t.AnswerOn(c.S(), st, toolsRefusal(id, func(raw json.RawMessage) string {
				return "the server answered a call of an unknown tool with a successful result: " + Clip(raw)
			})...))
		},
	},
	Def{
		ID: "tools/input-validation", Area: "tools",
		Title:        "a tools/call missing a required argument is refused: an isError result (the form from 2025-11-25) or a JSON-RPC -32602 error, not a success",
		Requirements: []string{"security.tools.server-hardening"},
		Proofs:       []Proof{{Fault: "tool-arguments-unchecked", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			if !t.RequireCapability("tools") {
				return
			}
			tools, _ := t.PolicyTools()
			type probe struct {
				tl   mcp.Tool
				args map[string]any
			}
			var probes []probe
			// Deliberately wrong input goes only to read-only tools, or to
			// those the user opted into (toolpolicy.Policy.Misuse); a few
			// of them, since a tool may refuse the call itself for a reason
			// of its own (an isError result), which is no sign that the
			// server checked the input.
			for _, i := range toolsMisusable(t, tools, true) {
				if len(probes) == maxInputProbes {
					break
				}
				tl := tools[i]
				var sch struct {
					Required []string `json:"required"`
				}
				_ = json.Unmarshal(tl.InputSchema, &sch)
				if len(sch.Required) == 0 {
					continue
				}
				full, ok := t.ToolArgs(tl)
				if !ok {
					continue
				}
				var args map[string]any
				_ = json.Unmarshal(full, &args)
				delete(args, sch.Required[0])
				probes = append(probes, probe{tl: tl, args: args})
			}
			if !t.RequireFixture(len(probes) > 0, t.PolicyReason("the target lists no tool with a required argument that mcpcheck may call with input it does not accept (read-only, or named by --call-tools, or --call-tools all)", tools, PlainCall)) {
				return
			}
			c := t.Session()
			for _, p := range probes {
				id, st := t.Ask(c, spec.MethodToolsCall, map[string]any{"name": p.tl.Name, "arguments": p.args})
				t.Expect("%s is called without a required argument: servers validate every tool input", p.tl.Name)
				if !t.Judge(t.AnswerOn(c.S(), st, toolsRefusal(id, func(raw json.RawMessage) string {
					return "the call of " + p.tl.Name + " ran without its required argument: " + Clip(raw)
				}, jsonrpc.InvalidParams)...)) {
					return
				}
			}
		},
	},
	// Exclusive: ref_change_lists changes the tool list every session sees and announces it to all of them.
	Def{
		ID: "tools/list-changed", Exclusive: true, Area: "tools", Eras: Stateful, Labels: []string{FeatureFixture("ref_change_lists")},
		Title:        "a server with tools.listChanged announces a change of its tool list with notifications/tools/list_changed",
		Requirements: []string{"tools.list-changed.server-notifies"},
		Proofs:       []Proof{{Fault: "no-tools-list-changed", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			featuresListChanged(t, "tools", "tools.listChanged", spec.MethodToolsListChanged)
		},
	},
	// Exclusive: it compares listings taken at different moments, which a tool another check calls could change.
	Def{
		ID: "tools/list-stable", Exclusive: true, Area: "tools", Eras: Stateless,
		Title:        "in 2026-07-28 tools/list gives the current set, the same on every connection, in a repeatable order",
		Requirements: []string{"tools.list.current-set-for-caller", "tools.list.no-connection-dependence", "tools.list.deterministic-order"},
		Proofs:       []Proof{{Fault: "tools-list-refused-stateless", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			featuresListStable(t, "tools", spec.MethodToolsList, "tools", "name", "tools.list.current-set-for-caller", "tools.list.no-connection-dependence", "tools.list.deterministic-order")
		},
	},
	Def{
		ID: "tools/x-mcp-header", Area: "tools", Eras: Stateless,
		Title:        "in 2026-07-28 x-mcp-header annotations are non-empty unique tokens on statically reachable primitive properties",
		Requirements: []string{"tools.x-mcp-header.not-empty", "tools.x-mcp-header.no-control-characters", "tools.x-mcp-header.token-syntax", "tools.x-mcp-header.unique-per-schema", "tools.x-mcp-header.primitive-types-only", "tools.x-mcp-header.statically-reachable"},
		Proofs:       []Proof{{Fault: "duplicate-x-mcp-header", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			tools, ok := t.RequireTools()
			if !ok {
				return
			}
			c := t.Session()
			s := c.Stateless
			s.LearnTools(tools)
			bad := s.BadTools()
			n := 0
			for _, tl := range tools {
				if strings.Contains(string(tl.InputSchema), "x-mcp-header") {
					n++
				}
				if err, ok := bad[tl.Name]; ok {
					t.Fail("x-mcp-header annotations that keep every rule of 2026-07-28", fmt.Sprintf("tool %s: %v", tl.Name, err))
				}
			}
			if n == 0 {
				if t.Open() {
					t.NotApplicable("no listed tool uses x-mcp-header")
				}
				return
			}
			if t.Open() {
				t.Saw("%d tools with x-mcp-header annotations, all valid", n)
				t.Pass()
			}
		},
	},
)

// toolsRefusal accepts the refusal of a tools/call with id: an error
// response with one of codes (any code when none), or a result with
// isError true; ran says what a successful result shows instead.
func toolsRefusal(id jsonrpc.ID, ran func(raw json.RawMessage) string, codes ...int64) []expect.Alt {
	return []expect.Alt{
		expect.Error(id, codes...),
		expect.Result(id, "a result with isError: true", func(raw json.RawMessage) error {
			if featuresIsError(raw) {
				return nil
			}
			return errors.New(ran(raw))
		}),
	}
}

// PlainCall reports whether a tool may be called without a task.
func PlainCall(tl mcp.Tool) bool {
	return tl.Execution == nil || tl.Execution.TaskSupport != mcp.TaskRequired
}

// maxSchemasJudged bounds how many tools' schemas one check compiles: a
// list of 200,000 tools is judged on its first ones, in seconds.
const maxSchemasJudged = 2000

// toolsSchemas judges inputSchemas (output false) or outputSchemas.
func toolsSchemas(t *T, output bool) {
	tools, ok := t.RequireTools()
	if !ok {
		return
	}
	judged := 0
	for i, tl := range tools {
		if i == maxSchemasJudged {
			t.Saw("the schemas of the first %d of %d tools were judged, the rest not (a bound on the harness's work)", i, len(tools))
			break
		}
		raw := tl.InputSchema
		what := "inputSchema"
		if output {
			raw, what = tl.OutputSchema, "outputSchema"
			if len(raw) == 0 {
				continue
			}
		}
		trimmed := strings.TrimSpace(string(raw))
		if !output && (trimmed == "" || trimmed == "null" || !strings.HasPrefix(trimmed, "{")) {
			t.Violation("tools.input-schema.valid-object-schema", "every inputSchema is a JSON Schema object, never null", fmt.Sprintf("%s: inputSchema is %s", tl.Name, Clip(raw)))
			continue
		}
		if output && !strings.HasPrefix(trimmed, "{") {
			t.Violation("base.schema.schemas-valid", "every outputSchema is a JSON Schema object", fmt.Sprintf("%s: outputSchema is %s", tl.Name, Clip(raw)))
			continue
		}
		d, known := rules.PeerDialect(raw)
		if !known {
			t.Saw("%s: %s declares dialect %q, which mcpcheck does not implement; not judged", tl.Name, what, d)
			continue
		}
		judged++
		if _, err := rules.CompilePeerSchema(raw, what+":"+tl.Name); err != nil {
			t.Violation("base.schema.schemas-valid", fmt.Sprintf("%s's %s is a valid schema in its dialect (%s)", tl.Name, what, orDefault(d)), rules.OneLine(err.Error()))
		}
	}
	if judged == 0 && t.Open() {
		if output {
			t.NotApplicable("no listed tool declares an outputSchema")
		} else {
			t.NotApplicable("no listed tool has an inputSchema in a dialect mcpcheck implements")
		}
		return
	}
	if t.Open() {
		t.Saw("%d schemas compiled against their metaschema", judged)
		t.Pass()
	}
}

func orDefault(d string) string {
	if d == "" {
		return "2020-12 by default"
	}
	return d
}

// maxInputProbes bounds the tools tools/input-validation calls with a
// required argument left out.
const maxInputProbes = 3

// Clip shortens raw JSON for a report.
func Clip(raw []byte) string {
	s := string(raw)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

var _ = Register(
	Def{
		ID: "tools/case-sensitive-names", Area: "tools",
		Title:        "tool names are case-sensitive: a listed tool called with its name in another case is not run",
		Requirements: []string{"tools.name.case-sensitive"},
		Proofs:       []Proof{{Fault: "tool-names-case-insensitive", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			if !t.RequireCapability("tools") {
				return
			}
			tools, _ := t.PolicyTools()
			listed := map[string]bool{}
			for _, tl := range tools {
				listed[tl.Name] = true
			}
			var name, other string
			var args json.RawMessage
			for _, i := range t.CallableTools(tools, true) {
				tl := tools[i]
				o := rules.SwapCase(tl.Name)
				if o == tl.Name || listed[o] {
					continue
				}
				if a, ok := t.ToolArgs(tl); ok {
					name, other, args = tl.Name, o, a
					break
				}
			}
			if !t.RequireFixture(name != "", t.PolicyReason("the target lists no tool with letters in its name that mcpcheck may call", tools, PlainCall)) {
				return
			}
			c := t.Session()
			id, st := t.Ask(c, spec.MethodToolsCall, map[string]any{"name": other, "arguments": args})
			t.Expect("%q is listed, %q is not: calling %q is refused like any unknown tool (a JSON-RPC error or an isError result)", name, other, other)
			t.Judge(t.AnswerOn(c.S(), st, toolsRefusal(id, func(raw json.RawMessage) string {
				return fmt.Sprintf("%q ran %q: names are matched case-insensitively (%s)", other, name, Clip(raw))
			})...))
		},
	},
)
