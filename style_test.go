package mcpcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocCommentsStartWithTheName holds the module's style rule that a doc
// comment starts with the name it documents ("Open starts …", or "A Pool
// is …"), so that go doc, gopls and a reader see which declaration a
// comment belongs to. It reads every top-level func, method, type and
// lone const or var of the non-test Go files; a comment that documents a
// group (a parenthesised const block) is not held to it, nor init and
// main. A failure names the file, the line, the name and the comment's
// first word: a comment left behind by a rename, or one that describes
// something else than the declaration under it.
func TestDocCommentsStartWithTheName(t *testing.T) {
	var bad []string
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		judge := func(name string, doc *ast.CommentGroup, pos token.Pos) {
			if doc == nil || name == "_" || name == "init" || name == "main" {
				return
			}
			checked++
			if words := strings.Fields(doc.Text()); len(words) > 0 && !docNames(words, name) {
				bad = append(bad, fset.Position(pos).String()+": "+name+": the comment starts with "+words[0])
			}
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				judge(decl.Name.Name, decl.Doc, decl.Pos())
			case *ast.GenDecl:
				if decl.Lparen.IsValid() || len(decl.Specs) != 1 {
					continue
				}
				switch s := decl.Specs[0].(type) {
				case *ast.TypeSpec:
					judge(s.Name.Name, decl.Doc, decl.Pos())
				case *ast.ValueSpec:
					if len(s.Names) == 1 {
						judge(s.Names[0].Name, decl.Doc, decl.Pos())
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the module's Go files: %v", err)
	}
	if checked < 1000 {
		t.Fatalf("read only %d doc comments; want the whole module's (more than 1000): is the test run from the module root?", checked)
	}
	for _, b := range bad {
		t.Error(b)
	}
	if len(bad) > 0 {
		t.Logf("%d of %d doc comments do not start with the name they document: start each with the name (or A, An or The and the name)", len(bad), checked)
	}
}

// docNames reports whether a doc comment's words start with name, alone or
// after an article, with trailing punctuation ignored.
func docNames(words []string, name string) bool {
	first := func(w string) string { return strings.TrimRight(w, ",:.;") }
	if first(words[0]) == name {
		return true
	}
	switch words[0] {
	case "A", "An", "The":
		return len(words) > 1 && first(words[1]) == name
	}
	return false
}
