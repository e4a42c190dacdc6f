package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/mcp"
)

// wantTask decides whether a tools/call runs as a task: when the tool
// requires it, or allows it and the caller asked; either way only when the
// server declared tasks for tools/call (2025-11-25).
func (c *Client) wantTask(t mcp.Tool, known bool, o *CallOptions) (bool, error) {
	support := mcp.TaskForbidden
	if known && t.Execution != nil && t.Execution.TaskSupport != "" {
		support = t.Execution.TaskSupport
	}
	caps := c.ServerCapabilities()
	serverOK := hasTasks(c.ProtocolVersion()) && caps.Tasks != nil && caps.Tasks.Requests != nil && caps.Tasks.Requests.Tools != nil && caps.Tasks.Requests.Tools.Call != nil
	switch support {
	case mcp.TaskRequired:
		if !serverOK {
			return false, fmt.Errorf("client: tool %q requires running as a task, but the server did not declare tasks.requests.tools.call (or the protocol version has no core tasks)", t.Name)
		}
		return true, nil
	case mcp.TaskOptional:
		return o.Task && serverOK, nil
	}
	if o.Task {
		c.logf("tool %q does not support tasks; calling it directly", t.Name)
	}
	return false, nil
}

// callToolTask runs tools/call as a task: create, poll tasks/get at the
// server's pollInterval until the task ends, then fetch tasks/result.
func (c *Client) callToolTask(ctx context.Context, params mcp.CallToolParams, t mcp.Tool, known bool, o *CallOptions, ro reqOpts) (*mcp.CallToolResult, error) {
	meta := &mcp.TaskMetadata{}
	if o.TaskTTL > 0 {
		ttl := o.TaskTTL.Milliseconds()
		meta.TTL = &ttl
	}
	params.Task = meta
	raw, err := c.request(ctx, spec.MethodToolsCall, params, ro)
	if err != nil {
		return nil, err
	}
	var probe map[string]json.RawMessage
	_ = json.Unmarshal(raw, &probe)
	if _, ok := probe["task"]; !ok {
		// The server ran it directly after all.
		return c.toolResult(params.Name, raw, t, known)
	}
	var created mcp.CreateTaskResult
	if err := decodeResult(spec.MethodToolsCall, raw, &created); err != nil {
		return nil, err
	}
	task := created.Task
	if task.TaskID == "" {
		return nil, errors.New("client: the server created a task without a taskId")
	}
	for !mcp.Terminal(task.Status) && task.Status != mcp.TaskInputRequired {
		if !sleepCtx(ctx, pollInterval(task.PollInterval)) {
			return nil, fmt.Errorf("client: waiting for task %s: %w", task.TaskID, ctx.Err())
		}
		var got mcp.GetTaskResult
		if err := c.Call(ctx, spec.MethodTasksGet, mcp.GetTaskParams{TaskID: task.TaskID}, &got); err != nil {
			return nil, fmt.Errorf("client: polling task %s: %w", task.TaskID, err)
		}
		if got.TaskID != task.TaskID {
			return nil, fmt.Errorf("client: tasks/get for %s answered about task %q", task.TaskID, got.TaskID)
		}
		task = got.Task
	}
	// tasks/result blocks until the task ends; give it the whole context
	// rather than one request's timeout.
	deadline := c.timeout()
	if d, ok := ctx.Deadline(); ok {
		deadline = time.Until(d)
	}
	ro2 := reqOpts{}
	ro2.timeout = deadline
	raw, err = c.request(ctx, spec.MethodTasksResult, mcp.GetTaskPayloadParams{TaskID: task.TaskID}, ro2)
	if err != nil {
		return nil, fmt.Errorf("client: fetching the result of task %s (status %s): %w", task.TaskID, task.Status, err)
	}
	return c.toolResult(params.Name, raw, t, known)
}

