package patch_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/patch"
)

// importPackagePaths returns the indices of the names of p that spell the
// package of one of its imports, as the resolver names the imports (from
// the package alone), with the import's path.
func importPackagePaths(p *zen.Package) map[int]string {
	var r *zen.Resolver
	out := map[int]string{}
	for _, x := range p.Imports {
		if x.Kind() != zen.KindScriptImport && x.Kind() != zen.KindPackageImport {
			continue
		}
		path := r.Object(p, x)
		if !strings.HasPrefix(path, "/") {
			continue
		}
		pkg, _, _ := strings.Cut(path, ".")
		for i, n := range p.Names {
			if n == pkg && i != int(p.Name.Index()) {
				out[i] = path
			}
		}
	}
	return out
}

// TestZenRenameImportPackagePath renames, in every corpus zen package, the
// names that are the paths of packages it imports from: zen imports are
// hashes, so such a rename would change nothing the engine reads; it is
// refused, saying so.
func TestZenRenameImportPackagePath(t *testing.T) {
	layouts := map[string]int{}
	for _, f := range zenCorpusFiles(t) {
		p, _ := readZen(t, f.path)
		paths := importPackagePaths(p)
		for idx, imp := range paths {
			name := p.Names[idx]
			text := oneTarget(f.path, fmt.Sprintf("      - rename: {from: %s, to: /Game/Unrmod/Elsewhere}\n", yamlQuote(name)))
			_, err := patch.Apply(parsePatch(t, filepath.Join(t.TempDir(), "p.yaml"), text), patch.Options{OutputDir: t.TempDir()})
			if err == nil {
				t.Errorf("%s: renaming %q (the package of import %s) was applied; it retargets no import", f.name, name, imp)
				continue
			}
			msg := err.Error()
			switch {
			case !strings.Contains(msg, fmt.Sprintf("cannot rename %q", name)):
				t.Errorf("%s: rename %q: %v", f.name, name, err)
			case strings.Contains(msg, "retarget no import"):
				layouts[p.Layout.String()]++
			case !strings.Contains(msg, "is a type in the property tags"):
				// UE 5.6+ tags name the packages of their struct types:
				// those names are refused for that reason first.
				t.Errorf("%s: rename %q: %v; want the reason that no import is retargeted", f.name, name, err)
			}
		}
	}
	t.Logf("refused renames of import package paths, by layout: %v", layouts)
	if len(layouts) < 2 {
		t.Errorf("import package paths found in the names of %d layouts (%v), want at least 2", len(layouts), layouts)
	}
}
