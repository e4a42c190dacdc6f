package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/internal/spec/schema"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Tool results: every tool the run's policy lets mcpcheck call is called
// (with the arguments --tool-args gives, or generated from its
// inputSchema) and every answer judged: the CallToolResult schema of the
// version (content present, each block of a type the version defines), a
// failure of the tool itself answered as a result with isError rather
// than a JSON-RPC error, embedded resources only from a server that
// declares resources, and, for tools with an outputSchema, structuredContent
// that conforms to it and is mirrored in a text block. Tools the policy
// leaves out, and tools no arguments could be found for, are reported:
// such a check is untestable, never a pass.

// maxToolsCalled bounds how many tools one check calls in a version: a
// list of 200,000 tools is judged on its first ones.
const maxToolsCalled = 100

// errorFixture is the official conformance fixture that always fails as a
// tool execution error.
const errorFixture = "test_error_handling"

// toolsResultRequirements are what tools/call-results and
// tools/fixture-results judge every answer by, each for its share of the
// tools.
var toolsResultRequirements = []string{"base.jsonrpc.messages-are-jsonrpc-2", "tools.result.execution-errors-in-result", "tools.result.embedded-resources-imply-capability"}

var _ = Register(
	// Exclusive: it calls every tool the policy allows but the neutral
	// conformance fixtures (tools/fixture-results calls those), and tools
	// change what every session shares (lists, subscriptions, listeners).
	Def{
		ID: "tools/call-results", Exclusive: true, Area: "tools",
		Title: "every tool the policy lets mcpcheck call (but the neutral conformance fixtures: tools/fixture-results) answers with a result that conforms to the version's CallToolResult schema, " +
			"reports its own failures in the result (isError) rather than as a JSON-RPC error, and embeds resources only when it declares resources",
		Requirements: toolsResultRequirements,
		Proofs: []Proof{
			{Fault: "tool-result-no-content", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "tool-result-no-content", Version: spec.V20260728, Want: reports.Fail},
			{Fault: "tool-result-unknown-content-type", Version: spec.V20250618, Want: reports.Fail},
			// tool-error-as-protocol-error shows only in test_error_handling,
			// the one tool known to fail in execution: tools/fixture-results.
			{Fault: "embedded-resources-undeclared", Version: spec.V20251125, Want: reports.Warn},
		},
		Body: toolsCallResults(false),
	},
	// Isolated: the neutral conformance fixtures change nothing another
	// session sees, and their answers go to the session that called them.
	Def{
		ID: "tools/fixture-results", Isolated: true, Area: "tools",
		Title: "every neutral conformance fixture tool the server lists (test_simple_text, test_reconnection, test_error_handling, ...) answers with a result that conforms to the version's CallToolResult schema, " +
			"reports its own failures in the result (isError) rather than as a JSON-RPC error, and embeds resources only when the server declares resources",
		Requirements: toolsResultRequirements,
		Proofs: []Proof{
			{Fault: "tool-result-no-content", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "tool-result-no-content", Version: spec.V20260728, Want: reports.Fail},
			{Fault: "tool-error-as-protocol-error", Version: spec.V20251125, Want: reports.Warn},
			{Fault: "tool-error-as-protocol-error", Version: spec.V20241105, Want: reports.Warn},
			{Fault: "embedded-resources-undeclared", Version: spec.V20251125, Want: reports.Warn},
		},
		Body: toolsCallResults(true),
	},
	Def{
		ID: "tools/structured-output", Area: "tools", Labels: []string{FeatureFixture("ref_structured")},
		Title: "every callable tool with an outputSchema returns structuredContent that conforms to it, " +
			"mirrored as serialized JSON in a text block (arguments from --tool-args or generated from its inputSchema)",
		Requirements: []string{"tools.output-schema.server-conforms", "tools.result.structured-text-mirror"},
		Proofs: []Proof{
			{Fault: "output-schema-mismatch", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "output-schema-mismatch", Version: spec.V20260728, Want: reports.Fail},
			{Fault: "structured-text-not-mirrored", Version: spec.V20250618, Want: reports.Warn},
		},
		Body: func(t *T) {
			if !t.RequireCapability("tools") {
				return
			}
			tools, _ := t.PolicyTools()
			withOutput := func(tl mcp.Tool) bool {
				return len(tl.OutputSchema) > 0 && string(tl.OutputSchema) != "null" && PlainCall(tl)
			}
			var cands []mcp.Tool
			for _, i := range t.CallableTools(tools, true) {
				if withOutput(tools[i]) {
					cands = append(cands, tools[i])
				}
			}
			if !t.RequireFixture(len(cands) > 0, t.PolicyReason("the target lists no tool with an outputSchema that mcpcheck may call (no task required)", tools, withOutput)) {
				return
			}
			var left []string
			if skipped := toolsSkipped(t, tools, withOutput); skipped != "" {
				left = append(left, skipped)
			}
			if unnamed := toolsUnnamed(t, tools, withOutput); unnamed != "" {
				t.Saw("%s (not called, by the user's choice)", unnamed)
			}
			if len(cands) > maxToolsCalled {
				left = append(left, fmt.Sprintf("the first %d of %d tools with an outputSchema were called", maxToolsCalled, len(cands)))
				cands = cands[:maxToolsCalled]
			}
			c := t.Session()
			judged := 0
			for _, tl := range cands {
				if _, known := rules.PeerDialect(tl.OutputSchema); !known {
					left = append(left, tl.Name+": outputSchema in a dialect mcpcheck does not implement")
					continue
				}
				sch, err := rules.CompilePeerSchema(tl.OutputSchema, "tool-output:"+tl.Name)
				if err != nil {
					left = append(left, tl.Name+": outputSchema does not compile (tools/output-schema-valid judges it)")
					continue
				}
				sets, _, why := toolArgSets(t, tl)
				if len(sets) == 0 {
					left = append(left, tl.Name+": "+why)
					continue
				}
				for _, args := range sets {
					r := featuresCallTracked(t, c.S(), tl.Name, args)
					if !r.OK() {
						if r.Error == nil {
							t.Taint() // an answer may still come
						}
						left = append(left, fmt.Sprintf("%s(%s): %s", tl.Name, Clip(args), r.Describe()))
						continue
					}
					if featuresIsError(r.Result) {
						left = append(left, fmt.Sprintf("%s(%s) answered isError: true (structured output is owed only for successful results)", tl.Name, Clip(args)))
						continue
					}
					judged++
					var res struct {
						StructuredContent json.RawMessage   `json:"structuredContent"`
						Content           []json.RawMessage `json:"content"`
					}
					_ = json.Unmarshal(r.Result, &res)
					if len(res.StructuredContent) == 0 || string(res.StructuredContent) == "null" {
						t.Violation("tools.output-schema.server-conforms", fmt.Sprintf("%s declares an outputSchema, so its successful result carries structuredContent", tl.Name),
							fmt.Sprintf("%s(%s): the result has no structuredContent: %s", tl.Name, Clip(args), Clip(r.Result)))
						continue
					}
					if why := rules.ValidatePeerValue(sch, res.StructuredContent); why != "" {
						t.Violation("tools.output-schema.server-conforms", fmt.Sprintf("%s's structuredContent validates against its outputSchema", tl.Name),
							fmt.Sprintf("%s(%s): structuredContent %s: %s", tl.Name, Clip(args), Clip(res.StructuredContent), why))
						continue
					}
					if !toolsMirrored(res.StructuredContent, res.Content) {
						t.Violation("tools.result.structured-text-mirror", fmt.Sprintf("%s's result also holds its structuredContent, serialized, in a text block", tl.Name),
							fmt.Sprintf("%s(%s): no text block parses as the JSON of structuredContent %s; content %s", tl.Name, Clip(args), Clip(res.StructuredContent), Clip(mustJSON(res.Content))))
						continue
					}
					t.Saw("%s(%s): structuredContent conforms and is mirrored in a text block", tl.Name, Clip(args))
				}
			}
			toolsVerdict(t, judged, "structured result", "structured results", left, "no tool with an outputSchema gave a successful result to judge")
		},
	},
)

