package catalog

import (
	"sort"
)

// AreaCoverage tells, for one area, how many wire-testable MUST/SHOULD
// requirements of a role have at least one check, an exclusion, or neither.
type AreaCoverage struct {
	Area     string   `json:"area"`
	Total    int      `json:"total"`
	Checked  int      `json:"checked"`
	Excluded int      `json:"excluded"`
	Missing  []string `json:"missing,omitempty"`
}

// Coverage matches the catalog's testable MUST, MUST NOT, SHOULD and
// SHOULD NOT requirements of role against checked (requirement ID -> check
// names) and excluded (requirement ID -> written reason). For the server
// and client sides the wire-testable records count: records of role "both"
// count for server and client, and for the server side requirements on the
// MCP server as an OAuth resource server count too. For the OAuth roles
// (resource-server, authorization-server) the records of that role count,
// wire- and fixture-testable alike: the fixture they need is the
// authorization server and tokens mcpcheck runs and mints. Records of role
// "both" in area authorization that need such a fixture count for the
// resource-server side and the client side (whose fixture is the client
// suite's authorization stage). Areas come out in catalog order.
func (c *Catalog) Coverage(role Role, checked map[string][]string, excluded map[string]string) []AreaCoverage {
	by := map[string]*AreaCoverage{}
	for _, r := range c.Records {
		if r.Level == May || !CoverageCounts(r, role) {
			continue
		}
		a := by[r.Area]
		if a == nil {
			a = &AreaCoverage{Area: r.Area}
			by[r.Area] = a
		}
		a.Total++
		switch {
		case len(checked[r.ID]) > 0:
			a.Checked++
		case excluded[r.ID] != "":
			a.Excluded++
		default:
			a.Missing = append(a.Missing, r.ID)
		}
	}
	var out []AreaCoverage
	for _, area := range Areas {
		if a := by[area]; a != nil {
			sort.Strings(a.Missing)
			out = append(out, *a)
		}
	}
	return out
}

// VersionRange renders a record's range as "2024-11-05..2025-11-25" or
// "2025-03-26..".
func (r Record) VersionRange() string {
	if r.Until == "" {
		return string(r.Since) + ".."
	}
	return string(r.Since) + ".." + string(r.Until)
}

// CoverageCounts reports whether a record counts in the coverage of role
// (see Coverage).
func CoverageCounts(r Record, role Role) bool {
	if r.Role == RoleBoth && r.Area == "authorization" && r.Testability == Fixture && (role == RoleResourceServer || role == RoleClient) {
		return true
	}
	if role == RoleResourceServer || role == RoleAuthorizationServer {
		return r.Role == role && (r.Testability == Wire || r.Testability == Fixture)
	}
	return r.Testability == Wire && CountsFor(r.Role, role)
}

// CoverageRoles are the roles coverage is measured for.
var CoverageRoles = []Role{RoleServer, RoleClient, RoleResourceServer, RoleAuthorizationServer}

// CountsFor reports whether a requirement of role r binds the side "side"
// (server or client) of an MCP connection: its own role, "both", and for the
// server side the resource-server role.
func CountsFor(r, side Role) bool {
	return r == side || r == RoleBoth || (side == RoleServer && r == RoleResourceServer)
}
