// Command catalogtool helps maintainers keep the requirement catalog in step
// with the specification pages. It reads the pages from a local copy (it is
// never needed to build or test mcpcheck):
//
//	catalogtool scan PAGES_ROOT/VERSION            list bold keywords with refs
//	catalogtool worksheet -spec PAGES_ROOT -pages basic/lifecycle,basic/index -json out.json -text out.txt
//	catalogtool account -spec PAGES_ROOT [-pages prefix,...]   list what the catalog does not cover
//
// The worksheet groups each statement across versions (following it when a
// page is reworded or moved), and writes a JSON skeleton of records to fill in
// plus a text file that shows the statements for reading. The text file
// quotes the specification and must never be committed.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
	"github.com/mcpcheck/mcpcheck/spec/specscan"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "scan":
		err = scan(os.Args[2:])
	case "worksheet":
		err = worksheet(os.Args[2:])
	case "account":
		err = account(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "catalogtool:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: catalogtool scan VERSION_DIR | worksheet -spec DIR -pages P,... -json F -text F | account -spec DIR [-pages P,...]")
	os.Exit(2)
}

func scan(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("scan takes one version folder")
	}
	occ, err := specscan.ScanDir(args[0])
	if err != nil {
		return err
	}
	for _, o := range occ {
		fmt.Printf("%s:%d\t%s\t%s\t[%s]\t%s\n", o.Page, o.Line, o.Ref(), o.Keyword, o.Section, o.Sentence)
	}
	return nil
}

func loadAll(root string) (map[spec.Version][]specscan.Occurrence, error) {
	out := map[spec.Version][]specscan.Occurrence{}
	for _, v := range spec.Versions {
		occ, err := specscan.ScanDir(filepath.Join(root, string(v)))
		if err != nil {
			return nil, err
		}
		out[v] = occ
	}
	return out, nil
}

func matchPages(page string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if page == p || strings.HasPrefix(page, p+"/") {
			return true
		}
	}
	return false
}

// slot is one keyword of one sentence, with the versions it appears in.
type slot struct {
	ref      string // page#hash or page#hash:N
	page     string
	level    string
	section  string
	sentence string
	line     int
	versions []spec.Version
	next     *slot
	prev     *slot
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') }) {
		if len(w) > 2 {
			m[w] = true
		}
	}
	return m
}

