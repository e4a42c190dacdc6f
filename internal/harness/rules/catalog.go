package rules

import (
	"sync"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

var (
	catOnce sync.Once
	cat     *catalog.Catalog
)

func defaultCatalog() *catalog.Catalog {
	catOnce.Do(func() {
		c, err := catalog.Default()
		if err == nil {
			cat = c
		}
	})
	return cat
}

// Level is the catalog level of requirement id ("" when the catalog does
// not know it).
func Level(id string) catalog.Level {
	if c := defaultCatalog(); c != nil {
		if r, ok := c.Get(id); ok {
			return r.Level
		}
	}
	return ""
}

// InForce reports whether requirement id applies in version v.
func InForce(id string, v spec.Version) bool {
	if c := defaultCatalog(); c != nil {
		if r, ok := c.Get(id); ok {
			return r.In(v)
		}
	}
	return false
}

// FirstInForce returns the first of ids that applies in version v, or ""
// (the specification restated some rules under new IDs over the versions).
func FirstInForce(v spec.Version, ids ...string) string {
	for _, id := range ids {
		if InForce(id, v) {
			return id
		}
	}
	return ""
}

// Binds reports whether requirement id binds the peer that sends as from
// (spec.ServerToClient: the server; spec.ClientToServer: the client), by
// the role the catalog gives it.
func Binds(id string, from spec.Direction) bool {
	c := defaultCatalog()
	if c == nil {
		return false
	}
	r, ok := c.Get(id)
	if !ok {
		return false
	}
	side := catalog.RoleServer
	if from == spec.ClientToServer {
		side = catalog.RoleClient
	}
	return catalog.CountsFor(r.Role, side)
}