// toolsCallResults is the body of tools/call-results (fixtures false: every
// tool but the neutral conformance fixtures) and tools/fixture-results
// (fixtures true: those fixtures alone).
func toolsCallResults(fixtures bool) func(t *T) {
	return func(t *T) {
		tools, ok := t.RequireTools()
		if !ok {
			return
		}
		if !t.Require(len(tools) > 0, "the server lists no tools") {
			return
		}
		// The check's share of the tools: the neutral conformance
		// fixtures, or every other tool.
		mine := func(tl mcp.Tool) bool { return toolsNeutralFixture(tl.Name) == fixtures }
		listed := 0
		for _, tl := range tools {
			if mine(tl) {
				listed++
			}
		}
		if listed == 0 {
			if fixtures {
				// Nothing is lost: tools/call-results calls and judges every
				// tool the server lists.
				t.NotApplicable("the server lists none of the neutral conformance fixture tools (" + strings.Join(toolsNeutralFixtureNames(), ", ") + "); tools/call-results judges the tools it lists")
			} else {
				t.NotApplicable("every tool the server lists is a conformance fixture that tools/fixture-results calls and judges")
			}
			return
		}
		var idx []int
		for _, i := range t.CallableTools(tools, false) {
			if mine(tools[i]) {
				idx = append(idx, i)
			}
		}
		var left []string
		if skipped := toolsSkipped(t, tools, mine); skipped != "" {
			left = append(left, skipped)
		}
		if unnamed := toolsUnnamed(t, tools, mine); unnamed != "" {
			t.Saw("%s (not called, by the user's choice)", unnamed)
		}
		if !fixtures {
			for _, name := range toolsNotListed(t, tools) {
				t.Saw("%s: named by the tool policy, but not listed in %s", name, t.Version())
			}
		}
		if !t.RequireFixture(len(idx) > 0, t.PolicyReason("the policy lets mcpcheck call none of the listed tools", tools, mine)) {
			return
		}
		if len(idx) > maxToolsCalled {
			left = append(left, fmt.Sprintf("the first %d of %d callable tools were called, the rest not (a bound on the harness's work)", maxToolsCalled, len(idx)))
			idx = idx[:maxToolsCalled]
		}
		var jobs []toolsJob
		for _, i := range idx {
			tl := tools[i]
			sets, given, why := toolArgSets(t, tl)
			if len(sets) == 0 {
				left = append(left, fmt.Sprintf("%s: %s", tl.Name, why))
				continue
			}
			// Before 2025-11-25 there are no tasks: execution means
			// nothing to a client of the version, which calls plainly.
			task := !PlainCall(tl) && t.Version().Compare(spec.V20251125) >= 0
			if task && (t.Version() != spec.V20251125 || !t.HasCapability("tasks.requests.tools.call")) {
				left = append(left, fmt.Sprintf("%s: its execution.taskSupport is required, so it is never called plainly, and mcpcheck runs tools as tasks only in 2025-11-25 with tasks.requests.tools.call declared", tl.Name))
				continue
			}
			for _, args := range sets {
				jobs = append(jobs, toolsJob{tl: tl, args: args, given: given, task: task})
			}
		}
		results, errs := 0, 0
		if len(jobs) > 0 {
			sessions := toolsSessions(t, len(jobs))
			if len(sessions) == 0 {
				return
			}
			toolsCallAll(t, sessions, jobs)
			for _, j := range jobs {
				switch toolsJudgeCall(t, sessions[0], j, &left) {
				case callResult:
					results++
				case callError:
					errs++
				}
			}
		}
		if errs > 0 {
			// A JSON-RPC error has no result to validate: it is judged
			// only where the spec wants a result instead (the tool's own
			// failure), and that judgement stands; it is no result.
			t.Saw("%d %s answered with a JSON-RPC error (no result to judge)", errs, plural(errs, "call was", "calls were"))
			if results == 0 {
				left = append(left, fmt.Sprintf("every call answered was answered with a JSON-RPC error (%d), none with a result", errs))
			}
		}
		toolsVerdict(t, results, "result", "results", left, "no tool answered, so no result was judged")
	}
}

