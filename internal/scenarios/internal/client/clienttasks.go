package client

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The tasks a client created on the stage as a requestor, as the checks
// of tasks (the tasks area) and of their cancellation (cancellation_tasks.go)
// read them from a recording.

// TasksCancelScenario is the tasks scenario in which the client is given a
// task to cancel.
const TasksCancelScenario = "mcpcheck-tasks-cancel"

// TaskIDParam is params.taskId of a tasks/* request ("" when absent).
func TaskIDParam(params json.RawMessage) string {
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(params, &p)
	return p.TaskID
}

// TaskAugmented reports whether request params carry a task field.
func TaskAugmented(params json.RawMessage) bool {
	var p struct {
		Task json.RawMessage `json:"task"`
	}
	return json.Unmarshal(params, &p) == nil && len(p.Task) > 0 && string(p.Task) != "null"
}

// TaskOp is one request of the client about one of its tasks, with the
// stage's answer.
type TaskOp struct {
	Req      Msg
	Ans      Msg
	Answered bool
	// status and poll are what a tasks/get or tasks/cancel answer said.
	Status string
	Poll   int64
	// cancelled is set when the client cancelled the request itself
	// (notifications/cancelled).
	Cancelled bool
}

func (o TaskOp) Method() string { return o.Req.Msg.Method }

// OK reports whether the stage answered with a result.
func (o TaskOp) OK() bool { return o.Answered && o.Ans.Msg.Shape == jsonrpc.KindResponse }

// ClientTask is a task the client created on the stage: its
// task-augmented tools/call answered with a CreateTaskResult, and what the
// client then asked about it.
type ClientTask struct {
	ID      string
	Tool    string
	call    Msg
	Created Msg
	Poll    int64
	Ops     []TaskOp
	// CallCancelled says the client cancelled the tools/call that created
	// the task (notifications/cancelled naming it): the cancelling side
	// ignores a later answer, so a client that gave up on the call before
	// it learnt of the task owes the task nothing (client/cancellation
	// judges a notification sent for a task the client knew of).
	CallCancelled bool
}

// ClientTasks returns the tasks the client created in c, in order.
func ClientTasks(c *Case) []*ClientTask {
	cancelled := map[string]bool{}
	for _, n := range c.Notifications(spec.MethodCancelled) {
		var p mcp.CancelledNotificationParams
		if json.Unmarshal(n.Msg.Params, &p) == nil && !p.RequestID.IsZero() {
			cancelled[c.Session(n)+"|"+p.RequestID.String()] = true
		}
	}
	var out []*ClientTask
	byID := map[string]*ClientTask{}
	for _, m := range c.Requests("") {
		switch m.Msg.Method {
		case spec.MethodToolsCall:
			ans, ok := c.StageAnswer(m)
			if !ok || ans.Msg.Shape != jsonrpc.KindResponse {
				continue
			}
			w, ok := rules.CreatedTask(ans.Msg.Result)
			id, idOK := w.ID()
			if !ok || !idOK {
				continue
			}
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(m.Msg.Params, &p)
			t := &ClientTask{ID: id, Tool: p.Name, call: m, Created: ans, CallCancelled: cancelled[c.Session(m)+"|"+m.Msg.ID.String()]}
			t.Poll, _ = w.Poll()
			byID[id] = t
			out = append(out, t)
		case spec.MethodTasksGet, spec.MethodTasksResult, spec.MethodTasksCancel:
			t := byID[TaskIDParam(m.Msg.Params)]
			if t == nil {
				continue
			}
			op := TaskOp{Req: m, Cancelled: cancelled[c.Session(m)+"|"+m.Msg.ID.String()]}
			op.Ans, op.Answered = c.StageAnswer(m)
			if op.OK() && m.Msg.Method != spec.MethodTasksResult {
				if w, ok := rules.DecodeTask(op.Ans.Msg.Result); ok {
					op.Status = w.Status
					op.Poll, _ = w.Poll()
				}
			}
			t.Ops = append(t.Ops, op)
		case spec.MethodTasksList:
			// A status learnt from a listing counts as asking too.
			ans, ok := c.StageAnswer(m)
			if !ok || ans.Msg.Shape != jsonrpc.KindResponse {
				continue
			}
			var r struct {
				Tasks []json.RawMessage `json:"tasks"`
			}
			_ = json.Unmarshal(ans.Msg.Result, &r)
			for _, raw := range r.Tasks {
				w, _ := rules.DecodeTask(raw)
				id, _ := w.ID()
				if t := byID[id]; t != nil {
					op := TaskOp{Req: m, Ans: ans, Answered: true, Status: w.Status}
					op.Poll, _ = w.Poll()
					t.Ops = append(t.Ops, op)
				}
			}
		}
	}
	return out
}
