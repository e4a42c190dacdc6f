// Package spec holds what mcpcheck knows about the Model Context Protocol:
// the released protocol versions and their eras, and (in its subpackages)
// the requirement catalog, the JSON Schemas, the JSON-RPC codec and the
// typed messages.
package spec

import (
	"fmt"
	"strings"
)

// Version is a released MCP protocol version string such as "2025-11-25".
type Version string

// The released protocol versions, oldest first.
const (
	V20241105 Version = "2024-11-05"
	V20250326 Version = "2025-03-26"
	V20250618 Version = "2025-06-18"
	V20251125 Version = "2025-11-25"
	V20260728 Version = "2026-07-28"
)

// Versions lists every released protocol version, oldest first.
var Versions = []Version{V20241105, V20250326, V20250618, V20251125, V20260728}

// Latest is the newest released protocol version.
const Latest = V20260728

// Era is the shape of the protocol a version belongs to.
type Era int

const (
	// Stateful versions negotiate with initialize and keep a session
	// (2024-11-05 through 2025-11-25).
	Stateful Era = iota
	// Stateless versions carry the protocol version and client capabilities
	// in every request's _meta and use server/discover (2026-07-28 on).
	Stateless
)

// String names the era.
func (e Era) String() string {
	if e == Stateless {
		return "stateless"
	}
	return "stateful"
}

// Known reports whether v is a released protocol version.
func (v Version) Known() bool { return v.Index() >= 0 }

// Index is v's position in Versions, or -1 when v is not a released version.
func (v Version) Index() int {
	for i, w := range Versions {
		if w == v {
			return i
		}
	}
	return -1
}

// Era tells which era v belongs to. Unknown versions sort by date: anything
// after 2025-11-25 is treated as stateless.
func (v Version) Era() Era {
	if v.Compare(V20260728) >= 0 {
		return Stateless
	}
	return Stateful
}

// Compare orders versions by their date strings: -1 when v is older than w,
// 0 when equal, +1 when newer. Version strings are ISO dates, so a string
// comparison orders them.
func (v Version) Compare(w Version) int { return strings.Compare(string(v), string(w)) }

// Within reports whether v lies in the closed range [first, last]. An empty
// last means "still in force in the latest version".
func (v Version) Within(first, last Version) bool {
	if last == "" {
		last = Latest
	}
	return v.Compare(first) >= 0 && v.Compare(last) <= 0
}

// ParseVersion returns the released version named by s, or an error that
// lists the versions mcpcheck knows.
func ParseVersion(s string) (Version, error) {
	v := Version(strings.TrimSpace(s))
	if v.Known() {
		return v, nil
	}
	return "", fmt.Errorf("unknown protocol version %q: use one of %s", s, strings.Join(VersionStrings(), ", "))
}

// VersionStrings returns Versions as plain strings.
func VersionStrings() []string {
	out := make([]string, len(Versions))
	for i, v := range Versions {
		out[i] = string(v)
	}
	return out
}
