package tasks

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
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
	newEngine := func() (*engine, *task) {
		tsk := &task{id: "t1", tool: required, status: mcp.TaskWorking, ttl: 60000, done: make(chan struct{})}
		return &engine{tasks: map[string]*task{tsk.id: tsk}}, tsk
	}
	poll := func(e *engine, tsk *task) mcp.TaskStatus {
		t.Helper()
		res, err, handled := e.get(nil, tsk)
		if err != nil || !handled {
			t.Fatalf("tasks/get: %v (handled %v)", err, handled)
		}
		return res.(mcp.GetTaskResult).Status
	}

	e, tsk := newEngine()
	e.workDone(tsk) // the work time passed before the first poll
	if got := poll(e, tsk); got != mcp.TaskWorking {
		t.Errorf("first poll after the work time: %s, want working (the client has not seen the tsk working yet)", got)
	}
	if got := poll(e, tsk); got != mcp.TaskCompleted {
		t.Errorf("second poll: %s, want completed", got)
	}

	e, tsk = newEngine()
	if got := poll(e, tsk); got != mcp.TaskWorking {
		t.Errorf("poll before the work time: %s, want working", got)
	}
	e.workDone(tsk)
	if got := poll(e, tsk); got != mcp.TaskCompleted {
		t.Errorf("poll after the work time, the client having seen it working: %s, want completed", got)
	}

	e, tsk = newEngine()
	e.mu.Lock()
	tsk.waiting++ // a client blocked on tasks/result
	e.mu.Unlock()
	e.workDone(tsk)
	select {
	case <-tsk.done:
	default:
		t.Error("a tsk whose tasks/result waits did not complete at the end of its work time")
	}
}
