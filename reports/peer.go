package reports

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec"
)

// PeerInfo is what the target said about itself in one protocol version:
// the implementation it named (serverInfo, clientInfo, or in 2026-07-28 a
// result's _meta), the version it negotiated and the capabilities it
// declared. It is self-reported: reports show it to say who was tested,
// and judge nothing by it.
type PeerInfo struct {
	// Version is the protocol version mcpcheck asked for.
	Version spec.Version `json:"version"`
	// Negotiated is the version the target answered with ("" when it
	// answered none: it was not reached, or it does not negotiate, as in
	// 2026-07-28, where Supported lists what it speaks).
	Negotiated string `json:"negotiated,omitempty"`
	// Supported are the versions a 2026-07-28 server/discover listed.
	Supported []string `json:"supported,omitempty"`
	// Name, Title and SoftwareVersion are the implementation's, as it
	// named itself.
	Name            string `json:"name,omitempty"`
	Title           string `json:"title,omitempty"`
	SoftwareVersion string `json:"softwareVersion,omitempty"`
	// Capabilities are the capabilities it declared, as dotted paths
	// ("tools", "tools.listChanged", "resources.subscribe"), sorted.
	Capabilities []string `json:"capabilities,omitempty"`
}

// Implementation is "name version" with the title in quotes when it has
// one ("everything 2.0.0 (\"Everything Server\")"), or "" when the target
// named none.
func (p PeerInfo) Implementation() string {
	s := strings.TrimSpace(p.Name + " " + p.SoftwareVersion)
	if p.Title != "" && p.Title != p.Name {
		s += " (" + `"` + p.Title + `"` + ")"
	}
	return s
}

// CapabilityPaths lists the capabilities a declared capabilities object
// holds as dotted paths: every member present, and every nested member
// that is present and not false ("tools", "tools.listChanged"), sorted.
// caps is any value that encodes to a JSON object (mcp.ServerCapabilities,
// mcp.ClientCapabilities, a map); nil or anything else gives none.
func CapabilityPaths(caps any) []string {
	b, err := json.Marshal(caps)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	var out []string
	var walk func(prefix string, m map[string]any, depth int)
	walk = func(prefix string, m map[string]any, depth int) {
		for k, v := range m {
			p := prefix + k
			switch v := v.(type) {
			case bool:
				if v {
					out = append(out, p)
				}
			case nil:
			case map[string]any:
				out = append(out, p)
				if depth < 3 {
					walk(p+".", v, depth+1)
				}
			default:
				out = append(out, p)
			}
		}
	}
	walk("", m, 0)
	sort.Strings(out)
	return out
}

// peerLines says who was tested in a few lines: the implementation (once
// when every version named the same one), the versions it negotiated,
// and the capabilities per version (once when every version declared the
// same). It is nil when the run knows nothing of the target.
func peerLines(run *Run) (impl, versions string, caps []string) {
	var ps []PeerInfo
	for _, p := range run.Peers {
		if p.Negotiated != "" || p.Name != "" || len(p.Capabilities) > 0 || len(p.Supported) > 0 {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return "", "", nil
	}
	// One implementation, or each with the versions that named it.
	var impls []string
	byImpl := map[string][]string{}
	for _, p := range ps {
		s := p.Implementation()
		if s == "" {
			continue
		}
		if _, ok := byImpl[s]; !ok {
			impls = append(impls, s)
		}
		byImpl[s] = append(byImpl[s], string(p.Version))
	}
	switch len(impls) {
	case 0:
		impl = "(the target did not name itself)"
	case 1:
		impl = impls[0]
	default:
		var parts []string
		for _, s := range impls {
			parts = append(parts, s+" in "+strings.Join(byImpl[s], ", "))
		}
		impl = strings.Join(parts, "; ")
	}
	var nego []string
	listed := map[spec.Version][]string{}
	for _, p := range ps {
		switch {
		case slices.Contains(run.Unspoken, p.Version):
			listed[p.Version] = p.Supported // said below
		case p.Negotiated == string(p.Version):
			nego = append(nego, string(p.Version))
		case p.Negotiated != "":
			nego = append(nego, string(p.Version)+" → "+p.Negotiated)
		case slices.Contains(p.Supported, string(p.Version)):
			nego = append(nego, string(p.Version)+" (listed by server/discover)")
		case len(p.Supported) > 0:
			nego = append(nego, string(p.Version)+" (server/discover lists only "+strings.Join(p.Supported, ", ")+")")
		}
	}
	versions = strings.Join(nego, ", ")
	if len(run.Unspoken) > 0 {
		var vs []string
		for _, v := range run.Unspoken {
			s := string(v)
			if l := listed[v]; len(l) > 0 {
				s += " (its server/discover lists " + strings.Join(l, ", ") + ")"
			}
			vs = append(vs, s)
		}
		if versions != "" {
			versions += "; "
		}
		versions += "does not speak " + strings.Join(vs, ", ")
	}
	same := true
	for _, p := range ps[1:] {
		same = same && slices.Equal(p.Capabilities, ps[0].Capabilities)
	}
	for i, p := range ps {
		if same && i > 0 {
			break
		}
		c := capsSummary(p.Capabilities)
		if !same {
			c = string(p.Version) + ": " + c
		}
		caps = append(caps, c)
	}
	return impl, versions, caps
}

// capsSummary folds dotted capability paths into "tools (listChanged),
// resources (subscribe, listChanged), logging", or "none".
func capsSummary(paths []string) string {
	if len(paths) == 0 {
		return "none declared"
	}
	var tops []string
	sub := map[string][]string{}
	for _, p := range paths {
		top, rest, nested := strings.Cut(p, ".")
		if !slices.Contains(tops, top) {
			tops = append(tops, top)
		}
		if nested {
			sub[top] = append(sub[top], rest)
		}
	}
	parts := make([]string, 0, len(tops))
	for _, t := range tops {
		s := t
		if len(sub[t]) > 0 {
			var leaves []string
			for _, r := range sub[t] {
				// Only the deepest paths: "requests.tools.call", not "requests".
				deeper := false
				for _, o := range sub[t] {
					deeper = deeper || strings.HasPrefix(o, r+".")
				}
				if !deeper {
					leaves = append(leaves, r)
				}
			}
			s += " (" + strings.Join(leaves, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
