// Package tasks holds the server suite's checks of area tasks (2025-11-25
// task-augmented requests) and the helpers only they use; initialising it
// registers them into the suite's registry (internal/scenarios/internal/server).
package tasks

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Tasks (2025-11-25): capability and taskSupport negotiation,
// CreateTaskResult, legal transitions only, timestamps and ttl,
// tasks/result semantics and related-task _meta, tasks/cancel rules,
// tasks/list. tasks/result blocks until the task is terminal, so no check
// polls on a timer.

// candidate picks the tool to run as a task: ref_slow (a fixture whose
// duration mcpcheck controls) or any safe tool that supports tasks and for
// which arguments can be generated.
func candidate(t *server.T, ms int) (string, json.RawMessage, bool) {
	if _, ok := t.Tool("ref_slow"); ok {
		return "ref_slow", json.RawMessage(fmt.Sprintf(`{"ms":%d}`, ms)), true
	}
	tools, _ := t.PolicyTools()
	for _, i := range t.CallableTools(tools, false) {
		tl := tools[i]
		if tl.Execution == nil || tl.Execution.TaskSupport == "" || tl.Execution.TaskSupport == mcp.TaskForbidden {
			continue
		}
		if args, ok := t.ToolArgs(tl); ok {
			return tl.Name, args, true
		}
	}
	t.Untestable(t.PolicyReason("the target lists no tool that supports tasks (execution.taskSupport optional or required) that mcpcheck may call", tools, func(tl mcp.Tool) bool {
		return tl.Execution != nil && (tl.Execution.TaskSupport == mcp.TaskOptional || tl.Execution.TaskSupport == mcp.TaskRequired)
	}))
	return "", nil, false
}

// setup opens a task check: the server must declare task-augmented
// tools/call and the capabilities caps (n/a otherwise) and list a tool to
// run as a task (see candidate; ms of work for ref_slow); the session
// is a pooled one.
func setup(t *server.T, ms int, caps ...string) (c *server.Conn, name string, args json.RawMessage, ok bool) {
	for _, p := range append([]string{"tasks.requests.tools.call"}, caps...) {
		if !t.RequireCapability(p) {
			return nil, "", nil, false
		}
	}
	if name, args, ok = candidate(t, ms); !ok {
		return nil, "", nil, false
	}
	return t.Session(), name, args, true
}

// start is setup, then the tool run as a task (see create).
func start(t *server.T, ms int, caps ...string) (*server.Conn, rules.TaskPayload, bool) {
	c, name, args, ok := setup(t, ms, caps...)
	if !ok {
		return nil, rules.TaskPayload{}, false
	}
	w, _, ok := create(t, c.S(), name, args)
	return c, w, ok
}

// create runs a task-augmented tools/call and returns the task and
// the reply.
func create(t *server.T, s server.Sess, name string, args json.RawMessage) (rules.TaskPayload, json.RawMessage, bool) {
	r := s.Call(t.Ctx, spec.MethodToolsCall, server.TaskCallParams(name, args, map[string]any{"ttl": 60000}))
	if !r.OK() {
		t.Violation("tasks.create.returns-create-task-result", "a task-augmented tools/call of "+name+" is answered with a CreateTaskResult", r.Describe())
		return rules.TaskPayload{}, nil, false
	}
	w, ok := rules.CreatedTask(r.Result)
	if !ok {
		t.Violation("tasks.create.returns-create-task-result", "a CreateTaskResult ({task: {taskId, status, ...}}) for the task-augmented call of "+name, "result "+server.Clip(r.Result))
		return w, r.Result, false
	}
	return w, r.Result, true
}

// fields judges the fields every task payload carries.
func fields(t *server.T, where string, w rules.TaskPayload, needTTL bool) {
	if _, ok := w.ID(); !ok {
		t.Violation("tasks.id.string", "taskId is a JSON string", fmt.Sprintf("%s: taskId %s", where, w.TaskID))
	}
	ts := func(req, name string, v *string) {
		if v == nil {
			t.Violation(req, name+" on every task payload", where+": "+name+" is missing")
			return
		}
		if _, ok := rules.TaskTime(*v); !ok {
			t.Violation(req, name+" is an ISO 8601 / RFC 3339 timestamp", fmt.Sprintf("%s: %s %q", where, name, *v))
		}
	}
	ts("tasks.ttl.created-at", "createdAt", w.CreatedAt)
	ts("tasks.ttl.last-updated-at", "lastUpdatedAt", w.LastUpdatedAt)
	if needTTL {
		if !w.TTLValid() {
			t.Violation("tasks.ttl.reported-in-get", "tasks/get states the ttl in force (milliseconds, or null)", fmt.Sprintf("%s: ttl %s", where, rules.OrAbsent(w.TTL, w.HasTTL)))
		}
	}
}

