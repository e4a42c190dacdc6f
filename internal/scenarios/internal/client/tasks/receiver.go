package tasks

import (
	"encoding/json"
	"fmt"
	"strings"
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

// Tasks (2025-11-25), the client as receiver: when the client declares
// task support for sampling/createMessage or elicitation/create, the stage
// (while serving the client's first request after initialization) sends it
// task-augmented requests of that type and follows the tasks as a
// requestor would: tasks/get, tasks/result, tasks/list, tasks/cancel of a
// working and of a finished task, unknown task ids, a tasks/get whose
// related-task _meta names another task, and a params.task that proposes a
// taskId. The checks judge the client's answers. A second scenario sends
// task-augmented requests of the types the client did not declare task
// support for.

// The receiver scenarios.
const (
	scenario           = "mcpcheck-tasks-receiver"
	undeclaredScenario = "mcpcheck-tasks-undeclared"
)

// answerDelayMs is how long a scripted client's user or model takes to
// answer in the receiver scenario (MCP_CONFORMANCE_CONTEXT answerDelayMs),
// so that its tasks are still working when the stage cancels one.
const answerDelayMs = 600

// unknownID is a taskId no client has; chosenID the one the stage
// proposes in params.task (a receiver chooses its own).
const (
	unknownID = "mcpcheck-no-such-task-7f3a"
	chosenID  = "mcpcheck-chosen-task-id"
)

// promptWork is the least work (by the client's own timestamps) for
// which create-promptly judges whether the CreateTaskResult waited for it.
const promptWork = 400 * time.Millisecond

var _ = client.RegisterScenarios(
	client.Scenario{
		Name: scenario, Since: spec.V20251125, Until: spec.V20251125,
		Title: "while serving the client's first request the stage sends task-augmented sampling/createMessage (or elicitation/create) for what the client declared task support for, and follows the tasks: tasks/get, tasks/result, tasks/cancel of a working and of a finished task, tasks/list, unknown taskIds, a decoy related-task _meta, a proposed taskId",
		Acts:  client.Flow + "; answer sampling and elicitation after answerDelayMs (MCP_CONFORMANCE_CONTEXT)",
		Context: func(client.Env, *stage.Case) string {
			return fmt.Sprintf(`{"answerDelayMs":%d}`, answerDelayMs)
		},
		Stage: func(client.Env) stage.Config {
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{client.EchoTool}, Director: client.OnFirstRequest(provoke)}}
		},
	},
	client.Scenario{
		Name: undeclaredScenario, Since: spec.V20251125, Until: spec.V20251125,
		Title: "while serving the client's first request the stage sends sampling/createMessage and elicitation/create (for what the client declared), each plainly and then with a task field, for the types the client declared no task support for",
		Stage: func(client.Env) stage.Config {
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{client.EchoTool}, Director: client.OnFirstRequest(undeclared)}}
		},
	},
)

// requestParams is the params of the sampling/createMessage or
// elicitation/create request (method) the stage sends.
func requestParams(method string) map[string]any {
	if method == spec.MethodSamplingCreateMessage {
		return map[string]any{"maxTokens": 20,
			"messages": []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Single(&mcp.TextContent{Text: "mcpcheck asks, as a task: say hello"})}}}
	}
	return map[string]any{"mode": "form", "message": "mcpcheck asks, as a task, for your name",
		"requestedSchema": json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}
}

// declaredFor reports whether caps declare the request type of method and
// task support for it.
func declaredFor(caps mcp.ClientCapabilities, method string) (accepts, tasks bool) {
	r := (*mcp.ClientTaskRequests)(nil)
	if caps.Tasks != nil {
		r = caps.Tasks.Requests
	}
	switch method {
	case spec.MethodSamplingCreateMessage:
		return caps.Sampling != nil, r != nil && r.Sampling != nil && r.Sampling.CreateMessage != nil
	case spec.MethodElicitationCreate:
		return caps.Elicitation.SupportsForm(), r != nil && r.Elicitation != nil && r.Elicitation.Create != nil
	}
	return false, false
}

var methods = []string{spec.MethodSamplingCreateMessage, spec.MethodElicitationCreate}

// with returns params with a task field (ttl 60 s, and the members of
// extra).
func with(params map[string]any, extra map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range params {
		out[k] = v
	}
	task := map[string]any{"ttl": 60000}
	for k, v := range extra {
		task[k] = v
	}
	out["task"] = task
	return out
}

