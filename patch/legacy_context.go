package patch

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/unrmod/unrmod/reader"
)

// legacyContext is the state of one legacy target while its operations are applied.
type legacyContext struct {
	p        *reader.Package
	patchDir string
	owned    map[int]bool // exports whose Data is a private copy
	load     func(path string) (*reader.Package, error)
	// imports0 is how many imports the package had when it was read:
	// imports at or past it were added by this patch, so only data this
	// patch changed (owned) can refer to them.
	imports0 int
	// names finds names case-insensitively without scanning the table;
	// built on first use, kept up to date by addName and setName.
	names map[string][]reader.NameRef
	// objects finds exports and imports by their lowercased name, so that
	// resolving an object does not build every path in the package. Built
	// on first use; objects added since are indexed on the next lookup;
	// dropped (nil) by operations that rename objects or renumber imports.
	objects    map[string][]reader.ObjectRef
	dotted     []reader.ObjectRef // objects whose name holds a dot: candidates for every lookup
	nExp, nImp int                // how many exports and imports objects holds
}

// lookup is Package.Lookup through the context's object index: the
// objects whose full path is path or ends with "."+path, compared
// case-insensitively, exports then imports, each in table order.
func (c *legacyContext) lookup(path string) []reader.ObjectRef {
	p := c.p
	if c.objects == nil || len(p.Exports) < c.nExp || len(p.Imports) < c.nImp {
		c.objects, c.dotted, c.nExp, c.nImp = map[string][]reader.ObjectRef{}, nil, 0, 0
	}
	index := func(r reader.ObjectRef) {
		name := strings.ToLower(p.ObjectName(r))
		if strings.Contains(name, ".") {
			c.dotted = append(c.dotted, r)
			return
		}
		c.objects[name] = append(c.objects[name], r)
	}
	for ; c.nExp < len(p.Exports); c.nExp++ {
		index(reader.ExportRef(c.nExp))
	}
	for ; c.nImp < len(p.Imports); c.nImp++ {
		index(reader.ImportRef(c.nImp))
	}
	want := strings.ToLower(path)
	last := want
	if i := strings.LastIndexByte(last, '.'); i >= 0 {
		last = last[i+1:]
	}
	var out []reader.ObjectRef
	for _, list := range [][]reader.ObjectRef{c.objects[last], c.dotted} {
		for _, r := range list {
			f := strings.ToLower(p.Path(r))
			if f == want || strings.HasSuffix(f, "."+want) {
				out = append(out, r)
			}
		}
	}
	// Exports (positive references) first, each kind in table order.
	slices.SortFunc(out, func(a, b reader.ObjectRef) int {
		if (a > 0) != (b > 0) {
			return int(b) - int(a)
		}
		if a > 0 {
			return int(a) - int(b)
		}
		return int(b) - int(a)
	})
	return out
}

// resolve is resolve on the context's package, through its object index.
func (c *legacyContext) resolve(pos Pos, spec string, wantExport, wantImport bool) (reader.ObjectRef, error) {
	return resolveWith(pos, c.p, c.lookup, spec, wantExport, wantImport)
}

// nameKey is the key of s in the name index: names that compare equal
// case-insensitively (strings.EqualFold) share it.
func nameKey(s string) string { return strings.ToLower(strings.ToUpper(s)) }

// findName returns the index of the first name equal to s (compared
// case-insensitively, as the engine does), or -1: what Package.FindName
// returns, in constant time per lookup.
func (c *legacyContext) findName(s string) reader.NameRef {
	best := reader.NameRef(-1)
	for _, r := range c.nameBucket(s) {
		if (best < 0 || r < best) && strings.EqualFold(c.p.Names[r].Name, s) {
			best = r
		}
	}
	return best
}

// nameBucket returns the indexes of the names that may equal s
// case-insensitively (every one that does, in no particular order).
func (c *legacyContext) nameBucket(s string) []reader.NameRef {
	if c.names == nil {
		c.names = make(map[string][]reader.NameRef, len(c.p.Names))
		for i := range c.p.Names {
			k := nameKey(c.p.Names[i].Name)
			c.names[k] = append(c.names[k], reader.NameRef(i))
		}
	}
	return c.names[nameKey(s)]
}

