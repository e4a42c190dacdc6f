package mcpcheck

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// publicPackages are the module's public API, the packages the README's
// package picture marks public: what a user may import and what a release
// keeps stable. Every other package is free to change.
// The first three are what users come for; the other two are there
// because those three name their types (spec.Version,
// specscan.Occurrence), and the public API is closed: it names no type of
// a package that is free to change (TestPublicAPIIsTheRecordedOne).
var publicPackages = []string{"scenarios/mcpchecktest", "harness", "fuzz", "reference", "reports", "spec/catalog", "spec", "spec/specscan"}

// TestPublicAPIIsTheRecordedOne keeps the exported surface of the public
// packages in testdata/api (one declaration per line, bodies, values of
// variables and comments left out), in the spirit of apidiff: a change to
// the public API fails here until the golden file is rewritten with
// MCPCHECK_UPDATE_API=1 go test -run TestPublicAPIIsTheRecordedOne . and
// the diff goes through review.
func TestPublicAPIIsTheRecordedOne(t *testing.T) {
	public := map[string]bool{}
	for _, r := range readPicture(t) {
		if strings.Contains(r.job, "**public**") {
			public[r.pkg] = true
		}
	}
	for _, p := range publicPackages {
		if !public[p] {
			t.Errorf("%s is public here but the README's package picture does not mark it **public**", p)
		}
		delete(public, p)
	}
	for p := range public {
		t.Errorf("the README's package picture marks %s **public** but publicPackages does not list it", p)
	}
	isPublic := map[string]bool{}
	for _, p := range publicPackages {
		isPublic[module+"/"+p] = true
	}
	for _, pkg := range publicPackages {
		got, named := exportedAPI(t, pkg)
		for _, ip := range named {
			if strings.HasPrefix(ip, module+"/") && !isPublic[ip] {
				t.Errorf("the public API of %s names a type of %s, which is not public: users could not rely on it (make it public, or keep it out of %s's exported surface)", pkg, strings.TrimPrefix(ip, module+"/"), pkg)
			}
		}
		golden := filepath.Join("testdata", "api", strings.ReplaceAll(pkg, "/", "_")+".txt")
		if os.Getenv("MCPCHECK_UPDATE_API") == "1" {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%s: no recorded API (%v); record it with MCPCHECK_UPDATE_API=1 go test -run TestPublicAPIIsTheRecordedOne .", pkg, err)
		}
		if d := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); d != "" {
			t.Errorf("the public API of %s changed (-recorded +now):\n%s\nIf the change is meant, record it with MCPCHECK_UPDATE_API=1 go test -run TestPublicAPIIsTheRecordedOne . and say so in the commit: users of the module see it.", pkg, d)
		}
	}
}

var spaces = regexp.MustCompile(`\s+`)

// exportedAPI lists the exported declarations of the module-relative
// package pkg, one per line, sorted: functions and methods (of exported
// types) by signature, types with their exported fields and methods'
// signatures, constants with their values, variables with their types.
// It also returns the import paths the declarations name.
func exportedAPI(t *testing.T, pkg string) (string, []string) {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(filepath.FromSlash(pkg), "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no Go files (%v)", pkg, err)
	}
	var lines []string
	named := map[string]bool{}
	var imports map[string]string // name -> path, of the file at hand
	emit := func(prefix string, node ast.Node) {
		ast.Inspect(node, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && imports[x.Name] != "" {
					named[imports[x.Name]] = true
				}
			}
			return true
		})
		var b bytes.Buffer
		if err := printer.Fprint(&b, fset, node); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, prefix+strings.TrimSpace(spaces.ReplaceAllString(b.String(), " ")))
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0) // no comments: they are not API
		if err != nil {
			t.Fatal(err)
		}
		if hasBuildTag(f, "ignore") || f.Name.Name == "main" {
			continue
		}
		imports = map[string]string{}
		for _, im := range f.Imports {
			ip := strings.Trim(im.Path.Value, `"`)
			name := ip[strings.LastIndex(ip, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = ip
		}
		ast.FileExports(f)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && !ast.IsExported(receiverType(d.Recv)) {
					continue
				}
				d.Body = nil
				emit("", d)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						emit("type ", s)
					case *ast.ValueSpec:
						if d.Tok == token.VAR {
							s.Values = nil // a variable's value is not its API; its type is
						}
						emit(d.Tok.String()+" ", s)
					}
				}
			}
		}
	}
	sort.Strings(lines)
	var paths []string
	for ip := range named {
		paths = append(paths, ip)
	}
	sort.Strings(paths)
	return strings.Join(lines, "\n") + "\n", paths
}

// receiverType is the name of a method's receiver type, without pointer
// or type parameters.
func receiverType(recv *ast.FieldList) string {
	if recv == nil || len(recv.List) == 0 {
		return ""
	}
	x := recv.List[0].Type
	for {
		switch e := x.(type) {
		case *ast.StarExpr:
			x = e.X
		case *ast.IndexExpr:
			x = e.X
		case *ast.IndexListExpr:
			x = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

// TestEveryImportablePackageIsPublicAPI: Go lets another module import
// every package of this one that is not under an internal/ directory and
// not a command. Each of those is public API (publicPackages, marked
// **public** in the README's package picture), and every public package
// is such a package: what "go list ./..." shows outside internal/ and
// cmd/ is the documented public API, nothing more. The root package holds
// only the module's own tests and tool pins.
func TestEveryImportablePackageIsPublicAPI(t *testing.T) {
	isPublic := map[string]bool{}
	for _, p := range publicPackages {
		isPublic[p] = true
	}
	found := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "internal" || name == "node_modules") {
			return filepath.SkipDir
		}
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, path, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		for pname := range pkgs {
			rel := filepath.ToSlash(path)
			if pname == "main" || rel == "." {
				continue // commands, and the root package: tool pins and the module's tests
			}
			found[rel] = true
			if !isPublic[rel] {
				t.Errorf("%s can be imported by other modules but is not public API: move it under internal/ (or make it public: publicPackages, the README's package picture and testdata/api)", rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the module's packages: %v", err)
	}
	for _, p := range publicPackages {
		if !found[p] {
			t.Errorf("public package %s was not found outside internal/: is the test run from the module root?", p)
		}
	}
}
