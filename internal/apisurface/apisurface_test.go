package apisurface

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoInternalTypesInExportedAPI fails when an exported declaration of a
// library package (a function's parameters or results, a method of an
// exported type, an exported struct field, an exported type, variable or
// constant) names a type from an internal/ package: a program outside the
// module could not name that type, so it could not fill the field or call
// the function.
func TestNoInternalTypesInExportedAPI(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var checked int
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel == ".":
				return nil
			case strings.HasPrefix(d.Name(), "."), d.Name() == "testdata",
				rel == "internal", rel == "cmd", rel == "examples",
				strings.HasSuffix(rel, "/internal"):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		checked++
		for _, bad := range internalUses(f) {
			t.Errorf("%s: exported %s names %s from an internal package", fset.Position(bad.pos), bad.decl, bad.typ)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no library file checked")
	}
}

type use struct {
	pos  token.Pos
	decl string
	typ  string
}

// internalUses returns the places where an exported declaration of f
// names a type of an internal package.
func internalUses(f *ast.File) []use {
	internal := map[string]bool{} // local names of internal imports
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if !strings.Contains("/"+p+"/", "/internal/") {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		internal[name] = true
	}
	if len(internal) == 0 {
		return nil
	}
	var out []use
	scan := func(decl string, n ast.Node) {
		if n == nil {
			return
		}
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.StructType:
				// Only the exported (or embedded) fields of a struct are
				// reachable from outside.
				for _, fld := range n.Fields.List {
					if len(fld.Names) == 0 || anyExported(fld.Names) {
						ast.Inspect(fld.Type, func(m ast.Node) bool {
							return visitSel(m, internal, decl, &out)
						})
					}
				}
				return false
			}
			return visitSel(n, internal, decl, &out)
		})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			name := d.Name.Name
			if d.Recv != nil {
				recv := receiverName(d.Recv.List[0].Type)
				if !ast.IsExported(recv) {
					continue
				}
				name = recv + "." + name
				scan(name, d.Recv)
			}
			scan(name, d.Type)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						scan(s.Name.Name, s.Type)
						if s.TypeParams != nil {
							scan(s.Name.Name, s.TypeParams)
						}
					}
				case *ast.ValueSpec:
					if anyExported(s.Names) && s.Type != nil {
						scan(s.Names[0].Name, s.Type)
					}
				}
			}
		}
	}
	return out
}

func visitSel(n ast.Node, internal map[string]bool, decl string, out *[]use) bool {
	sel, ok := n.(*ast.SelectorExpr)
	if !ok {
		return true
	}
	if id, ok := sel.X.(*ast.Ident); ok && internal[id.Name] {
		*out = append(*out, use{sel.Pos(), decl, id.Name + "." + sel.Sel.Name})
	}
	return false
}

func anyExported(names []*ast.Ident) bool {
	for _, n := range names {
		if n.IsExported() {
			return true
		}
	}
	return false
}

func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

func TestInternalUsesFindsEachKind(t *testing.T) {
	src := `package p
import (
	"example.com/m/internal/safefile"
	sf "example.com/m/internal/other"
	"example.com/m/public"
)
type Options struct {
	Session *safefile.Session
	hidden  *safefile.Session
	Ok      public.Thing
}
type unexported struct{ Session *safefile.Session }
func Uses() []sf.Use { return nil }
func (w *Writer) Hand(b *safefile.Batch) {}
func (w *writer) Hand(b *safefile.Batch) {}
func quiet(b *safefile.Batch) {}
var Default safefile.Session
type Alias = safefile.Session
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range internalUses(f) {
		got = append(got, u.decl+" "+u.typ)
	}
	want := []string{
		"Options safefile.Session",
		"Uses sf.Use",
		"Writer.Hand safefile.Batch",
		"Default safefile.Session",
		"Alias safefile.Session",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
