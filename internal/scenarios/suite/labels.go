package suite

import (
	"fmt"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
	"github.com/onsi/ginkgo/v2/types"
)

// Labels are spec labels of the form "kind:value" (Ginkgo's label-filter
// language selects on them). They come from a
// frozen registry: each helper below refuses a value outside its closed
// set (it panics at package initialisation, so a typo never reaches a
// run), and --label-filter selects on them, for example
// "area:base && level:must" or "version:2025-11-25 && !fixture:test_tool_with_logging".
//
// The label kinds are:
//
//	area:NAME        a catalog area (catalog.Areas)
//	level:LEVEL      must, must-not, should, should-not (the strongest cited)
//	version:V        the protocol version the spec runs in
//	transport:T      stdio, streamable, stateless, sse (checks bound to a transport)
//	role:R           server or client (the side being judged)
//	fixture:NAME     a fixture the check needs (AddFixture)
//	mode:M           passive (judges what was observed) or active
const (
	kindArea      = "area"
	kindLevel     = "level"
	kindVersion   = "version"
	kindTransport = "transport"
	kindRole      = "role"
	kindFixture   = "fixture"
	kindMode      = "mode"
)

// fixtureNames is the frozen set of fixture names checks may ask for: the
// official conformance fixtures (tools, prompts and resources a target
// may offer) that deeper checks use when the target has them. Add a name
// here, in the same change as the check that needs it, or register it
// with AddFixture from the package that owns it.
var fixtureNames = map[string]bool{
	"test_tool_with_logging":                    true,
	"test_logging_tool":                         true,
	"test_input_required_result_elicitation":    true,
	"test_input_required_result_tampered_state": true,
	"test_input_required_result_request_state":  true,
	"test_missing_capability":                   true,
	"test_trigger_tool_change":                  true,
}

// transportNames are the values of Transport labels.
var transportNames = map[string]bool{"stdio": true, "streamable": true, "stateless": true, "sse": true}

var (
	labelMu   sync.Mutex
	labelSeen = map[string]bool{}
)

func label(kind, value string) string {
	l := kind + ":" + value
	labelMu.Lock()
	labelSeen[l] = true
	labelMu.Unlock()
	return l
}

// Area is the label of a catalog area ("base", "lifecycle", ...).
func Area(name string) string {
	if !KnownArea(name) {
		panic(fmt.Sprintf("scenarios: Area(%q): not a catalog area (%s)", name, strings.Join(catalog.Areas, ", ")))
	}
	return label(kindArea, name)
}

// KnownArea reports whether name is a catalog area.
func KnownArea(name string) bool {
	for _, a := range catalog.Areas {
		if a == name {
			return true
		}
	}
	return false
}

// Level is the label of a requirement level: level:must, level:must-not,
// level:should, level:should-not.
func Level(l catalog.Level) string {
	switch l {
	case catalog.Must, catalog.MustNot, catalog.Should, catalog.ShouldNot:
		return label(kindLevel, strings.ToLower(strings.ReplaceAll(string(l), " ", "-")))
	}
	panic(fmt.Sprintf("scenarios: Level(%q): checks enforce MUST, MUST NOT, SHOULD or SHOULD NOT", l))
}

// Version is the label of a protocol version.
func Version(v spec.Version) string {
	if !v.Known() {
		panic(fmt.Sprintf("scenarios: Version(%q): not a released protocol version", v))
	}
	return label(kindVersion, string(v))
}

// Transport is the label of a transport: stdio, streamable, stateless or sse.
func Transport(name string) string {
	if !KnownTransport(name) {
		panic(fmt.Sprintf("scenarios: Transport(%q): use stdio, streamable, stateless or sse", name))
	}
	return label(kindTransport, name)
}

// KnownTransport reports whether name is a transport a Transport label
// may name.
func KnownTransport(name string) bool { return transportNames[name] }

// Role is the label of the side being judged: "server" or "client".
func Role(r catalog.Role) string {
	if r != catalog.RoleServer && r != catalog.RoleClient {
		panic(fmt.Sprintf("scenarios: Role(%q): use server or client", r))
	}
	return label(kindRole, string(r))
}

// Fixture is the label of a fixture a check needs (see AddFixture).
func Fixture(name string) string {
	labelMu.Lock()
	known := fixtureNames[name]
	labelMu.Unlock()
	if !known {
		panic(fmt.Sprintf("scenarios: Fixture(%q): not a registered fixture name; add it to fixtureNames", name))
	}
	return label(kindFixture, name)
}

// AddFixture registers a fixture name and returns its label. Content
// packages call it during package variable initialisation, before any
// label is handed out for the name.
func AddFixture(name string) string {
	labelMu.Lock()
	fixtureNames[name] = true
	labelMu.Unlock()
	return Fixture(name)
}

// Mode is the label of how a check works: "active" (it sends something and
// judges the answer) or "passive" (it judges everything the target sent
// during the other checks of the version).
func Mode(m string) string {
	if m != "active" && m != "passive" {
		panic(fmt.Sprintf("scenarios: Mode(%q): use active or passive", m))
	}
	return label(kindMode, m)
}

// ParseLabelFilter compiles a --label-filter expression (Ginkgo's label
// filter language over the labels above, e.g. "area:base && level:must")
// into a matcher of a spec's labels. The empty expression matches every
// spec (the matcher is nil). Every runner and the CLI compile filters here,
// so an expression means one thing everywhere.
func ParseLabelFilter(expr string) (func(labels []string) bool, error) {
	if expr == "" {
		return nil, nil
	}
	f, err := types.ParseLabelFilter(expr)
	if err != nil {
		return nil, fmt.Errorf("label filter %q: %v", expr, err)
	}
	return f, nil
}
