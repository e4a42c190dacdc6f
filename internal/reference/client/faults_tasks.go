package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Fault switches of tasks (2025-11-25), on both sides: the client as the
// requestor of tasks it runs on the server (which tools it calls as tasks,
// how it polls, fetches, lists and cancels) and as the receiver of the
// server's task-augmented sampling and elicitation (its CreateTaskResult,
// statuses, ids, tasks/result, tasks/cancel and errors). Each breaks one
// requirement for the client suite to catch.

// The named hooks of tasks.
const (
	FaultTaskOnForbiddenTool        = "task-on-forbidden-tool"
	FaultRequiredToolPlain          = "required-tool-without-task"
	FaultTaskWithoutServerCap       = "task-without-server-capability"
	FaultIgnorePollInterval         = "ignore-poll-interval"
	FaultStopPollingEarly           = "stop-polling-early"
	FaultAbandonAfterResultTimeout  = "abandon-after-result-timeout"
	FaultWaitForStatusNotification  = "wait-for-status-notification"
	FaultNoResultOnInputRequired    = "no-result-on-input-required"
	FaultIgnoreSideChannelRequests  = "ignore-side-channel-requests"
	FaultTaskCreatedAtNotRFC3339    = "task-created-at-not-rfc3339"
	FaultTaskStartsInputRequired    = "task-starts-input-required"
	FaultTaskIDsCounter             = "task-ids-counter"
	FaultTaskIDFromRequestor        = "task-id-from-requestor"
	FaultTerminalTaskReopens        = "terminal-task-reopens"
	FaultTaskResultNoRelatedMeta    = "task-result-no-related-meta"
	FaultTaskCancelAnswersWorking   = "task-cancel-answers-working"
	FaultCancelledTaskCompletes     = "cancelled-task-completes"
	FaultTaskCancelTerminalAccepted = "task-cancel-terminal-accepted"
	FaultUnknownTaskInternalError   = "unknown-task-internal-error"
	FaultTaskFollowsRelatedMeta     = "task-follows-related-meta"
	FaultTaskListOmitsFinished      = "task-list-omits-finished"
	FaultTaskCreateWaits            = "task-create-waits"
)

