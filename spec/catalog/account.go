package catalog

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/specscan"
)

// Accounting is the result of matching the bold keywords of the
// specification pages against the catalog.
type Accounting struct {
	// Uncovered lists keywords no record (of the right version range) and no
	// skip accounts for.
	Uncovered []Finding
	// Mislevelled lists records whose level is not the level of any keyword
	// they cover.
	Mislevelled []string
	// Dangling lists record references that match no keyword in any version
	// within the record's range.
	Dangling []string
	// RangeErrors lists records whose since/until disagree with the versions
	// in which their references actually appear.
	RangeErrors []string
	// Covered counts accounted keywords per version.
	Covered map[spec.Version]int
	// Total counts keywords per version.
	Total map[spec.Version]int
}

// Finding is one keyword the catalog does not account for.
type Finding struct {
	Version    spec.Version
	Occurrence specscan.Occurrence
}

// String renders the finding for a test failure or a maintainer tool.
func (f Finding) String() string {
	o := f.Occurrence
	return fmt.Sprintf("%s %s:%d %s [%s] ref %s: %s", f.Version, o.Page, o.Line, o.Keyword, o.Section, o.Ref(), o.Sentence)
}

// OK reports whether everything is accounted for.
func (a Accounting) OK() bool {
	return len(a.Uncovered) == 0 && len(a.Mislevelled) == 0 && len(a.Dangling) == 0 && len(a.RangeErrors) == 0
}

// Account matches the occurrences of each version (as scanned from its pages)
// against the catalog's records and skips.
func (c *Catalog) Account(pages map[spec.Version][]specscan.Occurrence) Accounting {
	a := Accounting{Covered: map[spec.Version]int{}, Total: map[spec.Version]int{}}
	skip := map[string]bool{}
	for _, s := range c.Skips {
		skip[s.Ref] = true
	}
	// where each sentence ref and keyword ref appears, per version
	present := map[spec.Version]map[string][]string{} // version -> ref -> levels
	for v, occ := range pages {
		m := map[string][]string{}
		for _, o := range occ {
			m[o.SentenceRef()] = append(m[o.SentenceRef()], o.Keyword.Level())
			m[o.Ref()] = append(m[o.Ref()], o.Keyword.Level())
			if o.Count > 1 {
				k := fmt.Sprintf("%s:%d", o.SentenceRef(), o.Index)
				m[k] = append(m[k], o.Keyword.Level())
			}
		}
		present[v] = m
	}
	covers := map[spec.Version]map[string]bool{}
	for _, r := range c.Records {
		levelSeen := false
		var inVersions []spec.Version
		for _, ref := range r.Refs {
			if strings.HasPrefix(ref, "seeds/") {
				continue // checked against the seed documents, not the pages
			}
			found := false
			for _, v := range spec.Versions {
				m, ok := present[v]
				if !ok {
					continue
				}
				lv, here := m[ref]
				if !here {
					continue
				}
				if r.In(v) {
					found = true
					if covers[v] == nil {
						covers[v] = map[string]bool{}
					}
					covers[v][ref] = true
					for _, l := range lv {
						if l == string(r.Level) {
							levelSeen = true
						}
					}
				}
				inVersions = append(inVersions, v)
			}
			if !found {
				a.Dangling = append(a.Dangling, fmt.Sprintf("%s: ref %s matches no keyword in %s..%s", r.ID, ref, r.Since, r.UntilOrLatest()))
			}
		}
		if !levelSeen && len(inVersions) > 0 {
			a.Mislevelled = append(a.Mislevelled, fmt.Sprintf("%s: level %s is not the level of any keyword it covers", r.ID, r.Level))
		}
		if len(inVersions) > 0 && len(pages) == len(spec.Versions) {
			sort.Slice(inVersions, func(i, j int) bool { return inVersions[i].Compare(inVersions[j]) < 0 })
			first, last := inVersions[0], inVersions[len(inVersions)-1]
			if first != r.Since || last != r.UntilOrLatest() {
				a.RangeErrors = append(a.RangeErrors, fmt.Sprintf("%s: says %s..%s but its refs appear in %s..%s", r.ID, r.Since, r.UntilOrLatest(), first, last))
			}
		}
	}
	for _, v := range spec.Versions {
		for _, o := range pages[v] {
			a.Total[v]++
			cv := covers[v]
			whole := o.SentenceRef()
			idx := fmt.Sprintf("%s:%d", whole, o.Index)
			if cv[whole] || cv[idx] || skip[whole] || skip[idx] {
				a.Covered[v]++
				continue
			}
			a.Uncovered = append(a.Uncovered, Finding{Version: v, Occurrence: o})
		}
	}
	return a
}

// Summary renders per-version counts for logs.
func (a Accounting) Summary() string {
	var b strings.Builder
	for _, v := range spec.Versions {
		if a.Total[v] == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s: %d/%d keywords accounted for\n", v, a.Covered[v], a.Total[v])
	}
	return b.String()
}
