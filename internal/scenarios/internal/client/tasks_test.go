package client

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestTaskOfACancelledCallIsNotJudged: a client that cancels its
// task-augmented tools/call (notifications/cancelled) before it has the
// task ignores the answer that creates it, as the cancelling side should:
// neither client/tasks/keeps-polling nor client/tasks/no-status-reliance
// holds that task against it (the reference client's 300 ms give-up in
// mcpcheck-tasks-cancel crossed the task's creation under load in make
// test). The same task created for a call the client did not cancel,
// then never asked about, is still judged.
func TestTaskOfACancelledCallIsNotJudged(t *testing.T) {
	v := spec.V20251125
	events := func(cancel bool) []stage.Event {
		evs := []stage.Event{
			fromClient(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"requests":{"tools":{"call":{}}}}},"clientInfo":{"name":"c","version":"1"}}}`),
			fromStage(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"mcpcheck-stage","version":"1"}}}`),
			fromClient(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
			fromClient(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"task_long","arguments":{},"task":{"ttl":60000}}}`),
		}
		if cancel {
			evs = append(evs, fromClient(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"timed out"}}`))
		}
		return rec(append(evs,
			fromStage(`{"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2026-12-03T00:00:00Z","lastUpdatedAt":"2026-12-03T00:00:00Z","ttl":60000,"pollInterval":200}}}`))...)
	}
	for _, id := range []string{"client/tasks/keeps-polling", "client/tasks/no-status-reliance"} {
		got := judgeRecording(t, id, v, "stdio", map[string][]stage.Event{TasksCancelScenario: events(true)})
		if got.Outcome == reports.Fail || got.Outcome == reports.Warn {
			t.Errorf("%s on a task whose call the client cancelled: %s: %s", id, got.Outcome, got.Actual)
		}
	}
	if got := judgeRecording(t, "client/tasks/keeps-polling", v, "stdio", map[string][]stage.Event{TasksCancelScenario: events(false)}); got.Outcome != reports.Warn {
		t.Errorf("client/tasks/keeps-polling on a task never asked about, its call not cancelled: %s (%s), want warn", got.Outcome, got.Actual)
	}
}
