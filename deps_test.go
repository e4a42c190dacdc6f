package mcpcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/mcpcheck/mcpcheck"

// importRule says what a group of packages must not depend on, directly or
// through other packages of this module. Prefixes match a package and its
// subpackages.
type importRule struct {
	pkgs      string   // package prefix the rule applies to (module-relative)
	forbidden []string // import path prefixes, module-relative ("harness") or external
	why       string
}

// allowedChain reports whether a dependency on the reference pair comes
// only through the reference server's seam, from the two packages that
// build the client stage on it: internal/harness/stage plays the server with the
// reference server's engine, and the client suite (internal/scenarios/internal/client
// and its area sub-packages) writes its scenarios with the seam's types
// (server.Options, Director, Call). The reference
// server is the stage's engine there, never the target: the client under
// test always comes from configuration, and internal/reference/client stays out of
// reach. Any other path to the reference pair stays forbidden.
func allowedChain(chain string) bool {
	hop := " -> " + module + "/internal/reference/server"
	i := strings.Index(chain, hop)
	if i < 0 || strings.Contains(chain, module+"/internal/reference/client") {
		return false
	}
	before := chain[:i]
	if j := strings.LastIndex(before, " -> "); j >= 0 {
		before = before[j+len(" -> "):]
	}
	before = strings.TrimPrefix(before, module+"/")
	return before == "internal/harness/stage" || under(before, "internal/scenarios/internal/client")
}

// The package picture: each row keeps one package's job from leaking into
// another. Test files may import test frameworks; these rules hold for the
// production code of each package.
var importRules = []importRule{
	{"spec", []string{"harness", "internal/harness", "scenarios", "internal/scenarios", "reference", "internal/reference", "fuzz", "internal/fuzz", "reports", "cmd", "github.com/onsi/ginkgo", "github.com/onsi/gomega", "pgregory.net/rapid"},
		"spec is the protocol's knowledge; everything stands on it, it stands on nothing of ours"},
	{"internal/spec", []string{"harness", "internal/harness", "scenarios", "internal/scenarios", "reference", "internal/reference", "fuzz", "internal/fuzz", "reports", "cmd", "github.com/onsi/ginkgo", "github.com/onsi/gomega", "pgregory.net/rapid"},
		"the protocol's codec, types and schemas stand on nothing of ours but spec"},
	{"internal/spec/jsonrpc", []string{"internal/spec/mcp", "internal/spec/schema", "spec/catalog", "spec/specscan"},
		"the codec is the bottom layer"},
	{"internal/harness", []string{"harness", "scenarios", "internal/scenarios", "reference", "fuzz", "internal/fuzz", "cmd", "github.com/onsi/ginkgo", "github.com/onsi/gomega"},
		"fuzz and cmd reuse the harness, so it must not pull in test frameworks or a particular target (internal/harness/stage plays the server with the reference server's engine: see allowedChain)"},
	{"internal/scenarios", []string{"harness", "reference", "internal/reference", "fuzz", "internal/fuzz", "cmd"},
		"suites judge any target; the target comes from configuration"},
	{"scenarios", []string{"reference", "internal/reference", "fuzz", "internal/fuzz", "cmd"},
		"suites judge any target; the target comes from configuration (the public harness describes it)"},
	{"internal/reference", []string{"harness", "internal/harness", "scenarios", "internal/scenarios", "reference", "fuzz", "internal/fuzz", "reports", "cmd", "github.com/onsi/ginkgo", "github.com/onsi/gomega"},
		"the reference pair is an ordinary MCP implementation, not part of the judge"},
	{"internal/fuzz", []string{"fuzz", "harness", "scenarios", "internal/scenarios", "reference", "internal/reference", "cmd", "github.com/onsi/ginkgo", "github.com/onsi/gomega"},
		"the fuzzer uses the harness directly, not the suites, and judges any target"},
	{"internal/fuzz/internal/gen", []string{"internal/fuzz/internal/conn", "internal/fuzz/internal/mutate", "internal/fuzz/internal/oracle", "internal/harness"},
		"the generators draw the protocol's messages from spec alone"},
	{"internal/fuzz/internal/conn", []string{"internal/fuzz/internal/gen", "internal/fuzz/internal/mutate", "internal/fuzz/internal/oracle"},
		"targets carry bytes and frames; they know no generator, mutator or verdict"},
	{"internal/fuzz/internal/mutate", []string{"internal/fuzz/internal/oracle"},
		"mutators make inputs and judge nothing"},
	{"internal/fuzz/internal/oracle", []string{"internal/fuzz/internal/mutate"},
		"the judge reads what a target wrote, whatever input made it"},
	{"reports", []string{"harness", "internal/harness", "scenarios", "internal/scenarios", "reference", "internal/reference", "fuzz", "internal/fuzz", "cmd", "github.com/onsi/ginkgo", "github.com/onsi/gomega"},
		"reports are pure writers over a neutral result model that harness and fuzz fill in"},
	{"harness", []string{"scenarios", "reference", "internal/reference", "fuzz", "internal/fuzz", "cmd", "github.com/onsi/ginkgo", "github.com/onsi/gomega"},
		"the public harness describes targets; it knows no suite, fuzzer or reference peer"},
	{"fuzz", []string{"scenarios", "internal/scenarios", "reference", "internal/reference", "cmd", "github.com/onsi/ginkgo", "github.com/onsi/gomega"},
		"the public fuzzer runs campaigns against any target; it knows no suite or reference peer"},
	{"reference", []string{"harness", "internal/harness", "scenarios", "internal/scenarios", "fuzz", "internal/fuzz", "reports", "cmd", "github.com/onsi/ginkgo", "github.com/onsi/gomega"},
		"the public reference pair is an ordinary MCP implementation, not part of the judge"},
}

