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

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
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
	if c.fault(FaultTaskWithoutServerCap) {
		serverOK = hasTasks(c.ProtocolVersion())
	}
	switch support {
	case mcp.TaskRequired:
		if c.fault(FaultRequiredToolPlain) {
			return false, nil
		}
		if !serverOK {
			return false, fmt.Errorf("client: tool %q requires running as a task, but the server did not declare tasks.requests.tools.call (or the protocol version has no core tasks)", t.Name)
		}
		return true, nil
	case mcp.TaskOptional:
		return o.Task && serverOK, nil
	}
	if serverOK && c.fault(FaultTaskOnForbiddenTool) {
		return true, nil
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
	if err := c.taskFollowFault(ctx, &task); err != nil {
		return nil, err
	}
	for !mcp.Terminal(task.Status) && task.Status != mcp.TaskInputRequired {
		if !sleepCtx(ctx, c.pollWait(task.PollInterval)) {
			c.abandonTask(task.TaskID)
			return nil, fmt.Errorf("client: waiting for task %s: %w", task.TaskID, ctx.Err())
		}
		var got mcp.GetTaskResult
		if err := c.Call(ctx, spec.MethodTasksGet, mcp.GetTaskParams{TaskID: task.TaskID}, &got); err != nil {
			if ctx.Err() != nil {
				c.abandonTask(task.TaskID)
			}
			return nil, fmt.Errorf("client: polling task %s: %w", task.TaskID, err)
		}
		if got.TaskID != task.TaskID {
			return nil, fmt.Errorf("client: tasks/get for %s answered about task %q", task.TaskID, got.TaskID)
		}
		task = got.Task
		if err := c.taskPollFault(ctx, task); err != nil {
			return nil, err
		}
	}
	// tasks/result blocks until the task ends; give it the whole context
	// rather than one request's timeout.
	deadline := c.timeout()
	if d, ok := ctx.Deadline(); ok {
		deadline = time.Until(d)
	}
	ro2 := reqOpts{}
	ro2.timeout = deadline
	done := c.tasks.awaiting(task.TaskID)
	raw, err = c.request(ctx, spec.MethodTasksResult, mcp.GetTaskPayloadParams{TaskID: task.TaskID}, ro2)
	done()
	if err != nil {
		if ctx.Err() != nil {
			c.abandonTask(task.TaskID)
		}
		return nil, fmt.Errorf("client: fetching the result of task %s (status %s): %w", task.TaskID, task.Status, err)
	}
	return c.toolResult(params.Name, raw, t, known)
}

// abandonTask cancels, with tasks/cancel, a task of the server the client
// no longer waits for (when the server supports tasks/cancel), bounded by
// a few seconds of its own.
func (c *Client) abandonTask(id string) {
	caps := c.ServerCapabilities()
	if caps.Tasks == nil || caps.Tasks.Cancel == nil {
		return
	}
	ctx, cancel := context.WithTimeout(c.ctx, min(c.timeout(), 3*time.Second))
	defer cancel()
	if _, err := c.CancelTask(ctx, id); err != nil {
		c.logf("cancelling abandoned task %s: %v", id, err)
	}
}

// CancelTask asks the server to cancel one of its tasks (2025-11-25) and
// returns the task's state after the cancellation.
func (c *Client) CancelTask(ctx context.Context, id string) (*mcp.Task, error) {
	var res mcp.CancelTaskResult
	if err := c.Call(ctx, spec.MethodTasksCancel, mcp.CancelTaskParams{TaskID: id}, &res); err != nil {
		return nil, err
	}
	return &res.Task, nil
}

