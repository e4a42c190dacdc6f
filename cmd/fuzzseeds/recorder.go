package main

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

//go:embed encode.go
var encodeSource string

// recorderSource is the test file added to the target's package while its
// seeds are recorded: seedcorpusRecord wraps the fuzz function so that
// each seed the testing package feeds it (f.Add and testdata/fuzz) is
// written, encoded, to $MCPCHECK_SEED_DIR instead of being run.
const recorderSource = `
func seedcorpusRecord(fn any) any {
	v := reflect.ValueOf(fn)
	dir := os.Getenv("MCPCHECK_SEED_DIR")
	return reflect.MakeFunc(v.Type(), func(args []reflect.Value) []reflect.Value {
		b, err := seedcorpusEncode(args[1:])
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(b)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%x", sum[:8])), b, 0o644); err != nil {
			panic(err)
		}
		return nil
	}).Interface()
}
`

// findTarget returns the file of dir that declares func name(f
// *testing.F), parsed, with the declaration.
func findTarget(fset *token.FileSet, dir, name string) (string, *ast.File, *ast.FuncDecl, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return "", nil, nil, err
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			return "", nil, nil, err
		}
		if !bytes.Contains(src, []byte("func "+name+"(")) {
			continue
		}
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
		if err != nil {
			return "", nil, nil, err
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == name {
				return p, f, fd, nil
			}
		}
	}
	return "", nil, nil, fmt.Errorf("no func %s(f *testing.F) in the test files of %s; check the -func and -pkg flags", name, dir)
}

// rewriteTarget wraps the argument of every f.Fuzz call in fd (f being
// its *testing.F parameter) in seedcorpusRecord, and returns the file's
// new source.
func rewriteTarget(fset *token.FileSet, file *ast.File, fd *ast.FuncDecl) ([]byte, error) {
	params := fd.Type.Params.List
	if len(params) != 1 || len(params[0].Names) != 1 {
		return nil, fmt.Errorf("%s does not take one *testing.F", fd.Name.Name)
	}
	f := params[0].Names[0].Name
	n := 0
	ast.Inspect(fd.Body, func(node ast.Node) bool {
		call, ok := node.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Fuzz" {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Name != f {
			return true
		}
		call.Args[0] = &ast.CallExpr{Fun: ast.NewIdent("seedcorpusRecord"), Args: []ast.Expr{call.Args[0]}}
		n++
		return true
	})
	if n == 0 {
		return nil, errors.New(fd.Name.Name + " never calls " + f + ".Fuzz")
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, file); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// recorderFile is the recorder's source for package pkg: the encoder and
// seedcorpusRecord.
func recorderFile(pkg string) []byte {
	enc := encodeSource
	i := strings.Index(enc, "package main")
	enc = enc[:i] + "package " + pkg + enc[i+len("package main"):]
	// The recorder's imports join the encoder's (encode.go imports fmt
	// and reflect too).
	enc = strings.Replace(enc, "import (", "import (\n\t\"crypto/sha256\"\n\t\"os\"\n\t\"path/filepath\"", 1)
	return []byte(enc + recorderSource)
}
