package zen

import (
	"fmt"
	"sort"
	"strings"
)

// FindExport returns the index of the one export spec names: its full path
// (/Game/Data/DT_Items.DT_Items), its path inside the package (outers
// joined with '.' or ':'), a dotted suffix of that path, or its name; each
// also in the Class'Path' form, which keeps only exports of that class
// (named through r; nil names script classes by their hashes). Names
// compare case-insensitively. An unknown spec is an error that lists close
// matches, an ambiguous one an error that lists every candidate.
func (p *Package) FindExport(spec string, r *Resolver) (int, error) {
	class, path := splitClassPath(strings.TrimSpace(spec))
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, ":", ".")) }
	want := norm(path)
	if r == nil {
		r = &Resolver{}
	}
	describe := func(i int) string { return r.ClassName(p, i) + "'" + p.ExportPath(i) + "'" }
	var hits []int
	for i := range p.Exports {
		if class != "" && !strings.EqualFold(r.ClassName(p, i), class) {
			continue
		}
		full, rel := norm(p.ExportPath(i)), norm(p.RelativePath(i, "."))
		if want == full || want == rel || strings.HasSuffix(rel, "."+want) || strings.EqualFold(p.ExportName(i), path) {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		msg := fmt.Sprintf("no export %q", spec)
		var close []string
		last := strings.TrimRight(want[strings.LastIndexByte(want, '.')+1:], "0123456789")
		for i := range p.Exports {
			if len(close) < 8 && last != "" && strings.Contains(strings.ToLower(p.ExportName(i)), last) {
				close = append(close, describe(i))
			}
		}
		sort.Strings(close)
		if len(close) > 0 {
			msg += "; close matches: " + strings.Join(close, ", ")
		} else if len(p.Exports) <= 8 {
			var all []string
			for i := range p.Exports {
				all = append(all, describe(i))
			}
			msg += "; the exports are " + strings.Join(all, ", ")
		}
		return 0, fmt.Errorf("%s", msg)
	}
	names := make([]string, len(hits))
	for k, i := range hits {
		names[k] = describe(i)
	}
	return 0, fmt.Errorf("%q is ambiguous; it matches %s. Write more of the path, or Class'Path'", spec, strings.Join(names, ", "))
}

// splitClassPath splits the Class'Path' form into class and path.
func splitClassPath(spec string) (class, path string) {
	if i := strings.IndexByte(spec, '\''); i > 0 && strings.HasSuffix(spec, "'") && len(spec) > i+1 {
		return spec[:i], spec[i+1 : len(spec)-1]
	}
	return "", spec
}