// callAnswer is what a call of tools/call-results got: no answer to
// judge, a JSON-RPC error, or a result.
type callAnswer uint8

const (
	callNone callAnswer = iota
	callError
	callResult
)

// toolsVerdict ends a check that calls tools and judges their answers:
// untestable when some were left unjudged (left says which and why; a
// violation found wins over it, see harness.Check) or none was judged
// (none says why), else a pass that says how many were judged (one and
// many name them).
func toolsVerdict(t *T, judged int, one, many string, left []string, none string) {
	switch {
	case len(left) > 0:
		t.Untestable(fmt.Sprintf("%d %s judged; not judged: %s", judged, plural(judged, one, many), strings.Join(left, "; ")))
	case judged == 0:
		t.Untestable(none)
	case t.Open():
		t.Saw("%d %s judged", judged, plural(judged, one, many))
		t.Pass()
	}
}

// toolsNeutralFixtures are the official conformance fixture tools whose
// behaviour the fixture conventions define and which touch nothing another
// session sees: each answers its caller, logs or reports progress to it,
// asks it (sampling, elicitation, roots, an input-required result) or cuts
// its own response stream (test_reconnection). tools/fixture-results calls
// them alongside every other check (Def.Isolated); the fixtures that do
// reach other sessions (test_trigger_tool_change and
// test_trigger_prompt_change announce to every listener, test_tool_with_task
// adds to the task store) stay with tools/call-results.
var toolsNeutralFixtures = map[string]bool{
	"test_simple_text": true, "test_image_content": true, "test_audio_content": true,
	"test_embedded_resource": true, "test_multiple_content_types": true,
	"test_tool_with_logging": true, "test_tool_with_progress": true, "test_logging_tool": true,
	errorFixture: true, "test_reconnection": true,
	"test_sampling": true, "test_elicitation": true,
	"test_elicitation_sep1034_defaults": true, "test_elicitation_sep1330_enums": true,
	"test_streaming_elicitation": true, "test_missing_capability": true,
}