// next reports whether a task seen in status a may next be seen in
// status b: a legal transition, or no change of a status that is not
// terminal.
func next(a, b string) bool {
	return a != "" && (a == b || mcp.LegalTransition(mcp.TaskStatus(a), mcp.TaskStatus(b)))
}

// getParams are the params of a tasks/get of task id, optionally with
// a misleading related-task _meta naming another task.
func getParams(id string, decoy bool) map[string]any {
	p := map[string]any{"taskId": id}
	if decoy {
		p["_meta"] = map[string]any{mcp.MetaRelatedTask: map[string]any{"taskId": "mcpcheck-decoy-task"}}
	}
	return p
}

// get asks tasks/get, optionally with a misleading related-task _meta.
func get(t *server.T, s server.Sess, id string, decoy bool) (rules.TaskPayload, json.RawMessage, bool) {
	r := s.Call(t.Ctx, spec.MethodTasksGet, getParams(id, decoy))
	if !r.OK() {
		t.Violation("tasks.ttl.reported-in-get", "tasks/get answers for a task that was just created", r.Describe())
		return rules.TaskPayload{}, nil, false
	}
	w, ok := rules.DecodeTask(r.Result)
	if !ok {
		t.Violation("tasks.ttl.reported-in-get", "a tasks/get result with the task's fields", server.Clip(r.Result))
	}
	return w, r.Result, ok
}

