package convert

import (
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/uasset"
)

// source is a cooked asset prepared for conversion: its package name and
// the engine's full names of its imports and exports.
type source struct {
	a    *uasset.Package
	file string
	name string // the long package name, as given
	// imports and exports are resolved in import/export-map order.
	imports []resolvedImport
	exports []string // lowercased full names: package name, '/', outer chain
	trailer []byte   // bytes after the last export's data
}

// resolvedImport is FPackageStoreOptimizer's FUnresolvedImport once
// resolved: the object's full name (the names of its outer chain from the
// package down, joined with '/', ASCII-lowercased), the package it comes
// from and whether it is a native (/Script/) object or a package itself.
type resolvedImport struct {
	fullName    string
	fromPackage uasset.NameRef // the outermost import's ObjectName
	fromLen     int            // length of the package's part of fullName
	script      bool
	isPackage   bool
}

// newSource resolves the names of a's imports and exports.
func newSource(a *uasset.Package, name string) (*source, error) {
	s := &source{a: a, file: a.FileName, name: name}
	var err error
	if s.trailer, err = exportData(a); err != nil {
		return nil, err
	}
	if err := s.checkNames(); err != nil {
		return nil, err
	}
	if err := s.resolveImports(); err != nil {
		return nil, err
	}
	if err := s.resolveExports(); err != nil {
		return nil, err
	}
	return s, nil
}

// checkNames checks every name reference of the import and export maps.
func (s *source) checkNames() error {
	ok := func(n uasset.NameRef) bool { return n.Index >= 0 && int(n.Index) < len(s.a.Names) && n.Number >= 0 }
	for i, im := range s.a.Imports {
		if !ok(im.ObjectName) || !ok(im.ClassName) || !ok(im.ClassPackage) {
			return errorf(s.file, importLabel(s.a, i), ErrUnresolvedImport, "a name refers outside the %d names", len(s.a.Names))
		}
	}
	for i, e := range s.a.Exports {
		if !ok(e.ObjectName) {
			return errorf(s.file, exportLabel(s.a, i), ErrNotConvertible, "its name refers outside the %d names", len(s.a.Names))
		}
	}
	return nil
}

// lowerASCII lowercases the ASCII letters of s and nothing else, as the
// engine's FString::ToLowerInline does.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// resolveImports gives every import its full name, as ResolveImport does:
// an import without outer is a package, named by its ObjectName; any other
// is its outer's full name, '/', its own name (with the number suffix).
// The chain must end in a package: an outer that is null-less and outside
// the import map, an export, or a loop is refused, naming the import.
func (s *source) resolveImports() error {
	a := s.a
	n := len(a.Imports)
	s.imports = make([]resolvedImport, n)
	state := make([]uint8, n) // 0 new, 1 on the chain being resolved, 2 done
	var chain []int
	for i := range a.Imports {
		if state[i] == 2 {
			continue
		}
		chain = chain[:0]
		j := i
		for {
			if state[j] == 1 {
				return errorf(s.file, importLabel(a, i), ErrUnresolvedImport,
					"its outer chain loops back to import %d %q", j, a.NameOf(a.Imports[j].ObjectName))
			}
			state[j] = 1
			chain = append(chain, j)
			outer := a.Imports[j].OuterIndex
			if outer == 0 {
				break
			}
			if !outer.IsImport() || outer.Import() >= n {
				what := "an export"
				if outer.IsImport() {
					what = fmt.Sprintf("import %d, outside the %d imports", outer.Import(), n)
				}
				return errorf(s.file, importLabel(a, i), ErrUnresolvedImport,
					"its outer chain reaches %s (via import %d %q) instead of a package", what, j, a.NameOf(a.Imports[j].ObjectName))
			}
			if state[outer.Import()] == 2 {
				break
			}
			j = outer.Import()
		}
		for k := len(chain) - 1; k >= 0; k-- {
			j := chain[k]
			im := a.Imports[j]
			r := &s.imports[j]
			if im.OuterIndex == 0 {
				r.fullName = lowerASCII(a.NameOf(im.ObjectName))
				r.fromPackage = im.ObjectName
				r.fromLen = len(r.fullName)
				r.script = strings.HasPrefix(r.fullName, "/script/")
				r.isPackage = true
			} else {
				o := &s.imports[im.OuterIndex.Import()]
				r.fullName = o.fullName + "/" + lowerASCII(a.NameOf(im.ObjectName))
				r.fromPackage, r.fromLen, r.script = o.fromPackage, o.fromLen, o.script
			}
			state[j] = 2
		}
	}
	return nil
}

// resolveExports gives every export its full name, as ResolveExport does:
// the package name, '/', and the outer chain of exports, an export whose
// outer is an import continuing that import's full name.
func (s *source) resolveExports() error {
	a := s.a
	n := len(a.Exports)
	s.exports = make([]string, n)
	state := make([]uint8, n)
	var chain []int
	pkg := lowerASCII(s.name)
	for i := range a.Exports {
		if state[i] == 2 {
			continue
		}
		chain = chain[:0]
		j := i
		for {
			if state[j] == 1 {
				return errorf(s.file, exportLabel(a, i), ErrNotConvertible,
					"its outer chain loops back to export %d %q", j, a.NameOf(a.Exports[j].ObjectName))
			}
			state[j] = 1
			chain = append(chain, j)
			outer := a.Exports[j].OuterIndex
			if !outer.IsExport() {
				if outer.IsImport() && outer.Import() >= len(a.Imports) {
					return errorf(s.file, exportLabel(a, j), ErrNotConvertible, "its outer is import %d, outside the %d imports", outer.Import(), len(a.Imports))
				}
				break
			}
			if outer.Export() >= n {
				return errorf(s.file, exportLabel(a, j), ErrNotConvertible, "its outer is export %d, outside the %d exports", outer.Export(), n)
			}
			if state[outer.Export()] == 2 {
				break
			}
			j = outer.Export()
		}
		for k := len(chain) - 1; k >= 0; k-- {
			j := chain[k]
			e := a.Exports[j]
			var outer string
			switch {
			case e.OuterIndex.IsExport():
				outer = s.exports[e.OuterIndex.Export()]
			case e.OuterIndex.IsImport():
				outer = s.imports[e.OuterIndex.Import()].fullName
			default:
				outer = pkg
			}
			s.exports[j] = outer + "/" + lowerASCII(a.NameOf(e.ObjectName))
			state[j] = 2
		}
	}
	return nil
}
