package tasks

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Tasks (2025-11-25), the client as requestor: which tools it calls as
// tasks and when (the tool's execution.taskSupport, the server's tasks
// capability), how it follows a task (polling at the pollInterval until
// the task ends or needs input, tasks/result on input_required, never
// waiting for status notifications), tasks/list cursors, the related-task
// _meta it leaves out, and how it cancels a task. The stage plays the
// receiver with a task engine of its own (engine): it decides the
// pollInterval, when a task needs input and on which stream it asks, and
// it never sends notifications/tasks/status. The client as receiver of the
// stage's task-augmented sampling and elicitation is in receiver.go.

// The requestor scenarios.
const (
	toolsScenario       = "mcpcheck-tasks-tools"
	noCapScenario       = "mcpcheck-tasks-no-capability"
	noToolsCallScenario = "mcpcheck-tasks-no-tools-call"
	anyStreamScenario   = "mcpcheck-tasks-any-stream"
	listScenario        = "mcpcheck-tasks-list"
)

// requestorScenarios are the scenarios in which the client runs tasks on
// the stage.
var requestorScenarios = []string{toolsScenario, noCapScenario, noToolsCallScenario, anyStreamScenario, listScenario, client.TasksCancelScenario}

// pollMs is the pollInterval (milliseconds) of the stage's tasks.
const pollMs = 200

// mcp.MetaRelatedTask is the related-task _meta key.

// declare is what the stage declares of tasks in initialize.
type declare int

const (
	declareAll        declare = iota // tasks {list, cancel, requests.tools.call}
	declareNone                      // no tasks capability at all
	declareNoRequests                // tasks {list, cancel}, no requests
)

// tool is a tool of a requestor scenario.
type tool struct {
	name, desc string
	// support is execution.taskSupport ("" leaves execution out).
	support mcp.TaskSupport
	// work is how long the task runs.
	work time.Duration
	// input: the task needs input from the client right after it is
	// created (input_required) and asks for it on the stream of the
	// client's tasks/result.
	input bool
	// side: the stage asks for input while it answers the client's first
	// tasks/get about the task: tasks/get is answered with plain JSON, so
	// the request goes to the GET stream (a side channel).
	side bool
}

var (
	required  = tool{name: "task_required", desc: "Must be called as a task; works for 400 ms", support: mcp.TaskRequired, work: 400 * time.Millisecond}
	optional  = tool{name: "task_optional", desc: "May be called as a task; works for 400 ms", support: mcp.TaskOptional, work: 400 * time.Millisecond}
	forbidden = tool{name: "task_forbidden", desc: "Must not be called as a task", support: mcp.TaskForbidden}
	noSupport = tool{name: "no_task_support", desc: "Says nothing about tasks, so must not be called as one"}
	needInput = tool{name: "task_needs_input", desc: "Must be called as a task; needs input from the client at once", support: mcp.TaskRequired, work: 100 * time.Millisecond, input: true}
	side      = tool{name: "task_side_channel", desc: "Must be called as a task; asks the client for input while it polls", support: mcp.TaskRequired, work: 3 * time.Second, side: true}
	first     = tool{name: "task_first", desc: "Must be called as a task; works for 100 ms", support: mcp.TaskRequired, work: 100 * time.Millisecond}
	second    = tool{name: "task_second", desc: "Must be called as a task; works for 100 ms", support: mcp.TaskRequired, work: 100 * time.Millisecond}
	long      = tool{name: "task_long", desc: "Must be called as a task; works for 15 s", support: mcp.TaskRequired, work: 15 * time.Second}
)

// requestorStage is the stage of a requestor scenario: tools served by a fresh
// engine.
func requestorStage(declare declare, pageSize int, tools ...tool) func(client.Env) stage.Config {
	return func(client.Env) stage.Config {
		e := &engine{declare: declare, pageSize: pageSize, tools: map[string]tool{}, tasks: map[string]*task{}, cursors: map[string]int{}}
		var defs []server.Tool
		for _, tt := range tools {
			e.tools[tt.name] = tt
			defs = append(defs, tt.def())
		}
		o := server.Options{NoFixtures: true, Tools: defs, Director: e.direct}
		if declare != declareAll {
			o.Rewrite = declareRewrite(declare)
		}
		return stage.Config{Server: o}
	}
}

var _ = client.RegisterScenarios(
	client.Scenario{
		Name: toolsScenario, Since: spec.V20251125, Until: spec.V20251125,
		Title: "the stage declares task-augmented tools/call and lists task_required, task_optional, task_forbidden, no_task_support (no execution member) and task_needs_input (required; its task needs input, asked for on the tasks/result stream); tasks give pollInterval 200 ms and no status notifications",
		Stage: requestorStage(declareAll, 0, required, optional, forbidden, noSupport, needInput),
	},
	client.Scenario{
		Name: noCapScenario, Since: spec.V20251125, Until: spec.V20251125,
		Title: "the stage declares no tasks capability at all, yet lists task_required, task_optional and no_task_support; it answers every tools/call directly",
		Stage: requestorStage(declareNone, 0, required, optional, noSupport),
	},
	client.Scenario{
		Name: noToolsCallScenario, Since: spec.V20251125, Until: spec.V20251125,
		Title: "the stage declares tasks (list, cancel) but not tasks.requests.tools.call, and lists task_required, task_optional and no_task_support; it answers every tools/call directly",
		Stage: requestorStage(declareNoRequests, 0, required, optional, noSupport),
	},
	client.Scenario{
		Name: anyStreamScenario, Since: spec.V20251125, Until: spec.V20251125, Transports: []wire.Transport{client.Streamable},
		Title: "task_side_channel (required): while answering the client's first tasks/get about its task the stage sends an elicitation, sampling or roots request related to the task; tasks/get is answered with plain JSON, so that request goes to the client's GET stream, not to a tasks/result stream",
		Stage: requestorStage(declareAll, 0, side),
	},
	client.Scenario{
		Name: listScenario, Since: spec.V20251125, Until: spec.V20251125,
		Title: "task_first and task_second (both required); tasks/list pages hold one task, with opaque cursors",
		Acts:  "call task_first and task_second (as tasks), then list the tasks, following nextCursor to the end",
		Stage: requestorStage(declareAll, 1, first, second),
	},
	client.Scenario{
		Name: client.TasksCancelScenario, Since: spec.V20251125, Until: spec.V20251125,
		Title: "task_long (required) works for 15 s; the stage supports tasks/cancel",
		Acts:  "call task_long as a task, give up on it after 300 ms and cancel it",
		Stage: requestorStage(declareAll, 0, long),
	},
)

