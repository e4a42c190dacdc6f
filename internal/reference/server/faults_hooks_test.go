package server

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
)

// TestFaultKinds reads the package's source: the serving code tests only
// hook switches, by name (faults.on with a constant), and tests every one
// of them; every rewrite switch has its rewriter and is never tested by
// name; faultTable is the one place switches are declared.
func TestFaultKinds(t *testing.T) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, p, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}

	// The package's string constants, by identifier.
	consts := map[string]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							consts[n.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			}
		}
	}

	kind := map[string]FaultKind{}
	for _, f := range faultTable {
		if _, dup := kind[f.Name]; dup {
			t.Errorf("fault switch %s is in faultTable twice", f.Name)
		}
		if f.Kind != Rewrite && f.Kind != Hook {
			t.Errorf("fault switch %s has kind %q; want %q or %q", f.Name, f.Kind, Rewrite, Hook)
		}
		kind[f.Name] = f.Kind
	}
	for id, v := range consts {
		if strings.HasPrefix(id, "Fault") {
			if _, ok := kind[v]; !ok {
				t.Errorf("%s = %q names no switch of faultTable", id, v)
			}
		}
	}

	// Every faults.on call, and anything else that reads the switch set.
	used := map[string]int{}
	calls := 0
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				sel, ok := x.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "on" {
					return true
				}
				pos := fset.Position(x.Pos())
				if !isFaultsExpr(sel.X) {
					t.Errorf("%s: a method on is called on something other than the server's faults", pos)
					return true
				}
				calls++
				if len(x.Args) != 1 {
					t.Errorf("%s: faults.on takes one switch name", pos)
					return true
				}
				name, ok := "", false
				switch a := x.Args[0].(type) {
				case *ast.Ident:
					name, ok = consts[a.Name]
				case *ast.BasicLit:
					if a.Kind == token.STRING {
						name, _ = strconv.Unquote(a.Value)
						ok = true
					}
				}
				switch {
				case !ok:
					t.Errorf("%s: faults.on must name its switch with a constant", pos)
				case kind[name] == "":
					t.Errorf("%s: faults.on(%q): no such switch", pos, name)
				case kind[name] == Rewrite:
					t.Errorf("%s: faults.on(%q): %s is a rewrite switch; its whole effect is its rewriter in faultRewriters, the serving code must not test it", pos, name, name)
				default:
					used[name]++
				}
			case *ast.IndexExpr:
				if isFaultsExpr(x.X) {
					t.Errorf("%s: the switch set is read directly; test a hook switch with faults.on", fset.Position(x.Pos()))
				}
			case *ast.AssignStmt:
				for _, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name == "faultTable" {
						t.Errorf("%s: faultTable is assigned to; it is one literal", fset.Position(x.Pos()))
					}
				}
			}
			return true
		})
	}

	var unusedHooks, noRewriter []string
	for _, f := range faultTable {
		switch f.Kind {
		case Hook:
			if used[f.Name] == 0 {
				unusedHooks = append(unusedHooks, f.Name)
			}
			if faultRewriters[f.Name] != nil {
				t.Errorf("hook switch %s has a rewriter", f.Name)
			}
		case Rewrite:
			if faultRewriters[f.Name] == nil {
				noRewriter = append(noRewriter, f.Name)
			}
		}
	}
	for name := range faultRewriters {
		if kind[name] != Rewrite {
			t.Errorf("faultRewriters has a rewriter for %s, which is not a rewrite switch of faultTable", name)
		}
	}
	sort.Strings(unusedHooks)
	sort.Strings(noRewriter)
	if len(unusedHooks) > 0 {
		t.Errorf("hook switches that no faults.on call tests: %v", unusedHooks)
	}
	if len(noRewriter) > 0 {
		t.Errorf("rewrite switches without a rewriter: %v", noRewriter)
	}
	rewrites := 0
	for _, f := range faultTable {
		if f.Kind == Rewrite {
			rewrites++
		}
	}
	t.Logf("%d switches: %d rewrite, %d hook; %d faults.on calls", len(faultTable), rewrites, len(faultTable)-rewrites, calls)
}

// isFaultsExpr reports whether e is the server's switch set: faults or
// x.faults.
func isFaultsExpr(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == "faults"
	case *ast.SelectorExpr:
		return x.Sel.Name == "faults"
	}
	return false
}
