package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// stdio: what the client writes to the server's stdin (one whole message
// per line, nothing but messages), that it carries on when the server
// writes to stderr, and how it ends the server process (stdin closed
// first, then SIGTERM, then SIGKILL).

const (
	scenStderr   = "mcpcheck-stdio-stderr"
	scenShutdown = "mcpcheck-stdio-shutdown"
)

// stderrNoise is what the stage's server writes to stderr in
// scenStderr: log lines that look like failures.
const stderrNoise = "ERROR mcpcheck: this stderr line is a log message, not a failure\n" +
	"Traceback (most recent call last):\n" +
	"  File \"server.py\", line 1, in <module>\n" +
	"RuntimeError: mcpcheck writes this to stderr on purpose; the session goes on\n"

var stdioOnly = []wire.Transport{client.Stdio}

var _ = client.RegisterScenarios(
	client.Scenario{
		Name: scenStderr, Since: spec.V20251125, Transports: stdioOnly,
		Title: "the stage's server writes error-looking log lines to stderr as the connection begins, and then serves as usual",
		Stage: func(client.Env) stage.Config {
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{client.EchoTool}}, Stdio: stage.StdioConfig{Stderr: []byte(stderrNoise)}}
		},
	},
	client.Scenario{
		Name: scenShutdown, Transports: stdioOnly,
		Title: "the stage's server keeps running after its stdin closes and after SIGTERM, so the client's shutdown shows each step up to SIGKILL",
		Acts:  client.Flow + ", then shut the server down",
		Stage: func(client.Env) stage.Config {
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{client.EchoTool}}, Stdio: stage.StdioConfig{HoldOnTerm: true, StayAfterEOF: true}}
		},
	},
)

