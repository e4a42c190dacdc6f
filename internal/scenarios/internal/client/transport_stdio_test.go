package client

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestShutdownOrders: client/transport-stdio/shutdown accepts every order
// of shutdown steps the specification permits and warns on the others.
// Each recording is one stdio connection after a tools/list: the client
// closes the server's stdin at t0, and then what follows (times from t0).
// A signal within grace of the close is no wait for the server to exit,
// even when the stage's server happened to exit in between (the client
// did not wait for that exit, or it would have sent nothing).
func TestShutdownOrders(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 1, 0, 0, 0, time.UTC)
	note := func(what string, after time.Duration, detail string) stage.Event {
		return stage.Event{From: stage.FromHarness, Note: what, Detail: detail, Frame: wire.Frame{Time: t0.Add(after)}}
	}
	closed := note(stage.NoteStdinClosed, 0, "the client closed the server's stdin")
	stays := note("server-stays", time.Millisecond, "") // transport.noteServerStays
	term := func(after time.Duration) stage.Event { return note(stage.NoteSignal, after, "terminated") }
	kill := func(after time.Duration) stage.Event { return note(stage.NoteRelayDropped, after, "") }
	exited := func(after time.Duration) stage.Event { return note(stage.NoteServerExit, after, "") }
	clientExit := func(after time.Duration) stage.Event { return note(stage.NoteClientExit, after, "") }
	list := func() stage.Event { return fromClient(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`) }
	for _, tc := range []struct {
		name   string
		v      spec.Version
		events []stage.Event
		want   reports.Outcome
		says   string
	}{
		{"the server exits once stdin closes", spec.V20251125, []stage.Event{list(), closed, exited(5 * time.Millisecond), clientExit(10 * time.Millisecond)}, reports.Pass, ""},
		{"the server exits once stdin closes, its relay recorded as dropped after", spec.V20251125, []stage.Event{list(), closed, exited(time.Millisecond), kill(2 * time.Millisecond), clientExit(10 * time.Millisecond)}, reports.Pass, ""},
		{"a wait, SIGTERM, the server exits", spec.V20251125, []stage.Event{list(), closed, stays, term(2 * time.Second), exited(2010 * time.Millisecond), clientExit(2020 * time.Millisecond)}, reports.Pass, ""},
		{"a wait, SIGTERM, a wait, SIGKILL", spec.V20251125, []stage.Event{list(), closed, stays, term(2 * time.Second), kill(4 * time.Second), clientExit(4010 * time.Millisecond)}, reports.Pass, ""},
		{"a wait, SIGTERM, SIGKILL at once", spec.V20251125, []stage.Event{list(), closed, stays, term(2 * time.Second), kill(2003 * time.Millisecond), clientExit(2010 * time.Millisecond)}, reports.Warn,
			"the client killed the server (SIGKILL) 3ms after it sent a signal (terminated), without waiting for it to exit"},
		{"a wait, SIGTERM, SIGKILL at once: 2026-07-28 asks for no wait between", spec.V20260728, []stage.Event{list(), closed, stays, term(2 * time.Second), kill(2003 * time.Millisecond), clientExit(2010 * time.Millisecond)}, reports.Pass, ""},
		{"SIGTERM at once, reported before the close", spec.V20251125, []stage.Event{list(), term(0), note(stage.NoteStdinClosed, 2*time.Millisecond, ""), stays, clientExit(2010 * time.Millisecond)}, reports.Warn,
			"the client sent the server a signal (terminated) and closed the server's stdin within 2ms of each other, without waiting for the server to exit in between"},
		{"SIGTERM first, a wait, then the close", spec.V20251125, []stage.Event{list(), term(0), note(stage.NoteStdinClosed, 2*time.Second, ""), clientExit(2010 * time.Millisecond)}, reports.Warn,
			"the client sent the server a signal (terminated) before the server saw its stdin close"},
		{"SIGTERM at once", spec.V20251125, []stage.Event{list(), closed, stays, term(3 * time.Millisecond), kill(2 * time.Second), clientExit(2010 * time.Millisecond)}, reports.Warn,
			"the client sent the server a signal (terminated) 3ms after closing the server's stdin, without waiting for it to exit"},
		{"SIGTERM at once, the server exiting meanwhile", spec.V20251125, []stage.Event{list(), closed, exited(time.Millisecond), term(2 * time.Millisecond), clientExit(10 * time.Millisecond)}, reports.Warn,
			"without waiting for it to exit"},
		{"SIGKILL at once", spec.V20260728, []stage.Event{list(), closed, stays, kill(time.Millisecond), clientExit(10 * time.Millisecond)}, reports.Warn,
			"the client killed the server 1ms after closing the server's stdin"},
		{"a wait, then SIGKILL: 2025-11-25 asks for SIGTERM first", spec.V20251125, []stage.Event{list(), closed, stays, kill(2 * time.Second), clientExit(2010 * time.Millisecond)}, reports.Warn,
			"without a SIGTERM first that the server got to act on"},
		{"a wait, then SIGKILL: 2026-07-28 allows any forced termination", spec.V20260728, []stage.Event{list(), closed, stays, kill(2 * time.Second), clientExit(2010 * time.Millisecond)}, reports.Pass, ""},
	} {
		evs := rec(tc.events...)
		scenario := "initialize"
		if tc.v.Era() == spec.Stateless {
			evs[0] = fromClient(`{"jsonrpc":"2.0","id":1,"method":"tools/list",` + metaReq + `}`)
			evs = rec(evs...)
		}
		c := judgeRecording(t, "client/transport-stdio/shutdown", tc.v, Stdio, map[string][]stage.Event{scenario: evs})
		if c.Outcome != tc.want || !strings.Contains(c.Actual, tc.says) {
			t.Errorf("%s: %s; want %s saying %q", tc.name, describe(c), tc.want, tc.says)
		}
	}
}