// def is the tool as the stage lists it; called without a task it answers
// at once.
func (tt tool) def() server.Tool {
	d := mcp.Tool{Name: tt.name, Description: tt.desc, InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}
	if tt.support != "" {
		d.Execution = &mcp.ToolExecution{TaskSupport: tt.support}
	}
	name := tt.name
	return server.Tool{Def: d, Run: func(*server.Call) (any, error) { return toolResult(name+" ran without a task", ""), nil }}
}

// toolResult is a tool result with text, and the related-task _meta of
// taskID when it is not "".
func toolResult(text, taskID string) map[string]any {
	r := map[string]any{"content": []mcp.ContentBlock{mcp.Text(text)}, "isError": false}
	if taskID != "" {
		r["_meta"] = map[string]any{mcp.MetaRelatedTask: map[string]any{"taskId": taskID}}
	}
	return r
}

// declareRewrite changes the tasks capability of the stage's initialize
// result as declare says.
func declareRewrite(declare declare) func(server.Outgoing) [][]byte {
	return func(o server.Outgoing) [][]byte {
		if o.Method != spec.MethodInitialize {
			return [][]byte{o.Msg}
		}
		var msg map[string]json.RawMessage
		var res map[string]json.RawMessage
		var caps map[string]json.RawMessage
		if json.Unmarshal(o.Msg, &msg) != nil || json.Unmarshal(msg["result"], &res) != nil || json.Unmarshal(res["capabilities"], &caps) != nil || caps == nil {
			return [][]byte{o.Msg}
		}
		delete(caps, "tasks")
		if declare == declareNoRequests {
			caps["tasks"] = json.RawMessage(`{"list":{},"cancel":{}}`)
		}
		res["capabilities"], _ = json.Marshal(caps)
		msg["result"], _ = json.Marshal(res)
		b, err := json.Marshal(msg)
		if err != nil {
			return [][]byte{o.Msg}
		}
		return [][]byte{b}
	}
}

// engine is the stage's task receiver for tools/call: it serves the
// task-augmented calls of the tools that allow them and tasks/get,
// tasks/result, tasks/list and tasks/cancel, and sends no status
// notifications. A task completes when its work time has passed and the
// client has seen it working or waits on its tasks/result (task.worked).
// Where the stage declares no task support for tools/call
// it answers every tools/call directly, ignoring any task field.
type engine struct {
	declare  declare
	pageSize int
	tools    map[string]tool

	mu      sync.Mutex
	tasks   map[string]*task
	order   []string
	cursors map[string]int // opaque tasks/list cursor -> offset
}

// task is one task of the stage.
type task struct {
	id      string
	tool    tool
	status  mcp.TaskStatus
	message string
	created time.Time
	updated time.Time
	ttl     int64
	done    chan struct{}
	timer   *time.Timer
	ask     *ask // the input the task needs from the client (nil: none)
	asked   bool
	// worked is set once the task's work time has passed; polled counts
	// the tasks/get answered while it worked, waiting the tasks/result
	// calls that blocked on it. A task completes only once it has worked
	// and the client has seen it working (a poll) or waits on its
	// tasks/result: a client whose first poll comes late (a busy machine)
	// still polls a working task at least twice, so how it spaces its
	// polls never depends on our timing.
	worked  bool
	polled  int
	waiting int
}

// ask is a request the stage sends the client for a task's input.
type ask struct {
	method string
	params map[string]any
}

// askFor picks the input request the stage can send a client with caps:
// form elicitation, else sampling, else roots (nil when none is
// declared).
func askFor(caps mcp.ClientCapabilities) *ask {
	switch {
	case caps.Elicitation.SupportsForm():
		return &ask{spec.MethodElicitationCreate, map[string]any{"mode": "form", "message": "mcpcheck's task needs you to confirm",
			"requestedSchema": json.RawMessage(`{"type":"object","properties":{"confirmed":{"type":"boolean"}},"required":["confirmed"]}`)}}
	case caps.Sampling != nil:
		return &ask{spec.MethodSamplingCreateMessage, map[string]any{"maxTokens": 20,
			"messages": []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Single(&mcp.TextContent{Text: "mcpcheck's task asks: say yes"})}}}}
	case caps.Roots != nil:
		return &ask{spec.MethodRootsList, map[string]any{}}
	}
	return nil
}

