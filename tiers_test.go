package mcpcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestSlowTierIsInTheMakefile: every test that calls sharedtest.SlowTier
// (or a package's slowTier wrapper) skips in make test, so it runs only
// where a Makefile target names it: in SLOW_TESTS with its package in
// SLOW_PKGS (make test-slow, which CI runs), or in another target's -run
// (make fault-clients). A slow test named nowhere would run nowhere.
func TestSlowTierIsInTheMakefile(t *testing.T) {
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatalf("reading the Makefile: %v", err)
	}
	makefile := string(mk)
	slowTests := makeVar(t, makefile, "SLOW_TESTS")
	slowPkgs := strings.Fields(makeVar(t, makefile, "SLOW_PKGS"))
	re, err := regexp.Compile(strings.ReplaceAll(slowTests, "$$", "$"))
	if err != nil {
		t.Fatalf("SLOW_TESTS %q is no regular expression: %v", slowTests, err)
	}
	found := slowTierTests(t)
	if len(found) == 0 {
		t.Fatal("no test calls sharedtest.SlowTier; want at least the Chromium render of real runs (cmd/mcpcheck)")
	}
	var names []string
	for name := range found {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, key := range names {
		dir, name := found[key][0], found[key][1]
		switch {
		case re.MatchString(name):
			if !slices.Contains(slowPkgs, "./"+dir) {
				t.Errorf("%s (%s) is in SLOW_TESTS but ./%s is not in SLOW_PKGS %v: make test-slow would not run it", name, dir, dir, slowPkgs)
			}
		case !regexp.MustCompile(`-run '[^']*\b` + name + `\b`).MatchString(makefile):
			t.Errorf("%s (%s) calls SlowTier, so make test skips it, but no Makefile target runs it: add it to SLOW_TESTS (and ./%s to SLOW_PKGS)", name, dir, dir)
		}
	}
}

// makeVar returns the value of a Makefile variable set with ?=.
func makeVar(t *testing.T, makefile, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + `\s*\?=\s*(.*)$`).FindStringSubmatch(makefile)
	if m == nil {
		t.Fatalf("the Makefile sets no %s", name)
	}
	return strings.TrimSpace(m[1])
}

// slowTierTests returns the top-level tests whose body calls SlowTier or
// slowTier, keyed by package directory and name, as [dir, name].
func slowTierTests(t *testing.T) map[string][2]string {
	t.Helper()
	out := map[string][2]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				var name string
				switch f := call.Fun.(type) {
				case *ast.Ident:
					name = f.Name
				case *ast.SelectorExpr:
					name = f.Sel.Name
				}
				if name == "SlowTier" || name == "slowTier" {
					dir := filepath.ToSlash(filepath.Dir(path))
					out[dir+"."+fn.Name.Name] = [2]string{dir, fn.Name.Name}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the tests: %v", err)
	}
	return out
}
