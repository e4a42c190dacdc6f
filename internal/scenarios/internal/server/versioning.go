package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Version negotiation: initialize answered with the offered version when
// the server implements it, an unknown or unsupported version handled as
// the spec allows, and the 2026-07-28 version names.

var _ = Register(
	Def{
		ID: "versioning/echo-supported", Area: "versioning", Eras: Stateful, Unsupported: true,
		Title:        "initialize with a version the server implements is answered with exactly that version",
		Requirements: []string{"versioning.initialize.server-echoes-supported-version"},
		Proofs:       []Proof{{Fault: "init-wrong-version", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			v := t.Version()
			nego := t.vr.nego
			if nego == v {
				t.Expect("initialize with %s is answered with %s", v, v)
				t.Saw("answered %s", nego)
				t.Pass()
				return
			}
			claimed := claimedVersions(t)
			if !claimed[string(v)] {
				t.NotApplicable(fmt.Sprintf("the server answered %q to %s and does not claim to implement %s anywhere else (server/discover, -32022 data)", nego, v, v))
				return
			}
			t.Fail(fmt.Sprintf("the server lists %s among its supported versions, so initialize with %s is answered with %s", v, v, v), fmt.Sprintf("initialize with %s was answered with %q", v, nego))
		},
	},
	Def{
		ID: "versioning/unknown-version", Area: "versioning", Eras: Stateful, Unsupported: true,
		Title:        "initialize with an unknown version is answered with a version the server implements, its newest",
		Requirements: []string{"versioning.initialize.server-counters-with-supported", "versioning.initialize.server-counters-latest"},
		Proofs:       []Proof{{Fault: "unknown-version-oldest", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			supported := t.StatefulSupport()
			if len(supported) == 0 {
				t.NotApplicable("the server speaks no initialize-based version (a modern-only server; see versioning/modern-names-versions)")
				return
			}
			c := t.Fresh()
			p := c.Stateful.InitializeParams()
			p.ProtocolVersion = unknownVersion
			_, r, _ := c.Stateful.Initialize(t.Ctx, &p)
			if !r.OK() {
				t.Violation("versioning.initialize.server-counters-with-supported", "initialize with "+unknownVersion+" is answered with a result naming a version the server implements", r.Describe())
				return
			}
			var res struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = r.Decode(&res)
			got := spec.Version(res.ProtocolVersion)
			ok := slices.Contains(supported, got)
			if !ok && speaks(t, got) {
				// The run had not seen it speak the version (its own
				// handshake may have gone unanswered): asked for it, it
				// does.
				ok, supported = true, append(supported, got)
				slices.SortFunc(supported, func(a, b spec.Version) int { return a.Compare(b) })
			}
			if !ok {
				t.Violation("versioning.initialize.server-counters-with-supported", fmt.Sprintf("the counter-offer is a version the server implements (seen: %v)", supported), fmt.Sprintf("it answered %q", res.ProtocolVersion))
				return
			}
			newest := supported[len(supported)-1]
			if got != newest {
				t.Violation("versioning.initialize.server-counters-latest", fmt.Sprintf("the counter-offer is the newest version the server implements (%s)", newest), fmt.Sprintf("it answered %s", got))
				return
			}
			t.Saw("answered %s, the newest version it implements", got)
			t.Pass()
		},
	},
	Def{
		ID: "versioning/unsupported-version-error", Area: "versioning", Eras: Stateless,
		Title:        "a request naming an unknown protocol version gets -32022 listing the supported versions",
		Requirements: []string{"versioning.negotiation.unsupported-version-error"},
		Proofs:       []Proof{{Fault: "unsupported-version-no-list", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Fresh()
			s := c.Stateless
			id, st := t.discoverWithMeta(s, func(meta mcp.Meta) { meta.SetProtocolVersion("2099-01-01") })
			t.Judge(t.AnswerOn(s, st, expect.ErrorWhere(id, "data.supported listing the versions it implements", []int64{-32022}, func(e *jsonrpc.ErrorObject) error {
				var d struct {
					Supported []string `json:"supported"`
				}
				if json.Unmarshal(e.Data, &d) != nil || len(d.Supported) == 0 {
					return fmt.Errorf("error.data.supported is missing or empty (data: %s)", wire.Excerpt(e.Data, 200))
				}
				return nil
			})))
		},
	},
	Def{
		ID: "versioning/modern-names-versions", Area: "versioning", Eras: Stateless,
		Title:        "a modern-only server that refuses initialize names its supported versions",
		Requirements: []string{"versioning.compat.modern-server-names-versions"},
		Proofs:       []Proof{{Proxy: "modern-only-silent", Good: "modern-only", Version: spec.V20260728, Transport: "streamable", Want: reports.Warn}},
		Body: func(t *T) {
			c := t.Fresh()
			s := c.Stateless
			b, err := jsonrpc.NewRequest(jsonrpc.StringID("mcpcheck-legacy-init"), spec.MethodInitialize, mcp.InitializeParams{
				ProtocolVersion: string(spec.V20251125), ClientInfo: mcp.Implementation{Name: "mcpcheck", Version: "1"},
			})
			t.Must(err)
			st := t.SendLine(s, b)
			obs := t.AnswerOn(s, st, expect.AnyResponse(jsonrpc.StringID("mcpcheck-legacy-init")))
			if !obs.OK() {
				t.Judge(obs)
				return
			}
			if obs.Frame.Msg.Error == nil {
				t.NotApplicable("the server answered initialize: it is dual-era, not modern-only")
				return
			}
			e := obs.Frame.Msg.Error
			if strings.Contains(string(e.Data), string(spec.V20260728)) || strings.Contains(e.Message, string(spec.V20260728)) {
				t.Saw("the refusal names %s", spec.V20260728)
				t.Pass()
				return
			}
			t.Fail("the refusal of initialize names the versions the server supports (in data.supported or the message)", obs.Frame.Describe())
		},
	},
)
