package server

import (
	"github.com/mcpcheck/mcpcheck/internal/scenarios/suite"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The label helpers are the shared framework's (suite: the frozen label
// registry, its kinds and closed sets); these names keep the area files
// short.

// Area is the label of a catalog area (suite.Area).
func Area(name string) string { return suite.Area(name) }

// Version is the label of a protocol version (suite.Version).
func Version(v spec.Version) string { return suite.Version(v) }

// Transport is the label of a transport (suite.Transport).
func Transport(name string) string { return suite.Transport(name) }

// Fixture is the label of a fixture a check needs (suite.Fixture).
func Fixture(name string) string { return suite.Fixture(name) }
