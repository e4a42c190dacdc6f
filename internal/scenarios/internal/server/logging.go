package server

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Logging: notifications/message only with the logging capability;
// logging/setLevel errors (up to 2025-11-25); the per-request logLevel of
// 2026-07-28 (no level, no logs; a bogus level refused).

func isLog(f wire.Frame) bool {
	return f.Kind == wire.KindMessage && f.Msg.Method == spec.MethodLoggingMessage
}

// loggingFixture returns the name of the fixture tool that logs
// (test_tool_with_logging, else test_logging_tool), or ends the check
// untestable.
func loggingFixture(t *T) (string, bool) {
	tl, ok := featuresFirstTool(t, "test_tool_with_logging", "test_logging_tool")
	return tl.Name, t.RequireFixture(ok, fixtureWhy(t, "the target offers neither test_tool_with_logging nor test_logging_tool (a tool that logs)", "test_tool_with_logging", "test_logging_tool"))
}

var _ = Register(
	Def{
		ID: "logging/declared-if-sent", Area: "logging", Passive: true,
		Title:        "log notifications come only from a server that declared the logging capability",
		Requirements: []string{"logging.capability.server-declares"},
		Proofs:       []Proof{{Fault: "logging-undeclared", Version: spec.V20251125, Also: []string{"base/response-id-echo"}, Want: reports.Fail}},
		Body: func(t *T) {
			t.JudgeObserved(PassiveRule{
				Expected: "notifications/message only with a declared logging capability",
				Limit:    1,
				None:     "the server sent no log notification in this run",
				Saw:      "%d log notifications, logging declared",
			}, func(o Observation) (bool, string) {
				if !isLog(o.Frame) {
					return false, ""
				}
				if declared, to := serverDeclared(t, o, "logging"); !declared {
					return true, "sent without declaring it " + to + ": " + wire.Excerpt(o.Raw, 200)
				}
				return true, ""
			})
		},
	},
	// Exclusive: a server that accepts the level may keep one log level for all its sessions.
	Def{
		ID: "logging/set-level-invalid", Exclusive: true, Area: "logging", Eras: Stateful,
		Title:        "logging/setLevel with an unknown level is refused with -32602",
		Requirements: []string{"logging.errors.standard-codes-legacy"},
		Proofs: []Proof{
			{Fault: "bad-log-level-accepted", Version: spec.V20251125, Want: reports.Warn},
			{Fault: "bad-log-level-accepted", Version: spec.V20241105, Transport: "sse", Want: reports.Warn},
		},
		Body: func(t *T) {
			if !t.RequireCapability("logging") {
				return
			}
			c := t.Session()
			s := c.Stateful
			id, st, err := s.Request(t.Ctx, spec.MethodLoggingSetLevel, map[string]any{"level": "mcpcheck-bogus"})
			t.Must(err)
			obs := t.AnswerOn(s, st, expect.Error(id, jsonrpc.InvalidParams))
			if !obs.OK() {
				t.Taint() // the level may have changed
			}
			t.Judge(obs)
		},
	},
	Def{
		ID: "logging/silent-without-level", Area: "logging", Eras: Stateless, Labels: []string{Fixture("test_tool_with_logging")},
		Title:        "in 2026-07-28 a tool that logs sends no notifications/message when the request names no logLevel",
		Requirements: []string{"logging.per-request.silent-without-level"},
		Proofs:       []Proof{{Fault: "log-without-level", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			name, ok := loggingFixture(t)
			if !ok {
				return
			}
			c := t.Session()
			s := c.Stateless
			r := s.Call(t.Ctx, spec.MethodToolsCall, map[string]any{"name": name, "arguments": map[string]any{}})
			if !r.OK() {
				t.JudgeReply(r)
				return
			}
			for _, f := range append(r.Observed.Others, r.Observed.Frame) {
				if isLog(f) {
					t.Fail("no notifications/message for a request without io.modelcontextprotocol/logLevel", f.Describe())
					return
				}
			}
			t.Saw("%s answered without log notifications", name)
			t.Pass()
		},
	},
	Def{
		ID: "logging/per-request-invalid-level", Area: "logging", Eras: Stateless,
		Title:        "in 2026-07-28 a request whose _meta logLevel is not a syslog level is refused with -32602",
		Requirements: []string{"logging.per-request.invalid-level-rejected"},
		Proofs:       []Proof{{Fault: "invalid-log-level-ignored", Version: spec.V20260728, Want: reports.Warn}},
		Body: func(t *T) {
			c := t.Session()
			s := c.Stateless
			id, st := t.discoverWithMeta(s, func(meta mcp.Meta) { meta[mcpLogLevel] = json.RawMessage(`"mcpcheck-bogus"`) })
			t.Judge(t.AnswerOn(s, st, expect.Error(id, jsonrpc.InvalidParams)))
		},
	},
)

const mcpLogLevel = "io.modelcontextprotocol/logLevel"
