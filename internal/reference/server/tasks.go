package server

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Tasks (2025-11-25): a task-augmented tools/call returns a
// CreateTaskResult at once and runs on; the client polls tasks/get, blocks
// on tasks/result, lists and cancels. Task ids are crypto-random; tasks
// expire ttl milliseconds after creation.

const maxTaskTTL = time.Hour

type task struct {
	id    string
	store *taskStore
	ctx   context.Context
	stop  context.CancelFunc
	done  chan struct{}

	mu          sync.Mutex
	status      mcp.TaskStatus
	message     string
	created     time.Time
	updated     time.Time
	ttl         time.Duration
	result      json.RawMessage // the CallToolResult when completed
	failure     *Error          // the JSON-RPC error when failed
	resultSinks []*sinkRef      // streams of waiting tasks/result requests
}

// sinkRef makes a Sink comparable by identity.
type sinkRef struct{ Sink }

type taskStore struct {
	ss    *Session
	mu    sync.Mutex
	tasks map[string]*task
}

func newTaskStore(ss *Session) *taskStore { return &taskStore{ss: ss, tasks: map[string]*task{}} }

func (t *task) terminal() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return mcp.Terminal(t.status)
}

// snapshot is the task's wire state.
func (t *task) snapshot() mcp.Task {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.snapshotLocked()
}

func (t *task) snapshotLocked() mcp.Task {
	poll := int64(500)
	return mcp.Task{
		TaskID: t.id, Status: t.status, StatusMessage: t.message,
		CreatedAt:     t.created.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt: t.updated.UTC().Format(time.RFC3339Nano),
		TTL:           mcp.IntValue(t.ttl.Milliseconds()),
		PollInterval:  &poll,
	}
}

// setStatus moves the task to status when the transition is legal and
// announces it; illegal transitions are refused (and logged).
func (t *task) setStatus(status mcp.TaskStatus, message string) bool {
	t.mu.Lock()
	if t.status == status || !mcp.LegalTransition(t.status, status) {
		t.mu.Unlock()
		return false
	}
	t.status, t.message = status, message
	t.updated = t.store.ss.srv.opts.Now()
	snap := t.snapshotLocked()
	t.mu.Unlock()
	if mcp.Terminal(status) {
		close(t.done)
	}
	t.store.ss.notifyGeneral(spec.MethodTasksStatus, mcp.TaskStatusParams{Task: snap})
	return true
}

// start creates a task for the call and runs it in the background.
func (st *taskStore) start(c *call, tm mcp.TaskMetadata) (any, error) {
	srv := st.ss.srv
	now := srv.opts.Now()
	ttl := srv.opts.TaskTTL
	if tm.TTL != nil && *tm.TTL > 0 {
		ttl = time.Duration(*tm.TTL) * time.Millisecond
		if ttl > maxTaskTTL {
			ttl = maxTaskTTL
		}
	}
	t := &task{id: srv.randomID(16), store: st, status: mcp.TaskWorking, created: now, updated: now, ttl: ttl, done: make(chan struct{})}
	if srv.faults.on(FaultTaskIDFromRequestor) || srv.faults.on(FaultTaskIDCounter) {
		t.id = srv.faultTaskID(c.r.params, t.id)
	}
	t.ctx, t.stop = context.WithCancel(st.ss.ctx)
	st.mu.Lock()
	st.expireLocked(now)
	if len(st.tasks) >= srv.opts.MaxTasks {
		st.mu.Unlock()
		t.stop()
		return nil, internalError("too many tasks in this session (limit %d); wait for some to finish or cancel them", srv.opts.MaxTasks)
	}
	st.tasks[t.id] = t
	st.mu.Unlock()
	c.task = t
	snap := t.snapshot() // the task starts working; its outcome comes later
	if !st.ss.enter() {
		t.stop()
		return nil, internalError("the session is closing; no new tasks")
	}
	c.r.afterResponse(func() { go t.execute(c) })
	return mcp.CreateTaskResult{Task: snap}, nil
}