// setName changes the text of name r, keeping the index up to date.
func (c *legacyContext) setName(r reader.NameRef, s string) {
	if c.names != nil {
		k := nameKey(c.p.Names[r].Name)
		c.names[k] = slices.DeleteFunc(c.names[k], func(x reader.NameRef) bool { return x == r })
		c.names[nameKey(s)] = append(c.names[nameKey(s)], r)
	}
	c.p.Names[r].Name = s
}

// path resolves a path written in the patch against the patch's directory.
func (c *legacyContext) path(p string) string { return localPath(c.patchDir, p) }

// localPath resolves a path written in a patch (with '/' or '\') against
// the patch's directory dir.
func localPath(dir, p string) string {
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// own makes export i's data a private copy, so that edits never touch the
// bytes the package was read from.
func (c *legacyContext) own(i int) []byte {
	e := &c.p.Exports[i]
	if !c.owned[i] {
		e.Data = append([]byte(nil), e.Data...)
		c.owned[i] = true
	}
	return e.Data
}

// addName returns the index of name s, appending it with the engine's flags
// when the package has no such name (names compare case-insensitively).
func (c *legacyContext) addName(s string) reader.NameRef {
	if r := c.findName(s); r >= 0 {
		return r
	}
	c.p.Names = append(c.p.Names, reader.Name{Name: s, Flags: reader.NewNameFlags})
	r := reader.NameRef(len(c.p.Names) - 1) // findName built the index
	c.names[nameKey(s)] = append(c.names[nameKey(s)], r)
	return r
}

// checkName applies the engine's rules for a new name.
func checkName(pos Pos, s string) error {
	switch {
	case s == "":
		return errorf(pos, "a name cannot be empty")
	case len(s) > reader.MaxNameLen:
		return errorf(pos, "name %q has %d characters; the engine allows at most %d", s, len(s), reader.MaxNameLen)
	case strings.EqualFold(s, "None"):
		return errorf(pos, "the name None is reserved")
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return errorf(pos, "name %q contains %q; names may use only letters, digits, _ and -", s, r)
		}
	}
	return nil
}

// splitClass splits the `Class'Path'` form into class and path.
func splitClass(spec string) (class, path string) {
	if i := strings.IndexByte(spec, '\''); i > 0 && strings.HasSuffix(spec, "'") && len(spec) > i+1 {
		return spec[:i], spec[i+1 : len(spec)-1]
	}
	return "", spec
}

// describe names object r for messages: `Class'Path'`.
func describe(p *reader.Package, r reader.ObjectRef) string {
	if i, ok := r.Export(); ok {
		return fmt.Sprintf("%s'%s'", p.ClassName(i), p.Path(r))
	}
	if i, ok := r.Import(); ok {
		return fmt.Sprintf("%s'%s'", p.ImportClassName(i), p.Path(r))
	}
	return "None"
}

// resolve finds the one object spec names: a full path, a unique dotted
// suffix, or either in the `Class'Path'` form. wantExport/wantImport limit
// the search. The error lists the candidates.
func resolve(pos Pos, p *reader.Package, spec string, wantExport, wantImport bool) (reader.ObjectRef, error) {
	return resolveWith(pos, p, p.Lookup, spec, wantExport, wantImport)
}

