package patch

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// PruneImports removes the imports nothing in the package refers to any
// more: no export's class, super or outer, no import's outer, no object
// property and no state frame. Script bytecode and native data unrmod does
// not parse may hold references too: an import whose index occurs in such
// bytes is kept, and so is its index, and the plan says so. The imports
// that remain are renumbered, and every reference to them rewritten.
type PruneImports struct {
	Pos Pos
}

func parsePruneImports(ps *parser, at Pos, n *yaml.Node) (Op, error) {
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null", n.Kind == yaml.MappingNode && len(n.Content) == 0:
		return &PruneImports{Pos: at}, nil
	case n.Kind == yaml.MappingNode:
		return nil, ps.errf(n.Content[0], "prune-imports takes no keys (found %q): write `- prune-imports: {}`", n.Content[0].Value)
	}
	return nil, ps.errf(n, "prune-imports takes no arguments: write `- prune-imports: {}`, not %s", kindName(n))
}

// Kind implements Op.
func (op *PruneImports) Kind() string { return "prune-imports" }

// Position implements Op.
func (op *PruneImports) Position() Pos { return op.Pos }

// refSite is a reference to an import inside export data that unrmod can
// rewrite: an object property's value or a state frame's node.
type refSite struct {
	export   int
	at, size int // the compact index's offset in the export data and its size
	ref      reader.ObjectRef
	prop     *reader.Property // the tag whose value it is; nil in a state frame
}

// importRefs is what scanImportRefs found about the imports of a package.
type importRefs struct {
	used   []bool   // referred to from a table or a rewritable site
	opaque []string // where bytes unrmod cannot read may refer to it ("" nowhere)
	sites  []refSite
}

// refFreeStructs are the binary (atomic) structs whose members hold no
// object references.
var refFreeStructs = map[string]bool{
	"vector": true, "rotator": true, "color": true, "plane": true, "sphere": true, "scale": true,
	"coords": true, "box": true, "guid": true, "range": true, "rangevector": true,
}