type pkgInfo struct {
	imports map[string]bool // full import paths of production files
	exits   []string        // positions of os.Exit calls
	stdout  []string        // positions of writes to the process's stdout
}

func scanModule(t *testing.T) map[string]*pkgInfo {
	t.Helper()
	pkgs := map[string]*pkgInfo{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); path != "." && err == nil {
				return filepath.SkipDir // a module of its own (a peer built from the proxy), not ours
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if hasBuildTag(f, "tools") {
			return nil
		}
		rel := filepath.ToSlash(filepath.Dir(path))
		p := pkgs[rel]
		if p == nil {
			p = &pkgInfo{imports: map[string]bool{}}
			pkgs[rel] = p
		}
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			p.imports[ip] = true
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			pos := fset.Position(sel.Pos()).String()
			switch {
			case x.Name == "os" && sel.Sel.Name == "Exit":
				p.exits = append(p.exits, pos)
			case x.Name == "os" && sel.Sel.Name == "Stdout":
				p.stdout = append(p.stdout, pos)
			case x.Name == "fmt" && (sel.Sel.Name == "Println" || sel.Sel.Name == "Printf" || sel.Sel.Name == "Print"):
				p.stdout = append(p.stdout, pos)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatalf("scan the module's Go files: %v", err)
	}
	return pkgs
}

func hasBuildTag(f *ast.File, tag string) bool {
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:build") && strings.Contains(c.Text, tag) {
				return true
			}
		}
	}
	return false
}

func under(pkg, prefix string) bool { return pkg == prefix || strings.HasPrefix(pkg, prefix+"/") }

// closure returns every import reachable from pkg through this module's
// packages, with the chain that reaches it.
func closure(pkgs map[string]*pkgInfo, pkg string) map[string]string {
	out := map[string]string{}
	var visit func(p, chain string)
	visit = func(p, chain string) {
		info := pkgs[p]
		if info == nil {
			return
		}
		for ip := range info.imports {
			if _, seen := out[ip]; seen {
				continue
			}
			out[ip] = chain + " -> " + ip
			if strings.HasPrefix(ip, module+"/") {
				visit(strings.TrimPrefix(ip, module+"/"), out[ip])
			}
		}
	}
	visit(pkg, pkg)
	return out
}

