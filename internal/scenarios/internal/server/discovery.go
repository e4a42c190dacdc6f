package server

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// server/discover (2026-07-28): a server implements it, and its result
// says what the server speaks and supports.

var _ = Register(
	Def{
		ID: "discovery/server-discover", Area: "discovery", Eras: Stateless, Unsupported: true,
		Title:        "a 2026-07-28 server implements server/discover",
		Requirements: []string{"discovery.versioning.server-implements-discover", "base.response.id-matches-request"},
		Proofs: []Proof{
			{Fault: "no-server-discover", Version: spec.V20260728, Want: reports.Fail},
			{Fault: "response-ids-wrong", Version: spec.V20260728, Want: reports.Fail},
		},
		Body: func(t *T) {
			c := t.Fresh()
			s := c.Stateless
			d, r, _ := s.Discover(t.Ctx)
			if r.WrongID() {
				t.JudgeAs(r.Observed, "base.response.id-matches-request")
				return
			}
			if r.OK() && d != nil {
				for _, v := range d.SupportedVersions {
					if v == string(spec.V20260728) {
						t.Saw("server/discover lists %v", d.SupportedVersions)
						t.Pass()
						return
					}
				}
			}
			// Does the server speak 2026-07-28 at all? Then discover is owed.
			// Being served is not enough: an older server that does not
			// enforce initialization answers tools/list whatever its _meta
			// says. A 2026-07-28 result always carries resultType, so only
			// a result with resultType shows the newer protocol.
			tl := s.Call(t.Ctx, spec.MethodToolsList, nil)
			if tl.OK() {
				if rt, ok := resultType(tl.Result); ok {
					t.Fail("a server that serves 2026-07-28 requests implements server/discover listing 2026-07-28", "server/discover: "+r.Describe()+"; yet tools/list with 2026-07-28 _meta was served with resultType "+rt)
					return
				}
				t.NotApplicable("the server does not speak 2026-07-28: server/discover: " + r.Describe() + "; tools/list was answered without resultType, as a pre-2026 server that does not enforce initialization would")
				return
			}
			t.NotApplicable("the server does not speak 2026-07-28: " + r.Describe())
		},
	},
)

var _ = Register(
	Def{
		ID: "discovery/discover-result", Area: "discovery", Eras: Stateless,
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
)
