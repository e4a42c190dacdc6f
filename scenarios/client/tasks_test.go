package client

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/spec/mcp"
)

// TestTaskEndsOnlyAfterTheClientSawItWorking: the stage's task engine
// completes a task once its work time has passed and the client has seen
// it working, never on the clock alone. A client whose first tasks/get
// comes after the work time (a busy machine: the reference client's
// streamable run at load 45-73 got 'did not poll more than once' from
// client/tasks/poll-interval) is told "working" and sees the task
// completed on its next poll, so its polling is judged, not our timing. A
// client that polled before the work time passed sees the task completed
// on the poll after it; one blocked on tasks/result gets its result then.
func TestTaskEndsOnlyAfterTheClientSawItWorking(t *testing.T) {
	engine := func() (*tkEngine, *tkTask) {
		task := &tkTask{id: "t1", tool: tkRequired, status: mcp.TaskWorking, ttl: 60000, done: make(chan struct{})}
		return &tkEngine{tasks: map[string]*tkTask{task.id: task}}, task
	}
	poll := func(e *tkEngine, task *tkTask) mcp.TaskStatus {
		t.Helper()
		res, err, handled := e.get(nil, task)
		if err != nil || !handled {
			t.Fatalf("tasks/get: %v (handled %v)", err, handled)
		}
		return res.(mcp.GetTaskResult).Status
	}

	e, task := engine()
	e.workDone(task) // the work time passed before the first poll
	if got := poll(e, task); got != mcp.TaskWorking {
		t.Errorf("first poll after the work time: %s, want working (the client has not seen the task working yet)", got)
	}
	if got := poll(e, task); got != mcp.TaskCompleted {
		t.Errorf("second poll: %s, want completed", got)
	}

	e, task = engine()
	if got := poll(e, task); got != mcp.TaskWorking {
		t.Errorf("poll before the work time: %s, want working", got)
	}
	e.workDone(task)
	if got := poll(e, task); got != mcp.TaskCompleted {
		t.Errorf("poll after the work time, the client having seen it working: %s, want completed", got)
	}

	e, task = engine()
	e.mu.Lock()
	task.waiting++ // a client blocked on tasks/result
	e.mu.Unlock()
	e.workDone(task)
	select {
	case <-task.done:
	default:
		t.Error("a task whose tasks/result waits did not complete at the end of its work time")
	}
}
