package server

import (
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
)

// peers says who was tested, per version the run probed: what the
// target's initialize result (or, in 2026-07-28, its server/discover
// result and that result's _meta) said about it. A version whose probe
// got no answer is listed with nothing but its number.
func (r *runner) peers() []reports.PeerInfo {
	var out []reports.PeerInfo
	for _, vr := range r.versions {
		if !vr.setupDone() {
			continue
		}
		p := reports.PeerInfo{Version: vr.v}
		switch {
		case vr.initRes != nil:
			res := vr.initRes
			p.Negotiated = res.ProtocolVersion
			p.Name, p.Title, p.SoftwareVersion = res.ServerInfo.Name, res.ServerInfo.Title, res.ServerInfo.Version
			p.Capabilities = reports.CapabilityPaths(res.Capabilities)
		case vr.discov != nil:
			res := vr.discov
			p.Supported = append([]string(nil), res.SupportedVersions...)
			var info mcp.Implementation
			if ok, err := res.Meta.Get(mcp.MetaServerInfo, &info); ok && err == nil {
				p.Name, p.Title, p.SoftwareVersion = info.Name, info.Title, info.Version
			}
			p.Capabilities = reports.CapabilityPaths(res.Capabilities)
		}
		out = append(out, p)
	}
	return out
}
