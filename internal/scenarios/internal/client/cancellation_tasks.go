package client

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Cancelling a task (2025-11-25, the tasks scenario TasksCancelScenario,
// which tasks/tasks.go plays): the client cancels a task with tasks/cancel.

var _ = Register(
	OnlyIf(Def{
		ID: "client/cancellation/use-tasks-cancel", Area: "cancellation", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{TasksCancelScenario},
		Title:        "the client cancels a task with tasks/cancel, never with notifications/cancelled for the task-augmented request",
		Requirements: []string{"cancellation.tasks.use-tasks-cancel"},
		Proofs:       []Proof{{Fault: "cancel-task-with-notification", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				created := map[string]Msg{} // session|id of a tools/call -> the stage's CreateTaskResult
				for _, task := range ClientTasks(c) {
					created[c.Session(task.call)+"|"+task.call.Msg.ID.String()] = task.Created
					for _, op := range task.Ops {
						if op.Method() == spec.MethodTasksCancel {
							n++
						}
					}
				}
				for _, m := range c.Notifications(spec.MethodCancelled) {
					var p mcp.CancelledNotificationParams
					if json.Unmarshal(m.Msg.Params, &p) != nil {
						continue
					}
					ct, ok := created[c.Session(m)+"|"+p.RequestID.String()]
					if !ok || m.Seq < ct.Seq {
						continue // not a task's request, or cancelled before it became a task
					}
					n++
					bad++
					t.Fail("a task is cancelled with tasks/cancel naming its taskId", fmt.Sprintf("notifications/cancelled for tools/call %s, which the stage had answered with a CreateTaskResult: %s (%s)", p.RequestID, Excerpt(m), c.Scenario.Name))
				}
			}
			t.SettleActed(n, bad, "cancel a running task", "%d task cancellations, all with tasks/cancel")
		},
	}, DoesUseTasks, doesCancel),
)