// scanImportRefs finds every reference to an import: in the export table,
// in object properties and state frames (sites), and, for the bytes unrmod
// cannot read (script, native data of most classes, arrays and structs),
// every compact index anywhere in them that decodes to an import. Data this
// patch has not changed can only refer to imports the package had when it
// was read.
func scanImportRefs(c *legacyContext) *importRefs {
	p := c.p
	n := len(p.Imports)
	r := &importRefs{used: make([]bool, n), opaque: make([]string, n)}
	use := func(o reader.ObjectRef) {
		if k, ok := o.Import(); ok && k < n {
			r.used[k] = true
		}
	}
	for i := range p.Exports {
		e := &p.Exports[i]
		use(e.Class)
		use(e.Super)
		use(e.Outer)
		if len(e.Data) == 0 {
			continue
		}
		limit := min(c.imports0, n)
		if c.owned[i] {
			limit = n
		}
		opaque := func(from, to int, what string) {
			d := e.Data[:to]
			for pos := from; pos < to; pos++ {
				v, _, err := binio.ReadIndex(d[pos:])
				if err == nil && v < 0 {
					if k := int(-int64(v) - 1); k < limit && r.opaque[k] == "" {
						r.opaque[k] = fmt.Sprintf("%s (at data offset %d)", what, pos)
					}
				}
			}
		}
		path := p.ExportPath(i)
		if e.Class == 0 {
			opaque(0, len(e.Data), "the script and class data of "+path)
			continue
		}
		site := func(at, size int, v int32, q *reader.Property) {
			ref := reader.ObjectRef(v)
			if _, ok := ref.Import(); ok {
				use(ref)
				r.sites = append(r.sites, refSite{export: i, at: at, size: size, ref: ref, prop: q})
			}
		}
		if e.Flags&reader.RFHasStack != 0 {
			cur := binio.NewCursor(e.Data, 0)
			node := cur.Index("node")
			nodeSize := cur.Pos()
			stateNode := cur.Index("state node")
			stateEnd := cur.Pos()
			if cur.Err() != nil {
				opaque(0, len(e.Data), "the data of "+path)
				continue
			}
			site(0, nodeSize, node, nil)
			site(nodeSize, stateEnd-nodeSize, stateNode, nil)
		}
		props, err := p.Properties(i)
		if err != nil {
			opaque(0, len(e.Data), "the data of "+path)
			continue
		}
		for k := range props.Props {
			q := &props.Props[k]
			label := fmt.Sprintf("property %s of %s", p.NameOf(q.Name), path)
			switch q.Type {
			case reader.PropByte, reader.PropInt, reader.PropBool, reader.PropFloat, reader.PropName, reader.PropStr:
			case reader.PropObject:
				v, size, err := binio.ReadIndex(q.Value(e.Data))
				if err != nil || size != q.Size {
					opaque(q.ValueStart, q.ValueStart+q.Size, label)
					continue
				}
				site(q.ValueStart, size, v, q)
			case reader.PropString:
				if p.Header.Version.File >= reader.VerUE2 { // a delegate
					opaque(q.ValueStart, q.ValueStart+q.Size, label)
				}
			case reader.PropStruct:
				sn := strings.ToLower(p.NameOf(q.StructName))
				switch {
				case refFreeStructs[sn]:
				case sn == "pointregion":
					// INDEX Zone, INT iLeaf, BYTE ZoneNumber.
					v, size, err := binio.ReadIndex(q.Value(e.Data))
					if err != nil || size+5 != q.Size {
						opaque(q.ValueStart, q.ValueStart+q.Size, label)
						continue
					}
					site(q.ValueStart, size, v, q)
				default:
					opaque(q.ValueStart, q.ValueStart+q.Size, label)
				}
			default:
				opaque(q.ValueStart, q.ValueStart+q.Size, label)
			}
		}
		end := refFreeNativeEnd(p, i, props)
		if end < len(e.Data) {
			opaque(end, len(e.Data), fmt.Sprintf("the %s data of %s", p.ClassName(i), path))
		}
	}
	return r
}

// refFreeNativeEnd returns the offset up to which export i's data, after its
// properties, is known to hold no object reference: the mips of a texture,
// the file of a sound or music, the colours of a palette, the text of a
// text buffer. For other classes it is the end of the properties.
func refFreeNativeEnd(p *reader.Package, i int, props *reader.PropertyList) int {
	data := p.Exports[i].Data
	switch p.NativeKind(i) {
	case reader.NativeTexture:
		nl, err := p.Native(i)
		switch {
		case err != nil:
		case nl.End >= 0:
			return nl.End
		case len(nl.Mips) > 0:
			return nl.Mips[len(nl.Mips)-1].Lazy.End + 10 // USize, VSize, UBits, VBits
		}
	case reader.NativeSound, reader.NativeMusic:
		if nl, err := p.Native(i); err == nil && nl.End >= 0 {
			return nl.End
		}
	}
	c := binio.NewCursor(data, 0)
	c.Seek(props.End, "native data")
	switch strings.ToLower(p.ClassChain(i)[0]) {
	case "palette":
		n := c.Count("colours", 4)
		c.Bytes(4*n, "colours")
	case "textbuffer":
		c.I32("Pos")
		c.I32("Top")
		c.FString("Text")
	}
	if c.Err() != nil {
		return props.End
	}
	return c.Pos()
}