// ListTasks returns the server's tasks (2025-11-25), following pagination.
func (c *Client) ListTasks(ctx context.Context) ([]mcp.Task, error) {
	return paginate(ctx, c, spec.MethodTasksList, func(raw json.RawMessage) ([]mcp.Task, string, error) {
		var r mcp.ListTasksResult
		if err := decodeResult(spec.MethodTasksList, raw, &r); err != nil {
			return nil, "", err
		}
		return r.Tasks, r.NextCursor, nil
	})
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
// It also notes, for the requestor side, which of the server's tasks the
// client waits on with tasks/result, and relays the server's task status
// notifications to whoever watches them.
type taskStore struct {
	mu      sync.Mutex
	tasks   map[string]*clientTask
	order   []string
	created int
	closed  bool
	wg      sync.WaitGroup

	waiting  map[string]int             // server task id -> tasks/result requests in flight
	watchers map[string][]chan mcp.Task // server task id -> status watchers
}

type clientTask struct {
	task    mcp.Task
	done    chan struct{}
	result  any
	err     error
	cancel  context.CancelFunc
	fetched bool // tasks/result has delivered the outcome
}

// maxTasks bounds how many tasks the client keeps.
const maxTasks = 256

func newTaskStore() *taskStore {
	return &taskStore{tasks: map[string]*clientTask{}, waiting: map[string]int{}, watchers: map[string][]chan mcp.Task{}}
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// start runs fn as a task for the request with params and returns the
// CreateTaskResult.
func (s *taskStore) start(c *Client, params json.RawMessage, meta *mcp.TaskMetadata, fn func(context.Context) (any, error)) (any, error) {
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	poll := int64(250)
	t := &clientTask{done: make(chan struct{})}
	t.task = mcp.Task{TaskID: id, Status: mcp.TaskWorking, CreatedAt: now(), LastUpdatedAt: now(), TTL: mcp.Null(), PollInterval: &poll}
	if meta.TTL != nil {
		t.task.TTL = mcp.IntValue(*meta.TTL)
	}
	c.createdFault(&t.task)
	ctx, cancel := context.WithTimeout(c.ctx, c.handlerTimeout())
	t.cancel = cancel
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cancel()
		return nil, ErrClosed
	}
	s.created++
	id = c.taskIDFault(id, s.created, params)
	t.task.TaskID = id
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
		cancelled := t.task.Status == mcp.TaskCancelled
		if cancelled && !c.fault(FaultCancelledTaskCompletes) {
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
		if !cancelled {
			close(t.done)
		}
		s.mu.Unlock()
		_ = c.notify(spec.MethodTasksStatus, status)
	}()
	if c.fault(FaultTaskCreateWaits) {
		select {
		case <-t.done:
		case <-ctx.Done():
		}
	}
	if c.fault(FaultTaskStartsInputRequired) {
		snapshot.Status = mcp.TaskInputRequired
	}
	return mcp.CreateTaskResult{Task: snapshot}, nil
}

func (s *taskStore) get(c *Client, id string) (*clientTask, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tasks[id]
	if t == nil {
		if c.fault(FaultUnknownTaskInternalError) {
			return nil, fmt.Errorf("no task with id %q", id)
		}
		return nil, invalidParams("no task with id %q", id)
	}
	return t, nil
}

// serve answers tasks/get, tasks/result, tasks/list and tasks/cancel.
func (s *taskStore) serve(ctx context.Context, c *Client, method string, params json.RawMessage) (any, error) {
	var p struct {
		TaskID string   `json:"taskId"`
		Cursor string   `json:"cursor"`
		Meta   mcp.Meta `json:"_meta"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if c.fault(FaultTaskFollowsRelatedMeta) {
		if rt, ok, _ := p.Meta.RelatedTask(); ok && rt.TaskID != "" {
			p.TaskID = rt.TaskID
		}
	}
	switch method {
	case spec.MethodTasksList:
		s.mu.Lock()
		defer s.mu.Unlock()
		out := mcp.ListTasksResult{Tasks: []mcp.Task{}}
		for _, id := range s.order {
			if c.fault(FaultTaskListOmitsFinished) && mcp.Terminal(s.tasks[id].task.Status) {
				continue
			}
			out.Tasks = append(out.Tasks, s.tasks[id].task)
		}
		return out, nil
	case spec.MethodTasksGet:
		t, err := s.get(c, p.TaskID)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		task := t.task
		if c.fault(FaultTerminalTaskReopens) && t.fetched && task.Status == mcp.TaskCompleted {
			task.Status = mcp.TaskWorking
		}
		return mcp.GetTaskResult{Task: task}, nil
	case spec.MethodTasksCancel:
		t, err := s.get(c, p.TaskID)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if mcp.Terminal(t.task.Status) {
			if c.fault(FaultTaskCancelTerminalAccepted) {
				return mcp.CancelTaskResult{Task: t.task}, nil
			}
			return nil, invalidParams("task %q is already %s and cannot be cancelled", p.TaskID, t.task.Status)
		}
		before := t.task
		t.task.Status = mcp.TaskCancelled
		t.task.LastUpdatedAt = now()
		t.err = errors.New("the task was cancelled")
		if !c.fault(FaultCancelledTaskCompletes) {
			t.cancel()
		}
		close(t.done)
		if c.fault(FaultTaskCancelAnswersWorking) {
			return mcp.CancelTaskResult{Task: before}, nil
		}
		return mcp.CancelTaskResult{Task: t.task}, nil
	case spec.MethodTasksResult:
		t, err := s.get(c, p.TaskID)
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
		t.fetched = true
		s.mu.Unlock()
		if terr != nil {
			return nil, terr
		}
		o, err := toObject(res)
		if err != nil {
			return nil, err
		}
		if !c.fault(FaultTaskResultNoRelatedMeta) {
			m := o.meta()
			m.SetRelatedTask(p.TaskID)
			o.set("_meta", m)
		}
		return o, nil
	}
	return nil, methodNotFound("unknown tasks method %q", method)
}

// awaiting notes that the client waits on tasks/result for the server's
// task id; the returned function ends that.
func (s *taskStore) awaiting(id string) func() {
	s.mu.Lock()
	s.waiting[id]++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		if s.waiting[id]--; s.waiting[id] <= 0 {
			delete(s.waiting, id)
		}
		s.mu.Unlock()
	}
}

// isAwaited reports whether the client waits on tasks/result for id.
func (s *taskStore) isAwaited(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting[id] > 0
}

// watchStatus returns a channel that receives the server's status
// notifications for task id, and the function that stops watching.
func (s *taskStore) watchStatus(id string) (<-chan mcp.Task, func()) {
	ch := make(chan mcp.Task, 4)
	s.mu.Lock()
	s.watchers[id] = append(s.watchers[id], ch)
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		ws := s.watchers[id]
		for i, w := range ws {
			if w == ch {
				s.watchers[id] = append(ws[:i], ws[i+1:]...)
				break
			}
		}
		if len(s.watchers[id]) == 0 {
			delete(s.watchers, id)
		}
	}
}

// noteStatus hands a notifications/tasks/status to the task's watchers.
func (s *taskStore) noteStatus(params json.RawMessage) {
	var p mcp.TaskStatusParams
	if json.Unmarshal(params, &p) != nil || p.TaskID == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ch := range s.watchers[p.TaskID] {
		select {
		case ch <- p.Task:
		default:
		}
	}
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
