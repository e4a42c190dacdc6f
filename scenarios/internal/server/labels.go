package server

import (
	"github.com/mcpcheck/mcpcheck/scenarios/suite"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// The label helpers are the shared framework's (suite: the frozen label
// registry, its kinds and closed sets); these names keep the area files
// short.

// Area is the label of a catalog area (suite.Area).
func Area(name string) string { return suite.Area(name) }

// Level is the label of a requirement level (suite.Level).
func Level(l catalog.Level) string { return suite.Level(l) }

// Version is the label of a protocol version (suite.Version).
func Version(v spec.Version) string { return suite.Version(v) }

// Transport is the label of a transport (suite.Transport).
func Transport(name string) string { return suite.Transport(name) }

// Role is the label of the side being judged (suite.Role).
func Role(r catalog.Role) string { return suite.Role(r) }

// Fixture is the label of a fixture a check needs (suite.Fixture).
func Fixture(name string) string { return suite.Fixture(name) }

// Mode is the label of how a check works, active or passive (suite.Mode).
func Mode(m string) string { return suite.Mode(m) }

// KnownLabels lists every label handed out so far, sorted
// (suite.KnownLabels).
func KnownLabels() []string { return suite.KnownLabels() }
