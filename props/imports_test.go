package props_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFormatNeutral checks that the property codec imports no package
// format (iostore, iostore/zen, pak, reader, uasset): zen packages and
// cooked assets give it what it needs through a Context.
func TestFormatNeutral(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, format := range []string{"/iostore", "/pak", "/reader", "/writer", "/uasset", "/patch"} {
				if strings.HasPrefix(path, "github.com/unrmod/unrmod"+format) {
					t.Errorf("%s imports %s", name, path)
				}
			}
		}
	}
}