// toolsNeutralFixture reports whether name is a neutral conformance fixture
// (toolsNeutralFixtures, or one of the input-required fixtures, which only
// ask their caller).
func toolsNeutralFixture(name string) bool {
	return toolsNeutralFixtures[name] || strings.HasPrefix(name, "test_input_required_result_")
}

// toolsNeutralFixtureNames lists toolsNeutralFixtures in name order.
func toolsNeutralFixtureNames() []string {
	var out []string
	for n := range toolsNeutralFixtures {
		out = append(out, n)
	}
	sort.Strings(out)
	return append(out, "test_input_required_result_*")
}

// toolsSession opens the session the tools are called on: a connection
// of its own (closed at the end of the check, so over stdio the state the
// calls leave goes with its process) whose client declares no
// capabilities, so that no tool waits for an answer the client may not be
// able to give (over streamable HTTP with plain JSON answers a request to
// the client has nowhere to go); a tool that needs one answers without
// it, or is refused, and is judged so.
func toolsSession(t *T) (Sess, bool) {
	c := t.Fresh()
	none := mcp.ClientCapabilities{}
	if c.Stateless != nil {
		cfg := c.Stateless.Config()
		cfg.Capabilities = &none
		c.Stateless.Detach()
		s := session.NewStateless(c.Conn, cfg)
		if _, _, err := s.Discover(t.Ctx); err != nil {
			t.Error(fmt.Errorf("server/discover on the connection for the tool calls: %v", err))
			return nil, false
		}
		return s, true
	}
	cfg := c.Stateful.Config()
	cfg.Capabilities = &none
	c.Stateful.Detach()
	s := session.NewStateful(c.Conn, cfg)
	if _, err := s.Open(t.Ctx); err != nil {
		t.Error(fmt.Errorf("the handshake of the connection for the tool calls (a client declaring no capabilities): %v", err))
		return nil, false
	}
	return s, true
}

// toolsJob is one call of tools/call-results: a tool, its arguments
// (given by the user or generated), whether it runs as a task, and, once
// called, the answer.
type toolsJob struct {
	tl    mcp.Tool
	args  json.RawMessage
	given bool
	task  bool

	call string        // the call as the verdicts name it
	def  string        // the schema definition the result is held to ("" for the version's)
	r    session.Reply // the answer
	none string        // why there is no answer to judge ("" when there is one)
}

