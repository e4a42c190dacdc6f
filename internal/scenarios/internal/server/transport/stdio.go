package transport

import (
	"fmt"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The stdio transport: stdout carries MCP messages only, one per line;
// stderr is the server's to use (the harness keeps its tail for reports
// and never judges it); the server exits when stdin closes.

var _ = server.Register(
	server.Def{
		ID: "transport-stdio/stdout-only-messages", Area: "transport-stdio", Passive: true, Transports: []wire.Transport{"stdio"},
		Title:        "stdout carries nothing but MCP messages, one per line",
		Requirements: []string{"transport-stdio.stdout.only-mcp-messages", "transport-stdio.framing.no-embedded-newlines"},
		Proofs:       []server.Proof{{Fault: "stdout-banner", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *server.T) {
			obs, _ := t.Observed()
			bad := 0
			for _, o := range obs {
				var why string
				switch {
				case o.Kind == wire.KindGarbage:
					why = "a line that is not a JSON-RPC message: " + wire.Excerpt(o.Raw, 200)
				case o.Kind == wire.KindTooLong:
					why = fmt.Sprintf("a line of %d bytes over the size limit", o.Size)
				case o.Kind == wire.KindMessage && o.Unterminated:
					why = "a message cut off without its line feed: " + wire.Excerpt(o.Raw, 200)
				default:
					continue
				}
				bad++
				if bad <= 10 {
					t.Violation("transport-stdio.stdout.only-mcp-messages", "every line on stdout is one JSON-RPC message", why)
				}
			}
			if bad == 0 {
				t.Saw("%d frames on stdout, all MCP messages", len(obs))
				t.Pass()
			}
		},
	},
	server.Def{
		ID: "transport-stdio/no-server-requests", Area: "transport-stdio", Passive: true, Transports: []wire.Transport{"stdio"},
		Title:        "in 2026-07-28 a stdio server writes no JSON-RPC requests",
		Requirements: []string{"transport-stdio.messages.server-no-requests"},
		Proofs:       []server.Proof{{Fault: "stdio-server-request", Version: spec.V20260728, Also: []string{"discovery/discover-result"}, Want: reports.Fail}},
		Body: func(t *server.T) {
			t.NoServerRequests("no request on stdout", "%d frames, no request")
		},
	},
	server.Def{
		ID: "transport-stdio/exit-on-stdin-close", Area: "transport-stdio", Transports: []wire.Transport{"stdio"},
		Title:        "the server exits promptly once its stdin is closed",
		Requirements: []string{"transport-stdio.shutdown.server-exits-on-eof"},
		Proofs:       []server.Proof{{Fault: "stdin-eof-ignored", Version: spec.V20260728, Want: reports.Warn}},
		Body: func(t *server.T) {
			c := t.Fresh()
			if r := server.Sentinel(t.Ctx, c.S()); !r.OK() {
				t.JudgeReply(r)
				return
			}
			if pr := c.Conn.Pipe; pr != nil {
				// An in-process server: its input closing is the EOF, its
				// function returning the exit.
				start := time.Now()
				t.Must(pr.CloseInput())
				wait := t.StepTimeout()
				timer := time.NewTimer(wait)
				defer timer.Stop()
				select {
				case <-pr.Done():
					t.Saw("the in-process server %s %s after its input closed", pr.Description(), time.Since(start).Round(time.Millisecond))
					t.Pass()
				case <-timer.C:
					t.Fail(fmt.Sprintf("the in-process server returns within %s of its input closing", wait), "it was still serving")
				case <-t.Ctx.Done():
					t.Error(t.Ctx.Err())
				}
				return
			}
			p := c.Conn.Process
			if p == nil {
				t.Error(fmt.Errorf("stdio target without a process"))
				return
			}
			start := time.Now()
			t.Must(p.Stdin().Close())
			wait := t.StepTimeout()
			timer := time.NewTimer(wait)
			defer timer.Stop()
			select {
			case <-p.Exited():
				t.Saw("the process %s %s after stdin closed", p.ExitDescription(), time.Since(start).Round(time.Millisecond))
				t.Pass()
			case <-timer.C:
				t.Fail(fmt.Sprintf("the process exits within %s of stdin closing", wait), "it was still running")
			case <-t.Ctx.Done():
				t.Error(t.Ctx.Err())
			}
		},
	},
)