func init() {
	registerFaults([]string{FaultTaskOnForbiddenTool, FaultRequiredToolPlain, FaultTaskWithoutServerCap, FaultIgnorePollInterval,
		FaultStopPollingEarly, FaultAbandonAfterResultTimeout, FaultWaitForStatusNotification, FaultNoResultOnInputRequired,
		FaultIgnoreSideChannelRequests, FaultTaskCreatedAtNotRFC3339, FaultTaskStartsInputRequired, FaultTaskIDsCounter,
		FaultTaskIDFromRequestor, FaultTerminalTaskReopens, FaultTaskResultNoRelatedMeta, FaultTaskCancelAnswersWorking,
		FaultCancelledTaskCompletes, FaultTaskCancelTerminalAccepted, FaultUnknownTaskInternalError, FaultTaskFollowsRelatedMeta,
		FaultTaskListOmitsFinished, FaultTaskCreateWaits},
		// The client as requestor.
		Fault{Name: FaultTaskOnForbiddenTool, Requirement: "tasks.tool.forbidden-not-augmented", Description: "tools whose execution.taskSupport is forbidden or absent are called as tasks"},
		Fault{Name: FaultRequiredToolPlain, Requirement: "tasks.tool.required-must-augment", Description: `tools whose execution.taskSupport is "required" are called without a task field`},
		Fault{Name: FaultTaskWithoutServerCap, Requirement: "tasks.tool.no-augment-without-server-capability", Description: "tools that require tasks are called as tasks although the server did not declare tasks.requests.tools.call"},
		Fault{Name: "task-on-undeclared-request", Requirement: "tasks.capability.augment-only-if-declared", Description: "tools/list requests carry a task field, a request type no server lists under tasks.requests",
			Rewrite: taskEditRequest(spec.MethodToolsList, func(p map[string]json.RawMessage) { p["task"] = json.RawMessage(`{}`) })},
		Fault{Name: FaultIgnorePollInterval, Requirement: "tasks.poll.honour-poll-interval", Description: "tasks/get polls follow each other after 5 ms, whatever pollInterval says"},
		Fault{Name: FaultStopPollingEarly, Requirement: "tasks.poll.until-terminal-or-input", Description: "the client gives up on a task after one tasks/get that shows it still working"},
		Fault{Name: FaultAbandonAfterResultTimeout, Requirement: "tasks.poll.continue-alongside-result", Description: "the client calls tasks/result at once with a 100 ms timeout and, when it times out, stops following the task"},
		Fault{Name: FaultWaitForStatusNotification, Requirement: "tasks.notify.not-relied-upon", Description: "instead of polling, the client waits (3 s) for notifications/tasks/status to say the task ended, and gives up without one"},
		Fault{Name: FaultNoResultOnInputRequired, Requirement: "tasks.input.requestor-calls-result", Description: "on input_required the client keeps polling tasks/get (three more times) and never calls tasks/result"},
		Fault{Name: FaultIgnoreSideChannelRequests, Requirement: "tasks.http.messages-on-any-stream", Description: "task-related server requests are ignored unless they arrive while the client waits on tasks/result for that task"},
		Fault{Name: "related-meta-on-task-ops", Requirement: "tasks.related.requestor-omits-on-task-ops", Description: "tasks/get, tasks/result and tasks/cancel requests carry related-task _meta",
			Rewrite: func(w Written) [][]byte {
				switch w.Decoded.Method {
				case spec.MethodTasksGet, spec.MethodTasksResult, spec.MethodTasksCancel:
				default:
					return [][]byte{w.Msg}
				}
				return taskEditRequest(w.Decoded.Method, func(p map[string]json.RawMessage) {
					var id string
					_ = json.Unmarshal(p["taskId"], &id)
					var m mcp.Meta
					_ = json.Unmarshal(p["_meta"], &m)
					m.SetRelatedTask(id)
					p["_meta"], _ = json.Marshal(m)
				})(w)
			}},
		Fault{Name: "task-list-cursor-altered", Requirement: "tasks.list.cursor-opaque", Description: "the cursor of a tasks/list request is not the nextCursor given: the client appends \"-next\" to it",
			Rewrite: taskEditRequest(spec.MethodTasksList, func(p map[string]json.RawMessage) {
				var cur string
				if json.Unmarshal(p["cursor"], &cur) == nil && cur != "" {
					p["cursor"], _ = json.Marshal(cur + "-next")
				}
			})},
		Fault{Name: "cancel-task-with-notification", Requirement: "cancellation.tasks.use-tasks-cancel", Description: "a task is cancelled with notifications/cancelled naming its task-augmented tools/call instead of tasks/cancel",
			Rewrite: cancelWithNotification()},
		// The client as receiver.
		Fault{Name: FaultTaskCreatedAtNotRFC3339, Requirement: "tasks.ttl.created-at", Description: "the client's tasks give createdAt as Unix seconds, not an RFC 3339 timestamp"},
		Fault{Name: FaultTaskStartsInputRequired, Requirement: "tasks.status.starts-working", Description: "the CreateTaskResult of a new task says input_required, not working"},
		Fault{Name: FaultTaskIDsCounter, Requirement: "tasks.security.unguessable-ids", Description: "the client's task ids are a counter (task-1, task-2, ...)"},
		Fault{Name: FaultTaskIDFromRequestor, Requirement: "tasks.id.receiver-generated", Description: "a taskId the server slips into params.task becomes the id of the client's task"},
		Fault{Name: FaultTerminalTaskReopens, Requirement: "tasks.status.terminal-is-final", Description: "once its result was fetched, a completed task is reported working again"},
		Fault{Name: FaultTaskResultNoRelatedMeta, Requirement: "tasks.related.result-response-carries-meta", Description: "the client's tasks/result answers carry no related-task _meta"},
		Fault{Name: FaultTaskCancelAnswersWorking, Requirement: "tasks.cancel.cancelled-before-response", Description: "tasks/cancel is answered with the task as it was (working); it is cancelled only afterwards"},
		Fault{Name: FaultCancelledTaskCompletes, Requirement: "tasks.cancel.stays-cancelled", Description: "a cancelled task's work runs on, and when it ends the task becomes completed"},
		Fault{Name: FaultTaskCancelTerminalAccepted, Requirement: "tasks.cancel.terminal-invalid-params", Description: "tasks/cancel of a finished task succeeds instead of failing with -32602"},
		Fault{Name: FaultUnknownTaskInternalError, Requirement: "tasks.errors.protocol-error-codes", Description: "tasks/get, tasks/result and tasks/cancel of an unknown taskId fail with -32603, not -32602"},
		Fault{Name: FaultTaskFollowsRelatedMeta, Requirement: "tasks.related.param-is-authoritative", Description: "tasks/get, tasks/result and tasks/cancel act on the task related-task _meta names, not params.taskId"},
		Fault{Name: FaultTaskListOmitsFinished, Requirement: "tasks.list.includes-gettable", Description: "tasks/list leaves out finished tasks, which tasks/get still returns"},
		Fault{Name: FaultTaskCreateWaits, Requirement: "tasks.create.return-promptly", Description: "the CreateTaskResult is sent only once the task's work is done"},
		Fault{Name: "task-status-related-meta", Requirement: "tasks.notify.status-omits-related-meta", Description: "the client's notifications/tasks/status carry related-task _meta",
			Rewrite: taskEditNotification(spec.MethodTasksStatus, func(p map[string]json.RawMessage) {
				var id string
				_ = json.Unmarshal(p["taskId"], &id)
				var m mcp.Meta
				_ = json.Unmarshal(p["_meta"], &m)
				m.SetRelatedTask(id)
				p["_meta"], _ = json.Marshal(m)
			})},
		Fault{Name: "tasks-undeclared-honoured", Requirement: "tasks.support.undeclared-type-ignores-task", Description: "initialize declares no tasks capability, yet task-augmented sampling and elicitation are run as tasks",
			Rewrite: taskEditRequest(spec.MethodInitialize, func(p map[string]json.RawMessage) {
				var caps map[string]json.RawMessage
				if json.Unmarshal(p["capabilities"], &caps) != nil || caps == nil {
					return
				}
				delete(caps, "tasks")
				p["capabilities"], _ = json.Marshal(caps)
			})},
	)
}

