package scenarios

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpcheck/mcpcheck/harness/expect"
	"github.com/mcpcheck/mcpcheck/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec/mcp"
)

// The 2026-07-28 stateless protocol: the server/discover result, the
// per-request _meta refusals with their HTTP statuses, unknown methods
// over HTTP (404), and the caching fields of cacheable results. The
// header rules are in transport_http_stateless_headers.go, MRTR in mrtr.go and
// subscriptions/listen in subscriptions.go.

// statelessUnknownVersion is a protocol version no server implements.
const statelessUnknownVersion = "2099-12-31"

// statelessRaw sends method with params (no _meta added) and headers h
// (on HTTP; ignored on stdio) and returns the id and stream.
func (t *T) statelessRaw(c *Conn, method string, params json.RawMessage, h http.Header) (jsonrpc.ID, string) {
	id := c.Stateless.NextID()
	st, err := c.Stateless.RequestRaw(t.Ctx, id, method, params, h)
	t.must(err)
	return id, st
}

// statelessNoCapabilities are the params of a tools/call of name without
// arguments whose _meta declares no client capabilities.
func statelessNoCapabilities(name string) map[string]any {
	return map[string]any{"name": name, "arguments": map[string]any{},
		"_meta": map[string]any{mcp.MetaClientCapabilities: map[string]any{}}}
}