func (op *PruneImports) applyLegacy(c *legacyContext) ([]Change, error) {
	p := c.p
	n := len(p.Imports)
	refs := scanImportRefs(c)
	// Keep what is used or may be, and the outer chains of what is kept.
	keep := make([]bool, n)
	var mark func(k int)
	mark = func(k int) {
		for depth := 0; k >= 0 && k < n && !keep[k] && depth <= reader.MaxOuterDepth; depth++ {
			keep[k] = true
			next, ok := p.Imports[k].Outer.Import()
			if !ok {
				return
			}
			k = next
		}
	}
	fixed := -1 // the highest index that bytes unrmod cannot rewrite may name
	for k := 0; k < n; k++ {
		if refs.used[k] || refs.opaque[k] != "" {
			mark(k)
		}
		if refs.opaque[k] != "" {
			fixed = k
		}
	}
	var unused []int // highest index first
	for k := n - 1; k >= 0; k-- {
		if !keep[k] {
			unused = append(unused, k)
		}
	}
	// Removing imports renumbers the ones after them; an import that
	// unreadable bytes may name must keep its index, so at most
	// n-1-fixed imports can go. The highest-numbered go first.
	var blocked []int
	if allowed := n - 1 - fixed; len(unused) > allowed {
		unused, blocked = unused[:allowed], unused[allowed:]
	}
	var notes []string
	if len(blocked) > 0 {
		notes = append(notes, fmt.Sprintf("kept %s that nothing refers to, because removing %s would renumber %s, which %s may name: %s",
			count(len(blocked), "unused import"), them(len(blocked)), describe(p, reader.ImportRef(fixed)), refs.opaque[fixed], importList(p, blocked)))
	}
	var maybe []int
	for k := 0; k < n; k++ {
		if refs.opaque[k] != "" && !refs.used[k] && !outerOfUsed(p, k, refs.used) {
			maybe = append(maybe, k)
		}
	}
	if len(maybe) > 0 {
		notes = append(notes, fmt.Sprintf("kept %s that only bytes unrmod cannot read for references (script bytecode, native data) may name, to be safe: %s",
			count(len(maybe), "import"), importListWhere(p, maybe, refs.opaque)))
	}
	summary := Change{Op: op.Kind(), Target: "import table", Warning: strings.Join(notes, "; ")}
	if len(unused) == 0 {
		summary.New, summary.Already = "no import to remove", true
		return []Change{summary}, nil
	}

	// New places: kept imports before the new end stay; those after it
	// fill the holes the removed ones leave.
	removed := make([]bool, n)
	for _, k := range unused {
		removed[k] = true
	}
	m := n - len(unused)
	newIndex := make([]int, n)
	var holes []int
	for k := 0; k < n; k++ {
		newIndex[k] = k
		if removed[k] && k < m {
			holes = append(holes, k)
		}
	}
	var moved []string
	for k := m; k < n; k++ {
		if !removed[k] {
			newIndex[k], holes = holes[0], holes[1:]
			moved = append(moved, fmt.Sprintf("%s %d → %d", p.Path(reader.ImportRef(k)), k, newIndex[k]))
		}
	}
	remap := func(r reader.ObjectRef) reader.ObjectRef {
		if k, ok := r.Import(); ok && k < n {
			return reader.ImportRef(newIndex[k])
		}
		return r
	}
	if err := c.checkResizes(op.Pos, refs.sites, remap); err != nil {
		return nil, err
	}

	var changes []Change
	for k := n - 1; k >= 0; k-- {
		if removed[k] {
			im := &p.Imports[k]
			changes = append(changes, Change{Op: op.Kind(), Target: "import table",
				Old: fmt.Sprintf("%s (%s.%s, index %d)", p.Path(reader.ImportRef(k)), p.NameOf(im.ClassPackage), p.NameOf(im.ClassName), k)})
		}
	}
	sort.Slice(changes, func(a, b int) bool { return changes[a].Old < changes[b].Old })

	rewritten := 0
	imports := make([]reader.Import, m)
	for k := 0; k < n; k++ {
		if removed[k] {
			continue
		}
		im := p.Imports[k]
		if o := remap(im.Outer); o != im.Outer {
			im.Outer = o
			rewritten++
		}
		imports[newIndex[k]] = im
	}
	for i := range p.Exports {
		e := &p.Exports[i]
		for _, f := range []*reader.ObjectRef{&e.Class, &e.Super, &e.Outer} {
			if o := remap(*f); o != *f {
				*f = o
				rewritten++
			}
		}
	}
	// Data: from the end of each export backwards, so earlier offsets stay valid.
	sites := append([]refSite(nil), refs.sites...)
	sort.Slice(sites, func(a, b int) bool {
		if sites[a].export != sites[b].export {
			return sites[a].export < sites[b].export
		}
		return sites[a].at > sites[b].at
	})
	for _, s := range sites {
		nr := remap(s.ref)
		if nr == s.ref {
			continue
		}
		at, size := s.at, s.size
		repl := binio.AppendIndex(nil, int32(nr))
		if s.prop != nil && len(repl) != size {
			// The value's size is in its tag: write the whole tag again.
			q := s.prop
			old := q.Value(p.Exports[s.export].Data)
			off := s.at - q.ValueStart
			value := append(append(append([]byte(nil), old[:off]...), repl...), old[off+s.size:]...)
			tag := writer.PropertyTag{Name: q.Name, Type: q.Type, StructName: q.StructName, ArrayIndex: q.ArrayIndex}
			enc, err := writer.AppendPropertyTag(nil, tag, value)
			if err != nil {
				return nil, errorf(op.Pos, "%s: %v", p.ExportPath(s.export), err)
			}
			at, size, repl = q.Start, q.ValueStart+q.Size-q.Start, enc
		}
		if err := c.splice(op.Pos, s.export, at, size, repl); err != nil {
			return nil, err
		}
		rewritten++
	}
	p.Imports = imports

	summary.Field = "count"
	summary.Old = count(n, "import")
	summary.New = fmt.Sprintf("%s: %d removed", count(m, "import"), len(unused))
	if len(moved) > 0 {
		summary.New += fmt.Sprintf(", %d renumbered (%s)", len(moved), strings.Join(moved, ", "))
	}
	summary.New += fmt.Sprintf(", %s rewritten", count(rewritten, "reference"))
	return append(changes, summary), nil
}

