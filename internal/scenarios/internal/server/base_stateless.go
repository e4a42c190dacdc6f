package server

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The 2026-07-28 stateless protocol's base rules: the per-request _meta
// refusals with their HTTP statuses, no connection context or affinity,
// interleaved conversations, subscriptions/listen implemented. Elsewhere:
// server/discover in discovery.go, HTTP statuses in
// transport/http_stateless.go, the header rules in
// transport/http_stateless_headers.go, caching in caching.go, MRTR in
// mrtr.go.

// UnknownVersion is a protocol version no server implements.
const UnknownVersion = "2099-12-31"

// statelessRaw sends method with params (no _meta added) and headers h
// (on HTTP; ignored on stdio) and returns the id and stream.
func statelessRaw(t *T, c *Conn, method string, params json.RawMessage, h http.Header) (jsonrpc.ID, string) {
	id := c.Stateless.NextID()
	st, err := c.Stateless.RequestRaw(t.Ctx, id, method, params, h)
	t.Must(err)
	return id, st
}

// StatelessRequest sends method with the session's _meta and headers,
// changed by edit.
func (t *T) StatelessRequest(c *Conn, method string, params any, edit func(http.Header)) (jsonrpc.ID, string) {
	p, h := t.StatelessParams(c, method, params)
	if edit != nil {
		edit(h)
	}
	return statelessRaw(t, c, method, p, h)
}

// statelessNoCapabilities are the params of a tools/call of name without
// arguments whose _meta declares no client capabilities.
func statelessNoCapabilities(name string) map[string]any {
	return map[string]any{"name": name, "arguments": map[string]any{},
		"_meta": map[string]any{mcp.MetaClientCapabilities: map[string]any{}}}
}

