package server

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The request _meta of the 2026-07-28 base protocol: a request without
// the required _meta is refused.

var _ = Register(
	Def{
		ID: "base/meta-required", Area: "base", Eras: Stateless,
		Title:        "a 2026-07-28 request without protocolVersion in _meta is refused with -32602",
		Requirements: []string{"base.meta.missing-required-invalid-params"},
		Proofs:       []Proof{{Fault: "meta-version-assumed", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Fresh()
			s := c.Stateless
			params := json.RawMessage(`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`)
			h, _ := s.Headers(spec.MethodServerDiscover, json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`))
			id := jsonrpc.StringID(noMetaProbeID)
			st, err := s.RequestRaw(t.Ctx, id, spec.MethodToolsList, params, h)
			t.Must(err)
			if len(t.StatefulSupport()) > 0 && t.Stdio() {
				// A dual-era stdio server cannot tell this request from a
				// legacy one sent before initialize, which it may refuse
				// or serve under the legacy rules: nothing is owed.
				obs := t.AnswerOn(s, st, expect.Error(id), expect.AnyResponse(id))
				if obs.OK() && obs.Alt == 1 && obs.Frame.Msg.Result != nil && mrtrResultType(obs.Frame.Msg.Result) != "" {
					t.Fail("a request without a protocol version is refused with -32602, or (dual-era stdio) served under the legacy rules", "it was served as a 2026-07-28 request (the result carries resultType "+mrtrResultType(obs.Frame.Msg.Result)+"): the server assumed a protocol version the request does not name")
					return
				}
				if obs.OK() && obs.Alt == 1 {
					t.Untestable("the server is dual-era: over stdio it served the request without a protocol version under the legacy rules, which it may; the -32602 rule can only be judged over HTTP or against a modern-only server")
					return
				}
				t.Expect("the server is dual-era: on stdio a request without a protocol version may be taken for a legacy one, so any error is accepted")
				t.Judge(obs)
				return
			}
			t.Judge(t.AnswerOn(s, st, expect.Error(id, jsonrpc.InvalidParams)))
		},
	},
)
