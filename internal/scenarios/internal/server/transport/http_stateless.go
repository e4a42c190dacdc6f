package transport

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Streamable HTTP in the 2026-07-28 stateless protocol: an unsupported
// version is 400, an unknown method 404, and a modern-only server answers
// legacy traffic as the spec says. The header rules are in
// http_stateless_headers.go.

var _ = server.Register(
	server.Def{
		ID: "transport-http/stateless-unsupported-version-400", Area: "transport-http", Eras: server.Stateless, Transports: server.HTTPOnly,
		Title:        "a request for a version the server does not implement gets HTTP 400 and -32022 listing the supported versions",
		Requirements: []string{"transport-http.protocol-version-header.unsupported-400"},
		Proofs:       []server.Proof{{Proxy: "status-200", Good: "plain", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Session()
			if t.HTTP(c) == nil {
				return
			}
			id, st := t.StatelessRequest(c, spec.MethodToolsList, map[string]any{"_meta": map[string]any{mcp.MetaProtocolVersion: server.UnknownVersion}},
				func(h http.Header) { h.Set(wire.HeaderProtocolVersion, server.UnknownVersion) })
			t.Judge(t.AnswerOn(c.S(), st,
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
	server.Def{
		ID: "transport-http/stateless-unknown-method-404", Area: "transport-http", Eras: server.Stateless, Transports: server.HTTPOnly,
		Title:        "over HTTP an unknown method gets HTTP 404 with -32601 (and, on a modern-only server, so do the removed initialize, ping and logging/setLevel)",
		Requirements: []string{"transport-http.method.unknown-404"},
		Proofs:       []server.Proof{{Proxy: "status-200", Good: "plain", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Session()
			if t.HTTP(c) == nil {
				return
			}
			methods := []string{"mcpcheck/no-such-method"}
			if len(t.StatefulSupport()) == 0 {
				methods = append(methods, spec.MethodInitialize, spec.MethodPing, spec.MethodLoggingSetLevel)
			} else {
				t.Expect("the server also speaks initialize-based versions, so initialize, ping and logging/setLevel are methods it implements; only a made-up method is sent")
			}
			for _, m := range methods {
				params := map[string]any{}
				if m == spec.MethodLoggingSetLevel {
					params["level"] = "info"
				}
				id, st := t.StatelessRequest(c, m, params, nil)
				obs := t.AnswerOn(c.S(), st, expect.WithStatus(expect.Error(id, jsonrpc.MethodNotFound), http.StatusNotFound))
				if !obs.OK() {
					t.Judge(obs)
					return
				}
			}
			t.Saw("%s: each answered 404 with -32601", strings.Join(methods, ", "))
			t.Pass()
		},
	},
	server.Def{
		ID: "transport-http/modern-only-legacy-traffic", Area: "transport-http", Eras: server.Stateless, Transports: server.HTTPOnly,
		Title:        "a server that speaks only 2026-07-28 answers GET and DELETE with 405 and issues no Mcp-Session-Id",
		Requirements: []string{"transport-http.compat.modern-server-legacy-traffic"},
		Proofs:       []server.Proof{{Proxy: "modern-only-get-served", Version: spec.V20260728, Transport: "streamable", Want: reports.Warn}},
		Body: func(t *server.T) {
			if v := t.StatefulSupport(); len(v) > 0 {
				t.NotApplicable(fmt.Sprintf("the server also serves %v, where GET, DELETE and sessions are part of the transport", v))
				return
			}
			c := t.Session()
			h := t.HTTP(c)
			if h == nil {
				return
			}
			if sid := h.SessionID(); sid != "" {
				t.Fail("no Mcp-Session-Id issued", fmt.Sprintf("the server issued Mcp-Session-Id %q", sid))
				return
			}
			for _, m := range []string{http.MethodGet, http.MethodDelete} {
				status, _, err := plainHead(t, m, http.Header{"Accept": {wire.MediaSSE}, wire.HeaderSessionID: {"mcpcheck-legacy-session"}})
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