// toolSessions is how many sessions tools/call-results spreads its calls
// over (fewer when there are fewer calls): call i goes to session i mod
// toolSessions, so what each session carries does not depend on
// --parallel. Above --parallel 1 the sessions make their calls at the
// same time, so that tools that take their time (a slow computation, a
// stream resumed after the server's retry delay) overlap the others; with
// --parallel 1 every call comes after the other.
const toolSessions = 4

// toolsSessions opens the sessions the calls of n jobs (n > 0) are spread
// over. A failed handshake ends the check (nil).
func toolsSessions(t *T, n int) []Sess {
	k := min(n, toolSessions)
	out := make([]Sess, 0, k)
	for i := 0; i < k; i++ {
		s, ok := toolsSession(t)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// toolsCallAll makes the jobs' calls, job i on session i mod
// len(sessions), each session used by one goroutine only.
func toolsCallAll(t *T, sessions []Sess, jobs []toolsJob) {
	run := func(k int) {
		for i := k; i < len(jobs); i += len(sessions) {
			toolsCall(t, sessions[k], &jobs[i])
		}
	}
	if t.vr.r.parallel <= 1 {
		for k := range sessions {
			run(k)
		}
		return
	}
	var wg sync.WaitGroup
	for k := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(k)
		}()
	}
	wg.Wait()
}

// toolsCall calls j's tool once with its arguments (as a task when j.task
// is set) and keeps the answer in j.
func toolsCall(t *T, s Sess, j *toolsJob) {
	j.call = fmt.Sprintf("%s(%s)", j.tl.Name, Clip(j.args))
	if !j.task {
		j.r = featuresCallTracked(t, s, j.tl.Name, j.args)
		return
	}
	cr := s.Call(t.Ctx, spec.MethodToolsCall, TaskCallParams(j.tl.Name, j.args, map[string]any{"ttl": 60000}))
	w, ok := rules.CreatedTask(cr.Result)
	id, idOK := w.ID()
	if !cr.OK() || !ok || !idOK {
		j.none = fmt.Sprintf("%s as a task: no CreateTaskResult with a taskId (%s; the tasks checks judge it)", j.call, cr.Describe())
		return
	}
	j.r = t.TaskResult(s, id)
	j.call += " as task " + id
	j.def = "CallToolResult"
}

// toolsJudgeCall judges the answer of a job (s lists the tools again when
// an error needs it); it says what the answer was, and adds to left why
// there was none to judge.
func toolsJudgeCall(t *T, s Sess, j toolsJob, left *[]string) callAnswer {
	switch {
	case j.none != "":
		*left = append(*left, j.none)
		return callNone
	case j.r.Error != nil:
		toolsJudgeError(t, s, j.tl, j.call, j.args, j.given, j.r.Error)
		return callError
	case !j.r.OK():
		*left = append(*left, fmt.Sprintf("%s: %s", j.call, j.r.Describe()))
		return callNone
	}
	toolsJudgeResult(t, j.tl, j.call, j.def, j.r.Result)
	return callResult
}

// toolsJudgeError judges a JSON-RPC error answering a call of a listed
// tool: a protocol error is the answer for an unknown tool, a malformed
// request or a server error; a failure of the tool itself belongs in the
// result (isError). Black-box, two failures are known to be the tool's:
// the conformance fixture that always fails in execution, and, from
// 2025-11-25 (where input validation errors are tool execution errors),
// an Invalid params error to a call whose arguments conform to the
// tool's inputSchema.
func toolsJudgeError(t *T, s Sess, tl mcp.Tool, call string, args json.RawMessage, given bool, e *jsonrpc.ErrorObject) {
	got := fmt.Sprintf("%s: JSON-RPC error %d %q", call, e.Code, e.Message)
	switch {
	case tl.Name == errorFixture:
		t.Violation("tools.result.execution-errors-in-result", errorFixture+" fails in execution by design (the conformance fixture), so its failure is a result with isError: true, not a JSON-RPC error", got)
	case e.Code == jsonrpc.InvalidParams && t.Version().Compare(spec.V20251125) >= 0 && toolsArgsConform(tl, args, given):
		// An earlier call (of this check, or another client's over
		// HTTP) may have changed the list: an unknown tool is a
		// protocol error.
		if still, err := toolsStillListed(t, s, tl.Name); err != nil || !still {
			t.Saw("%s, and tools/list no longer lists %s (or could not tell: %v): a protocol error for an unknown tool is right", got, tl.Name, err)
			return
		}
		t.Violation("tools.result.execution-errors-in-result",
			fmt.Sprintf("from 2025-11-25 input validation errors are tool execution errors, answered with a result with isError: true; the arguments of %s conform to its inputSchema, so the request was not malformed", tl.Name), got)
	default:
		t.Saw("%s (a protocol error: permitted for an unknown tool, a malformed request or a server error)", got)
	}
}

