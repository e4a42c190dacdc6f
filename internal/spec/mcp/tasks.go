package mcp

import (
	"encoding/json"
	"fmt"
)

// TaskStatus is the state of a task (2025-11-25).
type TaskStatus string

// The task states. A task starts in working; completed, failed and cancelled
// are terminal.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// TaskStatuses lists the states.
var TaskStatuses = []TaskStatus{TaskWorking, TaskInputRequired, TaskCompleted, TaskFailed, TaskCancelled}

// Valid reports whether s is one of the states.
func (s TaskStatus) Valid() bool {
	for _, t := range TaskStatuses {
		if t == s {
			return true
		}
	}
	return false
}

// Terminal reports whether s is a terminal state (completed, failed or
// cancelled), from which a task never moves.
func Terminal(s TaskStatus) bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// LegalTransition reports whether a task may move from one state to another
// under the 2025-11-25 state machine:
//
//   - "" (no task yet) → working: a task is created in working;
//   - working → input_required, completed, failed, cancelled;
//   - input_required → working, completed, failed, cancelled;
//   - nothing leaves a terminal state.
//
// Staying in the same state is not a transition and reports false; callers
// that see a repeated status (say, a new statusMessage) should compare
// before asking.
func LegalTransition(from, to TaskStatus) bool {
	if !to.Valid() || from == to {
		return false
	}
	switch from {
	case "":
		return to == TaskWorking
	case TaskWorking:
		return true
	case TaskInputRequired:
		return true
	}
	return false
}

// Task is the state of a task (2025-11-25).
type Task struct {
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	// CreatedAt and LastUpdatedAt are ISO 8601 timestamps.
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTL is the retention in milliseconds from creation; it is required
	// and null means unlimited.
	TTL NullableInt `json:"ttl,omitzero"`
	// PollInterval is the suggested polling interval in milliseconds.
	PollInterval *int64 `json:"pollInterval,omitempty"`
}

// TaskMetadata asks a receiver to run a request as a task (2025-11-25). It
// is the "task" member of tools/call, sampling/createMessage and
// elicitation/create params.
type TaskMetadata struct {
	// TTL is the requested retention in milliseconds.
	TTL *int64 `json:"ttl,omitempty"`
}

// RelatedTaskMetadata is the value of the io.modelcontextprotocol/related-task
// _meta key (2025-11-25).
type RelatedTaskMetadata struct {
	TaskID string `json:"taskId"`
}

// CreateTaskResult is what a receiver returns at once for a task-augmented
// request, in place of the request's normal result (2025-11-25).
type CreateTaskResult struct {
	ResultBase
	Task Task `json:"task"`
}

// GetTaskParams is the params of tasks/get (2025-11-25).
type GetTaskParams struct {
	Meta   Meta   `json:"_meta,omitzero"`
	TaskID string `json:"taskId"`
}

// GetTaskResult is the result of tasks/get: the task's state.
type GetTaskResult struct {
	ResultBase
	Task
}

// GetTaskPayloadParams is the params of tasks/result (2025-11-25).
type GetTaskPayloadParams struct {
	Meta   Meta   `json:"_meta,omitzero"`
	TaskID string `json:"taskId"`
}

// GetTaskPayloadResult is the result of tasks/result: exactly the result the
// underlying request would have returned, kept as raw members. Use Decode to
// read it as that request's result type.
type GetTaskPayloadResult map[string]json.RawMessage

// Decode decodes the payload as the result of method (for example
// tools/call) using the registry.
func (r GetTaskPayloadResult) Decode(method string) (any, error) {
	raw, err := json.Marshal(map[string]json.RawMessage(r))
	if err != nil {
		return nil, err
	}
	v := NewResult(method)
	if v == nil {
		return nil, fmt.Errorf("mcp: tasks/result payload: method %q has no result type", method)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("mcp: tasks/result payload as %s result: %v", method, err)
	}
	return v, nil
}

// ListTasksResult is the result of tasks/list (2025-11-25).
type ListTasksResult struct {
	ResultBase
	PaginatedResult
	Tasks []Task `json:"tasks"`
}

// CancelTaskParams is the params of tasks/cancel (2025-11-25).
type CancelTaskParams struct {
	Meta   Meta   `json:"_meta,omitzero"`
	TaskID string `json:"taskId"`
}

// CancelTaskResult is the result of tasks/cancel: the task, now cancelled.
type CancelTaskResult struct {
	ResultBase
	Task
}

// TaskStatusParams is the params of notifications/tasks/status: the task's
// new state (2025-11-25).
type TaskStatusParams struct {
	Meta Meta `json:"_meta,omitzero"`
	Task
}
