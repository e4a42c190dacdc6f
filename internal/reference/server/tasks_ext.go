package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// The tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks):
// tasks left the core protocol. A client opts in per request by listing
// the extension in _meta clientCapabilities; the server then may answer a
// tools/call with a flat CreateTaskResult (resultType "task"). The client
// polls tasks/get, answers a task's input requests with tasks/update and
// cancels with tasks/cancel. tasks/result and tasks/list do not exist.
// Tasks are server-wide (there are no sessions) and found by their
// unguessable id.

// TasksExtension is the extension identifier.
const TasksExtension = "io.modelcontextprotocol/tasks"

const (
	extTaskTTL        = 5 * time.Minute
	extPollMs         = 500
	methodTasksUpdate = "tasks/update"
)

// extTask is one task of the extension.
type extTask struct {
	id   string
	srv  *Server
	ctx  context.Context
	stop context.CancelFunc
	ttl  time.Duration

	mu       sync.Mutex
	status   mcp.TaskStatus
	message  string
	created  time.Time
	updated  time.Time
	result   json.RawMessage
	failure  *Error
	pending  map[string]mcp.InputRequest
	answers  map[string]json.RawMessage
	answered chan struct{} // closed when pending becomes empty
}

// extDeclared reports whether the request's client opted into tasks.
func extDeclared(caps mcp.ClientCapabilities) bool {
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

func missingTasksExtension() *Error {
	return missingCapability(mcp.ClientCapabilities{Extensions: map[string]mcp.Object{TasksExtension: mcp.Present()}})
}

// maybeTask runs work as a task when the client declared the extension
// (answering with a CreateTaskResult at once), and synchronously otherwise.
func (c *call) maybeTask(work func(et *extTask) (any, error)) (any, error) {
	if !c.r.stateless() || !extDeclared(c.r.caps) {
		return work(&extTask{ctx: c.r.ctx, srv: c.r.srv})
	}
	s := c.r.srv
	now := s.opts.Now()
	et := &extTask{id: s.randomID(16), srv: s, status: mcp.TaskWorking, created: now, updated: now, ttl: extTaskTTL, answers: map[string]json.RawMessage{}}
	et.ctx, et.stop = context.WithCancel(s.ctx)
	s.mu.Lock()
	s.expireExtLocked(now)
	if len(s.extTasks) >= s.opts.MaxTasks {
		s.mu.Unlock()
		et.stop()
		return nil, internalError("too many tasks (limit %d); wait for some to finish or cancel them", s.opts.MaxTasks)
	}
	if s.extTasks == nil {
		s.extTasks = map[string]*extTask{}
	}
	s.extTasks[et.id] = et
	s.mu.Unlock()
	created := et.createResult()
	if !s.enter() {
		et.stop()
		return nil, internalError("the server is closing; no new tasks")
	}
	c.r.afterResponse(func() {
		go func() {
			defer s.wg.Done()
			defer et.stop()
			defer func() {
				if p := recover(); p != nil {
					s.logf("recovered from a panic in task %s: %v", et.id, p)
					et.finish(nil, internalError("internal error in the task; the server recovered"))
				}
			}()
			res, err := work(et)
			et.finish(res, err)
		}()
	})
	return created, nil
}

func (et *extTask) finish(res any, err error) {
	et.mu.Lock()
	defer et.mu.Unlock()
	if et.status == mcp.TaskCancelled {
		return
	}
	et.updated = et.srv.opts.Now()
	if err != nil {
		var re *Error
		if !errors.As(err, &re) {
			if et.ctx.Err() != nil {
				et.status = mcp.TaskCancelled
				return
			}
			re = internalError("%v", err)
		}
		et.failure, et.status, et.message = re, mcp.TaskFailed, re.Message
		return
	}
	b, _ := json.Marshal(res)
	et.result, et.status = b, mcp.TaskCompleted
}

// sleep pauses the task (or the synchronous call) for d.
func (et *extTask) sleep(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-et.ctx.Done():
		return et.ctx.Err()
	}
}