var _ = client.Register(
	client.Def{
		ID: "client/transport-stdio/one-line-per-message", Area: "transport-stdio", Transports: stdioOnly,
		Title:        "each message the client writes to stdin is one line: no message is split by an embedded newline",
		Requirements: []string{"transport-stdio.framing.no-embedded-newlines"},
		Proofs:       []client.Proof{{Fault: "pretty-printed-message", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, lines := range stdinLines(c) {
					for i := 0; i < len(lines); i++ {
						n++
						if k := splitMessage(lines, i); k > 1 {
							bad++
							if bad <= 10 {
								t.Fail("every message on one line, with no raw newline inside it",
									fmt.Sprintf("lines %d to %d of stdin connection %d together make one message: %s (%s)", i+1, i+k, lines[i].Conn, wire.Excerpt(joinNames(lines[i:i+k]), 200), c.Scenario.Name))
							}
							i += k - 1
						}
					}
				}
			}
			t.Settle(n, bad, "the client wrote nothing to stdin", "%d lines, none a piece of a message")
		},
	},
	client.Def{
		ID: "client/transport-stdio/only-messages", Area: "transport-stdio", Transports: stdioOnly,
		Title:        "the client writes nothing to the server's stdin but MCP messages",
		Requirements: []string{"transport-stdio.stdin.only-mcp-messages"},
		Proofs:       []client.Proof{{Fault: "stdin-banner", Want: reports.Fail}},
		Body: func(t *client.T) {
			n, bad, blank, huge := 0, 0, 0, 0
			for _, c := range t.Cases() {
				for _, lines := range stdinLines(c) {
					for i, e := range lines {
						why := ""
						switch {
						case e.Kind == wire.KindTooLong && beginsJSON(e.Raw):
							huge++
							continue // perhaps one huge message: over the stage's limit, not judged
						case e.Kind == wire.KindTooLong:
							why = fmt.Sprintf("a line of %d bytes that does not begin a JSON value", e.Size)
						case e.Kind == wire.KindGarbage && len(bytes.TrimSpace(e.Raw)) == 0 && !e.Unterminated:
							blank++
							continue
						case e.Kind == wire.KindGarbage:
							why = "a line that is not one JSON value"
						case e.Kind == wire.KindMessage && e.Msg.Shape == jsonrpc.KindInvalid && !e.Msg.Has(jsonrpc.ReasonBatch) && !e.Msg.Has(jsonrpc.ReasonEmptyBatch):
							why = "a JSON value that is no JSON-RPC message"
						}
						n++
						if why != "" {
							bad++
							if bad <= 10 {
								t.Fail("nothing but MCP messages on the server's stdin",
									fmt.Sprintf("line %d of stdin connection %d is %s: %s (%s)", i+1, e.Conn, why, wire.Excerpt(e.Raw, 120), c.Scenario.Name))
							}
						}
					}
				}
			}
			if blank > 0 {
				t.Saw("%d empty lines between messages (tolerated: they carry nothing)", blank)
			}
			if n == 0 && huge > 0 {
				t.Untestable(fmt.Sprintf("the client wrote only lines over the stage's limit (%d), which were not judged", huge))
				return
			}
			t.Settle(n, bad, "the client wrote nothing to stdin", "%d lines, each an MCP message")
		},
	},
	client.Def{
		ID: "client/transport-stdio/stderr-not-error", Area: "transport-stdio", Since: spec.V20251125, Transports: stdioOnly,
		Scenarios:    []string{scenStderr, "tools_call"},
		Title:        "the client carries on with the session when the server writes to stderr",
		Requirements: []string{"transport-stdio.stderr.not-an-error-signal"},
		Proofs:       []client.Proof{{Fault: "stderr-is-fatal", Want: reports.Warn}},
		Body: func(t *client.T) {
			var noisy, quiet *client.Case
			for _, c := range t.Cases() {
				switch c.Scenario.Name {
				case scenStderr:
					noisy = c
				case "tools_call":
					quiet = c
				}
			}
			if noisy == nil || quiet == nil {
				t.Untestable("the scenarios with and without stderr output did not both run")
				return
			}
			if len(noisy.Notes("stderr")) == 0 {
				t.NeedAction(false, "start the server (the stage writes to stderr when a connection begins)")
				return
			}
			nl, nwhy := progressOf(noisy)
			ql, qwhy := progressOf(quiet)
			if !t.NeedAction(nl > 0 || ql > 0, "go on after the answer to its first request") {
				return
			}
			if nl < ql {
				t.Fail("the session goes on after the server wrote to stderr, as it does without",
					fmt.Sprintf("after the server wrote to stderr (%s) the client %s (it %s); without stderr output (tools_call) it %s", scenStderr, nwhy, noisy.Exit, qwhy))
				return
			}
			t.Saw("with stderr output the client %s; without it %s", nwhy, qwhy)
			t.Pass()
		},
	},
	client.Def{
		ID: "client/transport-stdio/shutdown", Area: "transport-stdio", Transports: stdioOnly,
		Title:        "the client ends the server process by closing its stdin first and waiting for it to exit, and forces termination only after that, SIGTERM before SIGKILL (from 2026-07-28 any forced termination)",
		Requirements: []string{"transport-stdio.shutdown.client-closes-stdin-first"},
		Proofs: []client.Proof{{Fault: "stdio-sigterm-first", Want: reports.Warn},
			{Fault: "stdio-sigterm-without-wait", Want: reports.Warn},
			{Fault: "stdio-sigterm-without-wait", Version: spec.V20251125, Want: reports.Warn},
			{Fault: "stdio-sigkill-without-wait", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *client.T) {
			// Up to 2025-11-25 the order is SIGTERM, a wait, then SIGKILL;
			// from 2026-07-28 a forced termination is whatever the system
			// offers (SIGTERM escalating to SIGKILL is what is typical,
			// with no wait between the two asked for).
			anyForce := t.Version().Era() == spec.Stateless
			n, bad, escalated, killed := 0, 0, 0, 0
			var least time.Duration // the shortest wait before a forced termination
			for _, c := range t.Cases() {
				for _, conn := range stdioEndings(c) {
					n++
					why := ""
					switch {
					case conn.first.Note != stage.NoteStdinClosed && conn.closedAt != nil && conn.closedAt.Time.Sub(conn.first.Time) < grace:
						// The relay reports a signal and the end of its stdin
						// from two goroutines: within milliseconds of each
						// other, their order says nothing.
						why = fmt.Sprintf("the client %s and closed the server's stdin within %v of each other, without waiting for the server to exit in between", endingWhat(conn.first), conn.closedAt.Time.Sub(conn.first.Time).Round(time.Millisecond))
					case conn.first.Note != stage.NoteStdinClosed:
						// What the server saw: a client that sends SIGTERM at
						// once after closing stdin can be seen so too (the
						// relay, ended by the signal, never reports the close).
						why = "the client " + endingWhat(conn.first) + " before the server saw its stdin close"
					case conn.force != nil && conn.force.Time.Sub(conn.first.Time) < grace:
						why = fmt.Sprintf("the client %s %v after closing the server's stdin, without waiting for it to exit", endingWhat(*conn.force), conn.force.Time.Sub(conn.first.Time).Round(time.Millisecond))
					case conn.kill != nil && !conn.term && !anyForce:
						// Either no SIGTERM at all, or one followed by SIGKILL
						// so fast that the relay was killed before it could
						// report it: the server had no SIGTERM to act on.
						why = "after closing stdin the client killed the server (SIGKILL) without a SIGTERM first that the server got to act on"
					case conn.kill != nil && conn.termAt != nil && !anyForce && conn.kill.Time.Sub(conn.termAt.Time) < grace:
						why = fmt.Sprintf("the client killed the server (SIGKILL) %v after it sent a signal (%s), without waiting for it to exit", conn.kill.Time.Sub(conn.termAt.Time).Round(time.Millisecond), strings.TrimSpace(conn.termAt.Detail))
					case conn.abandoned:
						why = "the client exited while the server still ran after its stdin closed, without waiting for it to exit or terminating it"
					}
					if conn.term || conn.kill != nil {
						escalated++
					}
					if conn.force != nil && conn.first.Note == stage.NoteStdinClosed {
						if w := conn.force.Time.Sub(conn.first.Time); least == 0 || w < least {
							least = w
						}
					}
					if conn.kill != nil && !conn.term {
						killed++
					}
					if why != "" {
						bad++
						t.Fail("stdin closed first, then a wait for the server to exit; only if it stays, SIGTERM and then SIGKILL",
							fmt.Sprintf("%s (stdio connection %d, %s)", why, conn.conn, c.Scenario.Name))
					}
				}
			}
			if escalated > 0 {
				t.Saw("%d connections in which the server outlived its stdin and the client escalated; the shortest wait between closing stdin and forcing termination was %v", escalated, least.Round(time.Millisecond))
			}
			if killed > 0 && anyForce {
				t.Saw("%d connections in which the client killed the server without SIGTERM, a forced termination 2026-07-28 allows", killed)
			}
			if !t.NeedAction(n > 0, "end the server process itself (close its stdin) before it exits") {
				return
			}
			t.Settle(n, bad, "", "%d stdio connections ended by the client, each closing stdin first")
		},
	},
)

// grace is the least wait between closing the server's stdin and
// forcing its termination that counts as waiting for it to exit. SDKs
// wait seconds (the TypeScript SDK 2 s, the mcp-go client of the interop
// runs 3 s, the reference client 2 s); a client that does not wait sends
// its signal within a few milliseconds of the close. Load only lengthens
// a measured wait, never shortens it, so a client that waits is not taken
// for one that does not; the times are those at which the stage heard of
// each step from the relay.
const grace = 250 * time.Millisecond

// stdinLines returns what the client wrote to stdin, per stdio
// connection (in the order the connections began), line by line, up to
// the moment the harness began stopping the client (a line it cut short
// then is the harness's doing).
func stdinLines(c *client.Case) [][]stage.Event {
	stop := len(c.Events) + 1
	for _, e := range c.Notes(client.NoteHarnessStop) {
		stop = min(stop, e.Seq)
	}
	byConn := map[int][]stage.Event{}
	for _, e := range c.Frames() {
		if e.HTTP == nil && e.Conn > 0 && e.Seq < stop {
			byConn[e.Conn] = append(byConn[e.Conn], e)
		}
	}
	conns := make([]int, 0, len(byConn))
	for k := range byConn {
		conns = append(conns, k)
	}
	sort.Ints(conns)
	out := make([][]stage.Event, 0, len(conns))
	for _, k := range conns {
		out = append(out, byConn[k])
	}
	return out
}

// beginsJSON reports whether the kept prefix of a line over the limit
// may begin a JSON object or array (a message too big to judge).
func beginsJSON(prefix []byte) bool {
	p := bytes.TrimLeft(prefix, " \t\r\n")
	return len(p) == 0 || p[0] == '{' || p[0] == '['
}

// maxSplit bounds how many lines one split message is looked for in.
const maxSplit = 500

// splitMessage returns how many lines, from line i on, join with
// newlines into one JSON value when line i alone is not one (0 when they
// do not, or line i is whole).
func splitMessage(lines []stage.Event, i int) int {
	first := lines[i]
	if first.Kind != wire.KindGarbage {
		return 0
	}
	t := bytes.TrimSpace(first.Raw)
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return 0
	}
	for k := 2; i+k <= len(lines) && k <= maxSplit; k++ {
		if lines[i+k-1].Kind != wire.KindGarbage {
			return 0
		}
		if json.Valid(joinNames(lines[i : i+k])) {
			return k
		}
	}
	return 0
}

