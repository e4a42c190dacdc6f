package client

import (
	"slices"
	"sort"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// peers says who was tested, per version the run launched the client in:
// the clientInfo of its first initialize (or, in 2026-07-28, of its first
// request's _meta), the version the stage answered it with (in the first
// case where it answered one), and the
// capabilities it declared in any case of the version (clients declare
// some only in the scenarios that need them). Cases are read in scenario
// order, so the report does not depend on which launch ended first. A
// version whose launches sent nothing is listed with nothing but its
// number.
func (r *runner) peers() []reports.PeerInfo {
	r.mu.Lock()
	byVersion := map[spec.Version][]*Case{}
	for k, p := range r.cases {
		if p.c != nil {
			byVersion[k.v] = append(byVersion[k.v], p.c)
		}
	}
	r.mu.Unlock()
	var out []reports.PeerInfo
	for _, v := range r.cfg.Versions {
		cases := byVersion[v]
		if len(cases) == 0 {
			continue
		}
		sort.Slice(cases, func(i, k int) bool { return cases[i].Scenario.Name < cases[k].Scenario.Name })
		p := reports.PeerInfo{Version: v}
		for _, c := range cases {
			if caps, ok := c.Declared(); ok {
				for _, path := range reports.CapabilityPaths(caps) {
					if !slices.Contains(p.Capabilities, path) {
						p.Capabilities = append(p.Capabilities, path)
					}
				}
			}
			if p.Negotiated == "" {
				// A case whose initialize the stage did not answer
				// (an authorization scenario's 401) negotiated nothing.
				p.Negotiated = string(c.Negotiated())
			}
			if p.Name != "" {
				continue
			}
			if info, ok := clientInfo(c); ok {
				p.Name, p.Title, p.SoftwareVersion = info.Name, info.Title, info.Version
			}
		}
		sort.Strings(p.Capabilities)
		out = append(out, p)
	}
	return out
}

// clientInfo is how the client named itself in a case: the clientInfo of
// its first initialize, else the io.modelcontextprotocol/clientInfo _meta
// of its first request that has one.
func clientInfo(c *Case) (mcp.Implementation, bool) {
	if _, p, ok := c.Initialize(); ok && p.ClientInfo.Name != "" {
		return p.ClientInfo, true
	}
	for _, m := range c.Requests("") {
		var info mcp.Implementation
		if ok, err := metaOf(m).Get(mcp.MetaClientInfo, &info); ok && err == nil && info.Name != "" {
			return info, true
		}
	}
	return mcp.Implementation{}, false
}