// randomID is n random bytes in hex.
func randomID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// stamp is t as an RFC 3339 timestamp.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// wire is the task's state as the stage sends it (with t's engine locked).
func (t *task) wire() mcp.Task {
	poll := int64(pollMs)
	return mcp.Task{TaskID: t.id, Status: t.status, StatusMessage: t.message, CreatedAt: stamp(t.created), LastUpdatedAt: stamp(t.updated), TTL: mcp.IntValue(t.ttl), PollInterval: &poll}
}

// direct is the engine's Director: tools/call and the tasks/* requests;
// everything else goes to the server core.
func (e *engine) direct(c *server.Call) (any, error, bool) {
	switch c.Method() {
	case spec.MethodToolsCall:
		return e.call(c)
	case spec.MethodTasksGet, spec.MethodTasksResult, spec.MethodTasksList, spec.MethodTasksCancel:
		if e.declare == declareNone {
			return nil, &server.Error{Code: jsonrpc.MethodNotFound, Message: "this server declared no tasks capability"}, true
		}
	default:
		return nil, nil, false
	}
	switch c.Method() {
	case spec.MethodTasksList:
		return e.list(c)
	}
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(c.Params(), &p)
	e.mu.Lock()
	t := e.tasks[p.TaskID]
	e.mu.Unlock()
	if t == nil {
		return nil, &server.Error{Code: jsonrpc.InvalidParams, Message: fmt.Sprintf("no task %q on this server", p.TaskID)}, true
	}
	switch c.Method() {
	case spec.MethodTasksGet:
		return e.get(c, t)
	case spec.MethodTasksResult:
		return e.result(c, t)
	}
	return e.cancel(t)
}

// call serves tools/call: a task-augmented call of a tool that allows
// tasks creates a task; where the stage did not declare task-augmented
// tools/call every call is answered directly.
func (e *engine) call(c *server.Call) (any, error, bool) {
	var p struct {
		Name string          `json:"name"`
		Task json.RawMessage `json:"task"`
	}
	_ = json.Unmarshal(c.Params(), &p)
	tt, known := e.tools[p.Name]
	if !known {
		return nil, nil, false
	}
	if e.declare != declareAll {
		return toolResult(tt.name+" ran without a task (this server runs no tasks)", ""), nil, true
	}
	augmented := len(p.Task) > 0 && string(p.Task) != "null"
	if !augmented || (tt.support != mcp.TaskRequired && tt.support != mcp.TaskOptional) {
		return nil, nil, false // the server core answers (or refuses with -32601)
	}
	var tm mcp.TaskMetadata
	if err := json.Unmarshal(p.Task, &tm); err != nil {
		return nil, &server.Error{Code: jsonrpc.InvalidParams, Message: "params.task must be an object with an optional integer ttl: " + err.Error()}, true
	}
	now := time.Now()
	t := &task{id: randomID(16), tool: tt, status: mcp.TaskWorking, created: now, updated: now, ttl: 60000, done: make(chan struct{})}
	if tm.TTL != nil && *tm.TTL > 0 {
		t.ttl = min(*tm.TTL, 3600000)
	}
	if tt.input || tt.side {
		t.ask = askFor(c.ClientCapabilities())
	}
	e.mu.Lock()
	e.tasks[t.id] = t
	e.order = append(e.order, t.id)
	snapshot := t.wire()
	if tt.input && t.ask != nil {
		t.status, t.message, t.updated = mcp.TaskInputRequired, "waiting for the client's input; call tasks/result", time.Now()
	} else {
		t.timer = time.AfterFunc(tt.work, func() { e.workDone(t) })
	}
	e.mu.Unlock()
	return mcp.CreateTaskResult{Task: snapshot}, nil, true
}

// finish completes t unless it already ended.
func (e *engine) finish(t *task) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if mcp.Terminal(t.status) {
		return
	}
	if t.timer != nil {
		t.timer.Stop()
	}
	t.status, t.message, t.updated = mcp.TaskCompleted, "", time.Now()
	close(t.done)
}

// workDone notes that t's work time has passed, and completes it when the
// client has already seen it working or waits on its tasks/result.
func (e *engine) workDone(t *task) {
	e.mu.Lock()
	t.worked = true
	ready := t.polled > 0 || t.waiting > 0
	e.mu.Unlock()
	if ready {
		e.finish(t)
	}
}

// askOnce sends t's input request on the stream of the request c serves,
// the first time only, and completes the task once the client answered
// (or AskTimeout passed).
func (e *engine) askOnce(c *server.Call, t *task) {
	e.mu.Lock()
	if t.ask == nil || t.asked || mcp.Terminal(t.status) {
		e.mu.Unlock()
		return
	}
	t.asked = true
	t.status, t.message, t.updated = mcp.TaskInputRequired, "waiting for the client's input", time.Now()
	params := map[string]any{"_meta": map[string]any{mcp.MetaRelatedTask: map[string]any{"taskId": t.id}}}
	for k, v := range t.ask.params {
		params[k] = v
	}
	method := t.ask.method
	e.mu.Unlock()
	_, _ = sendRequest(c, method, params)
	e.mu.Lock()
	if t.status == mcp.TaskInputRequired {
		t.status, t.message, t.updated = mcp.TaskWorking, "", time.Now()
	}
	e.mu.Unlock()
	e.finish(t)
}

// get serves tasks/get (a side-channel task asks for its input first).
func (e *engine) get(c *server.Call, t *task) (any, error, bool) {
	if t.tool.side {
		e.askOnce(c, t)
	}
	e.mu.Lock()
	res := mcp.GetTaskResult{Task: t.wire()}
	if t.status == mcp.TaskWorking {
		t.polled++
	}
	ready := t.worked && t.polled > 0
	e.mu.Unlock()
	if ready {
		e.finish(t) // the client's next poll sees it completed
	}
	return res, nil, true
}