func pollInterval(ms *int64) time.Duration {
	d := time.Second
	if ms != nil {
		d = time.Duration(*ms) * time.Millisecond
	}
	return min(max(d, 50*time.Millisecond), 30*time.Second)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// taskStore runs the task-augmented requests the server sends the client
// (sampling and elicitation, 2025-11-25) and answers tasks/* about them.
type taskStore struct {
	mu     sync.Mutex
	tasks  map[string]*clientTask
	order  []string
	closed bool
	wg     sync.WaitGroup
}

type clientTask struct {
	task   mcp.Task
	done   chan struct{}
	result any
	err    error
	cancel context.CancelFunc
}

// maxTasks bounds how many tasks the client keeps.
const maxTasks = 256

func newTaskStore() *taskStore { return &taskStore{tasks: map[string]*clientTask{}} }

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// start runs fn as a task and returns the CreateTaskResult.
func (s *taskStore) start(c *Client, method string, meta *mcp.TaskMetadata, fn func(context.Context) (any, error)) (any, error) {
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	poll := int64(250)
	t := &clientTask{done: make(chan struct{})}
	t.task = mcp.Task{TaskID: id, Status: mcp.TaskWorking, CreatedAt: now(), LastUpdatedAt: now(), TTL: mcp.Null(), PollInterval: &poll}
	if meta.TTL != nil {
		t.task.TTL = mcp.IntValue(*meta.TTL)
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.handlerTimeout())
	t.cancel = cancel
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cancel()
		return nil, ErrClosed
	}
	if len(s.order) >= maxTasks {
		old := s.order[0]
		s.order = s.order[1:]
		if ot := s.tasks[old]; ot != nil {
			ot.cancel()
		}
		delete(s.tasks, old)
	}
	s.tasks[id] = t
	s.order = append(s.order, id)
	snapshot := t.task
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer cancel()
		res, err := fn(ctx)
		s.mu.Lock()
		if t.task.Status == mcp.TaskCancelled {
			s.mu.Unlock()
			return
		}
		t.result, t.err = res, err
		t.task.Status = mcp.TaskCompleted
		if err != nil {
			t.task.Status = mcp.TaskFailed
			t.task.StatusMessage = err.Error()
		}
		t.task.LastUpdatedAt = now()
		status := t.task
		close(t.done)
		s.mu.Unlock()
		_ = c.notify(spec.MethodTasksStatus, status)
	}()
	return mcp.CreateTaskResult{Task: snapshot}, nil
}

func (s *taskStore) get(id string) (*clientTask, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tasks[id]
	if t == nil {
		return nil, invalidParams("no task with id %q", id)
	}
	return t, nil
}

// serve answers tasks/get, tasks/result, tasks/list and tasks/cancel.
func (s *taskStore) serve(ctx context.Context, method string, params json.RawMessage) (any, error) {
	var p struct {
		TaskID string `json:"taskId"`
		Cursor string `json:"cursor"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	switch method {
	case spec.MethodTasksList:
		s.mu.Lock()
		defer s.mu.Unlock()
		out := mcp.ListTasksResult{Tasks: []mcp.Task{}}
		for _, id := range s.order {
			out.Tasks = append(out.Tasks, s.tasks[id].task)
		}
		return out, nil
	case spec.MethodTasksGet:
		t, err := s.get(p.TaskID)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return mcp.GetTaskResult{Task: t.task}, nil
	case spec.MethodTasksCancel:
		t, err := s.get(p.TaskID)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if mcp.Terminal(t.task.Status) {
			return nil, invalidParams("task %q is already %s and cannot be cancelled", p.TaskID, t.task.Status)
		}
		t.task.Status = mcp.TaskCancelled
		t.task.LastUpdatedAt = now()
		t.err = errors.New("the task was cancelled")
		t.cancel()
		close(t.done)
		return mcp.CancelTaskResult{Task: t.task}, nil
	case spec.MethodTasksResult:
		t, err := s.get(p.TaskID)
		if err != nil {
			return nil, err
		}
		select {
		case <-t.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("task %s did not finish in time", p.TaskID)
		}
		s.mu.Lock()
		res, terr := t.result, t.err
		s.mu.Unlock()
		if terr != nil {
			return nil, terr
		}
		o, err := toObject(res)
		if err != nil {
			return nil, err
		}
		m := o.meta()
		m.SetRelatedTask(p.TaskID)
		o.set("_meta", m)
		return o, nil
	}
	return nil, methodNotFound("unknown tasks method %q", method)
}

// close cancels every task and waits (at most a few seconds, since a
// handler may be waiting on a person) for them to stop.
func (s *taskStore) close() {
	s.mu.Lock()
	s.closed = true
	for _, t := range s.tasks {
		t.cancel()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}
