package suite_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/scenarios"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/asuite"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/client"
	"github.com/mcpcheck/mcpcheck/reports"
)

// namedCheck is what the naming rule looks at in a check of any role.
type namedCheck struct{ ID, Area string }

// role is one suite's checks, the directory that declares them and the
// prefix its IDs carry before the area.
type role struct {
	name, pkg, prefix string
	noArea            bool
	// areaDirs: the role's checks are also declared in sub-directories of
	// pkg (one per area), whose files read as DIR_FILE (see declaringFiles).
	areaDirs bool
	checks   []namedCheck
}

func roles() []role {
	var server, cl, as []namedCheck
	for _, d := range scenarios.Checks() {
		server = append(server, namedCheck{d.ID, d.Area})
	}
	for _, d := range client.Checks() {
		cl = append(cl, namedCheck{d.ID, d.Area})
	}
	for _, d := range asuite.Checks() {
		as = append(as, namedCheck{d.ID, d.Area})
	}
	return []role{
		{name: "server", pkg: "internal/scenarios/internal/server", areaDirs: true, checks: server},
		{name: "client", pkg: "internal/scenarios/internal/client", prefix: "client/", areaDirs: true, checks: cl},
		{name: "authorization-server", pkg: "internal/scenarios/asuite", prefix: "authserver/", noArea: true, checks: as},
	}
}

// notYetMoved are the files that still declare checks of an area other
// than their name's, each with the areas whose checks are to move out. The
// list only shrinks: an entry whose file now agrees with the rule (or is
// gone) fails the test, so it is removed with the move.
var notYetMoved = map[string]string{}

// TestCheckIDsAgreeWithAreaAndFile holds every check of every role to the
// naming rule of the package documentation: the ID is PREFIX AREA/name
// with AREA the check's catalog area, and the file declaring the check is
// AREA.go or AREA_*.go (with '-' as '_'). The file is found by parsing the
// role's sources for the Def literal naming the ID, so a check whose body
// is shared or built by a helper is still placed where it is declared.
func TestCheckIDsAgreeWithAreaAndFile(t *testing.T) {
	stillNeeded := map[string]bool{}
	for _, r := range roles() {
		if len(r.checks) == 0 {
			t.Fatalf("%s: no checks registered", r.name)
		}
		declared := declaringFiles(t, filepath.Join("..", "..", "..", r.pkg), r.areaDirs)
		for _, c := range r.checks {
			rest, ok := strings.CutPrefix(c.ID, r.prefix)
			if !ok {
				t.Errorf("%s check %q does not start with the role's prefix %q", r.name, c.ID, r.prefix)
				continue
			}
			files := declared[c.ID]
			if len(files) != 1 {
				t.Errorf("%s check %q is declared by %d Def literals with that ID in %s (%v), want exactly one", r.name, c.ID, len(files), r.pkg, files)
				continue
			}
			file := files[0]
			if r.noArea {
				if c.Area != "" || strings.Contains(rest, "/") {
					t.Errorf("%s check %q (area %q): this role files no areas; its IDs read %sname", r.name, c.ID, c.Area, r.prefix)
				}
				continue
			}
			area, _, _ := strings.Cut(rest, "/")
			if area != c.Area {
				t.Errorf("%s check %q is filed under area %q: its ID must read %s%s/...", r.name, c.ID, c.Area, r.prefix, c.Area)
			}
			stem := strings.TrimSuffix(file, ".go")
			want := strings.ReplaceAll(c.Area, "-", "_")
			if stem == want || strings.HasPrefix(stem, want+"_") {
				continue
			}
			key := r.pkg + "/" + file
			if _, ok := notYetMoved[key]; ok {
				stillNeeded[key] = true
				continue
			}
			t.Errorf("%s check %q of area %q is declared in %s: declare it in %s.go or %s_*.go", r.name, c.ID, c.Area, key, want, want)
		}
	}
	for f, what := range notYetMoved {
		if !stillNeeded[f] {
			t.Errorf("notYetMoved lists %s (%s), which now agrees with the rule: remove the entry", f, what)
		}
	}
}

// declaringFiles maps each check ID of a Def literal (a composite literal
// with an ID: "..." and a Body: field) in the production files of dir to
// the base names of the files that declare it. With areaDirs it reads the
// sub-directories of dir too (an area's package), and names a file there
// by its path relative to dir with '/' written '_' (transport/http.go is
// transport_http.go), so that the rule reads directory and file as one.
func declaringFiles(t *testing.T, dir string, areaDirs bool) map[string][]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	type goFile struct{ path, name string }
	var files []goFile
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() && areaDirs && name != "testdata" {
			sub, err := os.ReadDir(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			for _, se := range sub {
				if !se.IsDir() {
					files = append(files, goFile{filepath.Join(dir, name, se.Name()), name + "_" + se.Name()})
				}
			}
			continue
		}
		if !e.IsDir() {
			files = append(files, goFile{filepath.Join(dir, name), name})
		}
	}
	fset := token.NewFileSet()
	out := map[string][]string{}
	for _, gf := range files {
		name := gf.name
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, gf.path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			id, body := "", false
			for _, el := range lit.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				key, ok := kv.Key.(*ast.Ident)
				if !ok {
					continue
				}
				switch key.Name {
				case "ID":
					if s, ok := kv.Value.(*ast.BasicLit); ok && s.Kind == token.STRING {
						id, _ = strconv.Unquote(s.Value)
					}
				case "Body":
					body = true
				}
			}
			if id != "" && body {
				out[id] = append(out[id], name)
			}
			return true
		})
	}
	return out
}

// TestCheckAliasesResolveToLiveChecks: no old ID of the alias table
// (reports.CanonicalCheckID) is the ID of a registered check of any role,
// every new ID is one, and looking a check up by its old ID finds the
// renamed check.
func TestCheckAliasesResolveToLiveChecks(t *testing.T) {
	live := map[string]bool{}
	for _, r := range roles() {
		for _, c := range r.checks {
			live[c.ID] = true
		}
	}
	aliases := reports.CheckIDAliases()
	olds := make([]string, 0, len(aliases))
	for old := range aliases {
		olds = append(olds, old)
	}
	sort.Strings(olds)
	for _, old := range olds {
		now := aliases[old]
		if live[old] {
			t.Errorf("alias %q -> %q: %q is the ID of a registered check; an old ID must never name a check again", old, now, old)
		}
		if !live[now] {
			t.Errorf("alias %q -> %q: no registered check has the ID %q", old, now, now)
		}
		var found string
		if d, ok := scenarios.Lookup(old); ok {
			found = d.ID
		} else if d, ok := client.Lookup(old); ok {
			found = d.ID
		}
		if found != now {
			t.Errorf("Lookup(%q) found %q, want the renamed check %q", old, found, now)
		}
	}
}