// result serves tasks/result: it asks for the task's input when the task
// waits for it, then blocks until the task ends.
func (e *engine) result(c *server.Call, t *task) (any, error, bool) {
	e.askOnce(c, t)
	e.mu.Lock()
	t.waiting++
	ready := t.worked
	e.mu.Unlock()
	if ready {
		e.finish(t)
	}
	select {
	case <-t.done:
	case <-c.Context().Done():
		return nil, c.Context().Err(), true
	}
	e.mu.Lock()
	status := t.status
	e.mu.Unlock()
	if status != mcp.TaskCompleted {
		return nil, &server.Error{Code: jsonrpc.InternalError, Message: fmt.Sprintf("task %s was %s before it produced a result", t.id, status)}, true
	}
	return toolResult(t.tool.name+" ran as a task", t.id), nil, true
}

// cancel serves tasks/cancel: a task that has not ended is cancelled, one
// that has is refused with -32602.
func (e *engine) cancel(t *task) (any, error, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if mcp.Terminal(t.status) {
		return nil, &server.Error{Code: jsonrpc.InvalidParams, Message: fmt.Sprintf("task %s is already %s", t.id, t.status)}, true
	}
	if t.timer != nil {
		t.timer.Stop()
	}
	t.status, t.message, t.updated = mcp.TaskCancelled, "cancelled by the client", time.Now()
	close(t.done)
	return mcp.CancelTaskResult{Task: t.wire()}, nil, true
}

// list serves tasks/list in pages of pageSize (0: one page), with opaque
// cursors the client must hand back as given.
func (e *engine) list(c *server.Call) (any, error, bool) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	_ = json.Unmarshal(c.Params(), &p)
	e.mu.Lock()
	defer e.mu.Unlock()
	from := 0
	if p.Cursor != nil && *p.Cursor != "" {
		off, ok := e.cursors[*p.Cursor]
		if !ok {
			return nil, &server.Error{Code: jsonrpc.InvalidParams, Message: fmt.Sprintf("invalid cursor %q: hand back a nextCursor as given", *p.Cursor)}, true
		}
		from = off
	}
	to := len(e.order)
	if e.pageSize > 0 {
		to = min(from+e.pageSize, len(e.order))
	}
	res := mcp.ListTasksResult{Tasks: []mcp.Task{}}
	for _, id := range e.order[from:to] {
		res.Tasks = append(res.Tasks, e.tasks[id].wire())
	}
	if to < len(e.order) {
		cur := "mcpcheck.tasks." + randomID(6) + ".eyJvZmZzZXQiOjF9==+/ é"
		e.cursors[cur] = to
		res.NextCursor = cur
	}
	return res, nil, true
}

// sendRequest sends the client a request on the stream of the request c
// serves and waits at most AskTimeout for the answer.
func sendRequest(c *server.Call, method string, params any) (json.RawMessage, error) {
	type answer struct {
		raw json.RawMessage
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		raw, err := c.Request(method, params)
		ch <- answer{raw, err}
	}()
	t := time.NewTimer(client.AskTimeout)
	defer t.Stop()
	select {
	case a := <-ch:
		return a.raw, a.err
	case <-t.C:
		return nil, fmt.Errorf("no answer to %s within %v", method, client.AskTimeout)
	case <-c.Context().Done():
		return nil, c.Context().Err()
	}
}

// The recordings, as the requestor checks read them.

// stillFollowing reports whether a client the harness had to stop was
// possibly still following a task whose last request it sent at last: it
// was stopped (not ended by itself) within a few seconds of that request.
func stillFollowing(c *client.Case, last client.Msg, poll int64) bool {
	if !c.TimedOut && !c.Stopped && !c.Interrupted {
		return false
	}
	end := last.Time
	for _, e := range c.Events {
		if e.Time.After(end) {
			end = e.Time
		}
	}
	return end.Sub(last.Time) < 5*time.Second+5*time.Duration(poll)*time.Millisecond
}