// provoke is the receiver scenario's stage: task-augmented requests of
// the first type the client declared task support for, followed.
func provoke(c *server.Call) {
	caps := c.ClientCapabilities()
	method := ""
	for _, m := range methods {
		if accepts, tasks := declaredFor(caps, m); accepts && tasks {
			method = m
			break
		}
	}
	if method == "" {
		return
	}
	canCancel := caps.Tasks.Cancel != nil
	canList := caps.Tasks.List != nil
	create := func(extra map[string]any) string {
		raw, err := sendRequest(c, method, with(requestParams(method), extra))
		if err != nil {
			return ""
		}
		w, _ := rules.CreatedTask(raw)
		id, _ := w.ID()
		return id
	}
	ask := func(m, id string) { _, _ = sendRequest(c, m, map[string]any{"taskId": id}) }
	a := create(nil)
	if a == "" {
		return
	}
	ask(spec.MethodTasksGet, a)
	ask(spec.MethodTasksResult, a)
	ask(spec.MethodTasksGet, a)
	b := create(nil)
	if b != "" && canCancel {
		ask(spec.MethodTasksCancel, b)
	}
	// The third task's result comes after the second's work would have
	// ended: a cancelled task that is finished anyway shows by then.
	d := create(nil)
	if d != "" {
		ask(spec.MethodTasksResult, d)
	}
	if canList {
		cursor := ""
		for page := 0; page < 20; page++ {
			p := map[string]any{}
			if cursor != "" {
				p["cursor"] = cursor
			}
			raw, err := sendRequest(c, spec.MethodTasksList, p)
			var r struct {
				NextCursor string `json:"nextCursor"`
			}
			if err != nil || json.Unmarshal(raw, &r) != nil || r.NextCursor == "" || r.NextCursor == cursor {
				break
			}
			cursor = r.NextCursor
		}
	}
	for _, id := range []string{a, b, d} {
		if id != "" {
			ask(spec.MethodTasksGet, id)
		}
	}
	if canCancel {
		ask(spec.MethodTasksCancel, a)
	}
	ask(spec.MethodTasksGet, unknownID)
	ask(spec.MethodTasksResult, unknownID)
	if canCancel {
		ask(spec.MethodTasksCancel, unknownID)
	}
	if b != "" {
		// Last, as it may derail a receiver that follows the _meta.
		_, _ = sendRequest(c, spec.MethodTasksGet, map[string]any{"taskId": a, "_meta": map[string]any{mcp.MetaRelatedTask: map[string]any{"taskId": b}}})
	}
	create(map[string]any{"taskId": chosenID})
}

// undeclared is the undeclared scenario's stage: for each type the
// client accepts but declared no task support for, the request plainly,
// then with a task field.
func undeclared(c *server.Call) {
	caps := c.ClientCapabilities()
	for _, m := range methods {
		if accepts, tasks := declaredFor(caps, m); !accepts || tasks {
			continue
		}
		_, _ = sendRequest(c, m, requestParams(m))
		_, _ = sendRequest(c, m, with(requestParams(m), nil))
	}
}

// step is one request of the stage in a receiver scenario and the
// client's answer.
type step struct {
	req      client.Msg
	ans      client.Msg
	answered bool
	// taskID is the task the step is about: params.taskId, or the task a
	// task-augmented request created.
	taskID string
	// create marks a task-augmented request; wrapped is its method.
	create  bool
	wrapped string
	// decoy marks a tasks/* request with related-task _meta.
	decoy bool
}

func (s step) method() string { return s.req.Msg.Method }

// ok reports whether the client answered with a result.
func (s step) ok() bool { return s.answered && s.ans.Msg.Shape == jsonrpc.KindResponse }

// errCode is the code of the client's error answer (0 when none).
func (s step) errCode() int64 {
	if s.answered && s.ans.Msg.Shape == jsonrpc.KindErrorResponse && s.ans.Msg.Error != nil {
		return s.ans.Msg.Error.Code
	}
	return 0
}

// steps returns the stage's requests in c with the client's answers, and
// the method each task created by the client wraps.
func steps(c *client.Case) ([]step, map[string]string) {
	var out []step
	tasks := map[string]string{}
	for _, req := range c.StageRequests() {
		st := step{req: req}
		st.ans, st.answered = c.ClientAnswer(req)
		switch req.Msg.Method {
		case spec.MethodSamplingCreateMessage, spec.MethodElicitationCreate:
			if !client.TaskAugmented(req.Msg.Params) {
				break
			}
			st.create, st.wrapped = true, req.Msg.Method
			if st.ok() {
				if w, ok := rules.CreatedTask(st.ans.Msg.Result); ok {
					if id, ok := w.ID(); ok {
						st.taskID = id
						tasks[id] = req.Msg.Method
					}
				}
			}
		case spec.MethodTasksGet, spec.MethodTasksResult, spec.MethodTasksCancel:
			st.taskID = client.TaskIDParam(req.Msg.Params)
			_, st.decoy = rules.RelatedTask(req.Msg.Params)
		}
		out = append(out, st)
	}
	return out, tasks
}

// status is a status the client reported for one of its tasks.
type status struct {
	status  string
	updated *string
	where   string
	seq     int
}

