package mcpchecktest

import (
	"flag"
	"regexp"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/scenarios"
	"github.com/mcpcheck/mcpcheck/spec"
)

// runPattern is the -test.run pattern of the test binary, "" when none.
func runPattern() string {
	if f := flag.Lookup("test.run"); f != nil {
		return f.Value.String()
	}
	return ""
}

// selection is which subtests a -run pattern can select, so that the
// suite runs only those checks. It follows the testing package's rules:
// the pattern is split at top-level '|' into alternatives and each at
// '/' into one regular expression per level of the test name; a name is
// selected when every level the pattern has matches (deeper levels are
// free). The testing package still decides which subtests run; the
// selection only spares the checks none of them could be.
type selection struct {
	parent []string // the levels of the test's own name
	alts   [][]*regexp.Regexp
	// narrowed: the pattern leaves out some checks.
	narrowed bool
}

// transports are the transports a subtest name can carry.
var transports = []string{"stdio", "streamable", "sse"}

// newSelection reads pattern for the test named name. A pattern that does
// not parse selects everything (the testing package reports it).
func newSelection(name, pattern string) *selection {
	s := &selection{parent: strings.Split(name, "/")}
	if pattern == "" {
		return s
	}
	for _, alt := range splitPattern(pattern) {
		var res []*regexp.Regexp
		for _, p := range alt {
			re, err := regexp.Compile(p)
			if err != nil {
				return &selection{parent: s.parent}
			}
			res = append(res, re)
		}
		s.alts = append(s.alts, res)
	}
	return s
}

// selects reports whether the pattern can select the subtest of check id
// in version v over any transport.
func (s *selection) selects(id string, v spec.Version) bool {
	if len(s.alts) == 0 {
		return true
	}
	base := append(append(append([]string(nil), s.parent...), strings.Split(id, "/")...), string(v))
	for _, tr := range transports {
		name := append(base[:len(base):len(base)], tr)
		for _, alt := range s.alts {
			if matches(alt, name) {
				return true
			}
		}
	}
	return false
}

func matches(levels []*regexp.Regexp, name []string) bool {
	for i, elem := range name {
		if i >= len(levels) {
			break
		}
		if !levels[i].MatchString(elem) {
			return false
		}
	}
	return true
}

// plan returns the check IDs and the versions (of versions, or every
// released one when empty) that the pattern can select, and whether that
// leaves anything out; it records the latter in s.narrowed.
func (s *selection) plan(versions []spec.Version) (ids []string, vs []spec.Version, narrowed bool) {
	if len(versions) == 0 {
		versions = spec.Versions
	}
	defs := scenarios.Checks()
	usedVersion := map[spec.Version]bool{}
	for _, d := range defs {
		picked := false
		for _, v := range versions {
			if s.selects(d.ID, v) {
				picked = true
				usedVersion[v] = true
			}
		}
		if picked {
			ids = append(ids, d.ID)
		}
	}
	for _, v := range versions {
		if usedVersion[v] {
			vs = append(vs, v)
		}
	}
	s.narrowed = len(ids) < len(defs) || len(vs) < len(versions)
	return ids, vs, s.narrowed
}

// splitPattern splits a -run pattern as the testing package does: at
// top-level '|' into alternatives, each at top-level '/' into levels
// (neither inside brackets or parentheses, nor escaped).
func splitPattern(s string) [][]string {
	var alts [][]string
	var cur []string
	brackets, parens := 0, 0
	for i := 0; i < len(s); {
		switch s[i] {
		case '[':
			brackets++
		case ']':
			if brackets--; brackets < 0 {
				brackets = 0
			}
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '\\':
			i++
		case '/', '|':
			if brackets == 0 && parens == 0 {
				cur = append(cur, s[:i])
				if s[i] == '|' {
					alts = append(alts, cur)
					cur = nil
				}
				s = s[i+1:]
				i = 0
				continue
			}
		}
		i++
	}
	return append(alts, append(cur, s))
}
