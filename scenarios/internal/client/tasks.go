package client

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/mcpcheck/mcpcheck/harness/wire"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/harness/rules"
	"github.com/mcpcheck/mcpcheck/harness/stage"
	"github.com/mcpcheck/mcpcheck/reference/server"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec/mcp"
)

// Tasks (2025-11-25), the client as requestor: which tools it calls as
// tasks and when (the tool's execution.taskSupport, the server's tasks
// capability), how it follows a task (polling at the pollInterval until
// the task ends or needs input, tasks/result on input_required, never
// waiting for status notifications), tasks/list cursors, the related-task
// _meta it leaves out, and how it cancels a task. The stage plays the
// receiver with a task engine of its own (tkEngine): it decides the
// pollInterval, when a task needs input and on which stream it asks, and
// it never sends notifications/tasks/status. The client as receiver of the
// stage's task-augmented sampling and elicitation is in tasks_receiver.go.

// The requestor scenarios.
const (
	tkToolsScenario       = "mcpcheck-tasks-tools"
	tkNoCapScenario       = "mcpcheck-tasks-no-capability"
	tkNoToolsCallScenario = "mcpcheck-tasks-no-tools-call"
	tkAnyStreamScenario   = "mcpcheck-tasks-any-stream"
	tkListScenario        = "mcpcheck-tasks-list"
	tkCancelScenario      = "mcpcheck-tasks-cancel"
)

// tkRequestorScenarios are the scenarios in which the client runs tasks on
// the stage.
var tkRequestorScenarios = []string{tkToolsScenario, tkNoCapScenario, tkNoToolsCallScenario, tkAnyStreamScenario, tkListScenario, tkCancelScenario}

// tkPollMs is the pollInterval (milliseconds) of the stage's tasks.
const tkPollMs = 200

// mcp.MetaRelatedTask is the related-task _meta key.

// tkDeclare is what the stage declares of tasks in initialize.
type tkDeclare int

const (
	tkDeclareAll        tkDeclare = iota // tasks {list, cancel, requests.tools.call}
	tkDeclareNone                        // no tasks capability at all
	tkDeclareNoRequests                  // tasks {list, cancel}, no requests
)

// tkTool is a tool of a requestor scenario.
type tkTool struct {
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
	tkRequired  = tkTool{name: "task_required", desc: "Must be called as a task; works for 400 ms", support: mcp.TaskRequired, work: 400 * time.Millisecond}
	tkOptional  = tkTool{name: "task_optional", desc: "May be called as a task; works for 400 ms", support: mcp.TaskOptional, work: 400 * time.Millisecond}
	tkForbidden = tkTool{name: "task_forbidden", desc: "Must not be called as a task", support: mcp.TaskForbidden}
	tkNoSupport = tkTool{name: "no_task_support", desc: "Says nothing about tasks, so must not be called as one"}
	tkNeedInput = tkTool{name: "task_needs_input", desc: "Must be called as a task; needs input from the client at once", support: mcp.TaskRequired, work: 100 * time.Millisecond, input: true}
	tkSide      = tkTool{name: "task_side_channel", desc: "Must be called as a task; asks the client for input while it polls", support: mcp.TaskRequired, work: 3 * time.Second, side: true}
	tkFirst     = tkTool{name: "task_first", desc: "Must be called as a task; works for 100 ms", support: mcp.TaskRequired, work: 100 * time.Millisecond}
	tkSecond    = tkTool{name: "task_second", desc: "Must be called as a task; works for 100 ms", support: mcp.TaskRequired, work: 100 * time.Millisecond}
	tkLong      = tkTool{name: "task_long", desc: "Must be called as a task; works for 15 s", support: mcp.TaskRequired, work: 15 * time.Second}
)

// tkStage is the stage of a requestor scenario: tools served by a fresh
// tkEngine.
func tkStage(declare tkDeclare, pageSize int, tools ...tkTool) func(Env) stage.Config {
	return func(Env) stage.Config {
		e := &tkEngine{declare: declare, pageSize: pageSize, tools: map[string]tkTool{}, tasks: map[string]*tkTask{}, cursors: map[string]int{}}
		var defs []server.Tool
		for _, tt := range tools {
			e.tools[tt.name] = tt
			defs = append(defs, tt.def())
		}
		o := server.Options{NoFixtures: true, Tools: defs, Director: e.direct}
		if declare != tkDeclareAll {
			o.Rewrite = tkDeclareRewrite(declare)
		}
		return stage.Config{Server: o}
	}
}