// need parks the task in input_required until every request is answered
// through tasks/update, and returns the answers by key.
func (et *extTask) need(reqs map[string]mcp.InputRequest) (map[string]json.RawMessage, error) {
	et.mu.Lock()
	et.pending = map[string]mcp.InputRequest{}
	for k, v := range reqs {
		et.pending[k] = v
	}
	ch := make(chan struct{})
	et.answered = ch
	et.status, et.message, et.updated = mcp.TaskInputRequired, "waiting for tasks/update", et.srv.opts.Now()
	et.mu.Unlock()
	select {
	case <-ch:
	case <-et.ctx.Done():
		return nil, et.ctx.Err()
	}
	et.mu.Lock()
	defer et.mu.Unlock()
	out := map[string]json.RawMessage{}
	for k := range reqs {
		out[k] = et.answers[k]
	}
	if et.status == mcp.TaskInputRequired {
		et.status, et.message, et.updated = mcp.TaskWorking, "", et.srv.opts.Now()
	}
	return out, nil
}

func (et *extTask) fields() map[string]any {
	m := map[string]any{
		"taskId":         et.id,
		"status":         et.status,
		"createdAt":      et.created.UTC().Format(time.RFC3339Nano),
		"lastUpdatedAt":  et.updated.UTC().Format(time.RFC3339Nano),
		"ttlMs":          et.ttl.Milliseconds(),
		"pollIntervalMs": extPollMs,
	}
	if et.message != "" {
		m["statusMessage"] = et.message
	}
	return m
}

// createResult is the flat CreateTaskResult.
func (et *extTask) createResult() map[string]any {
	et.mu.Lock()
	defer et.mu.Unlock()
	m := et.fields()
	m["resultType"] = "task"
	return m
}

// detailed is the tasks/get result: the task with its outcome inlined.
func (et *extTask) detailed() map[string]any {
	et.mu.Lock()
	defer et.mu.Unlock()
	m := et.fields()
	m["resultType"] = "complete"
	switch et.status {
	case mcp.TaskCompleted:
		m["result"] = et.result
	case mcp.TaskFailed:
		m["error"] = map[string]any{"code": et.failure.Code, "message": et.failure.Message}
	case mcp.TaskInputRequired:
		m["inputRequests"] = et.pending
	}
	return m
}

// expireExtLocked drops tasks past their TTL (s.mu held).
func (s *Server) expireExtLocked(now time.Time) {
	for id, et := range s.extTasks {
		if now.Sub(et.created) > et.ttl {
			et.stop()
			delete(s.extTasks, id)
		}
	}
}

