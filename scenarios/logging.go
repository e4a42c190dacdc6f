package scenarios

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/harness/expect"
	"github.com/mcpcheck/mcpcheck/harness/wire"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
)

// Logging: notifications/message only with the logging capability;
// logging/setLevel errors (up to 2025-11-25); the per-request logLevel of
// 2026-07-28 (no level, no logs; a bogus level refused).

func isLog(f wire.Frame) bool {
	return f.Kind == wire.KindMessage && f.Msg.Method == spec.MethodLoggingMessage
}

var _ = Register(
	Def{
		ID: "logging/declared-if-sent", Area: "logging", Passive: true,
		Title:        "log notifications come only from a server that declared the logging capability",
		Requirements: []string{"logging.capability.server-declares"},
		Body: func(t *T) {
			obs, _ := t.Observed()
			n := 0
			for _, o := range obs {
				if isLog(o.Frame) {
					n++
					if !t.HasCapability("logging") {
						t.Fail("notifications/message only with a declared logging capability", "sent without it: "+wire.Excerpt(o.Raw, 200))
						return
					}
				}
			}
			if n == 0 {
				t.NotApplicable("the server sent no log notification in this run")
				return
			}
			t.Saw("%d log notifications, logging declared", n)
			t.Pass()
		},
	},
	Def{
		ID: "logging/set-level-invalid", Area: "logging", Eras: stateful,
		Title:        "logging/setLevel with an unknown level is refused with -32602",
		Requirements: []string{"logging.errors.standard-codes-legacy"},
		Body: func(t *T) {
			if !t.RequireCapability("logging") {
				return
			}
			c := t.Session()
			s := c.Stateful
			id, st, err := s.Request(t.Ctx, spec.MethodLoggingSetLevel, map[string]any{"level": "mcpcheck-bogus"})
			t.must(err)
			obs := s.WaitFor(t.Ctx, expect.Options{Stream: st, Timeout: t.StepTimeout()}, expect.Error(id, jsonrpc.InvalidParams))
			if !obs.OK() {
				t.Taint() // the level may have changed
			}
			t.Judge(obs)
		},
	},
	Def{
		ID: "logging/silent-without-level", Area: "logging", Eras: stateless, Labels: []string{Fixture("test_tool_with_logging")},
		Title:        "in 2026-07-28 a tool that logs sends no notifications/message when the request names no logLevel",
		Requirements: []string{"logging.per-request.silent-without-level"},
		Body: func(t *T) {
			name := ""
			for _, n := range []string{"test_tool_with_logging", "test_logging_tool"} {
				tools, _ := t.Tools()
				for _, tl := range tools {
					if tl.Name == n && name == "" {
						name = n
					}
				}
			}
			if !t.RequireFixture(name != "", "the target offers neither test_tool_with_logging nor test_logging_tool (a tool that logs)") {
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
		ID: "logging/per-request-invalid-level", Area: "logging", Eras: stateless,
		Title:        "in 2026-07-28 a request whose _meta logLevel is not a syslog level is refused with -32602",
		Requirements: []string{"logging.per-request.invalid-level-rejected"},
		Body: func(t *T) {
			c := t.Session()
			s := c.Stateless
			meta := s.Meta()
			meta[mcpLogLevel] = json.RawMessage(`"mcpcheck-bogus"`)
			params, err := json.Marshal(map[string]any{"_meta": meta})
			t.must(err)
			h, err := s.Headers(spec.MethodServerDiscover, params)
			t.must(err)
			id := s.NextID()
			st, err := s.RequestRaw(t.Ctx, id, spec.MethodServerDiscover, params, h)
			t.must(err)
			t.Judge(s.WaitFor(t.Ctx, expect.Options{Stream: st, Timeout: t.StepTimeout()}, expect.Error(id, jsonrpc.InvalidParams)))
		},
	},
)

const mcpLogLevel = "io.modelcontextprotocol/logLevel"