var _ = Register(
	Def{
		ID: "base/stateless-meta-missing-400", Area: "base", Eras: Stateless, Transports: HTTPOnly,
		Title:        "over HTTP a request without the required _meta is refused with -32602 and HTTP 400",
		Requirements: []string{"base.meta.http-status-400"},
		Proofs:       []Proof{{Proxy: "status-200", Good: "plain", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Session()
			if t.HTTP(c) == nil {
				return
			}
			_, h := t.StatelessParams(c, spec.MethodToolsList, nil)
			id, st := statelessRaw(t, c, spec.MethodToolsList, json.RawMessage(`{}`), h)
			t.Judge(t.AnswerOn(c.S(), st, expect.WithStatus(expect.Error(id, jsonrpc.InvalidParams), http.StatusBadRequest)))
		},
	},
	Def{
		ID: "base/stateless-missing-capability", Area: "base", Eras: Stateless,
		Title:        "a request that needs a client capability the request did not declare gets -32021 (HTTP 400)",
		Requirements: []string{"base.meta.missing-capability-error", "base.meta.http-status-400"},
		Proofs:       []Proof{{Fault: "missing-capability-wrong-code", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			const name = "test_missing_capability"
			if _, ok := t.RequireTool(name); !ok {
				return
			}
			c := t.Session()
			id, st := t.StatelessRequest(c, spec.MethodToolsCall, statelessNoCapabilities(name), nil)
			alt := expect.ErrorWhere(id, "data.requiredCapabilities lists what is missing", []int64{jsonrpc.MissingRequiredClientCapability}, func(e *jsonrpc.ErrorObject) error {
				var d struct {
					Required map[string]json.RawMessage `json:"requiredCapabilities"`
				}
				if len(e.Data) == 0 || json.Unmarshal(e.Data, &d) != nil || len(d.Required) == 0 {
					return fmt.Errorf("error data %s has no requiredCapabilities", wire.Excerpt(e.Data, 200))
				}
				return nil
			})
			if !t.Stdio() {
				alt = expect.WithStatus(alt, http.StatusBadRequest)
			}
			t.Expect("tools/call of the fixture %s declaring no client capabilities", name)
			t.Judge(t.AnswerOn(c.S(), st, alt))
		},
	},
)

var _ = Register(
	Def{
		ID: "base/stateless-no-connection-context", Area: "base", Eras: Stateless,
		Title:        "client capabilities are taken from each request's _meta, not from an earlier request on the connection",
		Requirements: []string{"base.stateless.no-connection-context"},
		Proofs:       []Proof{{Fault: "caps-from-connection", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			const name = "test_missing_capability"
			if _, ok := t.RequireTool(name); !ok {
				return
			}
			c := t.Session()
			first := c.S().Call(t.Ctx, spec.MethodToolsCall, map[string]any{"name": name, "arguments": map[string]any{}})
			if !first.OK() {
				t.Untestable("the fixture " + name + " failed even with the sampling capability declared: " + first.Describe())
				return
			}
			id, st := t.StatelessRequest(c, spec.MethodToolsCall, statelessNoCapabilities(name), nil)
			t.Expect("after a call declaring sampling succeeded, the same call on the same connection declaring no capabilities is refused with -32021")
			t.Judge(t.AnswerOn(c.S(), st, expect.Error(id, jsonrpc.MissingRequiredClientCapability)))
		},
	},
	Def{
		ID: "base/stateless-no-connection-affinity", Area: "base", Eras: Stateless, Transports: HTTPOnly,
		Title:        "the second round of a multi round-trip request is served on a new connection",
		Requirements: []string{"base.stateless.no-connection-affinity", "base.stateless.explicit-state-handles"},
		Proofs:       []Proof{{Fault: "state-bound-to-connection", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *T) {
			const name = "test_input_required_result_request_state"
			if _, ok := t.RequireTool(name); !ok {
				return
			}
			c := t.Session()
			params := map[string]any{"name": name, "arguments": map[string]any{}}
			obs := mrtrCall(t, c.S(), params, "an input_required result", nil)
			if !obs.OK() {
				t.Untestable("the fixture " + name + " did not answer: " + obs.Actual)
				return
			}
			var ir mcp.InputRequiredResult
			if json.Unmarshal(obs.Frame.Msg.Result, &ir) != nil || mrtrResultType(obs.Frame.Msg.Result) != "input_required" {
				t.Untestable("the fixture " + name + " did not answer input_required")
				return
			}
			if k, ok := mrtrRetry(params, ir); !ok {
				t.Untestable("the fixture asks for input other than elicitation: " + k)
				return
			}
			other := t.Fresh()
			id2, st2, err := other.S().Request(t.Ctx, spec.MethodToolsCall, params)
			t.Must(err)
			t.Expect("round 2 of %s, sent on a new connection, completes", name)
			t.Judge(t.AnswerOn(other.S(), st2, expect.Result(id2, "a complete result", mrtrComplete)))
		},
	},
)

var _ = Register(
	Def{
		ID: "base/stateless-interleaved-conversations", Area: "base", Eras: Stateless,
		Title:        "two multi round-trip conversations interleaved on one connection both complete",
		Requirements: []string{"base.stateless.handle-interleaved-conversations"},
		Proofs:       []Proof{{Fault: "one-conversation-at-a-time", Version: spec.V20260728, Want: reports.Warn}},
		Body: func(t *T) {
			names := []string{"test_input_required_result_request_state", "test_input_required_result_elicitation"}
			for _, n := range names {
				if _, ok := t.RequireTool(n); !ok {
					return
				}
			}
			c := t.Session()
			a, ok := mrtrRound1(t, c, names[0])
			if !ok {
				return
			}
			b, ok := mrtrRound1(t, c, names[1])
			if !ok {
				return
			}
			for _, p := range []map[string]any{b, a} { // finish the later one first
				obs := mrtrCall(t, c.S(), p, "a complete result", mrtrComplete)
				if !obs.OK() {
					t.Saw("round 2 of %v", p["name"])
					t.Judge(obs)
					return
				}
			}
			t.Saw("%s and %s started, then finished in the opposite order: both complete", names[0], names[1])
			t.Pass()
		},
	},
)

var _ = Register(
	// Exclusive: a listen stream carries what the server announces to every listener, whoever caused it.
	Def{
		ID: "base/stateless-listen-implemented", Exclusive: true, Area: "base", Eras: Stateless,
		Title:        "a 2026-07-28 server implements subscriptions/listen (a core message pattern): it is not answered -32601",
		Requirements: []string{"base.layers.support-base-versioning-patterns"},
		Proofs:       []Proof{{Proxy: "no-listen", Good: "plain", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Session()
			t.Taint()
			s := c.S()
			id, st, err := s.Request(t.Ctx, spec.MethodSubscriptionsListen, map[string]any{"notifications": map[string]any{}})
			t.Must(err)
			defer func() {
				if h := c.Conn.HTTP(); h != nil {
					h.CloseStream(st)
				} else {
					_ = c.Stateless.Cancel(t.Ctx, id, st)
				}
			}()
			t.Judge(s.WaitFor(t.Ctx, expect.Options{Timeout: t.StepTimeout()}, expect.Matching("an acknowledgement, or any answer but -32601 (Method not found)", func(f wire.Frame) (expect.Verdict, string) {
				if f.IsResponseTo(id) {
					if code, ok := ErrorCodeOf(f); ok && code == jsonrpc.MethodNotFound {
						return expect.Rejected, "subscriptions/listen is not implemented: " + f.Describe()
					}
					return expect.Accepted, ""
				}
				if f.Kind == wire.KindMessage && f.Msg.Method == spec.MethodSubscriptionsAcknowledge {
					return expect.Accepted, ""
				}
				return expect.Unrelated, ""
			})))
		},
	},
)