func similarity(a, b string) float64 {
	wa, wb := words(a), words(b)
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	union := len(wa) + len(wb) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

func worksheet(args []string) error {
	fs := flag.NewFlagSet("worksheet", flag.ContinueOnError)
	root := fs.String("spec", "", "folder holding one sub-folder of pages per version")
	pages := fs.String("pages", "", "comma-separated page prefixes, e.g. basic/lifecycle,basic/transports")
	jsonOut := fs.String("json", "", "where to write the record skeleton")
	textOut := fs.String("text", "", "where to write the reading sheet (never commit it)")
	minSim := fs.Float64("similar", 0.5, "word overlap needed to link a statement to its reworded successor")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *root == "" || *jsonOut == "" || *textOut == "" {
		return fmt.Errorf("worksheet needs -spec, -json and -text")
	}
	var prefixes []string
	if *pages != "" {
		prefixes = strings.Split(*pages, ",")
	}
	all, err := loadAll(*root)
	if err != nil {
		return err
	}
	cat, _ := catalog.Default()
	covered := map[string]bool{}
	if cat != nil {
		for _, r := range cat.Records {
			for _, ref := range r.Refs {
				covered[ref] = true
			}
		}
		for _, s := range cat.Skips {
			covered[s.Ref] = true
		}
	}
	slots := map[string]*slot{}
	var order []*slot
	byVersion := map[spec.Version][]*slot{}
	for _, v := range spec.Versions {
		for _, o := range all[v] {
			if !matchPages(o.Page, prefixes) {
				continue
			}
			if covered[o.SentenceRef()] || covered[fmt.Sprintf("%s:%d", o.SentenceRef(), o.Index)] {
				continue
			}
			ref := o.Ref()
			s, ok := slots[ref]
			if !ok {
				s = &slot{ref: ref, page: o.Page, level: o.Keyword.Level(), section: o.Section, sentence: o.Sentence, line: o.Line}
				slots[ref] = s
				order = append(order, s)
			}
			s.versions = append(s.versions, v)
			byVersion[v] = append(byVersion[v], s)
		}
	}
	// Link a statement that disappears after version i to the most similar
	// new statement of version i+1 with the same level.
	for i := 0; i+1 < len(spec.Versions); i++ {
		v, w := spec.Versions[i], spec.Versions[i+1]
		inW := map[*slot]bool{}
		for _, s := range byVersion[w] {
			inW[s] = true
		}
		inV := map[*slot]bool{}
		for _, s := range byVersion[v] {
			inV[s] = true
		}
		for _, s := range byVersion[v] {
			if inW[s] || s.next != nil {
				continue
			}
			var best *slot
			bestSim := *minSim
			for _, t := range byVersion[w] {
				if inV[t] || t.prev != nil || t.level != s.level {
					continue
				}
				sim := similarity(s.sentence, t.sentence)
				if t.page == s.page || filepath.Base(t.page) == filepath.Base(s.page) || strings.HasPrefix(t.page, s.page+"/") {
					sim += 0.05
				}
				if sim > bestSim {
					best, bestSim = t, sim
				}
			}
			if best != nil {
				s.next, best.prev = best, s
			}
		}
	}
	var recs []catalog.Record
	var text strings.Builder
	n := 0
	for _, s := range order {
		if s.prev != nil {
			continue
		}
		n++
		id := fmt.Sprintf("todo.n%d", n)
		section := s.section
		if section == "" {
			section = "(top of page)"
		}
		rec := catalog.Record{ID: id, Level: catalog.Level(s.level), Area: guessArea(s.page), Since: s.versions[0], Page: s.page, Section: section}
		fmt.Fprintf(&text, "## %s  %s  page %s  [%s]\n", id, s.level, s.page, s.section)
		var last spec.Version
		for c := s; c != nil; c = c.next {
			rec.Refs = append(rec.Refs, c.ref)
			last = c.versions[len(c.versions)-1]
			fmt.Fprintf(&text, "  %s  (%s..%s, line %d)\n      %s\n", c.ref, c.versions[0], c.versions[len(c.versions)-1], c.line, c.sentence)
		}
		if last != spec.Latest {
			rec.Until = last
		}
		text.WriteString("\n")
		recs = append(recs, rec)
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Page < recs[j].Page })
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(*textOut, []byte(text.String()), 0o644); err != nil {
		return err
	}
	fmt.Printf("%d candidate records for %d keyword slots\n", len(recs), len(order))
	return nil
}

func guessArea(page string) string {
	switch {
	case strings.Contains(page, "authorization"):
		return "authorization"
	case strings.Contains(page, "transports"):
		return "transport-http"
	case strings.HasSuffix(page, "lifecycle"):
		return "lifecycle"
	case strings.HasSuffix(page, "versioning"):
		return "versioning"
	case page == "basic/index" || page == "basic/messages" || page == "basic/patterns/index":
		return "base"
	case strings.HasSuffix(page, "discover"):
		return "discovery"
	}
	base := filepath.Base(page)
	for _, a := range catalog.Areas {
		if a == base {
			return a
		}
	}
	if base == "mrtr" || base == "subscriptions" || base == "caching" {
		return base
	}
	return "base"
}

func account(args []string) error {
	fs := flag.NewFlagSet("account", flag.ContinueOnError)
	root := fs.String("spec", "", "folder holding one sub-folder of pages per version")
	pages := fs.String("pages", "", "comma-separated page prefixes to report on")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var prefixes []string
	if *pages != "" {
		prefixes = strings.Split(*pages, ",")
	}
	all, err := loadAll(*root)
	if err != nil {
		return err
	}
	cat, err := catalog.Default()
	if err != nil {
		return err
	}
	a := cat.Account(all)
	fmt.Print(a.Summary())
	for _, f := range a.Uncovered {
		if matchPages(f.Occurrence.Page, prefixes) {
			fmt.Println("uncovered:", f)
		}
	}
	for _, list := range [][]string{a.Dangling, a.Mislevelled, a.RangeErrors} {
		for _, s := range list {
			fmt.Println("problem:", s)
		}
	}
	return nil
}
