package mcpcheck

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

const buildScript = ".clusterfuzzlite/build.sh"

// fuzzTarget is a native Go fuzz target: its package directory (relative
// to the module root, slash-separated) and function, and in build.sh the
// name of its libFuzzer binary.
type fuzzTarget struct {
	pkg, fn, name string
}

// nativeFuzzTargets finds every func FuzzXxx(f *testing.F) in the test
// files of the module (not of the modules nested in it).
func nativeFuzzTargets(t *testing.T) []fuzzTarget {
	t.Helper()
	var out []fuzzTarget
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); path != "." && err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Fuzz") || len(fd.Type.Params.List) != 1 {
				continue
			}
			star, ok := fd.Type.Params.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "F" {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "testing" {
					out = append(out, fuzzTarget{pkg: filepath.ToSlash(filepath.Dir(path)), fn: fd.Name.Name})
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// scriptTargets reads the "target PKG FUNC NAME" lines of build.sh.
func scriptTargets(t *testing.T) []fuzzTarget {
	t.Helper()
	b, err := os.ReadFile(buildScript)
	if err != nil {
		t.Fatal(err)
	}
	var out []fuzzTarget
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] != "target" {
			continue
		}
		if len(f) != 4 {
			t.Fatalf("%s: %q is not 'target PKG FUNC NAME'", buildScript, sc.Text())
		}
		out = append(out, fuzzTarget{pkg: f[1], fn: f[2], name: f[3]})
	}
	return out
}

// TestClusterFuzzLiteBuildsEveryTarget: .clusterfuzzlite/build.sh names
// every native fuzz target of the module once, and nothing else, each
// with a binary name of its own; and each target's name appears in just
// one .go file of its package directory, which is how OSS-Fuzz's
// compile_native_go_fuzzer finds the file to build (a coverage build
// copies that one file).
func TestClusterFuzzLiteBuildsEveryTarget(t *testing.T) {
	found := nativeFuzzTargets(t)
	listed := scriptTargets(t)
	if len(found) == 0 {
		t.Fatal("found no native fuzz target in the module")
	}
	key := func(x fuzzTarget) string { return x.pkg + " " + x.fn }
	inScript := map[string]bool{}
	names := map[string]bool{}
	for _, l := range listed {
		if inScript[key(l)] {
			t.Errorf("%s builds %s twice", buildScript, key(l))
		}
		if names[l.name] {
			t.Errorf("%s names two binaries %s", buildScript, l.name)
		}
		inScript[key(l)], names[l.name] = true, true
	}
	inSource := map[string]bool{}
	for _, f := range found {
		inSource[key(f)] = true
		if !inScript[key(f)] {
			t.Errorf("%s does not build the native fuzz target %s of ./%s: add 'target %s %s %s'", buildScript, f.fn, f.pkg, f.pkg, f.fn, f.fn)
		}
		var files []string
		_ = filepath.WalkDir(filepath.FromSlash(f.pkg), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
				if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(f.fn)) {
					files = append(files, path)
				}
			}
			return nil
		})
		if len(files) != 1 {
			t.Errorf("%s is named in %d .go files under %s (%v): name it in the file that declares it only, compile_native_go_fuzzer finds the file by it", f.fn, len(files), f.pkg, files)
		}
	}
	for _, l := range listed {
		if !inSource[key(l)] {
			t.Errorf("%s builds %s of ./%s, which is not a native fuzz target (func %s(f *testing.F)) of the module", buildScript, l.fn, l.pkg, l.fn)
		}
	}
	t.Logf("%d native fuzz targets, all in %s", len(found), buildScript)
}

// libFuzzerToolchain says what is missing to build libFuzzer binaries the
// way build.sh does, or "" when nothing is.
func libFuzzerToolchain(t *testing.T, cxx string) string {
	t.Helper()
	for _, tool := range []string{"bash", "git", "tar", "go", cxx} {
		if _, err := exec.LookPath(tool); err != nil {
			hint := ""
			if tool == cxx {
				hint = " (Debian: apt-get install clang libclang-rt-14-dev)"
			}
			return fmt.Sprintf("%s is not on PATH%s", tool, hint)
		}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "probe.cc")
	if err := os.WriteFile(src, []byte("#include <stddef.h>\n#include <stdint.h>\nextern \"C\" int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cxx, "-fsanitize=fuzzer", src, "-o", filepath.Join(dir, "probe")).CombinedOutput(); err != nil {
		return fmt.Sprintf("%s cannot link a libFuzzer binary (-fsanitize=fuzzer): %v: %s (Debian: apt-get install libclang-rt-14-dev)", cxx, err, lastLines(string(out), 3))
	}
	b, err := os.ReadFile(buildScript)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^GO118FUZZBUILD_VERSION=(\S+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s does not pin GO118FUZZBUILD_VERSION", buildScript)
	}
	mod := "github.com/AdamKorcz/go-118-fuzz-build@" + string(m[1])
	cmd := exec.Command("go", "list", "-m", mod)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Sprintf("the Go module proxy does not serve %s: %v: %s", mod, err, lastLines(string(out), 3))
	}
	return ""
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// unzip extracts the zip at path into dir and returns how many files it
// held.
func unzip(t *testing.T, path, dir string) int {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("the seed corpus: %v", err)
	}
	defer zr.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f.Name)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return len(zr.File)
}