func TestPackageImportRules(t *testing.T) {
	pkgs := scanModule(t)
	var names []string
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	checked := 0
	for _, pkg := range names {
		deps := closure(pkgs, pkg)
		for _, rule := range importRules {
			if !under(pkg, rule.pkgs) {
				continue
			}
			checked++
			for ip, chain := range deps {
				for _, f := range rule.forbidden {
					full := f
					if !strings.Contains(f, ".") {
						full = module + "/" + f
					}
					if (ip == full || strings.HasPrefix(ip, full+"/")) && !allowedChain(chain) {
						t.Errorf("%s must not depend on %s (%s); found %s", pkg, f, rule.why, chain)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no package matched any import rule; the scan found nothing to check")
	}
}

// contentPackages are the check content packages that stand on the shared
// check framework, internal/scenarios/suite: each declares its checks with
// suite.Def in a suite.Registry.
var contentPackages = []string{"internal/scenarios/internal/server", "internal/scenarios/asuite",
	"internal/scenarios/internal/client", // the client suite (internal/scenarios/client is its facade)
}

// TestOneCheckFramework: the shared check framework (internal/scenarios/suite)
// imports no content package, nor anything that would make it one (the
// reference pair, fuzz, cmd), directly or through other packages; every
// content package imports it directly.
func TestOneCheckFramework(t *testing.T) {
	pkgs := scanModule(t)
	const fw = "internal/scenarios/suite"
	if pkgs[fw] == nil {
		t.Fatalf("no package %s", fw)
	}
	forbidden := append([]string{"reference", "internal/reference", "fuzz", "internal/fuzz", "cmd", "scenarios", "internal/scenarios/officialsuite", "internal/scenarios"}, contentPackages...)
	forbidden = append(forbidden, "internal/scenarios/client") // the client suite's facade
	for ip, chain := range closure(pkgs, fw) {
		rel := strings.TrimPrefix(ip, module+"/")
		for _, f := range forbidden {
			sub := f != "internal/scenarios" && strings.HasPrefix(rel, f+"/") // the root package alone is content; its subpackages are others
			if rel == f || sub {
				t.Errorf("%s must not depend on %s (the framework holds no checks; content packages stand on it); found %s", fw, f, chain)
			}
		}
	}
	for _, c := range contentPackages {
		info := pkgs[c]
		if info == nil {
			t.Errorf("no content package %s", c)
			continue
		}
		if !info.imports[module+"/"+fw] {
			t.Errorf("%s does not import %s: its checks must be declared with the shared framework", c, fw)
		}
	}
}

func TestOnlyCmdExitsOrPrints(t *testing.T) {
	for pkg, info := range scanModule(t) {
		if under(pkg, "cmd") {
			continue
		}
		for _, pos := range info.exits {
			t.Errorf("%s: os.Exit outside cmd/ kills the caller; return an error instead", pos)
		}
		for _, pos := range info.stdout {
			t.Errorf("%s: writes to the process's stdout outside cmd/; take an io.Writer from the caller", pos)
		}
	}
}

func TestTopLevelLayout(t *testing.T) {
	for _, p := range []string{"go.mod", "go.sum", "spec", "scenarios", "harness", "reference", "fuzz", "reports", "cmd", "internal", "Makefile", "README.md"} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the top-level layout needs %s: %v", p, err)
		}
	}
}

// pictureRow is one row of the README's package picture.
type pictureRow struct{ layer, pkg, job string }

// readPicture reads the table of the README's "The package picture"
// section: layer and module-relative package of each row, in order.
func readPicture(t *testing.T) []pictureRow {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatalf("read the README: %v", err)
	}
	text := string(b)
	i := strings.Index(text, "### The package picture")
	if i < 0 {
		t.Fatal(`the README has no "### The package picture" section; the Development section must describe the packages`)
	}
	text = text[i+1:]
	if j := strings.Index(text, "\n#"); j >= 0 {
		text = text[:j]
	}
	var rows []pictureRow
	for _, line := range strings.Split(text, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[2]), "`") {
			continue
		}
		rows = append(rows, pictureRow{layer: strings.TrimSpace(cells[1]), pkg: strings.Trim(strings.TrimSpace(cells[2]), "`"), job: strings.TrimSpace(cells[3])})
	}
	if len(rows) == 0 {
		t.Fatal("the README's package picture has no rows")
	}
	return rows
}

// TestPackagePictureIsTheModule holds the README's package picture to the
// code: every package of the module is a row and every row a package, and
// each package imports (directly; the rest follows) only from its own
// layer and the layers above it in the table.
func TestPackagePictureIsTheModule(t *testing.T) {
	rows := readPicture(t)
	pkgs := scanModule(t)
	layerRank := map[string]int{}
	rank := map[string]int{} // package -> its layer's rank
	for _, r := range rows {
		if _, seen := layerRank[r.layer]; !seen {
			layerRank[r.layer] = len(layerRank)
		}
		if _, dup := rank[r.pkg]; dup {
			t.Errorf("the package picture lists %s twice", r.pkg)
		}
		rank[r.pkg] = layerRank[r.layer]
		if pkgs[r.pkg] == nil {
			t.Errorf("the package picture lists %s, which is no package of the module (renamed or removed? update the README)", r.pkg)
		}
	}
	var names []string
	for p := range pkgs {
		if p != "." {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	for _, p := range names {
		r, listed := rank[p]
		if !listed {
			t.Errorf("package %s is missing from the README's package picture (Development section): add a row with its layer and job", p)
			continue
		}
		for ip := range pkgs[p].imports {
			if !strings.HasPrefix(ip, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(ip, module+"/")
			if dr, ok := rank[dep]; ok && dr > r {
				t.Errorf("%s (layer %s) imports %s from a layer below it (%s): the picture says a package imports only from its own layer and those above", p, rows[indexOf(rows, p)].layer, dep, rows[indexOf(rows, dep)].layer)
			}
		}
	}
}

func indexOf(rows []pictureRow, pkg string) int {
	for i, r := range rows {
		if r.pkg == pkg {
			return i
		}
	}
	return -1
}