// checkResizes refuses a renumbering that would change the size of a
// reference inside an export whose native data may hold file offsets
// unrmod cannot move, before anything changes.
func (c *legacyContext) checkResizes(pos Pos, sites []refSite, remap func(reader.ObjectRef) reader.ObjectRef) error {
	p := c.p
	for _, s := range sites {
		nr := remap(s.ref)
		if nr == s.ref || binio.IndexLen(int32(nr)) == s.size || p.NativeKind(s.export) != reader.NativeUnknown {
			continue
		}
		if nl, err := p.Native(s.export); err != nil || len(nl.Suspects) > 0 {
			return errorf(pos, "renumbering %s to %d changes the size of a reference in %s, whose %s data may hold file offsets unrmod cannot move; nothing was pruned",
				describe(p, s.ref), -int(nr)-1, p.ExportPath(s.export), p.ClassName(s.export))
		}
	}
	return nil
}

// outerOfUsed reports whether import k is in the outer chain of an import
// that is used.
func outerOfUsed(p *reader.Package, k int, used []bool) bool {
	for j := range p.Imports {
		if !used[j] {
			continue
		}
		for o, depth := p.Imports[j].Outer, 0; o != 0 && depth <= reader.MaxOuterDepth; depth++ {
			x, ok := o.Import()
			if !ok {
				break
			}
			if x == k {
				return true
			}
			o = p.Imports[x].Outer
		}
	}
	return false
}

// importList names imports for messages, at most 8.
func importList(p *reader.Package, list []int) string {
	var out []string
	for _, k := range list {
		if len(out) == 8 {
			out = append(out, fmt.Sprintf("and %d more", len(list)-8))
			break
		}
		out = append(out, describe(p, reader.ImportRef(k)))
	}
	return strings.Join(out, ", ")
}

// importListWhere is importList with where each import may be named.
func importListWhere(p *reader.Package, list []int, where []string) string {
	var out []string
	for _, k := range list {
		if len(out) == 8 {
			out = append(out, fmt.Sprintf("and %d more", len(list)-8))
			break
		}
		out = append(out, describe(p, reader.ImportRef(k))+" (in "+where[k]+")")
	}
	return strings.Join(out, ", ")
}

// them is "it" or "them".
func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