// TestLibFuzzerBuildsRunWithTheirSeeds builds the native fuzz targets as
// libFuzzer binaries the way ClusterFuzzLite does (build.sh, through
// .clusterfuzzlite/local.sh), then runs each for 2 s on its seed corpus
// and wants it clean, with every seed of the corpus read. It is opt-in
// (all 15 took 4m55s on 2 cores under load, 4m02s of it building):
// MCPCHECK_LIBFUZZER=1 builds all, a comma list of names only those; make
// fuzz-libfuzzer sets it. It
// skips, saying what is missing, without clang++ and libFuzzer or the Go
// module proxy.
func TestLibFuzzerBuildsRunWithTheirSeeds(t *testing.T) {
	want := os.Getenv("MCPCHECK_LIBFUZZER")
	if want == "" || want == "0" {
		t.Skip("builds the native fuzz targets as libFuzzer binaries (about 3 to 5 minutes for all of them on 2 cores): set MCPCHECK_LIBFUZZER=1 (or a comma list of targets), or run make fuzz-libfuzzer")
	}
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "clang++"
	}
	if missing := libFuzzerToolchain(t, cxx); missing != "" {
		t.Skipf("cannot build libFuzzer binaries: %s", missing)
	}
	var targets []fuzzTarget
	var all []string
	names := map[string]bool{}
	for _, l := range scriptTargets(t) {
		all = append(all, l.name)
		names[l.name] = true
		if want == "1" || want == "all" || strings.Contains(","+want+",", ","+l.name+",") {
			targets = append(targets, l)
		}
	}
	if want != "1" && want != "all" {
		for _, n := range strings.Split(want, ",") {
			if !names[n] {
				sort.Strings(all)
				t.Fatalf("MCPCHECK_LIBFUZZER names %q, which %s does not build; use 1 (all) or some of %s", n, buildScript, strings.Join(all, ","))
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	out := t.TempDir()
	args := []string{".clusterfuzzlite/local.sh", out}
	if want != "1" && want != "all" {
		for _, x := range targets {
			args = append(args, x.name)
		}
	}
	began := time.Now()
	build, err := exec.CommandContext(ctx, "bash", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("local.sh: %v\n%s", err, lastLines(string(build), 40))
	}
	t.Logf("built %d libFuzzer binaries in %s", len(targets), time.Since(began).Round(time.Second))

	work := t.TempDir()
	for _, x := range targets {
		seeds := filepath.Join(work, x.name+"-seeds")
		fresh := filepath.Join(work, x.name+"-new")
		if err := os.MkdirAll(fresh, 0o755); err != nil {
			t.Fatal(err)
		}
		n := unzip(t, filepath.Join(out, x.name+"_seed_corpus.zip"), seeds)
		if n == 0 {
			t.Errorf("%s: the seed corpus is empty; give the target f.Add seeds or testdata/fuzz/%s files", x.name, x.fn)
			continue
		}
		// New inputs go to the first directory, crash files to work.
		cmd := exec.CommandContext(ctx, filepath.Join(out, x.name), "-max_total_time=2", "-timeout=10", "-rss_limit_mb=4096", "-artifact_prefix="+work+"/", fresh, seeds)
		cmd.Dir = work
		b, err := cmd.CombinedOutput()
		log := string(b)
		if err != nil {
			t.Errorf("%s: %v after its seeds\n%s", x.name, err, lastLines(log, 40))
			continue
		}
		found := regexp.MustCompile(`(\d+) files found in ` + regexp.QuoteMeta(seeds)).FindStringSubmatch(log)
		read := regexp.MustCompile(`seed corpus: files: (\d+)`).FindStringSubmatch(log)
		runs := regexp.MustCompile(`Done (\d+) runs`).FindStringSubmatch(log)
		if found == nil || read == nil || runs == nil || found[1] != strconv.Itoa(n) || read[1] != strconv.Itoa(n) {
			t.Errorf("%s: want all %d seeds found and read and the run done; libFuzzer said:\n%s", x.name, n, lastLines(log, 20))
			continue
		}
		t.Logf("%-22s %5d seeds read, %7s runs in 2 s", x.name, n, runs[1])
	}
}