// execute runs the task's call to its outcome.
func (t *task) execute(c *call) {
	st := t.store
	defer st.ss.wg.Done()
	defer t.stop()
	defer func() {
		if p := recover(); p != nil {
			st.ss.srv.logf("recovered from a panic in task %s: %v", t.id, p)
			t.fail(internalError("internal error in the task; the server recovered"))
		}
	}()
	res, err := c.run()
	switch {
	case t.ctx.Err() != nil:
		t.setStatus(mcp.TaskCancelled, "the task was cancelled")
	case err != nil:
		var re *Error
		if !errors.As(err, &re) {
			re = internalError("%v", err)
		}
		t.fail(re)
	default:
		raw, _ := json.Marshal(res)
		t.mu.Lock()
		t.result = raw
		t.mu.Unlock()
		t.setStatus(mcp.TaskCompleted, "")
	}
}

// fail records the error the call ended with and moves the task to failed.
func (t *task) fail(re *Error) {
	t.mu.Lock()
	t.failure = re
	t.mu.Unlock()
	t.setStatus(mcp.TaskFailed, re.Message)
}

// expireLocked drops tasks whose TTL has passed.
func (st *taskStore) expireLocked(now time.Time) {
	for id, t := range st.tasks {
		if now.Sub(t.created) > t.ttl {
			t.stop()
			delete(st.tasks, id)
		}
	}
}

func (st *taskStore) get(r *request) (*task, error) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	if err := r.decodeParams(&p); err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.expireLocked(st.ss.srv.opts.Now())
	t := st.tasks[p.TaskID]
	if t == nil {
		if st.ss.srv.faults.on(FaultUnknownTaskInternalError) {
			return nil, internalError("no task %q", p.TaskID)
		}
		return nil, invalidParams("Unknown or expired task %q; call tasks/list for the tasks this session can see", p.TaskID)
	}
	return t, nil
}

func getTask(r *request) (any, error) {
	t, err := r.s.tasks.get(r)
	if err != nil {
		return nil, err
	}
	return mcp.GetTaskResult{Task: t.snapshot()}, nil
}

// taskResult blocks until the task is terminal and returns exactly what the
// call would have returned, with the related-task _meta.
func taskResult(r *request) (any, error) {
	t, err := r.s.tasks.get(r)
	if err != nil {
		return nil, err
	}
	ref := &sinkRef{r.out}
	t.mu.Lock()
	t.resultSinks = append(t.resultSinks, ref)
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		for i, x := range t.resultSinks {
			if x == ref {
				t.resultSinks = append(t.resultSinks[:i], t.resultSinks[i+1:]...)
				break
			}
		}
		t.mu.Unlock()
	}()
	select {
	case <-t.done:
	case <-r.ctx.Done():
		return nil, r.ctx.Err()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch t.status {
	case mcp.TaskCompleted:
		return withRelatedTask(t.result, t.id), nil
	case mcp.TaskFailed:
		return nil, t.failure
	}
	return nil, internalError("task %s was cancelled before it produced a result", t.id)
}

func listTasks(r *request) (any, error) {
	var p mcp.PaginatedParams
	if err := r.decodeParams(&p); err != nil {
		return nil, err
	}
	st := r.s.tasks
	st.mu.Lock()
	st.expireLocked(r.srv.opts.Now())
	all := make([]*task, 0, len(st.tasks))
	for _, t := range st.tasks {
		all = append(all, t)
	}
	st.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return all[i].id < all[j].id })
	page, next, err := paginate(r.srv, "tasks", all, func(t *task) string { return t.id }, p.Cursor)
	if err != nil {
		return nil, err
	}
	res := mcp.ListTasksResult{Tasks: make([]mcp.Task, len(page))}
	res.NextCursor = next
	for i, t := range page {
		res.Tasks[i] = t.snapshot()
	}
	return res, nil
}

func cancelTask(r *request) (any, error) {
	t, err := r.s.tasks.get(r)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	status := t.status
	t.mu.Unlock()
	if mcp.Terminal(status) && !r.srv.faults.on(FaultTaskCancelTerminalAccepted) {
		return nil, invalidParams("Task %s is already %s; a terminal task cannot be cancelled", t.id, status)
	}
	t.setStatus(mcp.TaskCancelled, "cancelled by the client")
	t.stop()
	return mcp.CancelTaskResult{Task: t.snapshot()}, nil
}

// sink is where the task's messages go: the stream of a waiting
// tasks/result request when there is one, else the session's general
// stream.
func (t *task) sink() Sink {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := len(t.resultSinks); n > 0 {
		return t.resultSinks[n-1].Sink
	}
	return t.store.ss.general
}