var _ = RegisterScenarios(
	Scenario{
		Name: tkToolsScenario, Since: spec.V20251125, Until: spec.V20251125,
		Title: "the stage declares task-augmented tools/call and lists task_required, task_optional, task_forbidden, no_task_support (no execution member) and task_needs_input (required; its task needs input, asked for on the tasks/result stream); tasks give pollInterval 200 ms and no status notifications",
		Stage: tkStage(tkDeclareAll, 0, tkRequired, tkOptional, tkForbidden, tkNoSupport, tkNeedInput),
	},
	Scenario{
		Name: tkNoCapScenario, Since: spec.V20251125, Until: spec.V20251125,
		Title: "the stage declares no tasks capability at all, yet lists task_required, task_optional and no_task_support; it answers every tools/call directly",
		Stage: tkStage(tkDeclareNone, 0, tkRequired, tkOptional, tkNoSupport),
	},
	Scenario{
		Name: tkNoToolsCallScenario, Since: spec.V20251125, Until: spec.V20251125,
		Title: "the stage declares tasks (list, cancel) but not tasks.requests.tools.call, and lists task_required, task_optional and no_task_support; it answers every tools/call directly",
		Stage: tkStage(tkDeclareNoRequests, 0, tkRequired, tkOptional, tkNoSupport),
	},
	Scenario{
		Name: tkAnyStreamScenario, Since: spec.V20251125, Until: spec.V20251125, Transports: []wire.Transport{Streamable},
		Title: "task_side_channel (required): while answering the client's first tasks/get about its task the stage sends an elicitation, sampling or roots request related to the task; tasks/get is answered with plain JSON, so that request goes to the client's GET stream, not to a tasks/result stream",
		Stage: tkStage(tkDeclareAll, 0, tkSide),
	},
	Scenario{
		Name: tkListScenario, Since: spec.V20251125, Until: spec.V20251125,
		Title: "task_first and task_second (both required); tasks/list pages hold one task, with opaque cursors",
		Acts:  "call task_first and task_second (as tasks), then list the tasks, following nextCursor to the end",
		Stage: tkStage(tkDeclareAll, 1, tkFirst, tkSecond),
	},
	Scenario{
		Name: tkCancelScenario, Since: spec.V20251125, Until: spec.V20251125,
		Title: "task_long (required) works for 15 s; the stage supports tasks/cancel",
		Acts:  "call task_long as a task, give up on it after 300 ms and cancel it",
		Stage: tkStage(tkDeclareAll, 0, tkLong),
	},
)

// def is the tool as the stage lists it; called without a task it answers
// at once.
func (tt tkTool) def() server.Tool {
	d := mcp.Tool{Name: tt.name, Description: tt.desc, InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}
	if tt.support != "" {
		d.Execution = &mcp.ToolExecution{TaskSupport: tt.support}
	}
	name := tt.name
	return server.Tool{Def: d, Run: func(*server.Call) (any, error) { return tkToolResult(name+" ran without a task", ""), nil }}
}

// tkToolResult is a tool result with text, and the related-task _meta of
// taskID when it is not "".
func tkToolResult(text, taskID string) map[string]any {
	r := map[string]any{"content": []mcp.ContentBlock{mcp.Text(text)}, "isError": false}
	if taskID != "" {
		r["_meta"] = map[string]any{mcp.MetaRelatedTask: map[string]any{"taskId": taskID}}
	}
	return r
}

