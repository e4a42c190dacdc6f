package server

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// What log notifications may carry: never a credential the client handed
// over (where they may go: logging_scope.go).

// secretArg matches the names of tool arguments that hold a credential.
var secretArg = regexp.MustCompile(`(?i)^(pass(word|wd|phrase)?|secret|client_?secret|token|access_?token|api_?key|credentials?|private_?key)$`)

// secretTools returns up to three tools the policy lets a check call
// with a string argument named like a credential, with that argument's
// name.
func secretTools(t *T, tools []mcp.Tool) (out []mcp.Tool, args []string) {
	for _, i := range t.CallableTools(tools, true) {
		tl := tools[i]
		var sch struct {
			Properties map[string]struct {
				Type json.RawMessage `json:"type"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(tl.InputSchema, &sch)
		for name, p := range sch.Properties {
			if secretArg.MatchString(name) && strings.Contains(string(p.Type), `"string"`) {
				out, args = append(out, tl), append(args, name)
				break
			}
		}
		if len(out) == 3 {
			break
		}
	}
	return out, args
}

// canary returns a fresh credential-looking value no server could know.
func canary() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "mcpcheck-canary-" + hex.EncodeToString(b)
}

var _ = Register(
	// Exclusive: it sets the log level to debug, which many servers keep for all their sessions, and counts the logs it gets.
	// Isolated in 2026-07-28: the level is asked for per request there, and the logs come on the request's own stream.
	Def{
		ID: "security/logs-no-secrets", Exclusive: true, IsolatedIn: Stateless, Area: "security",
		Title:        "a credential passed to a tool never shows up in a log notification",
		Requirements: []string{"security.logging.no-secrets-in-messages"},
		Proofs: []Proof{
			{Fault: "log-secrets", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "log-secrets", Version: spec.V20260728, Want: reports.Fail},
			{Fault: "log-secrets", Version: spec.V20241105, Want: reports.Fail},
		},
		Body: func(t *T) {
			tools, _ := t.Tools()
			cands, argNames := secretTools(t, tools)
			if !t.RequireFixture(len(cands) > 0, "no callable tool takes a credential-like string argument (password, token, secret, api key), the only channel through which mcpcheck can hand the server a secret it might log") {
				return
			}
			c := t.Session()
			t.Taint() // its log level changes
			t.transportGetStream(c)
			s := c.S()
			var meta map[string]any
			if c.Stateless != nil {
				meta = map[string]any{mcpLogLevel: "debug"}
			} else {
				if !t.HasCapability("logging") {
					t.NotApplicable("the server declares no logging capability, so it sends no log notifications to leak into")
					return
				}
				if r := s.Call(t.Ctx, spec.MethodLoggingSetLevel, map[string]any{"level": "debug"}); !r.OK() {
					t.Untestable("logging/setLevel debug was not accepted: " + r.Describe())
					return
				}
			}
			logs, called := 0, 0
			for i, tl := range cands {
				args, ok := t.ToolArgs(tl)
				if !ok {
					t.Saw("%s: no arguments conforming to its inputSchema could be generated; skipped", tl.Name)
					continue
				}
				var obj map[string]any
				_ = json.Unmarshal(args, &obj)
				if obj == nil {
					obj = map[string]any{}
				}
				secret := canary()
				obj[argNames[i]] = secret
				args, _ = json.Marshal(obj)
				r := t.CallTool(s, tl.Name, args, meta)
				if r.Err != nil || r.Observed.Status == expect.TimedOut {
					t.Saw("%s: %s; skipped", tl.Name, r.Describe())
					continue
				}
				called++
				frames := append(r.Observed.Others, r.Observed.Frame)
				// Logs of the call may trail its response; a quiet window
				// catches them.
				leaks := func(f wire.Frame) bool { return isLog(f) && strings.Contains(string(f.Raw), secret) }
				late := s.WaitFor(t.Ctx, expect.Options{Timeout: t.Quiet()}, expect.Never("the credential in a log notification", leaks), expect.Silence("no more logs"))
				frames = append(frames, late.Frame)
				frames = append(frames, late.Others...)
				for _, f := range frames {
					if !isLog(f) {
						continue
					}
					logs++
					if strings.Contains(string(f.Raw), secret) {
						t.Fail(fmt.Sprintf("no log notification repeats the %s argument given to %s", argNames[i], tl.Name), "the credential was logged: "+wire.Excerpt(f.Raw, 240))
						return
					}
				}
			}
			if called == 0 {
				t.Untestable("none of the credential-taking tools could be called")
				return
			}
			if logs == 0 {
				t.Untestable(fmt.Sprintf("%d tool call(s) with a credential produced no log notification at level debug, so there was no log to inspect", called))
				return
			}
			t.Saw("%d log notification(s) during %d call(s) with a credential; none repeats it", logs, called)
			t.Pass()
		},
	},
)