// payloads calls each with every task payload the client returned in
// steps: the task of a CreateTaskResult, tasks/get and tasks/cancel
// results and tasks/list entries (where names the message).
func payloads(steps []step, each func(st step, w rules.TaskPayload, raw json.RawMessage, where string)) {
	for _, st := range steps {
		if !st.ok() {
			continue
		}
		res := st.ans.Msg.Result
		switch {
		case st.create:
			var r struct {
				Task json.RawMessage `json:"task"`
			}
			if json.Unmarshal(res, &r) == nil && len(r.Task) > 0 {
				if w, ok := rules.DecodeTask(r.Task); ok {
					each(st, w, r.Task, "the CreateTaskResult of "+st.wrapped)
				}
			}
		case st.method() == spec.MethodTasksGet, st.method() == spec.MethodTasksCancel:
			if w, ok := rules.DecodeTask(res); ok {
				each(st, w, res, "the "+st.method()+" result")
			}
		case st.method() == spec.MethodTasksList:
			var r struct {
				Tasks []json.RawMessage `json:"tasks"`
			}
			_ = json.Unmarshal(res, &r)
			for i, raw := range r.Tasks {
				if w, ok := rules.DecodeTask(raw); ok {
					each(st, w, raw, fmt.Sprintf("tasks/list entry %d", i))
				}
			}
		}
	}
}

// statuses returns the statuses the client reported for each of its
// tasks, in order.
func statuses(steps []step) map[string][]status {
	out := map[string][]status{}
	payloads(steps, func(st step, w rules.TaskPayload, _ json.RawMessage, where string) {
		id, ok := w.ID()
		if !ok {
			return
		}
		out[id] = append(out[id], status{status: w.Status, updated: w.LastUpdatedAt, where: where, seq: st.ans.Seq})
	})
	return out
}

// eachCase runs judge on the cases of the receiver scenario in which
// the client declared task support for a request type the stage sends; it
// ends the check n/a when there is none.
func eachCase(t *client.T, judge func(c *client.Case, steps []step, tasks map[string]string)) bool {
	judged := 0
	for _, c := range t.Cases() {
		if c.Scenario.Name != scenario {
			continue
		}
		caps, ok := c.Declared()
		if !ok {
			continue
		}
		declared := false
		for _, m := range methods {
			if accepts, tasks := declaredFor(caps, m); accepts && tasks {
				declared = true
			}
		}
		if !declared {
			continue
		}
		judged++
		steps, tasks := steps(c)
		judge(c, steps, tasks)
	}
	if judged == 0 {
		for _, c := range t.Cases() {
			if _, ok := c.Declared(); ok {
				t.NotApplicable("the client declared no task support for sampling/createMessage or elicitation/create (with the capability itself)")
				return false
			}
		}
		t.NeedAction(false, "initialize and make a request (the stage sends its task-augmented requests while serving it)")
		return false
	}
	return true
}

// later returns the statuses of task id reported after seq.
func later(statuses map[string][]status, id string, seq int) []status {
	var out []status
	for _, s := range statuses[id] {
		if s.seq > seq {
			out = append(out, s)
		}
	}
	return out
}

// before returns the last status of task id reported before seq ("" for
// none).
func before(statuses map[string][]status, id string, seq int) string {
	last := ""
	for _, s := range statuses[id] {
		if s.seq < seq {
			last = s.status
		}
	}
	return last
}