var _ = Register(
	Def{
		ID: "discovery/discover-result", Area: "discovery", Eras: stateless,
		Title:        "server/discover answers supportedVersions (with 2026-07-28), capabilities and serverInfo in _meta",
		Requirements: []string{"discovery.server.implements-discover", "discovery.result.includes-server-info"},
		Proofs:       []Proof{{Proxy: "no-server-info", Good: "plain", Version: spec.V20260728, Transport: "streamable", Want: reports.Warn}},
		Body: func(t *T) {
			c := t.Session()
			r := c.S().Call(t.Ctx, spec.MethodServerDiscover, nil)
			if !r.OK() {
				t.Violation("discovery.server.implements-discover", "a DiscoverResult", r.Describe())
				return
			}
			var res struct {
				SupportedVersions []string                   `json:"supportedVersions"`
				Capabilities      map[string]json.RawMessage `json:"capabilities"`
				Meta              map[string]json.RawMessage `json:"_meta"`
			}
			if err := r.Decode(&res); err != nil {
				t.Violation("discovery.server.implements-discover", "a DiscoverResult object", "the result does not decode: "+err.Error())
				return
			}
			has := false
			for _, v := range res.SupportedVersions {
				has = has || v == string(spec.V20260728)
			}
			switch {
			case !has:
				t.Violation("discovery.server.implements-discover", "supportedVersions listing 2026-07-28 (the version the request was served in)", fmt.Sprintf("supportedVersions %v", res.SupportedVersions))
			case res.Capabilities == nil:
				t.Violation("discovery.server.implements-discover", "a capabilities object", "the DiscoverResult has no capabilities object")
			}
			var info struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			}
			raw, ok := res.Meta[mcp.MetaServerInfo]
			if ok {
				_ = json.Unmarshal(raw, &info)
			}
			if !ok || !implementationInfo(raw) {
				t.Violation("discovery.result.includes-server-info", "_meta[\""+mcp.MetaServerInfo+"\"] with name and version", fmt.Sprintf("_meta is %s", wire.Excerpt(r.Result, 300)))
			}
			if t.Open() {
				t.Saw("supportedVersions %v; serverInfo %s %s", res.SupportedVersions, info.Name, info.Version)
				t.Pass()
			}
		},
	},
	Def{
		ID: "base/stateless-meta-missing-400", Area: "base", Eras: stateless, Transports: transportHTTPOnly,
		Title:        "over HTTP a request without the required _meta is refused with -32602 and HTTP 400",
		Requirements: []string{"base.meta.http-status-400"},
		Proofs:       []Proof{{Proxy: "status-200", Good: "plain", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Session()
			if t.transportHTTP(c) == nil {
				return
			}
			_, h := t.transportStatelessParams(c, spec.MethodToolsList, nil)
			id, st := t.statelessRaw(c, spec.MethodToolsList, json.RawMessage(`{}`), h)
			t.Judge(t.answerOn(c.S(), st, expect.WithStatus(expect.Error(id, jsonrpc.InvalidParams), http.StatusBadRequest)))
		},
	},
	Def{
		ID: "base/stateless-missing-capability", Area: "base", Eras: stateless,
		Title:        "a request that needs a client capability the request did not declare gets -32021 (HTTP 400)",
		Requirements: []string{"base.meta.missing-capability-error", "base.meta.http-status-400"},
		Proofs:       []Proof{{Fault: "missing-capability-wrong-code", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			const name = "test_missing_capability"
			if _, ok := t.RequireTool(name); !ok {
				return
			}
			c := t.Session()
			id, st := t.headersRequest(c, spec.MethodToolsCall, statelessNoCapabilities(name), nil)
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
			t.Judge(t.answerOn(c.S(), st, alt))
		},
	},
	Def{
		ID: "transport-http/stateless-unsupported-version-400", Area: "transport-http", Eras: stateless, Transports: transportHTTPOnly,
		Title:        "a request for a version the server does not implement gets HTTP 400 and -32022 listing the supported versions",
		Requirements: []string{"transport-http.protocol-version-header.unsupported-400"},
		Proofs:       []Proof{{Proxy: "status-200", Good: "plain", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Session()
			if t.transportHTTP(c) == nil {
				return
			}
			id, st := t.headersRequest(c, spec.MethodToolsList, map[string]any{"_meta": map[string]any{mcp.MetaProtocolVersion: statelessUnknownVersion}},
				func(h http.Header) { h.Set(wire.HeaderProtocolVersion, statelessUnknownVersion) })
			t.Judge(t.answerOn(c.S(), st,
				expect.WithStatus(expect.ErrorWhere(id, "data.supported lists the server's versions", []int64{jsonrpc.UnsupportedProtocolVersion}, func(e *jsonrpc.ErrorObject) error {
					var d struct {
						Supported []string `json:"supported"`
					}
					if len(e.Data) == 0 || json.Unmarshal(e.Data, &d) != nil || len(d.Supported) == 0 {
						return fmt.Errorf("error data %s has no supported list", wire.Excerpt(e.Data, 200))
					}
					return nil
				}), http.StatusBadRequest)))
		},
	},
	Def{
		ID: "transport-http/stateless-unknown-method-404", Area: "transport-http", Eras: stateless, Transports: transportHTTPOnly,
		Title:        "over HTTP an unknown method gets HTTP 404 with -32601 (and, on a modern-only server, so do the removed initialize, ping and logging/setLevel)",
		Requirements: []string{"transport-http.method.unknown-404"},
		Proofs:       []Proof{{Proxy: "status-200", Good: "plain", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Session()
			if t.transportHTTP(c) == nil {
				return
			}
			methods := []string{"mcpcheck/no-such-method"}
			if len(t.statefulSupport()) == 0 {
				methods = append(methods, spec.MethodInitialize, spec.MethodPing, spec.MethodLoggingSetLevel)
			} else {
				t.Expect("the server also speaks initialize-based versions, so initialize, ping and logging/setLevel are methods it implements; only a made-up method is sent")
			}
			for _, m := range methods {
				params := map[string]any{}
				if m == spec.MethodLoggingSetLevel {
					params["level"] = "info"
				}
				id, st := t.headersRequest(c, m, params, nil)
				obs := t.answerOn(c.S(), st, expect.WithStatus(expect.Error(id, jsonrpc.MethodNotFound), http.StatusNotFound))
				if !obs.OK() {
					t.Judge(obs)
					return
				}
			}
			t.Saw("%s: each answered 404 with -32601", strings.Join(methods, ", "))
			t.Pass()
		},
	},
	Def{
		ID: "caching/ttl-non-negative", Area: "caching", Eras: stateless, Passive: true,
		Title:        "every ttlMs on a result is a non-negative integer",
		Requirements: []string{"caching.ttl.server-non-negative"},
		Proofs:       []Proof{{Proxy: "ttl-negative", Good: "plain", Version: spec.V20260728, Transport: "streamable", Also: []string{"discovery/discover-result"}, Want: reports.Fail}},
		Body: func(t *T) {
			t.judgeObserved(passiveRule{
				Expected: "ttlMs a non-negative integer",
				Limit:    1,
				None:     "no result carried ttlMs",
				Saw:      "%d results with ttlMs, all non-negative integers",
			}, func(o Observation) (bool, string) {
				if o.Kind != wire.KindMessage || o.Msg.Result == nil {
					return false, ""
				}
				m, err := resultObject(o.Msg.Result)
				if err != nil {
					return false, ""
				}
				raw, ok := m["ttlMs"]
				if !ok {
					return false, ""
				}
				var v json.Number
				d := json.NewDecoder(strings.NewReader(string(raw)))
				d.UseNumber()
				if d.Decode(&v) != nil {
					return true, fmt.Sprintf("the %s result has ttlMs %s", o.Answers, raw)
				}
				if i, err := v.Int64(); err != nil || i < 0 {
					return true, fmt.Sprintf("the %s result has ttlMs %s", o.Answers, raw)
				}
				return true, ""
			})
		},
	},
)

var _ = Register(
	Def{
		ID: "base/stateless-no-connection-context", Area: "base", Eras: stateless,
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
			id, st := t.headersRequest(c, spec.MethodToolsCall, statelessNoCapabilities(name), nil)
			t.Expect("after a call declaring sampling succeeded, the same call on the same connection declaring no capabilities is refused with -32021")
			t.Judge(t.answerOn(c.S(), st, expect.Error(id, jsonrpc.MissingRequiredClientCapability)))
		},
	},
	Def{
		ID: "base/stateless-no-connection-affinity", Area: "base", Eras: stateless, Transports: transportHTTPOnly,
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
			obs := t.mrtrCall(c.S(), params, "an input_required result", nil)
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
			t.must(err)
			t.Expect("round 2 of %s, sent on a new connection, completes", name)
			t.Judge(t.answerOn(other.S(), st2, expect.Result(id2, "a complete result", mrtrComplete)))
		},
	},
	Def{
		ID: "transport-http/modern-only-legacy-traffic", Area: "transport-http", Eras: stateless, Transports: transportHTTPOnly,
		Title:        "a server that speaks only 2026-07-28 answers GET and DELETE with 405 and issues no Mcp-Session-Id",
		Requirements: []string{"transport-http.compat.modern-server-legacy-traffic"},
		Proofs:       []Proof{{Proxy: "modern-only-get-served", Version: spec.V20260728, Transport: "streamable", Want: reports.Warn}},
		Body: func(t *T) {
			if v := t.statefulSupport(); len(v) > 0 {
				t.NotApplicable(fmt.Sprintf("the server also serves %v, where GET, DELETE and sessions are part of the transport", v))
				return
			}
			c := t.Session()
			h := t.transportHTTP(c)
			if h == nil {
				return
			}
			if sid := h.SessionID(); sid != "" {
				t.Fail("no Mcp-Session-Id issued", fmt.Sprintf("the server issued Mcp-Session-Id %q", sid))
				return
			}
			for _, m := range []string{http.MethodGet, http.MethodDelete} {
				status, _, err := t.transportPlainHead(m, http.Header{"Accept": {wire.MediaSSE}, wire.HeaderSessionID: {"mcpcheck-legacy-session"}})
				if err != nil {
					t.Fail("405 for "+m, err.Error())
					return
				}
				if status != http.StatusMethodNotAllowed {
					t.Fail("405 Method Not Allowed for "+m+" on the MCP endpoint", fmt.Sprintf("%s was answered %d", m, status))
					return
				}
			}
			t.Saw("GET and DELETE were answered 405; no session id was issued")
			t.Pass()
		},
	},
)