// extTaskFor finds the task a tasks/* request names.
func extTaskFor(r *request) (*extTask, map[string]json.RawMessage, error) {
	if !extDeclared(r.caps) {
		return nil, nil, missingTasksExtension()
	}
	var p struct {
		TaskID         string                     `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if err := r.decodeParams(&p); err != nil {
		return nil, nil, err
	}
	s := r.srv
	s.mu.Lock()
	s.expireExtLocked(s.opts.Now())
	et := s.extTasks[p.TaskID]
	s.mu.Unlock()
	if et == nil {
		return nil, nil, invalidParams("Unknown or expired task %q", p.TaskID)
	}
	return et, p.InputResponses, nil
}

// extTaskMethod serves tasks/get, tasks/update and tasks/cancel of the
// extension; ok is false for any other method.
func (s *Server) extTaskMethod(r *request) (result any, err error, ok bool) {
	switch r.method {
	case "tasks/get":
		et, _, err := extTaskFor(r)
		if err != nil {
			return nil, err, true
		}
		return et.detailed(), nil, true
	case methodTasksUpdate:
		et, inputs, err := extTaskFor(r)
		if err != nil {
			return nil, err, true
		}
		et.mu.Lock()
		for k, v := range inputs {
			if _, want := et.pending[k]; want {
				et.answers[k] = v
				delete(et.pending, k)
			}
		}
		if len(et.pending) == 0 && et.answered != nil {
			close(et.answered)
			et.answered = nil
		}
		et.mu.Unlock()
		return ackResult{}, nil, true
	case "tasks/cancel":
		et, _, err := extTaskFor(r)
		if err != nil {
			return nil, err, true
		}
		et.mu.Lock()
		if !mcp.Terminal(et.status) {
			et.status, et.message, et.updated = mcp.TaskCancelled, "cancelled by the client", s.opts.Now()
		}
		et.mu.Unlock()
		et.stop()
		return ackResult{}, nil, true
	}
	return nil, nil, false
}

// ackResult is the bare acknowledgement of tasks/update and tasks/cancel.
type ackResult struct{}

func (ackResult) MarshalJSON() ([]byte, error) { return []byte(`{"resultType":"complete"}`), nil }

// taskTools are the tasks extension's fixtures (2026-07-28 only).
func taskTools() []*toolFixture {
	st := func(t *toolFixture) *toolFixture { t.wire = statelessOnly; return t }
	return []*toolFixture{
		st(tool("greet", "", "Greets synchronously; never runs as a task", objectSchema(`{"name":{"type":"string"}}`, "name"), func(c *call) (any, error) {
			return textResult("Hello, " + c.str("name") + "!"), nil
		})),
		st(tool("slow_compute", "", "Waits seconds, then answers; runs as a task when the client opts in", objectSchema(`{"seconds":{"type":"number","minimum":0},"label":{"type":"string"}}`, "seconds"), func(c *call) (any, error) {
			secs := c.num("seconds", 0)
			label := c.str("label")
			if secs <= 0 {
				return textResult(fmt.Sprintf("computed %q immediately", label)), nil
			}
			return c.maybeTask(func(et *extTask) (any, error) {
				if err := et.sleep(time.Duration(secs * float64(time.Second))); err != nil {
					return nil, err
				}
				return textResult(fmt.Sprintf("computed %q after %v s", label, secs)), nil
			})
		})),
		withExt(st(tool("failing_job", "", "Task-only job that ends with a tool error", noArgs, func(c *call) (any, error) {
			return c.maybeTask(func(et *extTask) (any, error) {
				if err := et.sleep(time.Second); err != nil {
					return nil, err
				}
				return errorResult("failing_job failed as designed"), nil
			})
		})), mcp.TaskRequired),
		st(tool("protocol_error_job", "", "Job whose task fails with a JSON-RPC error", noArgs, func(c *call) (any, error) {
			return c.maybeTask(func(et *extTask) (any, error) {
				return nil, internalError("protocol_error_job failed as designed")
			})
		})),
		st(tool("confirm_delete", "", "Asks for confirmation before deleting", objectSchema(`{"filename":{"type":"string"}}`, "filename"), func(c *call) (any, error) {
			name := c.str("filename")
			req := map[string]mcp.InputRequest{"confirm": elicitRequest("Delete "+name+"?", "confirm", "boolean")}
			if !extDeclared(c.r.caps) {
				if v, ok := elicitedValue(c.inputs["confirm"], "confirm"); ok {
					return textResult(fmt.Sprintf("delete %s: confirm=%s", name, v)), nil
				}
				if a := declined(c.inputs["confirm"]); a != "" {
					return textResult(fmt.Sprintf("delete %s: not confirmed (action=%s)", name, a)), nil
				}
				return inputRequired(c.r, req, "")
			}
			return c.maybeTask(func(et *extTask) (any, error) {
				ans, err := et.need(req)
				if err != nil {
					return nil, err
				}
				v, _ := elicitedValue(ans["confirm"], "confirm")
				return textResult(fmt.Sprintf("delete %s: confirm=%s", name, v)), nil
			})
		})),
		st(tool("multi_input", "", "Needs two answers at once", noArgs, func(c *call) (any, error) {
			req := map[string]mcp.InputRequest{
				"first":  elicitRequest("First value?", "value", "string"),
				"second": elicitRequest("Second value?", "value", "string"),
			}
			if !extDeclared(c.r.caps) {
				a, ok1 := elicitedString(c.inputs["first"], "value")
				b, ok2 := elicitedString(c.inputs["second"], "value")
				if ok1 && ok2 {
					return textResult("first=" + a + " second=" + b), nil
				}
				if declined(c.inputs["first"]) != "" || declined(c.inputs["second"]) != "" {
					return textResult("multi_input: the user declined"), nil
				}
				return inputRequired(c.r, req, "")
			}
			return c.maybeTask(func(et *extTask) (any, error) {
				ans, err := et.need(req)
				if err != nil {
					return nil, err
				}
				a, _ := elicitedString(ans["first"], "value")
				b, _ := elicitedString(ans["second"], "value")
				return textResult("first=" + a + " second=" + b), nil
			})
		})),
		withExt(st(tool("test_tool_with_task", "", "Asks for a name (multi round-trip), then runs a task", noArgs, func(c *call) (any, error) {
			name, ok := elicitedString(c.inputs["name"], "name")
			if !ok {
				return inputRequired(c.r, map[string]mcp.InputRequest{"name": elicitRequest("What is your name?", "name", "string")}, "")
			}
			return c.maybeTask(func(et *extTask) (any, error) {
				return textResult("Hello " + name + ", from a task"), nil
			})
		})), mcp.TaskRequired),
	}
}

// withExt marks a tool's task support in the extension.
func withExt(t *toolFixture, s mcp.TaskSupport) *toolFixture {
	t.extSupport = s
	return t
}