// requestorDeclared reports whether the stage's initialize answer in c
// declared capabilities.tasks, and tasks.requests.tools.call.
func requestorDeclared(c *client.Case) (tasks, toolsCall, known bool) {
	m, _, ok := c.Initialize()
	if !ok {
		return false, false, false
	}
	ans, ok := c.StageAnswer(m)
	if !ok || ans.Msg.Shape != jsonrpc.KindResponse {
		return false, false, false
	}
	var r struct {
		Capabilities struct {
			Tasks *struct {
				Requests *struct {
					Tools *struct {
						Call json.RawMessage `json:"call"`
					} `json:"tools"`
				} `json:"requests"`
			} `json:"tasks"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(ans.Msg.Result, &r) != nil {
		return false, false, false
	}
	t := r.Capabilities.Tasks
	return t != nil, t != nil && t.Requests != nil && t.Requests.Tools != nil && len(t.Requests.Tools.Call) > 0 && string(t.Requests.Tools.Call) != "null", true
}

// listedSupport maps the tools the stage listed in c to their
// execution.taskSupport ("" when absent).
func listedSupport(c *client.Case) map[string]mcp.TaskSupport {
	out := map[string]mcp.TaskSupport{}
	for _, m := range c.Requests(spec.MethodToolsList) {
		ans, ok := c.StageAnswer(m)
		if !ok || ans.Msg.Shape != jsonrpc.KindResponse {
			continue
		}
		var r struct {
			Tools []struct {
				Name      string `json:"name"`
				Execution *struct {
					TaskSupport mcp.TaskSupport `json:"taskSupport"`
				} `json:"execution"`
			} `json:"tools"`
		}
		_ = json.Unmarshal(ans.Msg.Result, &r)
		for _, t := range r.Tools {
			s := mcp.TaskSupport("")
			if t.Execution != nil {
				s = t.Execution.TaskSupport
			}
			out[t.Name] = s
		}
	}
	return out
}

// toolCalls returns the client's tools/call requests in c with the tool
// named and whether they carry a task field.
func toolCalls(c *client.Case) []struct {
	m         client.Msg
	name      string
	augmented bool
} {
	var out []struct {
		m         client.Msg
		name      string
		augmented bool
	}
	for _, m := range c.Requests(spec.MethodToolsCall) {
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(m.Msg.Params, &p)
		out = append(out, struct {
			m         client.Msg
			name      string
			augmented bool
		}{m, p.Name, client.TaskAugmented(m.Msg.Params)})
	}
	return out
}

// eachTask calls judge with every task the client created in the check's
// cases and returns how many there were.
func eachTask(t *client.T, judge func(c *client.Case, task *client.ClientTask)) int {
	n := 0
	for _, c := range t.Cases() {
		for _, task := range client.ClientTasks(c) {
			n++
			judge(c, task)
		}
	}
	return n
}

// declaredAsk reports whether the client declared anything the stage
// can ask it for a task's input (form elicitation, sampling, roots).
func declaredAsk(c *client.Case) bool {
	caps, ok := c.Declared()
	return ok && askFor(caps) != nil
}

var _ = client.Register(
	client.Def{
		ID: "client/tasks/forbidden-tools", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{toolsScenario},
		Title:        "the client never calls as a task a tool whose execution.taskSupport is forbidden or absent",
		Requirements: []string{"tasks.tool.forbidden-not-augmented"},
		Proofs:       []client.Proof{{Fault: "task-on-forbidden-tool", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				support := listedSupport(c)
				for _, call := range toolCalls(c) {
					s, listed := support[call.name]
					if !listed || (s != "" && s != mcp.TaskForbidden) {
						continue
					}
					n++
					if call.augmented {
						bad++
						what := `execution.taskSupport "forbidden"`
						if s == "" {
							what = "no execution.taskSupport"
						}
						t.Fail("tools without task support are called without a task field", fmt.Sprintf("tools/call of %s (%s) carries a task field: %s (%s)", call.name, what, client.Excerpt(call.m), c.Scenario.Name))
					}
				}
			}
			t.SettleActed(n, bad, "call "+forbidden.name+" or "+noSupport.name, "%d calls of tools without task support, none as a task")
		},
	},
	client.Def{
		ID: "client/tasks/required-tools", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{toolsScenario},
		Title:        `the client calls a tool whose execution.taskSupport is "required" as a task when the server supports task-augmented tools/call`,
		Requirements: []string{"tasks.tool.required-must-augment"},
		Proofs:       []client.Proof{{Fault: "required-tool-without-task", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				if _, toolsCall, _ := requestorDeclared(c); !toolsCall {
					continue
				}
				support := listedSupport(c)
				for _, call := range toolCalls(c) {
					if support[call.name] != mcp.TaskRequired {
						continue
					}
					n++
					if !call.augmented {
						bad++
						t.Fail(`a tool with execution.taskSupport "required" is called with a task field`, fmt.Sprintf("tools/call of %s has no task field: %s (%s)", call.name, client.Excerpt(call.m), c.Scenario.Name))
					}
				}
			}
			t.SettleActed(n, bad, "call "+required.name+" (its taskSupport is required)", "%d calls of task-required tools, all as tasks")
		},
	},
	client.Def{
		ID: "client/tasks/server-capability", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: requestorScenarios,
		Title:        "the client adds a task field only to tools/call, and only when the server declared tasks.requests.tools.call",
		Requirements: []string{"tasks.tool.no-augment-without-server-capability", "tasks.capability.no-tasks-without-capability", "tasks.capability.augment-only-if-declared"},
		Proofs: []client.Proof{{Fault: "task-without-server-capability", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "task-on-undeclared-request", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *client.T) {
			n, bad, undeclared := 0, 0, 0
			for _, c := range t.Cases() {
				tasks, toolsCall, known := requestorDeclared(c)
				if !known {
					continue
				}
				if !toolsCall {
					undeclared += len(c.Requests(spec.MethodToolsCall))
				}
				for _, m := range c.Requests("") {
					n++
					if !client.TaskAugmented(m.Msg.Params) {
						continue
					}
					switch {
					case m.Msg.Method != spec.MethodToolsCall:
						bad++
						t.Violation("tasks.capability.augment-only-if-declared", "a task field only on request types the server lists under capabilities.tasks.requests (2025-11-25: tools/call)",
							fmt.Sprintf("%s carries a task field: %s (%s)", m.Msg.Method, client.Excerpt(m), c.Scenario.Name))
					case !tasks:
						bad++
						actual := fmt.Sprintf("the server declared no tasks capability, yet the client sent %s (%s)", client.Excerpt(m), c.Scenario.Name)
						t.Violation("tasks.tool.no-augment-without-server-capability", "no task-augmented tools/call to a server without tasks.requests.tools.call", actual)
						t.Violation("tasks.capability.no-tasks-without-capability", "no task-augmented request to a server that declared no tasks capability", actual)
						t.Violation("tasks.capability.augment-only-if-declared", "a task field only on request types the server lists under capabilities.tasks.requests", actual)
					case !toolsCall:
						bad++
						actual := fmt.Sprintf("the server declared tasks without tasks.requests.tools.call, yet the client sent %s (%s)", client.Excerpt(m), c.Scenario.Name)
						t.Violation("tasks.tool.no-augment-without-server-capability", "no task-augmented tools/call to a server without tasks.requests.tools.call", actual)
						t.Violation("tasks.capability.augment-only-if-declared", "a task field only on request types the server lists under capabilities.tasks.requests", actual)
					}
				}
			}
			if undeclared == 0 && bad == 0 {
				t.NeedAction(false, "call the tools of a server that does not declare task-augmented tools/call")
				return
			}
			t.Settle(n, bad, "", "%d requests; task fields only on tools/call to a server that declared them")
		},
	},
	client.OnlyIf(client.Def{
		ID: "client/tasks/poll-interval", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: requestorScenarios,
		Title:        "the client's tasks/get polls of a task are spaced at least the pollInterval the stage gave (three quarters of it, as they arrive, for delivery jitter)",
		Requirements: []string{"tasks.poll.honour-poll-interval"},
		Proofs:       []client.Proof{{Fault: "ignore-poll-interval", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			eachTask(t, func(c *client.Case, task *client.ClientTask) {
				var prev *client.TaskOp
				for i := range task.Ops {
					op := &task.Ops[i]
					if op.Method() != spec.MethodTasksGet {
						continue
					}
					if prev != nil {
						if poll := pollBefore(task, op.Req); poll > 0 {
							n++
							gap := op.Req.Time.Sub(prev.Req.Time)
							// Three quarters of the interval: room for delivery
							// jitter, none for a client that ignores it.
							if want := time.Duration(poll) * time.Millisecond; gap < want*3/4 {
								bad++
								if bad <= 10 {
									t.Fail(fmt.Sprintf("consecutive tasks/get polls of a task at least the pollInterval (%v) apart", want),
										fmt.Sprintf("task %s: tasks/get %v after the previous one (%s)", task.ID, gap.Round(time.Millisecond), c.Scenario.Name))
								}
							}
						}
					}
					prev = op
				}
			})
			t.SettleActed(n, bad, "poll a task with tasks/get more than once", "%d tasks/get polls, each at least the pollInterval after the one before")
		},
	}, client.DoesUseTasks),
	client.OnlyIf(client.Def{
		ID: "client/tasks/keeps-polling", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: requestorScenarios,
		Title:        "the client follows its task until it ends or needs input: it does not stop polling while the task works, unless it waits on tasks/result",
		Requirements: []string{"tasks.poll.until-terminal-or-input", "tasks.poll.continue-alongside-result"},
		Proofs: []client.Proof{{Fault: "stop-polling-early", Version: spec.V20251125, Want: reports.Warn},
			{Fault: "abandon-after-result-timeout", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *client.T) {
			judged := 0
			abandoned := 0
			eachTask(t, func(c *client.Case, task *client.ClientTask) {
				if task.CallCancelled {
					abandoned++
					return
				}
				judged++
				last := task.Created
				if len(task.Ops) > 0 {
					last = task.Ops[len(task.Ops)-1].Req
				}
				status := "working"
				if w, ok := rules.CreatedTask(task.Created.Msg.Result); ok {
					status = w.Status
				}
				left := left(c)
				var endedResult *client.TaskOp // the last tasks/result that ended without an outcome
				leftWaiting := false           // the client left with a tasks/result unanswered
				for i, op := range task.Ops {
					// An answer that came after the client left never reached it.
					unseen := !left.IsZero() && (!op.Answered || op.Ans.Time.After(left))
					switch {
					case op.Method() == spec.MethodTasksCancel:
						return // the client ended the task on purpose
					case op.Method() == spec.MethodTasksResult && op.Cancelled:
						endedResult = &task.Ops[i]
					case op.Method() == spec.MethodTasksResult && unseen:
						leftWaiting = true
					case op.Method() == spec.MethodTasksResult && !op.Answered:
						return // blocked on tasks/result when the harness stopped the client
					case op.Method() == spec.MethodTasksResult && op.OK():
						return // the outcome
					case op.Method() == spec.MethodTasksResult:
						endedResult = &task.Ops[i] // answered with an error
					case op.Status != "" && !unseen:
						status = op.Status
						endedResult = nil
					}
					if mcp.Terminal(mcp.TaskStatus(status)) || status == string(mcp.TaskInputRequired) {
						return
					}
				}
				if stillFollowing(c, last, task.Poll) {
					return
				}
				if endedResult != nil {
					how := "was answered with an error"
					if endedResult.Cancelled {
						how = "was cancelled by the client"
					}
					t.Violation("tasks.poll.continue-alongside-result", "a requestor not blocked on tasks/result keeps polling its task with tasks/get until it ends",
						fmt.Sprintf("task %s (%s): the client's tasks/result %s while the task was %s, and the client asked nothing more about it (%s)", task.ID, task.Tool, how, status, c.Scenario.Name))
					return
				}
				if leftWaiting {
					t.Violation("tasks.poll.until-terminal-or-input", "the requestor follows its task until it is completed, failed or cancelled, or needs input",
						fmt.Sprintf("task %s (%s): the client left while its tasks/result was unanswered and the task %s (%s)", task.ID, task.Tool, status, c.Scenario.Name))
					return
				}
				t.Violation("tasks.poll.until-terminal-or-input", "the requestor polls its task until it is completed, failed or cancelled, or needs input",
					fmt.Sprintf("task %s (%s): the client stopped asking about it while it was %s (%d requests about the task) (%s)", task.ID, task.Tool, status, len(task.Ops), c.Scenario.Name))
			})
			if abandoned > 0 {
				t.Saw("%d tasks not judged: the client cancelled the tools/call that created them", abandoned)
			}
			if judged == 0 {
				t.NeedAction(false, "call "+required.name+" as a task and follow it")
				return
			}
			if t.Open() {
				t.Saw("%d tasks followed to their end", judged)
				t.Pass()
			}
		},
	}, client.DoesUseTasks),
	client.OnlyIf(client.Def{
		ID: "client/tasks/no-status-reliance", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: requestorScenarios,
		Title:        "the client learns how its task ends by asking (tasks/get, tasks/result): it does not sit waiting for notifications/tasks/status, which the stage never sends",
		Requirements: []string{"tasks.notify.not-relied-upon"},
		Proofs:       []client.Proof{{Fault: "wait-for-status-notification", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *client.T) {
			bad := 0
			n := eachTask(t, func(c *client.Case, task *client.ClientTask) {
				if len(task.Ops) > 0 || task.CallCancelled {
					return // asked about, or given up with the call that made it
				}
				// Never asked about: a client that went on at once abandoned
				// the task (client/tasks/keeps-polling); one that sat silent
				// waited for something the stage never sends.
				idle, until := idleAfter(c, task.Created)
				if idle < waitBound(task.Poll) {
					return
				}
				bad++
				t.Fail("a requestor reaches its task's outcome by asking, never by waiting for notifications/tasks/status (the stage sends none)",
					fmt.Sprintf("task %s (%s) was created, then the client sent nothing at all for %v (%s) and never asked about the task (%s)", task.ID, task.Tool, idle.Round(time.Millisecond), until, c.Scenario.Name))
			})
			t.SettleActed(n, bad, "call "+required.name+" as a task", "%d tasks; the client never sat waiting for a status notification")
		},
	}, client.DoesUseTasks),
	client.OnlyIf(client.Def{
		ID: "client/tasks/input-required", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{toolsScenario},
		Title:        "when tasks/get says input_required the client calls tasks/result straight away (at most one more poll before it)",
		Requirements: []string{"tasks.input.requestor-calls-result"},
		Proofs:       []client.Proof{{Fault: "no-result-on-input-required", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			eachTask(t, func(c *client.Case, task *client.ClientTask) {
				seen, polls := -1, 0
				for i, op := range task.Ops {
					if seen < 0 && op.Method() == spec.MethodTasksResult && task.Tool == needInput.name {
						n++ // waiting on tasks/result before it could see input_required
						return
					}
					if seen < 0 && op.Status == string(mcp.TaskInputRequired) {
						seen = i
						continue
					}
					if seen < 0 {
						continue
					}
					switch op.Method() {
					case spec.MethodTasksResult:
						n++
						if polls > 1 {
							bad++
							t.Fail("on input_required the requestor calls tasks/result straight away", fmt.Sprintf("task %s: %d more tasks/get polls before tasks/result (%s)", task.ID, polls, c.Scenario.Name))
						}
						return
					case spec.MethodTasksGet:
						polls++
					}
				}
				if seen < 0 {
					return
				}
				n++
				if len(task.Ops) > 0 && stillFollowing(c, task.Ops[len(task.Ops)-1].Req, task.Poll) && polls <= 1 {
					return
				}
				bad++
				t.Fail("on input_required the requestor calls tasks/result straight away", fmt.Sprintf("task %s said input_required; the client never called tasks/result (%d more tasks/get polls) (%s)", task.ID, polls, c.Scenario.Name))
			})
			if n == 0 {
				for _, c := range t.Cases() {
					if c.Traffic() && !declaredAsk(c) {
						t.NotApplicable("the client declared neither elicitation, sampling nor roots, so the stage's task had nothing to ask it and never needed input")
						return
					}
				}
				t.NeedAction(false, "call "+needInput.name+" as a task and poll it")
				return
			}
			t.Settle(n, bad, "", "%d tasks needing input, tasks/result called at once")
		},
	}, client.DoesUseTasks),
	client.OnlyIf(client.Def{
		ID: "client/tasks/any-stream", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{anyStreamScenario}, Transports: []wire.Transport{client.Streamable},
		Title:        "the client answers a task-related request the stage sends on its GET stream, not only those on a tasks/result stream",
		Requirements: []string{"tasks.http.messages-on-any-stream"},
		Proofs:       []client.Proof{{Fault: "ignore-side-channel-requests", Version: spec.V20251125, Transport: client.Streamable, Want: reports.Warn}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				results := map[string]bool{} // the streams of the client's tasks/result requests
				for _, m := range c.Requests(spec.MethodTasksResult) {
					results[m.Stream] = true
				}
				for _, req := range c.StageRequests() {
					if _, related := rules.RelatedTask(req.Msg.Params); !related || req.HTTP == nil || results[req.Stream] {
						continue
					}
					n++
					if _, ok := c.ClientAnswer(req); !ok {
						bad++
						t.Fail("the client takes task-related requests on whichever SSE stream they arrive (the GET stream included), and answers them",
							fmt.Sprintf("%s sent on stream %s, not a tasks/result stream, was never answered (%s)", req.Msg.Method, req.Stream, c.Scenario.Name))
					}
				}
			}
			if n == 0 {
				for _, c := range t.Cases() {
					if c.Traffic() && !declaredAsk(c) {
						t.NotApplicable("the client declared neither elicitation, sampling nor roots, so the stage had nothing to ask it")
						return
					}
				}
				t.NeedAction(false, "call "+side.name+" as a task and poll it with tasks/get while its GET stream is open (the stage's request goes there)")
				return
			}
			t.Settle(n, bad, "", "%d task-related requests on the GET stream, all answered")
		},
	}, client.DoesUseTasks),
	client.Def{
		ID: "client/tasks/requestor-related-meta", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: requestorScenarios,
		Title:        "the client's tasks/get, tasks/result, tasks/list and tasks/cancel requests carry no related-task _meta",
		Requirements: []string{"tasks.related.requestor-omits-on-task-ops", "tasks.related.omit-on-get-list-cancel"},
		Proofs:       []client.Proof{{Fault: "related-meta-on-task-ops", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, m := range c.Requests("") {
					method := m.Msg.Method
					if method != spec.MethodTasksGet && method != spec.MethodTasksResult && method != spec.MethodTasksCancel && method != spec.MethodTasksList {
						continue
					}
					n++
					if _, has := rules.RelatedTask(m.Msg.Params); !has {
						continue
					}
					bad++
					actual := fmt.Sprintf("%s (%s)", client.Excerpt(m), c.Scenario.Name)
					if method != spec.MethodTasksList {
						t.Violation("tasks.related.requestor-omits-on-task-ops", "no related-task _meta on tasks/get, tasks/result and tasks/cancel (params.taskId names the task)", actual)
					}
					if method != spec.MethodTasksResult {
						t.Violation("tasks.related.omit-on-get-list-cancel", "no related-task _meta on tasks/get, tasks/list and tasks/cancel requests", actual)
					}
				}
			}
			t.Settle(n, bad, "the client sent no tasks/get, tasks/result, tasks/list or tasks/cancel", "%d task requests, none with related-task _meta")
		},
	},
	client.OnlyIf(client.Def{
		ID: "client/tasks/list-cursor", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{listScenario},
		Title:        "the client hands tasks/list cursors back exactly as the stage gave them",
		Requirements: []string{"tasks.list.cursor-opaque"},
		Proofs:       []client.Proof{{Fault: "task-list-cursor-altered", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				given := map[string]map[string]bool{} // session -> cursors the stage gave
				for _, m := range c.Requests(spec.MethodTasksList) {
					session := c.Session(m)
					var p struct {
						Cursor json.RawMessage `json:"cursor"`
					}
					_ = json.Unmarshal(m.Msg.Params, &p)
					if len(p.Cursor) > 0 && string(p.Cursor) != "null" {
						n++
						var cur string
						if json.Unmarshal(p.Cursor, &cur) != nil || !given[session][cur] {
							bad++
							var list []string
							for k := range given[session] {
								list = append(list, fmt.Sprintf("%q", k))
							}
							sort.Strings(list)
							t.Fail("a tasks/list cursor is a nextCursor the stage gave, unchanged", fmt.Sprintf("cursor %s; the stage had given %s (%s)", p.Cursor, orNone(strings.Join(list, ", ")), c.Scenario.Name))
						}
					}
					if ans, ok := c.StageAnswer(m); ok && ans.Msg.Shape == jsonrpc.KindResponse {
						var r struct {
							NextCursor string `json:"nextCursor"`
						}
						if json.Unmarshal(ans.Msg.Result, &r) == nil && r.NextCursor != "" {
							if given[session] == nil {
								given[session] = map[string]bool{}
							}
							given[session][r.NextCursor] = true
						}
					}
				}
			}
			t.SettleActed(n, bad, "list the tasks and follow nextCursor", "%d tasks/list cursors, each handed back as given")
		},
	}, client.DoesUseTasks, client.DoesPaginate),
)

// left is when the client left the case on its own (closed the stage's
// stdin, or exited), zero when the harness stopped it first or it never
// did.
func left(c *client.Case) time.Time {
	for _, e := range c.Events {
		if e.From != stage.FromHarness {
			continue
		}
		switch e.Note {
		case client.NoteHarnessStop:
			return time.Time{}
		case stage.NoteStdinClosed, stage.NoteClientExit:
			return e.Time
		}
	}
	return time.Time{}
}

// waitBound is how long a client that asks nothing about its new task
// must have sat silent to be judged waiting for a notification: ten poll
// intervals, at least 2 s.
func waitBound(poll int64) time.Duration {
	return max(2*time.Second, 10*time.Duration(poll)*time.Millisecond)
}

// idleAfter is how long the client sent nothing after the stage's message
// m: until its next message, or else the end of the case (until says
// which).
func idleAfter(c *client.Case, m client.Msg) (time.Duration, string) {
	end := m.Time
	for _, e := range c.Events {
		if e.Seq <= m.Seq {
			continue
		}
		if e.From == stage.FromClient && e.IsMessage() {
			return e.Time.Sub(m.Time), "until its next message"
		}
		if e.Time.After(end) {
			end = e.Time
		}
	}
	return end.Sub(m.Time), "until the case ended: the client " + orNone(c.Exit)
}

// pollBefore is the pollInterval of the stage's latest answer about task
// recorded before req (0 when none gave one).
func pollBefore(task *client.ClientTask, req client.Msg) int64 {
	poll := int64(0)
	if task.Created.Seq < req.Seq {
		poll = task.Poll
	}
	for _, op := range task.Ops {
		if op.Answered && op.Ans.Seq < req.Seq && op.Poll > 0 {
			poll = op.Poll
		}
	}
	return poll
}

// orNone is s, or "none" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