// The task checks form the group "tasks": the task store (tasks/list,
// task ids) is the server's, shared by every session, so no two of them
// run at the same time; other checks may overlap them.
var _ = server.Register(
	server.Def{
		ID: "tasks/create-result", Group: "tasks", Area: "tasks", Eras: server.Stateful,
		Title:        "a task-augmented tools/call is answered with a CreateTaskResult: string taskId, status working, RFC 3339 createdAt and lastUpdatedAt",
		Requirements: []string{"tasks.create.returns-create-task-result", "tasks.id.string", "tasks.status.starts-working", "tasks.ttl.created-at", "tasks.ttl.last-updated-at"},
		Proofs:       []server.Proof{{Fault: "task-created-at-not-rfc3339", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *server.T) {
			c, w, ok := start(t, 50)
			if !ok {
				return
			}
			fields(t, "CreateTaskResult", w, false)
			if w.Status != "working" {
				t.Violation("tasks.status.starts-working", "a new task has status working", fmt.Sprintf("status %q", w.Status))
			}
			if id, ok := w.ID(); ok {
				// Let the task finish before the session is reused.
				if r := t.TaskResult(c.S(), id); !r.OK() && r.Error == nil {
					t.Taint()
				}
			}
			if t.Open() {
				t.Saw("task %s created working", w.TaskID)
				t.Pass()
			}
		},
	},
	server.Def{
		ID: "tasks/lifecycle", Group: "tasks", Area: "tasks", Eras: server.Stateful,
		Title:        "a task moves only along legal transitions, tasks/result returns the tool result with related-task _meta, tasks/get reports ttl and the final status, tasks/list shows the task",
		Requirements: []string{"tasks.status.valid-transitions", "tasks.status.terminal-is-final", "tasks.ttl.reported-in-get", "tasks.related.result-response-carries-meta", "tasks.result.success-passthrough", "tasks.related.param-is-authoritative", "tasks.related.omit-on-get-list-cancel", "tasks.list.includes-gettable"},
		Proofs:       []server.Proof{{Fault: "task-result-no-related-meta", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *server.T) {
			c, w, ok := start(t, 50)
			if !ok {
				return
			}
			s := c.S()
			id, ok := w.ID()
			if !ok {
				t.Violation("tasks.status.valid-transitions", "a usable taskId to follow the task", string(w.TaskID))
				return
			}
			statuses := []string{w.Status}
			g, graw, ok := get(t, s, id, false)
			if !ok {
				return
			}
			if _, has := rules.RelatedTask(graw); has {
				t.Violation("tasks.related.omit-on-get-list-cancel", "no related-task _meta on a tasks/get result", server.Clip(graw))
			}
			fields(t, "tasks/get", g, true)
			statuses = append(statuses, g.Status)
			r := t.TaskResult(s, id)
			if r.OK() {
				rel, has := rules.RelatedTask(r.Result)
				if !has || rel != id {
					t.Violation("tasks.related.result-response-carries-meta", "the tasks/result result carries _meta related-task {taskId: "+id+"}", server.Clip(r.Result))
				}
				var ctr struct {
					Content json.RawMessage `json:"content"`
				}
				if json.Unmarshal(r.Result, &ctr) != nil || len(ctr.Content) == 0 || ctr.Content[0] != '[' {
					t.Violation("tasks.result.success-passthrough", "tasks/result returns the tool's CallToolResult (a content array)", server.Clip(r.Result))
				}
			} else if r.Error == nil {
				t.Taint()
				if r.Observed.Status == expect.TimedOut {
					t.Untestable("the task did not finish within the step timeout, so tasks/result could not be judged (a longer --timeout helps)")
					return
				}
				t.JudgeReply(r)
				return
			} else {
				t.Saw("tasks/result answered the error the call ended with: %s", r.Describe())
			}
			for i := 0; i < 2; i++ {
				g2, _, ok := get(t, s, id, false)
				if !ok {
					return
				}
				statuses = append(statuses, g2.Status)
			}
			for i := 1; i < len(statuses); i++ {
				a, b := statuses[i-1], statuses[i]
				if mcp.Terminal(mcp.TaskStatus(a)) && a != b {
					t.Violation("tasks.status.terminal-is-final", "a terminal status never changes", fmt.Sprintf("statuses %v", statuses))
					break
				}
				if !mcp.Terminal(mcp.TaskStatus(a)) && !next(a, b) {
					t.Violation("tasks.status.valid-transitions", "only legal status transitions", fmt.Sprintf("statuses %v", statuses))
					break
				}
			}
			if last := statuses[len(statuses)-1]; !mcp.Terminal(mcp.TaskStatus(last)) {
				t.Violation("tasks.status.valid-transitions", "after tasks/result answered, tasks/get reports a terminal status", fmt.Sprintf("statuses %v", statuses))
			}
			// Last, as it may derail a receiver that honours the _meta: a
			// tasks/get whose related-task _meta names another task.
			dr := s.Call(t.Ctx, spec.MethodTasksGet, getParams(id, true))
			if dr.OK() {
				d, _ := rules.DecodeTask(dr.Result)
				if did, _ := d.ID(); did != id {
					t.Violation("tasks.related.param-is-authoritative", "tasks/get names the task of params.taskId, whatever related-task _meta says", fmt.Sprintf("asked %s with a decoy related-task _meta, got task %s", id, d.TaskID))
				}
			} else {
				t.Taint()
				t.Violation("tasks.related.param-is-authoritative", "tasks/get with params.taskId "+id+" is answered for that task, the related-task _meta naming another task being ignored", dr.Describe())
			}
			if t.HasCapability("tasks.list") {
				items, err := t.Walk(s, spec.MethodTasksList, "tasks")
				found := false
				for _, it := range items {
					x, _ := rules.DecodeTask(it)
					if xid, _ := x.ID(); xid == id {
						found = true
					}
					if _, has := rules.RelatedTask(it); has {
						t.Violation("tasks.related.omit-on-get-list-cancel", "no related-task _meta in tasks/list entries", server.Clip(it))
					}
				}
				if !found {
					why := fmt.Sprintf("%d tasks listed, %s not among them", len(items), id)
					if err != nil {
						why += " (" + err.Error() + ")"
					}
					t.Violation("tasks.list.includes-gettable", "tasks/list includes every task tasks/get can fetch", why)
				}
			}
			if t.Open() {
				t.Saw("task %s: statuses %v", id, statuses)
				t.Pass()
			}
		},
	},
	server.Def{
		ID: "tasks/cancel-terminal", Group: "tasks", Area: "tasks", Eras: server.Stateful,
		Title:        "tasks/cancel of a task that already finished is refused with -32602",
		Requirements: []string{"tasks.cancel.terminal-invalid-params"},
		Proofs:       []server.Proof{{Fault: "task-cancel-terminal-accepted", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *server.T) {
			c, w, ok := start(t, 0, "tasks.cancel")
			if !ok {
				return
			}
			s := c.S()
			id, _ := w.ID()
			t.TaskResult(s, id)
			g, _, ok := get(t, s, id, false)
			if !ok || !mcp.Terminal(mcp.TaskStatus(g.Status)) {
				t.Untestable(fmt.Sprintf("the task did not reach a terminal status to cancel (status %q)", g.Status))
				return
			}
			rid, st := t.Ask(c, spec.MethodTasksCancel, map[string]any{"taskId": id})
			t.Expect("tasks/cancel of task %s, already %s", id, g.Status)
			t.Judge(t.AnswerOn(s, st, expect.Error(rid, jsonrpc.InvalidParams)))
		},
	},
	server.Def{
		ID: "tasks/cancel-working", Group: "tasks", Area: "tasks", Eras: server.Stateful, Labels: []string{server.FeatureFixture("ref_slow")},
		Title:        "a task is created promptly, tasks/cancel of the running task answers it cancelled, and it stays cancelled",
		Requirements: []string{"tasks.create.return-promptly", "tasks.cancel.cancelled-before-response", "tasks.cancel.stays-cancelled"},
		Proofs:       []server.Proof{{Fault: "task-cancel-answers-working", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *server.T) {
			if !t.RequireCapability("tasks.requests.tools.call") || !t.RequireCapability("tasks.cancel") {
				return
			}
			if _, ok := t.RequireTool("ref_slow"); !ok {
				return
			}
			c := t.Session()
			s := c.S()
			start := time.Now()
			r := s.Call(t.Ctx, spec.MethodToolsCall, server.TaskCallParams("ref_slow", map[string]any{"ms": 20000}, map[string]any{"ttl": 60000}))
			if !r.OK() {
				t.Violation("tasks.create.return-promptly", "the CreateTaskResult comes at once, not after the 20 s of work", r.Describe())
				return
			}
			w, _ := rules.CreatedTask(r.Result)
			id, ok := w.ID()
			if !ok {
				t.Untestable("the call did not create a task: " + server.Clip(r.Result))
				return
			}
			t.Saw("task %s created after %s", id, time.Since(start).Round(time.Millisecond))
			cr := s.Call(t.Ctx, spec.MethodTasksCancel, map[string]any{"taskId": id})
			if !cr.OK() {
				t.Violation("tasks.cancel.cancelled-before-response", "tasks/cancel of a working task succeeds", cr.Describe())
				return
			}
			var cres rules.TaskPayload
			_ = json.Unmarshal(cr.Result, &cres)
			if cres.Status != "cancelled" {
				var wrapped struct {
					Task rules.TaskPayload `json:"task"`
				}
				_ = json.Unmarshal(cr.Result, &wrapped)
				cres = wrapped.Task
			}
			if cres.Status != "cancelled" {
				t.Violation("tasks.cancel.cancelled-before-response", "the tasks/cancel result shows status cancelled", server.Clip(cr.Result))
			}
			for i := 0; i < 2; i++ {
				g, _, ok := get(t, s, id, false)
				if !ok {
					return
				}
				if g.Status != "cancelled" {
					t.Violation("tasks.cancel.stays-cancelled", "a cancelled task stays cancelled", fmt.Sprintf("tasks/get says %q", g.Status))
					break
				}
				server.Sentinel(t.Ctx, s)
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
	server.Def{
		ID: "tasks/unknown-id", Group: "tasks", Area: "tasks", Eras: server.Stateful,
		Title:        "tasks/get, tasks/result and tasks/cancel of an unknown taskId are refused with -32602 and a message",
		Requirements: []string{"tasks.errors.protocol-error-codes", "tasks.errors.informative-messages"},
		Proofs:       []server.Proof{{Fault: "unknown-task-internal-error", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *server.T) {
			if !t.RequireCapability("tasks") {
				return
			}
			c := t.Session()
			methods := []string{spec.MethodTasksGet, spec.MethodTasksResult}
			if t.HasCapability("tasks.cancel") {
				methods = append(methods, spec.MethodTasksCancel)
			}
			for _, m := range methods {
				obs := t.AskError(c, m, map[string]any{"taskId": "mcpcheck-no-such-task-7f3a"}, jsonrpc.InvalidParams)
				if !obs.OK() {
					t.Violation("tasks.errors.protocol-error-codes", m+" of an unknown taskId is refused with -32602", obs.Actual)
					continue
				}
				if strings.TrimSpace(obs.Frame.Msg.Error.Message) == "" {
					t.Violation("tasks.errors.informative-messages", "the error message explains the cause", m+": empty message")
				}
			}
			if t.Open() {
				t.Saw("%v refused with -32602", methods)
				t.Pass()
			}
		},
	},
	server.Def{
		ID: "tasks/ids-unique", Group: "tasks", Area: "tasks", Eras: server.Stateful,
		Title:        "two tasks get different, unguessable taskIds (no counters or timestamps)",
		Requirements: []string{"tasks.id.unique-per-receiver", "tasks.security.unguessable-ids"},
		Proofs:       []server.Proof{{Fault: "task-ids-counter", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *server.T) {
			c, name, args, ok := setup(t, 0)
			if !ok {
				return
			}
			s := c.S()
			var ids []string
			for i := 0; i < 2; i++ {
				w, _, ok := create(t, s, name, args)
				if !ok {
					return
				}
				id, _ := w.ID()
				ids = append(ids, id)
				t.TaskResult(s, id)
			}
			a, b := ids[0], ids[1]
			if a == b {
				t.Violation("tasks.id.unique-per-receiver", "distinct taskIds", fmt.Sprintf("both tasks are %q", a))
				return
			}
			p := 0
			for p < len(a) && p < len(b) && a[p] == b[p] {
				p++
			}
			if rules.DigitsOnly(a[p:]) && rules.DigitsOnly(b[p:]) {
				t.Violation("tasks.security.unguessable-ids", "taskIds from a secure random source, not a counter or timestamp", fmt.Sprintf("%q then %q differ only in trailing digits", a, b))
				return
			}
			t.Saw("taskIds %q and %q", a, b)
			t.Pass()
		},
	},
	server.Def{
		ID: "tasks/undeclared-ignored", Group: "tasks", Area: "tasks", Eras: server.Stateful,
		Title:        "a server that did not declare task support for tools/call ignores a task field and answers with the ordinary result",
		Requirements: []string{"tasks.support.undeclared-type-ignores-task", "tasks.capability.declare-when-supported"},
		Proofs:       []server.Proof{{Fault: "tasks-undeclared-honoured", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *server.T) {
			if !t.RequireCapability("tools") {
				return
			}
			if !t.Require(!t.HasCapability("tasks.requests.tools.call"), "the server declared task support for tools/call") {
				return
			}
			tools, _ := t.PolicyTools()
			name := ""
			var args json.RawMessage
			for _, i := range t.CallableTools(tools, true) {
				if a, ok := t.ToolArgs(tools[i]); ok {
					name, args = tools[i].Name, a
					break
				}
			}
			if !t.RequireFixture(name != "", t.PolicyReason("the target lists no tool that mcpcheck may call with generated arguments", tools, server.PlainCall)) {
				return
			}
			c := t.Session()
			plain := t.CallTool(c.S(), name, args, nil)
			if !plain.OK() {
				t.Untestable(fmt.Sprintf("%s fails even without a task field (%s), so ignoring the field cannot be judged", name, plain.Describe()))
				return
			}
			r := c.S().Call(t.Ctx, spec.MethodToolsCall, server.TaskCallParams(name, args, map[string]any{"ttl": 60000}))
			if !r.OK() {
				t.Saw("%s with a task field: %s", name, r.Describe())
				if r.Error != nil {
					t.Violation("tasks.support.undeclared-type-ignores-task", "the task field is ignored and the call processed normally", r.Describe())
				} else {
					t.JudgeReply(r)
				}
				return
			}
			var res map[string]json.RawMessage
			_ = json.Unmarshal(r.Result, &res)
			if _, isTask := res["task"]; isTask {
				t.Violation("tasks.capability.declare-when-supported", "a server that accepts task-augmented tools/call declares tasks.requests.tools.call", "it answered with a CreateTaskResult without declaring it")
				t.Violation("tasks.support.undeclared-type-ignores-task", "the ordinary tools/call result, not a CreateTaskResult", server.Clip(r.Result))
				return
			}
			t.Saw("%s with a task field answered with its ordinary result", name)
			t.Pass()
		},
	},
)

var _ = server.Register(
	server.Def{
		ID: "tasks/id-receiver-generated", Group: "tasks", Area: "tasks", Eras: server.Stateful,
		Title:        "the receiver chooses the taskId: a taskId the requestor slips into params.task is not adopted",
		Requirements: []string{"tasks.id.receiver-generated"},
		Proofs:       []server.Proof{{Fault: "task-id-from-requestor", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *server.T) {
			c, name, args, ok := setup(t, 0)
			if !ok {
				return
			}
			s := c.S()
			const chosen = "mcpcheck-chosen-task-id"
			r := s.Call(t.Ctx, spec.MethodToolsCall, server.TaskCallParams(name, args, map[string]any{"ttl": 60000, "taskId": chosen}))
			if !r.OK() {
				t.Untestable("the server refused params.task with an extra taskId member, so there is no task to judge: " + r.Describe())
				return
			}
			w, _ := rules.CreatedTask(r.Result)
			id, ok := w.ID()
			if !ok {
				t.Untestable("the call did not create a task: " + server.Clip(r.Result))
				return
			}
			t.TaskResult(s, id)
			if id == chosen {
				t.Fail("the receiver generates the taskId", "the task took the id the requestor proposed: "+id)
				return
			}
			t.Saw("the server chose %q", id)
			t.Pass()
		},
	},
	server.Def{
		ID: "tasks/result-same-outcome", Group: "tasks", Area: "tasks", Eras: server.Stateful, Labels: []string{server.FeatureFixture("ref_slow")},
		Title:        "tasks/result of a finished task returns the very result the call gives without a task",
		Requirements: []string{"tasks.result.terminal-returns-outcome"},
		Proofs:       []server.Proof{{Fault: "task-result-differs", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *server.T) {
			if !t.RequireCapability("tasks.requests.tools.call") {
				return
			}
			if _, ok := t.RequireTool("ref_slow"); !ok {
				return
			}
			c := t.Session()
			s := c.S()
			args := json.RawMessage(`{"ms":0}`)
			plain := t.CallTool(s, "ref_slow", args, nil)
			if !plain.OK() {
				t.Untestable("ref_slow without a task failed: " + plain.Describe())
				return
			}
			w, _, ok := create(t, s, "ref_slow", args)
			if !ok {
				return
			}
			id, _ := w.ID()
			r := t.TaskResult(s, id)
			if !r.OK() {
				t.Fail("tasks/result returns the result the call gives without a task", r.Describe())
				return
			}
			a, b := withoutMeta(plain.Result), withoutMeta(r.Result)
			if a != b {
				t.Fail("tasks/result returns the result the call gives without a task", fmt.Sprintf("without a task %s; tasks/result %s", a, b))
				return
			}
			t.Saw("both %s", a)
			t.Pass()
		},
	},
	server.Def{
		ID: "tasks/get-plain-json", Group: "tasks", Area: "tasks", Eras: server.Stateful, Transports: []wire.Transport{"streamable"},
		Title:        "on streamable HTTP tasks/get is answered with a plain JSON response, not an SSE stream",
		Requirements: []string{"tasks.http.no-sse-for-tasks-get"},
		Proofs:       []server.Proof{{Fault: "tasks-get-sse", Version: spec.V20251125, Transport: "streamable", Want: reports.Warn}},
		Body: func(t *server.T) {
			c, w, ok := start(t, 0)
			if !ok {
				return
			}
			s := c.S()
			id, _ := w.ID()
			r := s.Call(t.Ctx, spec.MethodTasksGet, map[string]any{"taskId": id})
			t.TaskResult(s, id)
			if !t.JudgeReply(r) {
				return
			}
			if r.Observed.Frame.InSSE {
				t.Fail("tasks/get answered as application/json", "it was answered on an SSE stream")
				return
			}
			t.Pass()
		},
	},
	server.Def{
		ID: "tasks/server-as-requestor", Area: "tasks", Passive: true, Eras: server.Stateful,
		Title:        "the server sends no task-augmented requests to a client that declared no tasks, and its task status notifications carry no related-task _meta",
		Requirements: []string{"tasks.capability.no-tasks-without-capability", "tasks.capability.augment-only-if-declared", "tasks.notify.status-omits-related-meta"},
		Proofs:       []server.Proof{{Fault: "task-status-related-meta", Version: spec.V20251125, Also: []string{"tasks/lifecycle"}, Want: reports.Warn}},
		Body: func(t *server.T) {
			obs, _ := t.Observed()
			n := 0
			for _, o := range obs {
				if o.Kind != wire.KindMessage || o.Msg.Method == "" {
					continue
				}
				var p struct {
					Task json.RawMessage            `json:"task"`
					Meta map[string]json.RawMessage `json:"_meta"`
				}
				_ = json.Unmarshal(o.Msg.Params, &p)
				switch {
				case o.Msg.Method == spec.MethodTasksStatus:
					n++
					if _, has := p.Meta[mcp.MetaRelatedTask]; has {
						t.Violation("tasks.notify.status-omits-related-meta", "notifications/tasks/status without related-task _meta", wire.Excerpt(o.Raw, 200))
					}
				case !o.Msg.ID.IsZero() && len(p.Task) > 0 && string(p.Task) != "null":
					n++
					t.Violation("tasks.capability.no-tasks-without-capability", "no task-augmented request to mcpcheck's client, which declares no tasks capability", wire.Excerpt(o.Raw, 200))
					t.Violation("tasks.capability.augment-only-if-declared", "a task field only on request types the client listed under tasks.requests", wire.Excerpt(o.Raw, 200))
				case !o.Msg.ID.IsZero():
					n++
				}
			}
			if n == 0 {
				t.NotApplicable("the server sent no request and no task status notification in this run")
				return
			}
			if t.Open() {
				t.Saw("%d server requests and status notifications judged", n)
				t.Pass()
			}
		},
	},
)

// withoutMeta renders a result without its _meta, for comparison.
func withoutMeta(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return string(raw)
	}
	delete(m, "_meta")
	b, _ := json.Marshal(m)
	return string(b)
}

func init() {
	server.Exclude(map[string]string{
		"tasks.http.streams-follow-transport":       "the Streamable HTTP rules themselves are judged on every stream, task streams included, by the transport-http checks; this record adds no observable rule of its own",
		"tasks.input.requestor-calls-result":        "a rule for the requestor of a task; the server is the requestor only of tasks on the client, and mcpcheck's built-in client declares no tasks capability, so no server creates one",
		"tasks.list.cursor-opaque":                  "a rule for the requestor of tasks/list; the server would call the client's tasks/list only if the client declared tasks, which mcpcheck's built-in client never does",
		"tasks.notify.not-relied-upon":              "a rule for the requestor of a task (it must reach the outcome by polling); the server is a requestor only of client-side tasks, which mcpcheck's client never offers",
		"tasks.poll.continue-alongside-result":      "a polling rule for the requestor of a task; the server polls only client-side tasks, which mcpcheck's built-in client never offers",
		"tasks.poll.honour-poll-interval":           "a polling rule for the requestor of a task; the server polls only client-side tasks, which mcpcheck's built-in client never offers",
		"tasks.poll.until-terminal-or-input":        "a polling rule for the requestor of a task; the server polls only client-side tasks, which mcpcheck's built-in client never offers",
		"tasks.related.requestor-omits-on-task-ops": "a rule for the requestor's tasks/get, tasks/result and tasks/cancel; the server sends those only for client-side tasks, which mcpcheck's built-in client never offers",
		"tasks.security.no-list-without-identity":   "whether a server can tell requestors apart (authentication, session binding) is not visible on the wire, so declaring tasks.list cannot be judged",
		"tasks.security.rate-limit":                 "the specification gives no rate; judging a limit would take a denial-of-service load test, which a conformance run must not be",
	})
}