func joinNames(lines []stage.Event) []byte {
	parts := make([][]byte, len(lines))
	for i, l := range lines {
		parts[i] = l.Raw
	}
	return bytes.Join(parts, []byte("\n"))
}

// noteServerStays is the note of a stage server that keeps running
// after its stdin closed (stage.StdioConfig.StayAfterEOF).
const noteServerStays = "server-stays"

// ending is how the client ended one stdio connection.
type ending struct {
	conn int
	// first is the client's first step: stdin closed, a signal, or the
	// process killed (relay dropped).
	first stage.Event
	// term is set when a signal came after stdin closed; kill is the
	// relay drop (SIGKILL) that came after it, if any.
	term bool
	kill *stage.Event
	// termAt is the first signal after stdin closed (set with term).
	termAt *stage.Event
	// closedAt is, when first is a signal or a kill, the client's
	// closing of stdin after it, if any.
	closedAt *stage.Event
	// abandoned is set when the client exited while the server ran on
	// after stdin closed, with no signal.
	abandoned bool
	// force is the client's first forced termination after stdin closed
	// (a signal, or the relay killed before the client exited), even
	// one that came after the stage's server exited: a client that had
	// waited for the exit would have sent none.
	force *stage.Event
}

// stdioEndings returns the stdio connections of a case that the client
// ended before the server exited by itself and before the harness began
// stopping the client.
func stdioEndings(c *client.Case) []ending {
	stop := len(c.Events) + 1
	for _, e := range append(c.Notes(client.NoteHarnessStop), c.Notes(client.NoteHarnessCleanup)...) {
		stop = min(stop, e.Seq)
	}
	exit := stop
	for _, e := range c.Notes(stage.NoteClientExit) {
		exit = min(exit, e.Seq)
	}
	byConn := map[int]*ending{}
	done := map[int]bool{}
	var order []int
	for _, e := range c.Events {
		if e.Seq >= stop || e.From != stage.FromHarness || e.Conn == 0 || done[e.Conn] {
			continue
		}
		end := byConn[e.Conn]
		switch e.Note {
		case stage.NoteServerExit:
			done[e.Conn] = true // the server exited by itself (or after EOF)
		case stage.NoteStdinClosed, stage.NoteSignal, stage.NoteRelayDropped:
			if end == nil {
				end = &ending{conn: e.Conn, first: e}
				byConn[e.Conn] = end
				order = append(order, e.Conn)
				if e.Note != stage.NoteStdinClosed {
					done[e.Conn] = true
				}
				continue
			}
			switch e.Note {
			case stage.NoteSignal:
				if !end.term {
					ev := e
					end.termAt = &ev
				}
				end.term = true
			case stage.NoteRelayDropped:
				ev := e
				end.kill = &ev
				done[e.Conn] = true
			}
		}
	}
	// A relay that ends after the stage's server exited was not killed:
	// it exits once told the server did (and may be recorded as dropped
	// when it does so before the stage has finished with the exit).
	serverGone := map[int]bool{}
	for _, e := range c.Events {
		if e.Seq >= stop || e.From != stage.FromHarness || e.Conn == 0 {
			continue
		}
		if e.Note == stage.NoteServerExit {
			serverGone[e.Conn] = true
		}
		end := byConn[e.Conn]
		if end != nil && end.first.Note != stage.NoteStdinClosed && end.closedAt == nil && e.Seq > end.first.Seq && e.Note == stage.NoteStdinClosed {
			ev := e
			end.closedAt = &ev
		}
		if end == nil || end.force != nil || end.first.Note != stage.NoteStdinClosed || e.Seq <= end.first.Seq {
			continue
		}
		if e.Note == stage.NoteSignal || e.Note == stage.NoteRelayDropped && e.Seq < exit && !serverGone[e.Conn] {
			ev := e
			end.force = &ev
		}
	}
	stays := map[int]bool{}
	for _, e := range c.Notes(noteServerStays) {
		stays[e.Conn] = true
	}
	var out []ending
	for _, k := range order {
		end := byConn[k]
		if end.first.Note == stage.NoteStdinClosed && !end.term && end.kill == nil && !done[k] && stays[k] && exit < stop {
			end.abandoned = exit > end.first.Seq
		}
		out = append(out, *end)
	}
	return out
}

// endingWhat says in words what a first ending step was.
func endingWhat(e stage.Event) string {
	switch e.Note {
	case stage.NoteSignal:
		return "sent the server a signal (" + strings.TrimSpace(e.Detail) + ")"
	case stage.NoteRelayDropped:
		return "killed the server"
	}
	return e.Note
}