// tkDeclareRewrite changes the tasks capability of the stage's initialize
// result as declare says.
func tkDeclareRewrite(declare tkDeclare) func(server.Outgoing) [][]byte {
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
		if declare == tkDeclareNoRequests {
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

// tkEngine is the stage's task receiver for tools/call: it serves the
// task-augmented calls of the tools that allow them and tasks/get,
// tasks/result, tasks/list and tasks/cancel, and sends no status
// notifications. A task completes when its work time has passed and the
// client has seen it working or waits on its tasks/result (tkTask.worked).
// Where the stage declares no task support for tools/call
// it answers every tools/call directly, ignoring any task field.
type tkEngine struct {
	declare  tkDeclare
	pageSize int
	tools    map[string]tkTool

	mu      sync.Mutex
	tasks   map[string]*tkTask
	order   []string
	cursors map[string]int // opaque tasks/list cursor -> offset
}

// tkTask is one task of the stage.
type tkTask struct {
	id      string
	tool    tkTool
	status  mcp.TaskStatus
	message string
	created time.Time
	updated time.Time
	ttl     int64
	done    chan struct{}
	timer   *time.Timer
	ask     *tkAsk // the input the task needs from the client (nil: none)
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

// tkAsk is a request the stage sends the client for a task's input.
type tkAsk struct {
	method string
	params map[string]any
}

// tkAskFor picks the input request the stage can send a client with caps:
// form elicitation, else sampling, else roots (nil when none is
// declared).
func tkAskFor(caps mcp.ClientCapabilities) *tkAsk {
	switch {
	case caps.Elicitation.SupportsForm():
		return &tkAsk{spec.MethodElicitationCreate, map[string]any{"mode": "form", "message": "mcpcheck's task needs you to confirm",
			"requestedSchema": json.RawMessage(`{"type":"object","properties":{"confirmed":{"type":"boolean"}},"required":["confirmed"]}`)}}
	case caps.Sampling != nil:
		return &tkAsk{spec.MethodSamplingCreateMessage, map[string]any{"maxTokens": 20,
			"messages": []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Single(&mcp.TextContent{Text: "mcpcheck's task asks: say yes"})}}}}
	case caps.Roots != nil:
		return &tkAsk{spec.MethodRootsList, map[string]any{}}
	}
	return nil
}

// tkRandomID is n random bytes in hex.
func tkRandomID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// tkStamp is t as an RFC 3339 timestamp.
func tkStamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// wire is the task's state as the stage sends it (with t's engine locked).
func (t *tkTask) wire() mcp.Task {
	poll := int64(tkPollMs)
	return mcp.Task{TaskID: t.id, Status: t.status, StatusMessage: t.message, CreatedAt: tkStamp(t.created), LastUpdatedAt: tkStamp(t.updated), TTL: mcp.IntValue(t.ttl), PollInterval: &poll}
}

// direct is the engine's Director: tools/call and the tasks/* requests;
// everything else goes to the server core.
func (e *tkEngine) direct(c *server.Call) (any, error, bool) {
	switch c.Method() {
	case spec.MethodToolsCall:
		return e.call(c)
	case spec.MethodTasksGet, spec.MethodTasksResult, spec.MethodTasksList, spec.MethodTasksCancel:
		if e.declare == tkDeclareNone {
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
func (e *tkEngine) call(c *server.Call) (any, error, bool) {
	var p struct {
		Name string          `json:"name"`
		Task json.RawMessage `json:"task"`
	}
	_ = json.Unmarshal(c.Params(), &p)
	tt, known := e.tools[p.Name]
	if !known {
		return nil, nil, false
	}
	if e.declare != tkDeclareAll {
		return tkToolResult(tt.name+" ran without a task (this server runs no tasks)", ""), nil, true
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
	t := &tkTask{id: tkRandomID(16), tool: tt, status: mcp.TaskWorking, created: now, updated: now, ttl: 60000, done: make(chan struct{})}
	if tm.TTL != nil && *tm.TTL > 0 {
		t.ttl = min(*tm.TTL, 3600000)
	}
	if tt.input || tt.side {
		t.ask = tkAskFor(c.ClientCapabilities())
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
func (e *tkEngine) finish(t *tkTask) {
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
func (e *tkEngine) workDone(t *tkTask) {
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
// (or askTimeout passed).
func (e *tkEngine) askOnce(c *server.Call, t *tkTask) {
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
	_, _ = tkRequest(c, method, params)
	e.mu.Lock()
	if t.status == mcp.TaskInputRequired {
		t.status, t.message, t.updated = mcp.TaskWorking, "", time.Now()
	}
	e.mu.Unlock()
	e.finish(t)
}

// get serves tasks/get (a side-channel task asks for its input first).
func (e *tkEngine) get(c *server.Call, t *tkTask) (any, error, bool) {
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
func (e *tkEngine) result(c *server.Call, t *tkTask) (any, error, bool) {
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
	return tkToolResult(t.tool.name+" ran as a task", t.id), nil, true
}

// cancel serves tasks/cancel: a task that has not ended is cancelled, one
// that has is refused with -32602.
func (e *tkEngine) cancel(t *tkTask) (any, error, bool) {
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
func (e *tkEngine) list(c *server.Call) (any, error, bool) {
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
		cur := "mcpcheck.tasks." + tkRandomID(6) + ".eyJvZmZzZXQiOjF9==+/ é"
		e.cursors[cur] = to
		res.NextCursor = cur
	}
	return res, nil, true
}

// tkRequest sends the client a request on the stream of the request c
// serves and waits at most askTimeout for the answer.
func tkRequest(c *server.Call, method string, params any) (json.RawMessage, error) {
	type answer struct {
		raw json.RawMessage
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		raw, err := c.Request(method, params)
		ch <- answer{raw, err}
	}()
	t := time.NewTimer(askTimeout)
	defer t.Stop()
	select {
	case a := <-ch:
		return a.raw, a.err
	case <-t.C:
		return nil, fmt.Errorf("no answer to %s within %v", method, askTimeout)
	case <-c.Context().Done():
		return nil, c.Context().Err()
	}
}

// The recordings, as the requestor checks read them.

// tkParamTaskID is params.taskId of a tasks/* request ("" when absent).
func tkParamTaskID(params json.RawMessage) string {
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(params, &p)
	return p.TaskID
}

// tkAugmented reports whether request params carry a task field.
func tkAugmented(params json.RawMessage) bool {
	var p struct {
		Task json.RawMessage `json:"task"`
	}
	return json.Unmarshal(params, &p) == nil && len(p.Task) > 0 && string(p.Task) != "null"
}

// tkOp is one request of the client about one of its tasks, with the
// stage's answer.
type tkOp struct {
	req      Msg
	ans      Msg
	answered bool
	// status and poll are what a tasks/get or tasks/cancel answer said.
	status string
	poll   int64
	// cancelled is set when the client cancelled the request itself
	// (notifications/cancelled).
	cancelled bool
}

func (o tkOp) method() string { return o.req.Msg.Method }

// ok reports whether the stage answered with a result.
func (o tkOp) ok() bool { return o.answered && o.ans.Msg.Shape == jsonrpc.KindResponse }

// tkClientTask is a task the client created on the stage: its
// task-augmented tools/call answered with a CreateTaskResult, and what the
// client then asked about it.
type tkClientTask struct {
	id      string
	tool    string
	call    Msg
	created Msg
	poll    int64
	ops     []tkOp
	// callCancelled says the client cancelled the tools/call that created
	// the task (notifications/cancelled naming it): the cancelling side
	// ignores a later answer, so a client that gave up on the call before
	// it learnt of the task owes the task nothing (client/cancellation
	// judges a notification sent for a task the client knew of).
	callCancelled bool
}

// tkClientTasks returns the tasks the client created in c, in order.
func tkClientTasks(c *Case) []*tkClientTask {
	cancelled := map[string]bool{}
	for _, n := range c.Notifications(spec.MethodCancelled) {
		var p mcp.CancelledNotificationParams
		if json.Unmarshal(n.Msg.Params, &p) == nil && !p.RequestID.IsZero() {
			cancelled[c.Session(n)+"|"+p.RequestID.String()] = true
		}
	}
	var out []*tkClientTask
	byID := map[string]*tkClientTask{}
	for _, m := range c.Requests("") {
		switch m.Msg.Method {
		case spec.MethodToolsCall:
			ans, ok := c.StageAnswer(m)
			if !ok || ans.Msg.Shape != jsonrpc.KindResponse {
				continue
			}
			w, ok := rules.CreatedTask(ans.Msg.Result)
			id, idOK := w.ID()
			if !ok || !idOK {
				continue
			}
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(m.Msg.Params, &p)
			t := &tkClientTask{id: id, tool: p.Name, call: m, created: ans, callCancelled: cancelled[c.Session(m)+"|"+m.Msg.ID.String()]}
			t.poll, _ = w.Poll()
			byID[id] = t
			out = append(out, t)
		case spec.MethodTasksGet, spec.MethodTasksResult, spec.MethodTasksCancel:
			t := byID[tkParamTaskID(m.Msg.Params)]
			if t == nil {
				continue
			}
			op := tkOp{req: m, cancelled: cancelled[c.Session(m)+"|"+m.Msg.ID.String()]}
			op.ans, op.answered = c.StageAnswer(m)
			if op.ok() && m.Msg.Method != spec.MethodTasksResult {
				if w, ok := rules.DecodeTask(op.ans.Msg.Result); ok {
					op.status = w.Status
					op.poll, _ = w.Poll()
				}
			}
			t.ops = append(t.ops, op)
		case spec.MethodTasksList:
			// A status learnt from a listing counts as asking too.
			ans, ok := c.StageAnswer(m)
			if !ok || ans.Msg.Shape != jsonrpc.KindResponse {
				continue
			}
			var r struct {
				Tasks []json.RawMessage `json:"tasks"`
			}
			_ = json.Unmarshal(ans.Msg.Result, &r)
			for _, raw := range r.Tasks {
				w, _ := rules.DecodeTask(raw)
				id, _ := w.ID()
				if t := byID[id]; t != nil {
					op := tkOp{req: m, ans: ans, answered: true, status: w.Status}
					op.poll, _ = w.Poll()
					t.ops = append(t.ops, op)
				}
			}
		}
	}
	return out
}

// tkStillFollowing reports whether a client the harness had to stop was
// possibly still following a task whose last request it sent at last: it
// was stopped (not ended by itself) within a few seconds of that request.
func tkStillFollowing(c *Case, last Msg, poll int64) bool {
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

// tkRequestorDeclared reports whether the stage's initialize answer in c
// declared capabilities.tasks, and tasks.requests.tools.call.
func tkRequestorDeclared(c *Case) (tasks, toolsCall, known bool) {
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

// tkListedSupport maps the tools the stage listed in c to their
// execution.taskSupport ("" when absent).
func tkListedSupport(c *Case) map[string]mcp.TaskSupport {
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

// tkToolCalls returns the client's tools/call requests in c with the tool
// named and whether they carry a task field.
func tkToolCalls(c *Case) []struct {
	m         Msg
	name      string
	augmented bool
} {
	var out []struct {
		m         Msg
		name      string
		augmented bool
	}
	for _, m := range c.Requests(spec.MethodToolsCall) {
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(m.Msg.Params, &p)
		out = append(out, struct {
			m         Msg
			name      string
			augmented bool
		}{m, p.Name, tkAugmented(m.Msg.Params)})
	}
	return out
}

// tkEachTask calls judge with every task the client created in the check's
// cases and returns how many there were.
func tkEachTask(t *T, judge func(c *Case, task *tkClientTask)) int {
	n := 0
	for _, c := range t.Cases() {
		for _, task := range tkClientTasks(c) {
			n++
			judge(c, task)
		}
	}
	return n
}

// tkDeclaredAsk reports whether the client declared anything the stage
// can ask it for a task's input (form elicitation, sampling, roots).
func tkDeclaredAsk(c *Case) bool {
	caps, ok := c.Declared()
	return ok && tkAskFor(caps) != nil
}

var _ = Register(
	Def{
		ID: "client/tasks/forbidden-tools", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{tkToolsScenario},
		Title:        "the client never calls as a task a tool whose execution.taskSupport is forbidden or absent",
		Requirements: []string{"tasks.tool.forbidden-not-augmented"},
		Proofs:       []Proof{{Fault: "task-on-forbidden-tool", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				support := tkListedSupport(c)
				for _, call := range tkToolCalls(c) {
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
						t.Fail("tools without task support are called without a task field", fmt.Sprintf("tools/call of %s (%s) carries a task field: %s (%s)", call.name, what, excerpt(call.m), c.Scenario.Name))
					}
				}
			}
			t.settleActed(n, bad, "call "+tkForbidden.name+" or "+tkNoSupport.name, "%d calls of tools without task support, none as a task")
		},
	},
	Def{
		ID: "client/tasks/required-tools", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{tkToolsScenario},
		Title:        `the client calls a tool whose execution.taskSupport is "required" as a task when the server supports task-augmented tools/call`,
		Requirements: []string{"tasks.tool.required-must-augment"},
		Proofs:       []Proof{{Fault: "required-tool-without-task", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				if _, toolsCall, _ := tkRequestorDeclared(c); !toolsCall {
					continue
				}
				support := tkListedSupport(c)
				for _, call := range tkToolCalls(c) {
					if support[call.name] != mcp.TaskRequired {
						continue
					}
					n++
					if !call.augmented {
						bad++
						t.Fail(`a tool with execution.taskSupport "required" is called with a task field`, fmt.Sprintf("tools/call of %s has no task field: %s (%s)", call.name, excerpt(call.m), c.Scenario.Name))
					}
				}
			}
			t.settleActed(n, bad, "call "+tkRequired.name+" (its taskSupport is required)", "%d calls of task-required tools, all as tasks")
		},
	},
	Def{
		ID: "client/tasks/server-capability", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: tkRequestorScenarios,
		Title:        "the client adds a task field only to tools/call, and only when the server declared tasks.requests.tools.call",
		Requirements: []string{"tasks.tool.no-augment-without-server-capability", "tasks.capability.no-tasks-without-capability", "tasks.capability.augment-only-if-declared"},
		Proofs: []Proof{{Fault: "task-without-server-capability", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "task-on-undeclared-request", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			n, bad, undeclared := 0, 0, 0
			for _, c := range t.Cases() {
				tasks, toolsCall, known := tkRequestorDeclared(c)
				if !known {
					continue
				}
				if !toolsCall {
					undeclared += len(c.Requests(spec.MethodToolsCall))
				}
				for _, m := range c.Requests("") {
					n++
					if !tkAugmented(m.Msg.Params) {
						continue
					}
					switch {
					case m.Msg.Method != spec.MethodToolsCall:
						bad++
						t.Violation("tasks.capability.augment-only-if-declared", "a task field only on request types the server lists under capabilities.tasks.requests (2025-11-25: tools/call)",
							fmt.Sprintf("%s carries a task field: %s (%s)", m.Msg.Method, excerpt(m), c.Scenario.Name))
					case !tasks:
						bad++
						actual := fmt.Sprintf("the server declared no tasks capability, yet the client sent %s (%s)", excerpt(m), c.Scenario.Name)
						t.Violation("tasks.tool.no-augment-without-server-capability", "no task-augmented tools/call to a server without tasks.requests.tools.call", actual)
						t.Violation("tasks.capability.no-tasks-without-capability", "no task-augmented request to a server that declared no tasks capability", actual)
						t.Violation("tasks.capability.augment-only-if-declared", "a task field only on request types the server lists under capabilities.tasks.requests", actual)
					case !toolsCall:
						bad++
						actual := fmt.Sprintf("the server declared tasks without tasks.requests.tools.call, yet the client sent %s (%s)", excerpt(m), c.Scenario.Name)
						t.Violation("tasks.tool.no-augment-without-server-capability", "no task-augmented tools/call to a server without tasks.requests.tools.call", actual)
						t.Violation("tasks.capability.augment-only-if-declared", "a task field only on request types the server lists under capabilities.tasks.requests", actual)
					}
				}
			}
			if undeclared == 0 && bad == 0 {
				t.NeedAction(false, "call the tools of a server that does not declare task-augmented tools/call")
				return
			}
			t.settle(n, bad, "", "%d requests; task fields only on tools/call to a server that declared them")
		},
	},
	onlyIf(Def{
		ID: "client/tasks/poll-interval", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: tkRequestorScenarios,
		Title:        "the client's tasks/get polls of a task are spaced at least the pollInterval the stage gave (three quarters of it, as they arrive, for delivery jitter)",
		Requirements: []string{"tasks.poll.honour-poll-interval"},
		Proofs:       []Proof{{Fault: "ignore-poll-interval", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			n, bad := 0, 0
			tkEachTask(t, func(c *Case, task *tkClientTask) {
				var prev *tkOp
				for i := range task.ops {
					op := &task.ops[i]
					if op.method() != spec.MethodTasksGet {
						continue
					}
					if prev != nil {
						if poll := tkPollBefore(task, op.req); poll > 0 {
							n++
							gap := op.req.Time.Sub(prev.req.Time)
							// Three quarters of the interval: room for delivery
							// jitter, none for a client that ignores it.
							if want := time.Duration(poll) * time.Millisecond; gap < want*3/4 {
								bad++
								if bad <= 10 {
									t.Fail(fmt.Sprintf("consecutive tasks/get polls of a task at least the pollInterval (%v) apart", want),
										fmt.Sprintf("task %s: tasks/get %v after the previous one (%s)", task.id, gap.Round(time.Millisecond), c.Scenario.Name))
								}
							}
						}
					}
					prev = op
				}
			})
			t.settleActed(n, bad, "poll a task with tasks/get more than once", "%d tasks/get polls, each at least the pollInterval after the one before")
		},
	}, doesUseTasks),
	onlyIf(Def{
		ID: "client/tasks/keeps-polling", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: tkRequestorScenarios,
		Title:        "the client follows its task until it ends or needs input: it does not stop polling while the task works, unless it waits on tasks/result",
		Requirements: []string{"tasks.poll.until-terminal-or-input", "tasks.poll.continue-alongside-result"},
		Proofs: []Proof{{Fault: "stop-polling-early", Version: spec.V20251125, Want: reports.Warn},
			{Fault: "abandon-after-result-timeout", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			judged := 0
			abandoned := 0
			tkEachTask(t, func(c *Case, task *tkClientTask) {
				if task.callCancelled {
					abandoned++
					return
				}
				judged++
				last := task.created
				if len(task.ops) > 0 {
					last = task.ops[len(task.ops)-1].req
				}
				status := "working"
				if w, ok := rules.CreatedTask(task.created.Msg.Result); ok {
					status = w.Status
				}
				left := tkLeft(c)
				var endedResult *tkOp // the last tasks/result that ended without an outcome
				leftWaiting := false  // the client left with a tasks/result unanswered
				for i, op := range task.ops {
					// An answer that came after the client left never reached it.
					unseen := !left.IsZero() && (!op.answered || op.ans.Time.After(left))
					switch {
					case op.method() == spec.MethodTasksCancel:
						return // the client ended the task on purpose
					case op.method() == spec.MethodTasksResult && op.cancelled:
						endedResult = &task.ops[i]
					case op.method() == spec.MethodTasksResult && unseen:
						leftWaiting = true
					case op.method() == spec.MethodTasksResult && !op.answered:
						return // blocked on tasks/result when the harness stopped the client
					case op.method() == spec.MethodTasksResult && op.ok():
						return // the outcome
					case op.method() == spec.MethodTasksResult:
						endedResult = &task.ops[i] // answered with an error
					case op.status != "" && !unseen:
						status = op.status
						endedResult = nil
					}
					if mcp.Terminal(mcp.TaskStatus(status)) || status == string(mcp.TaskInputRequired) {
						return
					}
				}
				if tkStillFollowing(c, last, task.poll) {
					return
				}
				if endedResult != nil {
					how := "was answered with an error"
					if endedResult.cancelled {
						how = "was cancelled by the client"
					}
					t.Violation("tasks.poll.continue-alongside-result", "a requestor not blocked on tasks/result keeps polling its task with tasks/get until it ends",
						fmt.Sprintf("task %s (%s): the client's tasks/result %s while the task was %s, and the client asked nothing more about it (%s)", task.id, task.tool, how, status, c.Scenario.Name))
					return
				}
				if leftWaiting {
					t.Violation("tasks.poll.until-terminal-or-input", "the requestor follows its task until it is completed, failed or cancelled, or needs input",
						fmt.Sprintf("task %s (%s): the client left while its tasks/result was unanswered and the task %s (%s)", task.id, task.tool, status, c.Scenario.Name))
					return
				}
				t.Violation("tasks.poll.until-terminal-or-input", "the requestor polls its task until it is completed, failed or cancelled, or needs input",
					fmt.Sprintf("task %s (%s): the client stopped asking about it while it was %s (%d requests about the task) (%s)", task.id, task.tool, status, len(task.ops), c.Scenario.Name))
			})
			if abandoned > 0 {
				t.Saw("%d tasks not judged: the client cancelled the tools/call that created them", abandoned)
			}
			if judged == 0 {
				t.NeedAction(false, "call "+tkRequired.name+" as a task and follow it")
				return
			}
			if t.Open() {
				t.Saw("%d tasks followed to their end", judged)
				t.Pass()
			}
		},
	}, doesUseTasks),
	onlyIf(Def{
		ID: "client/tasks/no-status-reliance", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: tkRequestorScenarios,
		Title:        "the client learns how its task ends by asking (tasks/get, tasks/result): it does not sit waiting for notifications/tasks/status, which the stage never sends",
		Requirements: []string{"tasks.notify.not-relied-upon"},
		Proofs:       []Proof{{Fault: "wait-for-status-notification", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			bad := 0
			n := tkEachTask(t, func(c *Case, task *tkClientTask) {
				if len(task.ops) > 0 || task.callCancelled {
					return // asked about, or given up with the call that made it
				}
				// Never asked about: a client that went on at once abandoned
				// the task (client/tasks/keeps-polling); one that sat silent
				// waited for something the stage never sends.
				idle, until := tkIdleAfter(c, task.created)
				if idle < tkWaitBound(task.poll) {
					return
				}
				bad++
				t.Fail("a requestor reaches its task's outcome by asking, never by waiting for notifications/tasks/status (the stage sends none)",
					fmt.Sprintf("task %s (%s) was created, then the client sent nothing at all for %v (%s) and never asked about the task (%s)", task.id, task.tool, idle.Round(time.Millisecond), until, c.Scenario.Name))
			})
			t.settleActed(n, bad, "call "+tkRequired.name+" as a task", "%d tasks; the client never sat waiting for a status notification")
		},
	}, doesUseTasks),
	onlyIf(Def{
		ID: "client/tasks/input-required", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{tkToolsScenario},
		Title:        "when tasks/get says input_required the client calls tasks/result straight away (at most one more poll before it)",
		Requirements: []string{"tasks.input.requestor-calls-result"},
		Proofs:       []Proof{{Fault: "no-result-on-input-required", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			n, bad := 0, 0
			tkEachTask(t, func(c *Case, task *tkClientTask) {
				seen, polls := -1, 0
				for i, op := range task.ops {
					if seen < 0 && op.method() == spec.MethodTasksResult && task.tool == tkNeedInput.name {
						n++ // waiting on tasks/result before it could see input_required
						return
					}
					if seen < 0 && op.status == string(mcp.TaskInputRequired) {
						seen = i
						continue
					}
					if seen < 0 {
						continue
					}
					switch op.method() {
					case spec.MethodTasksResult:
						n++
						if polls > 1 {
							bad++
							t.Fail("on input_required the requestor calls tasks/result straight away", fmt.Sprintf("task %s: %d more tasks/get polls before tasks/result (%s)", task.id, polls, c.Scenario.Name))
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
				if len(task.ops) > 0 && tkStillFollowing(c, task.ops[len(task.ops)-1].req, task.poll) && polls <= 1 {
					return
				}
				bad++
				t.Fail("on input_required the requestor calls tasks/result straight away", fmt.Sprintf("task %s said input_required; the client never called tasks/result (%d more tasks/get polls) (%s)", task.id, polls, c.Scenario.Name))
			})
			if n == 0 {
				for _, c := range t.Cases() {
					if c.Traffic() && !tkDeclaredAsk(c) {
						t.NotApplicable("the client declared neither elicitation, sampling nor roots, so the stage's task had nothing to ask it and never needed input")
						return
					}
				}
				t.NeedAction(false, "call "+tkNeedInput.name+" as a task and poll it")
				return
			}
			t.settle(n, bad, "", "%d tasks needing input, tasks/result called at once")
		},
	}, doesUseTasks),
	onlyIf(Def{
		ID: "client/tasks/any-stream", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{tkAnyStreamScenario}, Transports: []wire.Transport{Streamable},
		Title:        "the client answers a task-related request the stage sends on its GET stream, not only those on a tasks/result stream",
		Requirements: []string{"tasks.http.messages-on-any-stream"},
		Proofs:       []Proof{{Fault: "ignore-side-channel-requests", Version: spec.V20251125, Transport: Streamable, Want: reports.Warn}},
		Body: func(t *T) {
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
					if c.Traffic() && !tkDeclaredAsk(c) {
						t.NotApplicable("the client declared neither elicitation, sampling nor roots, so the stage had nothing to ask it")
						return
					}
				}
				t.NeedAction(false, "call "+tkSide.name+" as a task and poll it with tasks/get while its GET stream is open (the stage's request goes there)")
				return
			}
			t.settle(n, bad, "", "%d task-related requests on the GET stream, all answered")
		},
	}, doesUseTasks),
	Def{
		ID: "client/tasks/requestor-related-meta", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: tkRequestorScenarios,
		Title:        "the client's tasks/get, tasks/result, tasks/list and tasks/cancel requests carry no related-task _meta",
		Requirements: []string{"tasks.related.requestor-omits-on-task-ops", "tasks.related.omit-on-get-list-cancel"},
		Proofs:       []Proof{{Fault: "related-meta-on-task-ops", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
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
					actual := fmt.Sprintf("%s (%s)", excerpt(m), c.Scenario.Name)
					if method != spec.MethodTasksList {
						t.Violation("tasks.related.requestor-omits-on-task-ops", "no related-task _meta on tasks/get, tasks/result and tasks/cancel (params.taskId names the task)", actual)
					}
					if method != spec.MethodTasksResult {
						t.Violation("tasks.related.omit-on-get-list-cancel", "no related-task _meta on tasks/get, tasks/list and tasks/cancel requests", actual)
					}
				}
			}
			t.settle(n, bad, "the client sent no tasks/get, tasks/result, tasks/list or tasks/cancel", "%d task requests, none with related-task _meta")
		},
	},
	onlyIf(Def{
		ID: "client/tasks/list-cursor", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{tkListScenario},
		Title:        "the client hands tasks/list cursors back exactly as the stage gave them",
		Requirements: []string{"tasks.list.cursor-opaque"},
		Proofs:       []Proof{{Fault: "task-list-cursor-altered", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
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
							t.Fail("a tasks/list cursor is a nextCursor the stage gave, unchanged", fmt.Sprintf("cursor %s; the stage had given %s (%s)", p.Cursor, tkOrNone(strings.Join(list, ", ")), c.Scenario.Name))
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
			t.settleActed(n, bad, "list the tasks and follow nextCursor", "%d tasks/list cursors, each handed back as given")
		},
	}, doesUseTasks, doesPaginate),
)

// tkLeft is when the client left the case on its own (closed the stage's
// stdin, or exited), zero when the harness stopped it first or it never
// did.
func tkLeft(c *Case) time.Time {
	for _, e := range c.Events {
		if e.From != stage.FromHarness {
			continue
		}
		switch e.Note {
		case NoteHarnessStop:
			return time.Time{}
		case stage.NoteStdinClosed, stage.NoteClientExit:
			return e.Time
		}
	}
	return time.Time{}
}

// tkWaitBound is how long a client that asks nothing about its new task
// must have sat silent to be judged waiting for a notification: ten poll
// intervals, at least 2 s.
func tkWaitBound(poll int64) time.Duration {
	return max(2*time.Second, 10*time.Duration(poll)*time.Millisecond)
}

// tkIdleAfter is how long the client sent nothing after the stage's message
// m: until its next message, or else the end of the case (until says
// which).
func tkIdleAfter(c *Case, m Msg) (time.Duration, string) {
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
	return end.Sub(m.Time), "until the case ended: the client " + tkOrNone(c.Exit)
}

// tkPollBefore is the pollInterval of the stage's latest answer about task
// recorded before req (0 when none gave one).
func tkPollBefore(task *tkClientTask, req Msg) int64 {
	poll := int64(0)
	if task.created.Seq < req.Seq {
		poll = task.poll
	}
	for _, op := range task.ops {
		if op.answered && op.ans.Seq < req.Seq && op.poll > 0 {
			poll = op.poll
		}
	}
	return poll
}

// tkOrNone is s, or "none" when s is empty.
func tkOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
