// Command fuzzseeds writes the seed corpus of one native Go fuzz target as
// a libFuzzer seed corpus: a zip of the inputs that go-118-fuzz-build's
// testing.F (the one OSS-Fuzz's compile_native_go_fuzzer builds targets
// with) decodes into the target's seeds. The seeds are what go test feeds
// the target: its f.Add calls and its testdata/fuzz/<Target> files. They
// are recorded by running the target under go test with an overlay (the
// source tree is not touched) that wraps its fuzz function in a recorder.
//
//	go run ./cmd/fuzzseeds -pkg ./internal/spec/jsonrpc -func FuzzDecode -o $OUT/jsonrpc_FuzzDecode_seed_corpus.zip
//
// .clusterfuzzlite/build.sh runs it for every target.
package main

import (
	"archive/zip"
	"encoding/json"
	"flag"
	"fmt"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
)

func main() {
	pkg := flag.String("pkg", "", "the package directory of the target (./internal/spec/jsonrpc)")
	name := flag.String("func", "", "the fuzz target (FuzzDecode)")
	out := flag.String("o", "", "the zip to write (NAME_seed_corpus.zip)")
	flag.Parse()
	if *pkg == "" || *name == "" || *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: fuzzseeds -pkg DIR -func FuzzName -o OUT.zip")
		os.Exit(2)
	}
	n, err := run(*pkg, *name, *out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fuzzseeds: %s %s: %v\n", *pkg, *name, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "fuzzseeds: %s %s: %d seeds in %s\n", *pkg, *name, n, *out)
}

// run records the seeds of target name in package directory pkg and zips
// them into out; it returns their number.
func run(pkg, name, out string) (int, error) {
	dir, err := filepath.Abs(pkg)
	if err != nil {
		return 0, err
	}
	fset := token.NewFileSet()
	path, file, fd, err := findTarget(fset, dir, name)
	if err != nil {
		return 0, err
	}
	src, err := rewriteTarget(fset, file, fd)
	if err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp("", "fuzzseeds-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	seeds := filepath.Join(tmp, "seeds")
	if err := os.Mkdir(seeds, 0o755); err != nil {
		return 0, err
	}
	rewritten, recorder := filepath.Join(tmp, "target.go"), filepath.Join(tmp, "recorder.go")
	if err := os.WriteFile(rewritten, src, 0o644); err != nil {
		return 0, err
	}
	if err := os.WriteFile(recorder, recorderFile(file.Name.Name), 0o644); err != nil {
		return 0, err
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {
		path: rewritten,
		filepath.Join(dir, "zz_fuzzseeds_recorder_test.go"): recorder,
	}})
	if err != nil {
		return 0, err
	}
	ovl := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ovl, overlay, 0o644); err != nil {
		return 0, err
	}
	cmd := exec.Command("go", "test", "-overlay", ovl, "-count=1", "-run", "^"+name+"$", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MCPCHECK_SEED_DIR="+seeds)
	if b, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("go test with the seed recorder: %v\n%s", err, b)
	}
	return zipDir(seeds, out)
}

// zipDir writes the files of dir, in name order, into the zip out.
func zipDir(dir, out string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return 0, err
	}
	f, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	zw := zip.NewWriter(f)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			f.Close()
			return 0, err
		}
		in, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			f.Close()
			return 0, err
		}
		_, err = io.Copy(w, in)
		in.Close()
		if err != nil {
			f.Close()
			return 0, err
		}
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return 0, err
	}
	return len(names), f.Close()
}