// taskEditRequest makes a Rewrite that edits the params of the client's
// requests of one method.
func taskEditRequest(method string, edit func(p map[string]json.RawMessage)) func(Written) [][]byte {
	return taskEditParams(method, jsonrpc.KindRequest, edit)
}

// taskEditNotification makes a Rewrite that edits the params of the client's
// notifications of one method.
func taskEditNotification(method string, edit func(p map[string]json.RawMessage)) func(Written) [][]byte {
	return taskEditParams(method, jsonrpc.KindNotification, edit)
}

func taskEditParams(method string, shape jsonrpc.Kind, edit func(p map[string]json.RawMessage)) func(Written) [][]byte {
	return func(w Written) [][]byte {
		if w.Decoded.Method != method || w.Decoded.Shape != shape {
			return [][]byte{w.Msg}
		}
		var msg map[string]json.RawMessage
		if json.Unmarshal(w.Msg, &msg) != nil {
			return [][]byte{w.Msg}
		}
		p := map[string]json.RawMessage{}
		if raw, ok := msg["params"]; ok {
			if json.Unmarshal(raw, &p) != nil || p == nil {
				return [][]byte{w.Msg}
			}
		}
		edit(p)
		msg["params"], _ = json.Marshal(p)
		b, err := json.Marshal(msg)
		if err != nil {
			return [][]byte{w.Msg}
		}
		return [][]byte{b}
	}
}

// cancelWithNotification makes the Rewrite of cancel-task-with-notification:
// it remembers the id of the last task-augmented tools/call and turns a
// tasks/cancel into notifications/cancelled naming that request.
func cancelWithNotification() func(Written) [][]byte {
	var mu sync.Mutex
	var last json.RawMessage
	return func(w Written) [][]byte {
		if w.Decoded.Shape != jsonrpc.KindRequest {
			return [][]byte{w.Msg}
		}
		switch w.Decoded.Method {
		case spec.MethodToolsCall:
			var p struct {
				Task json.RawMessage `json:"task"`
			}
			if json.Unmarshal(w.Decoded.Params, &p) == nil && len(p.Task) > 0 && string(p.Task) != "null" {
				mu.Lock()
				last = json.RawMessage(w.Decoded.ID.String())
				mu.Unlock()
			}
		case spec.MethodTasksCancel:
			mu.Lock()
			id := last
			mu.Unlock()
			if id == nil {
				return [][]byte{w.Msg}
			}
			b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": spec.MethodCancelled,
				"params": map[string]any{"requestId": id, "reason": "the client gave up on the task"}})
			if err != nil {
				return [][]byte{w.Msg}
			}
			return [][]byte{b}
		}
		return [][]byte{w.Msg}
	}
}