var _ = client.Register(
	client.Def{
		ID: "client/tasks/create-result", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{scenario},
		Title:        "the client answers a task-augmented request of a type it declared task support for with a CreateTaskResult whose task is working",
		Requirements: []string{"tasks.create.returns-create-task-result", "tasks.status.starts-working"},
		Proofs:       []client.Proof{{Fault: "task-starts-input-required", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad, refused := 0, 0, 0
			if !eachCase(t, func(c *client.Case, steps []step, _ map[string]string) {
				for _, st := range steps {
					if !st.create {
						continue
					}
					if !st.ok() {
						refused++
						continue
					}
					n++
					w, ok := rules.CreatedTask(st.ans.Msg.Result)
					if !ok || w.Status == "" {
						bad++
						t.Violation("tasks.create.returns-create-task-result", "a CreateTaskResult ({task: {taskId, status, ...}}) for a task-augmented "+st.wrapped,
							fmt.Sprintf("%s (%s)", client.Excerpt(st.ans), c.Scenario.Name))
						continue
					}
					if w.Status != string(mcp.TaskWorking) {
						bad++
						t.Violation("tasks.status.starts-working", "a new task is working", fmt.Sprintf("the CreateTaskResult of %s says status %q (%s)", st.wrapped, w.Status, c.Scenario.Name))
					}
				}
			}) {
				return
			}
			if n == 0 {
				t.Untestable(fmt.Sprintf("the client answered none of the stage's task-augmented requests with a result (%d errors or no answer)", refused))
				return
			}
			t.Settle(n, bad, "", "%d CreateTaskResults, each working")
		},
	},
	client.Def{
		ID: "client/tasks/task-fields", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{scenario},
		Title:        "every task the client returns has a string taskId, RFC 3339 createdAt and lastUpdatedAt, and tasks/get states the ttl",
		Requirements: []string{"tasks.id.string", "tasks.ttl.created-at", "tasks.ttl.last-updated-at", "tasks.ttl.reported-in-get"},
		Proofs:       []client.Proof{{Fault: "task-created-at-not-rfc3339", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			if !eachCase(t, func(c *client.Case, steps []step, _ map[string]string) {
				payloads(steps, func(st step, w rules.TaskPayload, _ json.RawMessage, where string) {
					n++
					at := where + " (" + c.Scenario.Name + ")"
					broke := false
					if _, ok := w.ID(); !ok {
						broke = true
						t.Violation("tasks.id.string", "taskId is a non-empty JSON string", fmt.Sprintf("taskId %s in %s", rules.OrAbsent(w.TaskID, len(w.TaskID) > 0), at))
					}
					for _, ts := range []struct {
						req, name string
						v         *string
					}{{"tasks.ttl.created-at", "createdAt", w.CreatedAt}, {"tasks.ttl.last-updated-at", "lastUpdatedAt", w.LastUpdatedAt}} {
						switch {
						case ts.v == nil:
							broke = true
							t.Violation(ts.req, ts.name+" on every task the client returns", ts.name+" is missing in "+at)
						default:
							if _, ok := rules.TaskTime(*ts.v); !ok {
								broke = true
								t.Violation(ts.req, ts.name+" is an ISO 8601 (RFC 3339) timestamp", fmt.Sprintf("%s %q in %s", ts.name, *ts.v, at))
							}
						}
					}
					if st.method() == spec.MethodTasksGet {
						var ms int64
						if !w.HasTTL || (string(w.TTL) != "null" && json.Unmarshal(w.TTL, &ms) != nil) {
							broke = true
							t.Violation("tasks.ttl.reported-in-get", "tasks/get states the ttl in force (milliseconds, or null)", fmt.Sprintf("ttl %s in %s", rules.OrAbsent(w.TTL, len(w.TTL) > 0), at))
						}
					}
					if broke {
						bad++
					}
				})
			}) {
				return
			}
			if n == 0 {
				t.Untestable("the client returned no task (no CreateTaskResult, tasks/get, tasks/list or tasks/cancel result)")
				return
			}
			t.Settle(n, bad, "", "%d task payloads, all with their fields")
		},
	},
	client.Def{
		ID: "client/tasks/task-ids", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{scenario},
		Title:        "the client's tasks get distinct, unguessable taskIds of its own choosing (not one the stage proposes)",
		Requirements: []string{"tasks.id.unique-per-receiver", "tasks.security.unguessable-ids", "tasks.id.receiver-generated"},
		Proofs: []client.Proof{{Fault: "task-ids-counter", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "task-id-from-requestor", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *client.T) {
			n := 0
			if !eachCase(t, func(c *client.Case, steps []step, _ map[string]string) {
				var ids []string
				for _, st := range steps {
					if !st.create || st.taskID == "" {
						continue
					}
					ids = append(ids, st.taskID)
					var p struct {
						Task struct {
							TaskID string `json:"taskId"`
						} `json:"task"`
					}
					_ = json.Unmarshal(st.req.Msg.Params, &p)
					if p.Task.TaskID != "" {
						n++
						if st.taskID == p.Task.TaskID {
							t.Violation("tasks.id.receiver-generated", "the receiver generates the taskId; one proposed in params.task is not adopted",
								fmt.Sprintf("the stage proposed %q and the client's task took it (%s)", p.Task.TaskID, c.Scenario.Name))
						}
					}
				}
				seen := map[string]bool{}
				for i, id := range ids {
					n++
					if seen[id] {
						t.Violation("tasks.id.unique-per-receiver", "no two of the client's tasks share a taskId", fmt.Sprintf("taskId %q was given twice (%s)", id, c.Scenario.Name))
						continue
					}
					seen[id] = true
					if i == 0 {
						continue
					}
					a, b := ids[i-1], id
					p := 0
					for p < len(a) && p < len(b) && a[p] == b[p] {
						p++
					}
					if rules.DigitsOnly(a[p:]) && rules.DigitsOnly(b[p:]) {
						t.Violation("tasks.security.unguessable-ids", "taskIds from a secure random source, not a counter or a timestamp",
							fmt.Sprintf("%q then %q differ only in trailing digits (%s)", a, b, c.Scenario.Name))
					}
				}
			}) {
				return
			}
			if n < 2 {
				t.Untestable("the client created fewer than two tasks, so their ids cannot be compared")
				return
			}
			if t.Open() {
				t.Saw("%d taskIds judged", n)
				t.Pass()
			}
		},
	},
	client.Def{
		ID: "client/tasks/status-transitions", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{scenario},
		Title:        "the statuses the client reports for a task are known ones, change only along the allowed transitions, and never leave a terminal status",
		Requirements: []string{"tasks.status.valid-transitions", "tasks.status.terminal-is-final"},
		Proofs:       []client.Proof{{Fault: "terminal-task-reopens", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			if !eachCase(t, func(c *client.Case, steps []step, _ map[string]string) {
				for id, sts := range statuses(steps) {
					n++
					var seq []string
					prev := ""
					for _, s := range sts {
						seq = append(seq, s.status)
						st := mcp.TaskStatus(s.status)
						switch {
						case !st.Valid():
							bad++
							t.Violation("tasks.status.valid-transitions", "a task's status is working, input_required, completed, failed or cancelled", fmt.Sprintf("task %s: status %q in %s (%s)", id, s.status, s.where, c.Scenario.Name))
						case prev == "" || prev == s.status:
						case mcp.Terminal(mcp.TaskStatus(prev)):
							bad++
							t.Violation("tasks.status.terminal-is-final", "a completed, failed or cancelled task keeps its status", fmt.Sprintf("task %s went from %s to %s (%s; statuses %v) (%s)", id, prev, s.status, s.where, seq, c.Scenario.Name))
						case !mcp.LegalTransition(mcp.TaskStatus(prev), st):
							bad++
							t.Violation("tasks.status.valid-transitions", "only the allowed status transitions", fmt.Sprintf("task %s went from %s to %s (%s) (%s)", id, prev, s.status, s.where, c.Scenario.Name))
						}
						if st.Valid() {
							prev = s.status
						}
					}
				}
			}) {
				return
			}
			if n == 0 {
				t.Untestable("the client reported no task status")
				return
			}
			t.Settle(n, bad, "", "%d tasks, statuses along allowed transitions")
		},
	},
	client.Def{
		ID: "client/tasks/result", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{scenario},
		Title:        "tasks/result of a finished task answers the wrapped request's own result (with related-task _meta), or an error only for a task that did not complete",
		Requirements: []string{"tasks.result.success-passthrough", "tasks.result.terminal-returns-outcome", "tasks.related.result-response-carries-meta"},
		Proofs:       []client.Proof{{Fault: "task-result-no-related-meta", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			if !eachCase(t, func(c *client.Case, steps []step, tasks map[string]string) {
				statuses := statuses(steps)
				for _, st := range steps {
					wrapped, known := tasks[st.taskID]
					if st.method() != spec.MethodTasksResult || !known || !st.answered {
						continue
					}
					n++
					if !st.ok() {
						later := later(statuses, st.taskID, st.ans.Seq)
						if len(later) > 0 && later[0].status == string(mcp.TaskCompleted) {
							bad++
							t.Violation("tasks.result.success-passthrough", "tasks/result of a completed task answers the wrapped request's result",
								fmt.Sprintf("task %s: %s, and tasks/get then said completed (%s)", st.taskID, st.ans.Describe(), c.Scenario.Name))
						}
						continue
					}
					if vs := rules.Schema(t.Version(), spec.ClientToServer, wrapped, st.ans.Msg); len(vs) > 0 {
						bad++
						t.Violation("tasks.result.terminal-returns-outcome", "tasks/result answers exactly the result "+wrapped+" would have had (a "+wrapped+" result)",
							fmt.Sprintf("task %s: %s in %s (%s)", st.taskID, rules.SortViolations(vs)[0].String(), client.Excerpt(st.ans), c.Scenario.Name))
						continue
					}
					if id, has := rules.RelatedTask(st.ans.Msg.Result); !has || id != st.taskID {
						bad++
						t.Violation("tasks.related.result-response-carries-meta", "the tasks/result result carries _meta related-task {taskId: "+st.taskID+"}",
							fmt.Sprintf("%s (%s)", client.Excerpt(st.ans), c.Scenario.Name))
					}
				}
			}) {
				return
			}
			if n == 0 {
				t.Untestable("the client answered no tasks/result about its tasks")
				return
			}
			t.Settle(n, bad, "", "%d tasks/result answers, each the wrapped request's outcome")
		},
	},
	client.Def{
		ID: "client/tasks/cancel", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{scenario},
		Title:        "tasks/cancel of a working task answers it cancelled and it stays cancelled; tasks/cancel of a finished task fails with -32602",
		Requirements: []string{"tasks.cancel.cancelled-before-response", "tasks.cancel.stays-cancelled", "tasks.cancel.terminal-invalid-params"},
		Proofs: []client.Proof{{Fault: "task-cancel-answers-working", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "cancelled-task-completes", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "task-cancel-terminal-accepted", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad, declared := 0, 0, false
			if !eachCase(t, func(c *client.Case, steps []step, tasks map[string]string) {
				if caps, _ := c.Declared(); caps.Tasks != nil && caps.Tasks.Cancel != nil {
					declared = true
				}
				statuses := statuses(steps)
				for _, st := range steps {
					if _, known := tasks[st.taskID]; st.method() != spec.MethodTasksCancel || !known || !st.answered {
						continue
					}
					n++
					before := before(statuses, st.taskID, st.req.Seq)
					later := later(statuses, st.taskID, st.ans.Seq)
					at := fmt.Sprintf("task %s (%s)", st.taskID, c.Scenario.Name)
					if mcp.Terminal(mcp.TaskStatus(before)) {
						if code := st.errCode(); code != jsonrpc.InvalidParams {
							bad++
							t.Violation("tasks.cancel.terminal-invalid-params", "tasks/cancel of a task already "+before+" fails with -32602", st.ans.Describe()+" for "+at)
						}
						continue
					}
					if !st.ok() {
						if len(later) > 0 && !mcp.Terminal(mcp.TaskStatus(later[0].status)) {
							bad++
							t.Violation("tasks.cancel.cancelled-before-response", "tasks/cancel of a working task cancels it", fmt.Sprintf("%s, and tasks/get then said %s, for %s", st.ans.Describe(), later[0].status, at))
						}
						continue
					}
					w, _ := rules.DecodeTask(st.ans.Msg.Result)
					if w.Status == "" {
						w, _ = rules.CreatedTask(st.ans.Msg.Result)
					}
					if w.Status != string(mcp.TaskCancelled) {
						bad++
						t.Violation("tasks.cancel.cancelled-before-response", "the tasks/cancel result shows the task cancelled", fmt.Sprintf("status %q: %s for %s", w.Status, client.Excerpt(st.ans), at))
					}
					for _, s := range later {
						if s.status != string(mcp.TaskCancelled) {
							bad++
							t.Violation("tasks.cancel.stays-cancelled", "a cancelled task stays cancelled", fmt.Sprintf("after its cancellation %s said %s, for %s", s.where, s.status, at))
							break
						}
					}
				}
			}) {
				return
			}
			switch {
			case n > 0:
				t.Settle(n, bad, "", "%d tasks/cancel answers judged")
			case !declared:
				t.NotApplicable("the client did not declare tasks.cancel")
			default:
				t.Untestable("the client answered no tasks/cancel about its tasks")
			}
		},
	},
	client.Def{
		ID: "client/tasks/errors", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{scenario},
		Title:        "tasks/get, tasks/result and tasks/cancel of an unknown taskId fail with -32602 and a message that says why",
		Requirements: []string{"tasks.errors.protocol-error-codes", "tasks.errors.informative-messages"},
		Proofs:       []client.Proof{{Fault: "unknown-task-internal-error", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			if !eachCase(t, func(c *client.Case, steps []step, _ map[string]string) {
				for _, st := range steps {
					if st.taskID != unknownID || !st.answered {
						continue
					}
					n++
					at := st.method() + " of unknown taskId " + unknownID + " (" + c.Scenario.Name + ")"
					if st.errCode() != jsonrpc.InvalidParams {
						bad++
						t.Violation("tasks.errors.protocol-error-codes", "an error -32602 (Invalid params)", st.ans.Describe()+" for "+at)
						continue
					}
					if strings.TrimSpace(st.ans.Msg.Error.Message) == "" {
						bad++
						t.Violation("tasks.errors.informative-messages", "the error message says what is wrong", "an empty message for "+at)
					}
				}
			}) {
				return
			}
			if n == 0 {
				t.Untestable("the client answered none of the stage's requests about an unknown task")
				return
			}
			t.Settle(n, bad, "", "%d requests about an unknown task refused with -32602 and a message")
		},
	},
	client.Def{
		ID: "client/tasks/receiver-related-meta", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{scenario},
		Title:        "the client identifies the task by params.taskId even when related-task _meta names another, and puts no related-task _meta on tasks/get, tasks/list and tasks/cancel results",
		Requirements: []string{"tasks.related.param-is-authoritative", "tasks.related.omit-on-get-list-cancel"},
		Proofs:       []client.Proof{{Fault: "task-follows-related-meta", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			if !eachCase(t, func(c *client.Case, steps []step, _ map[string]string) {
				for _, st := range steps {
					switch st.method() {
					case spec.MethodTasksGet, spec.MethodTasksList, spec.MethodTasksCancel:
					default:
						continue
					}
					if !st.ok() {
						if st.decoy && st.answered {
							t.Saw("the tasks/get with a decoy related-task _meta was refused: %s (%s)", st.ans.Describe(), c.Scenario.Name)
						}
						continue
					}
					n++
					if st.decoy {
						w, _ := rules.DecodeTask(st.ans.Msg.Result)
						if id, _ := w.ID(); id != st.taskID {
							bad++
							t.Violation("tasks.related.param-is-authoritative", "tasks/get answers about the task params.taskId names, whatever related-task _meta says",
								fmt.Sprintf("asked about %s with related-task _meta naming another task; the answer is about %s (%s)", st.taskID, rules.OrAbsent(w.TaskID, len(w.TaskID) > 0), c.Scenario.Name))
						}
					}
					has := false
					if _, h := rules.RelatedTask(st.ans.Msg.Result); h {
						has = true
					}
					if st.method() == spec.MethodTasksList {
						var r struct {
							Tasks []json.RawMessage `json:"tasks"`
						}
						_ = json.Unmarshal(st.ans.Msg.Result, &r)
						for _, e := range r.Tasks {
							if _, h := rules.RelatedTask(e); h {
								has = true
							}
						}
					}
					if has {
						bad++
						t.Violation("tasks.related.omit-on-get-list-cancel", "no related-task _meta on tasks/get, tasks/list and tasks/cancel results", fmt.Sprintf("%s (%s)", client.Excerpt(st.ans), c.Scenario.Name))
					}
				}
			}) {
				return
			}
			if n == 0 {
				t.Untestable("the client answered no tasks/get, tasks/list or tasks/cancel with a result")
				return
			}
			t.Settle(n, bad, "", "%d tasks/get, tasks/list and tasks/cancel results judged")
		},
	},
	client.Def{
		ID: "client/tasks/list-complete", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{scenario},
		Title:        "tasks/list (all pages) includes every task tasks/get returned before and after the listing",
		Requirements: []string{"tasks.list.includes-gettable"},
		Proofs:       []client.Proof{{Fault: "task-list-omits-finished", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad, listed := 0, 0, false
			if !eachCase(t, func(c *client.Case, steps []step, tasks map[string]string) {
				first, last := -1, -1
				ids := map[string]bool{}
				for i, st := range steps {
					if st.method() != spec.MethodTasksList || !st.ok() {
						continue
					}
					if first < 0 {
						first = i
					}
					last = i
					var r struct {
						Tasks []struct {
							TaskID string `json:"taskId"`
						} `json:"tasks"`
					}
					_ = json.Unmarshal(st.ans.Msg.Result, &r)
					for _, e := range r.Tasks {
						ids[e.TaskID] = true
					}
				}
				if first < 0 {
					return
				}
				listed = true
				created := map[string]bool{}
				for _, st := range steps[:first] {
					if st.create && st.taskID != "" {
						created[st.taskID] = true
					}
				}
				judged := map[string]bool{}
				for _, st := range steps[last+1:] {
					if st.method() != spec.MethodTasksGet || st.decoy || !st.ok() || !created[st.taskID] || judged[st.taskID] {
						continue
					}
					judged[st.taskID] = true
					n++
					if !ids[st.taskID] {
						bad++
						t.Fail("every task tasks/get returns is in tasks/list", fmt.Sprintf("task %s (%s) was gettable before and after the listing but not listed (%d tasks listed) (%s)", st.taskID, tasks[st.taskID], len(ids), c.Scenario.Name))
					}
				}
			}) {
				return
			}
			switch {
			case n > 0:
				t.Settle(n, bad, "", "%d gettable tasks, all listed")
			case !listed:
				t.NotApplicable("the client did not declare tasks.list, or answered no tasks/list")
			default:
				t.Untestable("no task of the client was gettable both before and after the listing")
			}
		},
	},
	client.Def{
		ID: "client/tasks/create-promptly", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{scenario},
		Title:        "the client's CreateTaskResult does not wait for the task's work: it comes before the task ends (judged when the work took at least 500 ms by the client's own timestamps)",
		Requirements: []string{"tasks.create.return-promptly"},
		Proofs:       []client.Proof{{Fault: "task-create-waits", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *client.T) {
			n, bad, quick := 0, 0, 0
			if !eachCase(t, func(c *client.Case, steps []step, _ map[string]string) {
				statuses := statuses(steps)
				for _, st := range steps {
					if !st.create || st.taskID == "" {
						continue
					}
					w, _ := rules.CreatedTask(st.ans.Msg.Result)
					if w.CreatedAt == nil {
						continue
					}
					created, ok := rules.TaskTime(*w.CreatedAt)
					if !ok {
						continue
					}
					var ended time.Time
					for _, s := range statuses[st.taskID] {
						if mcp.Terminal(mcp.TaskStatus(s.status)) && s.updated != nil {
							ended, ok = rules.TaskTime(*s.updated)
							break
						}
					}
					if ended.IsZero() || !ok {
						continue
					}
					work := ended.Sub(created)
					if work < promptWork {
						quick++
						continue
					}
					n++
					if took := st.ans.Time.Sub(st.req.Time); took >= work-50*time.Millisecond {
						bad++
						t.Fail("the CreateTaskResult is sent as soon as the task is accepted, before its work is done",
							fmt.Sprintf("task %s worked %v by its own timestamps, and its CreateTaskResult came %v after the request (%s)", st.taskID, work.Round(time.Millisecond), took.Round(time.Millisecond), c.Scenario.Name))
					}
				}
			}) {
				return
			}
			if n == 0 {
				t.Untestable(fmt.Sprintf("none of the client's tasks worked %v or more by its own timestamps (%d ended sooner), too little to tell whether the CreateTaskResult waited for the work", promptWork, quick))
				return
			}
			t.Settle(n, bad, "", "%d tasks answered before their work was done")
		},
	},
	client.Def{
		ID: "client/tasks/status-notifications", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{scenario},
		Title:        "the client's notifications/tasks/status carry no related-task _meta",
		Requirements: []string{"tasks.notify.status-omits-related-meta"},
		Proofs:       []client.Proof{{Fault: "task-status-related-meta", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *client.T) {
			t.EachMessage(client.Rule{Expected: "notifications/tasks/status without related-task _meta (the taskId is in its params)", None: "the client sent no notifications/tasks/status (it need not)", Saw: "%d status notifications, none with related-task _meta"},
				func(c *client.Case, m client.Msg) (bool, string) {
					if m.Msg.Shape != jsonrpc.KindNotification || m.Msg.Method != spec.MethodTasksStatus {
						return false, ""
					}
					if _, has := rules.RelatedTask(m.Msg.Params); has {
						return true, client.Excerpt(m)
					}
					return true, ""
				})
		},
	},
	client.Def{
		ID: "client/tasks/undeclared-type", Area: "tasks", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{undeclaredScenario, scenario},
		Title:        "a task-augmented request of a type the client declared no task support for is processed normally: the ordinary result, never a CreateTaskResult",
		Requirements: []string{"tasks.support.undeclared-type-ignores-task", "tasks.capability.declare-when-supported"},
		Proofs:       []client.Proof{{Fault: "tasks-undeclared-honoured", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				caps, ok := c.Declared()
				if !ok {
					continue
				}
				plainOK := map[string]bool{}
				steps, _ := steps(c)
				for _, st := range steps {
					m := st.method()
					_, tasks := declaredFor(caps, m)
					if m != spec.MethodSamplingCreateMessage && m != spec.MethodElicitationCreate || tasks {
						continue
					}
					if !st.create {
						plainOK[m] = plainOK[m] || st.ok()
						continue
					}
					if !st.answered {
						continue
					}
					n++
					if _, isTask := rules.CreatedTask(st.ans.Msg.Result); st.ok() && isTask {
						bad++
						actual := fmt.Sprintf("the client declared no task support for %s, yet answered a task-augmented one with a CreateTaskResult: %s (%s)", m, client.Excerpt(st.ans), c.Scenario.Name)
						t.Violation("tasks.support.undeclared-type-ignores-task", "the task field is ignored and the request processed normally", actual)
						t.Violation("tasks.capability.declare-when-supported", "a client that runs "+m+" as tasks declares tasks.requests for it in initialize", actual)
						continue
					}
					if !st.ok() && plainOK[m] {
						bad++
						t.Violation("tasks.support.undeclared-type-ignores-task", "the task field is ignored and the request processed normally",
							fmt.Sprintf("%s without a task field got a result, with one: %s (%s)", m, st.ans.Describe(), c.Scenario.Name))
					}
				}
			}
			if n == 0 {
				for _, c := range t.Cases() {
					if _, ok := c.Declared(); ok {
						t.NotApplicable("the client declared task support for every request type it accepts (or accepts neither sampling nor form elicitation), so the stage sent no task field it did not declare")
						return
					}
				}
				t.NeedAction(false, "initialize and make a request (the stage sends its requests while serving it)")
				return
			}
			t.Settle(n, bad, "", "%d task-augmented requests of undeclared types, each processed normally")
		},
	},
)

func init() {
	client.Exclude(map[string]string{
		"tasks.http.streams-follow-transport":     "adds no rule of its own: the Streamable HTTP rules it points to are judged on every request and stream of the client, task requests included, by the transport-http checks",
		"tasks.security.rate-limit":               "the specification gives no rate, and a client's limits on the tasks a server may create show only under a denial-of-service load that a conformance run must not produce",
		"tasks.security.no-list-without-identity": "whether a receiver can tell requestors apart (authentication, session binding) is not on the wire, so declaring tasks.list cannot be judged against it; a client also receives from the one server it is connected to",
	})
}