// resolveWith is resolve with the given lookup of p's objects by path.
func resolveWith(pos Pos, p *reader.Package, lookup func(string) []reader.ObjectRef, spec string, wantExport, wantImport bool) (reader.ObjectRef, error) {
	class, path := splitClass(strings.TrimSpace(spec))
	var hits []reader.ObjectRef
	for _, r := range lookup(path) {
		_, isExp := r.Export()
		if isExp && !wantExport || !isExp && !wantImport {
			continue
		}
		if class != "" && !strings.EqualFold(className(p, r), class) {
			continue
		}
		hits = append(hits, r)
	}
	what := "object"
	switch {
	case wantExport && !wantImport:
		what = "export"
	case wantImport && !wantExport:
		what = "import"
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		msg := fmt.Sprintf("%s: no %s %q", p.FileName, what, spec)
		if c := closeMatches(p, path, wantExport, wantImport); len(c) > 0 {
			msg += "; close matches: " + strings.Join(c, ", ")
		}
		return 0, errorf(pos, "%s", msg)
	}
	var names []string
	for _, r := range hits {
		names = append(names, describe(p, r))
	}
	return 0, errorf(pos, "%s: %q is ambiguous; it matches %s. Write more of the path, or Class'Path'",
		p.FileName, spec, strings.Join(names, ", "))
}

func className(p *reader.Package, r reader.ObjectRef) string {
	if i, ok := r.Export(); ok {
		return p.ClassName(i)
	}
	i, _ := r.Import()
	return p.ImportClassName(i)
}

// closeMatches lists up to 8 objects whose path contains the last part of
// path (case-insensitively).
func closeMatches(p *reader.Package, path string, exports, imports bool) []string {
	last := strings.ToLower(path)
	if i := strings.LastIndexByte(last, '.'); i >= 0 {
		last = last[i+1:]
	}
	last = strings.TrimRight(last, "0123456789")
	if last == "" {
		return nil
	}
	var out []string
	add := func(r reader.ObjectRef) {
		if len(out) < 8 && strings.Contains(strings.ToLower(p.ObjectName(r)), last) {
			out = append(out, describe(p, r))
		}
	}
	if exports {
		for i := range p.Exports {
			add(reader.ExportRef(i))
		}
	}
	if imports {
		for i := range p.Imports {
			add(reader.ImportRef(i))
		}
	}
	sort.Strings(out)
	return out
}

// splice replaces n bytes at offset at of export i's data with repl and
// keeps every lazy array after the edit consistent: its SeekPos moves with
// the bytes. Lazy arrays before the edit are untouched; an edit inside a
// lazy array is refused.
func (c *legacyContext) splice(pos Pos, i, at, n int, repl []byte) error {
	p := c.p
	nl, err := p.Native(i)
	if err != nil {
		return errorf(pos, "%v", err)
	}
	e := &p.Exports[i]
	delta := len(repl) - n
	if nl.Kind == reader.NativeUnknown && len(nl.Suspects) > 0 {
		// Offsets unrmod cannot find would be left pointing at the old
		// bytes, and once shifted no longer even look like offsets.
		return errorf(pos, "%s: unrmod does not know the native layout of class %s and found %d value(s) in it that look like "+
			"absolute file offsets (first at data offset 0x%X); the edit would move them, so it is refused",
			p.ExportPath(i), p.ClassName(i), len(nl.Suspects), nl.Suspects[0])
	}
	for _, la := range nl.Lazy {
		if la.SeekPosAt < 0 {
			continue
		}
		if la.SeekPosAt < at+n && la.End > at {
			return errorf(pos, "%s: the edit at data offset %d overlaps lazy array %s", p.ExportPath(i), at, la.Field)
		}
		if want := e.SerialOffset + int32(la.End); la.SeekPos != want && la.SeekPosAt >= at {
			return errorf(pos, "%s: %s SeekPos 0x%X should be 0x%X; refusing to edit data whose offsets are already wrong",
				p.ExportPath(i), la.Field, la.SeekPos, want)
		}
	}
	old := c.own(i)
	data := make([]byte, 0, len(old)+delta)
	data = append(data, old[:at]...)
	data = append(data, repl...)
	data = append(data, old[at+n:]...)
	for _, la := range nl.Lazy {
		if la.SeekPosAt >= at+n {
			binary.LittleEndian.PutUint32(data[la.SeekPosAt+delta:], uint32(la.SeekPos+int32(delta)))
		}
	}
	e.Data = data
	e.SerialSize = int32(len(data))
	return nil
}