// pollWait is how long the client waits before its next tasks/get: the
// server's pollInterval (see pollInterval), or 5 ms with
// FaultIgnorePollInterval.
func (c *Client) pollWait(ms *int64) time.Duration {
	if c.fault(FaultIgnorePollInterval) {
		return 5 * time.Millisecond
	}
	return pollInterval(ms)
}

// errGaveUp is what the faults that stop following a task return.
var errGaveUp = errors.New("client: gave up on the task (fault switch)")

// taskFollowFault runs the faults that replace polling a new task: waiting for
// a status notification, or a tasks/result with a short timeout. It
// updates task when the fault lets the client go on.
func (c *Client) taskFollowFault(ctx context.Context, task *mcp.Task) error {
	switch {
	case c.fault(FaultWaitForStatusNotification):
		ch, stop := c.tasks.watchStatus(task.TaskID)
		defer stop()
		t := time.NewTimer(3 * time.Second)
		defer t.Stop()
		for {
			select {
			case st := <-ch:
				if mcp.Terminal(st.Status) {
					*task = st
					return nil
				}
			case <-t.C:
				return fmt.Errorf("%w: no notifications/tasks/status for task %s within 3s", errGaveUp, task.TaskID)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	case c.fault(FaultAbandonAfterResultTimeout):
		// The cancellation is sent here, before giving up, rather than in
		// the background as rpc would.
		ro := reqOpts{}
		ro.timeout, ro.noCancel = 100*time.Millisecond, true
		if _, err := c.request(ctx, spec.MethodTasksResult, mcp.GetTaskPayloadParams{TaskID: task.TaskID}, ro); err != nil {
			var te *TimeoutError
			if errors.As(err, &te) {
				_ = c.notify(spec.MethodCancelled, mcp.CancelledNotificationParams{RequestID: te.ID, Reason: "the client stopped waiting"})
			}
			return fmt.Errorf("%w: tasks/result of %s: %v", errGaveUp, task.TaskID, err)
		}
		return fmt.Errorf("%w: tasks/result of %s answered; not reading it", errGaveUp, task.TaskID)
	}
	return nil
}

// taskPollFault runs the faults that act on what a tasks/get said: giving up
// on a working task, or polling on through input_required.
func (c *Client) taskPollFault(ctx context.Context, task mcp.Task) error {
	switch {
	case c.fault(FaultStopPollingEarly) && !mcp.Terminal(task.Status) && task.Status != mcp.TaskInputRequired:
		return fmt.Errorf("%w: task %s is still %s", errGaveUp, task.TaskID, task.Status)
	case c.fault(FaultNoResultOnInputRequired) && task.Status == mcp.TaskInputRequired:
		for i := 0; i < 3; i++ {
			if !sleepCtx(ctx, pollInterval(task.PollInterval)) {
				return ctx.Err()
			}
			var got mcp.GetTaskResult
			if err := c.Call(ctx, spec.MethodTasksGet, mcp.GetTaskParams{TaskID: task.TaskID}, &got); err != nil {
				return err
			}
		}
		return fmt.Errorf("%w: task %s needs input", errGaveUp, task.TaskID)
	}
	return nil
}

// createdFault changes a new task of the client as the receiver faults
// say.
func (c *Client) createdFault(t *mcp.Task) {
	if c.fault(FaultTaskCreatedAtNotRFC3339) {
		t.CreatedAt = strconv.FormatInt(time.Now().Unix(), 10)
	}
}

// taskIDFault returns the id of the client's nth task: id, or what the
// id faults make of it.
func (c *Client) taskIDFault(id string, n int, params json.RawMessage) string {
	if c.fault(FaultTaskIDFromRequestor) {
		var p struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		}
		if json.Unmarshal(params, &p) == nil && p.Task.TaskID != "" {
			return p.Task.TaskID
		}
	}
	if c.fault(FaultTaskIDsCounter) {
		return "task-" + strconv.Itoa(n)
	}
	return id
}

// sideChannelFault reports whether FaultIgnoreSideChannelRequests drops the
// server request m: one related to a task whose tasks/result the client is
// not waiting on.
func (c *Client) sideChannelFault(m jsonrpc.Message) bool {
	if !c.fault(FaultIgnoreSideChannelRequests) {
		return false
	}
	var p struct {
		Meta mcp.Meta `json:"_meta"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return false
	}
	rt, ok, _ := p.Meta.RelatedTask()
	return ok && rt.TaskID != "" && !c.tasks.isAwaited(rt.TaskID)
}