// toolsStillListed lists the tools again and reports whether name is
// among them.
func toolsStillListed(t *T, s Sess, name string) (bool, error) {
	items, err := t.Walk(s, spec.MethodToolsList, "tools")
	if err != nil {
		return false, err
	}
	for _, n := range featuresNames(items, "name") {
		if n == name {
			return true, nil
		}
	}
	return false, nil
}

// toolsArgsConform reports whether args validate against tl's inputSchema
// (generated arguments always do).
func toolsArgsConform(tl mcp.Tool, args json.RawMessage, given bool) bool {
	if !given {
		return true
	}
	if _, known := rules.PeerDialect(tl.InputSchema); !known {
		return false
	}
	sch, err := rules.CompilePeerSchema(tl.InputSchema, "tool-input:"+tl.Name)
	return err == nil && rules.ValidatePeerValue(sch, args) == ""
}

// toolsJudgeResult judges a tools/call result (or, def "CallToolResult",
// the tasks/result of a task-augmented call): the version's schema, and
// embedded resources only with the resources capability.
func toolsJudgeResult(t *T, tl mcp.Tool, call, def string, raw json.RawMessage) {
	v := t.Version()
	var vs []schema.Violation
	if def != "" {
		vs = schema.ValidateDef(v, def, raw)
	} else {
		env := append(append([]byte(`{"jsonrpc":"2.0","id":1,"result":`), bytes.TrimSpace(raw)...), '}')
		vs = schema.Validate(v, spec.ServerToClient, spec.MethodToolsCall, env)
	}
	for i, x := range vs {
		if i == 5 {
			t.Saw("%s: %d schema violations in all, the first 5 reported", call, len(vs))
			break
		}
		t.Violation("base.jsonrpc.messages-are-jsonrpc-2",
			fmt.Sprintf("the result of %s conforms to the %s CallToolResult schema (a content array, each block of a type %s defines)", tl.Name, v, v),
			fmt.Sprintf("%s: %s at %s in %s", call, x.Message, orRoot(x.Pointer), Clip(raw)))
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	_ = json.Unmarshal(raw, &res)
	types := make([]string, 0, len(res.Content))
	embedded := false
	for _, b := range res.Content {
		types = append(types, b.Type)
		embedded = embedded || b.Type == "resource"
	}
	if embedded && v.Compare(spec.V20250618) >= 0 && !t.HasCapability("resources") {
		t.Violation("tools.result.embedded-resources-imply-capability", "a server whose tool results embed resources declares the resources capability",
			fmt.Sprintf("%s returned an embedded resource block, and the server declared no resources capability in %s", call, v))
	}
	if len(vs) == 0 {
		t.Saw("%s: isError %v, content [%s]: conforms", call, res.IsError, strings.Join(types, ", "))
	}
}

// toolsMirrored reports whether a text block of content holds the JSON of
// structured (any serialization of an equal value).
func toolsMirrored(structured json.RawMessage, content []json.RawMessage) bool {
	var want any
	if json.Unmarshal(structured, &want) != nil {
		return false
	}
	for _, raw := range content {
		var b struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &b) != nil || b.Type != "text" {
			continue
		}
		var got any
		if json.Unmarshal([]byte(b.Text), &got) == nil && reflect.DeepEqual(got, want) {
			return true
		}
	}
	return false
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "the result"
	}
	return ptr
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
