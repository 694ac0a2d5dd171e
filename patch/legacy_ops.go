package patch

import (
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/internal/editdist"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// The operations on a legacy package (reader.Package), one apply method
// per operation.

func (op *Rename) applyLegacy(c *legacyContext) ([]Change, error) {
	if err := checkName(op.toPos, op.To); err != nil {
		return nil, err
	}
	p := c.p
	idx := reader.NameRef(-1)
	for _, r := range c.nameBucket(op.From) {
		if p.Names[r].Name == op.From && (idx < 0 || r < idx) {
			idx = r
		}
	}
	if idx < 0 {
		idx = c.findName(op.From)
	}
	if strings.EqualFold(op.From, "None") {
		return nil, errorf(op.Pos, "renaming None would end every property list in the package")
	}
	if idx < 0 {
		if to := c.findName(op.To); to >= 0 {
			return []Change{{Op: op.Kind(), Target: fmt.Sprintf("name %d", to), New: p.Names[to].Name, Already: true}}, nil
		}
		return nil, errorf(op.Pos, "%s has no name %q%s", p.FileName, op.From, nameHint(p, op.From))
	}
	if other := c.findName(op.To); other >= 0 && other != idx {
		return nil, errorf(op.Pos, "cannot rename %q to %q: %s already has the name %q (index %d), and the engine would merge the two",
			op.From, op.To, p.FileName, p.Names[other].Name, other)
	}
	old := p.Names[idx].Name
	if old == op.To {
		return []Change{{Op: op.Kind(), Target: fmt.Sprintf("name %d", idx), New: old, Already: true}}, nil
	}
	c.setName(idx, op.To)
	return []Change{{Op: op.Kind(), Target: fmt.Sprintf("name %d", idx), Old: old, New: op.To, Warning: renameWarning(p, idx),
		Note: renameReach(p, idx)}}, nil
}

func (op *AddName) applyLegacy(c *legacyContext) ([]Change, error) {
	if err := checkName(op.namePos, op.Name); err != nil {
		return nil, err
	}
	if r := c.findName(op.Name); r >= 0 {
		return []Change{{Op: op.Kind(), Target: fmt.Sprintf("name %d", r), New: c.p.Names[r].Name, Already: true}}, nil
	}
	r := c.addName(op.Name)
	return []Change{{Op: op.Kind(), Target: fmt.Sprintf("name %d", r), New: op.Name}}, nil
}

func (op *PackageFlags) applyLegacy(c *legacyContext) ([]Change, error) {
	fp := packageFlagParsers[0]
	set, clear, err := op.Flags.resolve(fp.kind, fp.parse)
	if err != nil {
		return nil, err
	}
	h := &c.p.Header
	old := h.Flags
	h.Flags = (old | reader.PackageFlags(set)) &^ reader.PackageFlags(clear)
	ch := Change{Op: op.Kind(), Target: "header", Field: "flags", Old: old.String(), New: h.Flags.String(), Already: old == h.Flags}
	if h.Flags&reader.PkgAllowDownload != 0 && old&reader.PkgAllowDownload == 0 {
		ch.Warning = "clients download this package from the server: every client that has an older copy must get the new one"
	}
	return []Change{ch}, nil
}

func (op *ObjectFlags) applyLegacy(c *legacyContext) ([]Change, error) {
	r, err := c.resolve(op.Pos, op.Object, true, false)
	if err != nil {
		return nil, err
	}
	fp := objectFlagParsers[0]
	set, clear, err := op.Flags.resolve(fp.kind, fp.parse)
	if err != nil {
		return nil, err
	}
	i, _ := r.Export()
	e := &c.p.Exports[i]
	old := e.Flags
	e.Flags = (old | reader.ObjectFlags(set)) &^ reader.ObjectFlags(clear)
	if (old^e.Flags)&reader.RFHasStack != 0 {
		e.Flags = old
		return nil, errorf(op.Pos, "%s: HasStack says whether the data starts with a state frame; it follows the data and cannot be set or cleared on its own", c.p.ExportPath(i))
	}
	if e.Flags&reader.RFLoadContext == 0 {
		e.Flags = old
		return nil, errorf(op.Pos, "%s would have no LoadForClient/LoadForServer/LoadForEdit flag left, and the engine would never load it", c.p.ExportPath(i))
	}
	return []Change{{Op: op.Kind(), Target: "export " + c.p.ExportPath(i), Field: "flags", Old: old.String(), New: e.Flags.String(), Already: old == e.Flags}}, nil
}

func (op *RetargetImport) applyLegacy(c *legacyContext) ([]Change, error) {
	if err := checkName(op.packagePos, op.Package); err != nil {
		return nil, err
	}
	p := c.p
	r, err := c.resolve(op.Pos, op.Import, false, true)
	if err != nil {
		// A run of this patch may already have moved the import: look
		// for it under the new package.
		if moved := retargetedSpec(op.Import, op.Package); moved != "" {
			if r2, err2 := c.resolve(op.Pos, moved, false, true); err2 == nil {
				return []Change{{Op: op.Kind(), Target: "import " + p.Path(r2), Field: "package", New: op.Package, Already: true}}, nil
			}
		}
		return nil, err
	}
	// The chain from the import up to its top-level package.
	var chain []int
	for q := r; q != 0; {
		i, ok := q.Import()
		if !ok {
			return nil, errorf(op.Pos, "%s: import %s has an export as its outer", p.FileName, p.Path(r))
		}
		chain = append(chain, i)
		q = p.Imports[i].Outer
	}
	if len(chain) < 2 {
		return nil, errorf(op.Pos, "%s is itself a package; retarget an object inside it", p.Path(r))
	}
	oldPath := p.Path(r)
	top := chain[len(chain)-1]
	if strings.EqualFold(p.NameOf(p.Imports[top].ObjectName), op.Package) {
		return []Change{{Op: op.Kind(), Target: "import " + oldPath, Field: "package", New: op.Package, Already: true}}, nil
	}
	// Recreate the groups between the top package and the import under
	// the new package, reusing identical imports where they exist.
	parent := c.findOrAddImport("Core", "Package", op.Package, 0)
	for k := len(chain) - 2; k >= 1; k-- {
		g := p.Imports[chain[k]]
		parent = c.findOrAddImport(p.NameOf(g.ClassPackage), p.NameOf(g.ClassName), p.NameOf(g.ObjectName), parent)
	}
	p.Imports[chain[0]].Outer = parent
	return []Change{{Op: op.Kind(), Target: "import " + oldPath, Field: "package", Old: p.NameOf(p.Imports[top].ObjectName), New: op.Package,
		Warning: "the object must exist, public and of the same class, in " + op.Package + ", or the engine fails to load the package"}}, nil
}

// legacyPropTypes maps set-property's type names to legacy property types;
// "" is the existing tag's.
var legacyPropTypes = map[string]reader.PropertyType{"": 0,
	"int": reader.PropInt, "float": reader.PropFloat, "bool": reader.PropBool, "byte": reader.PropByte,
	"name": reader.PropName, "str": reader.PropStr, "string": reader.PropStr, "object": reader.PropObject,
}

func (op *SetProperty) applyLegacy(c *legacyContext) ([]Change, error) {
	if op.Row != "" {
		return nil, errorf(op.Pos, "row: legacy packages have no DataTables; row applies to DataTable exports of zen packages and cooked assets")
	}
	base, members, err := op.legacyPath()
	if err != nil {
		return nil, err
	}
	p := c.p
	r, err := c.resolve(op.Pos, op.Object, true, false)
	if err != nil {
		return nil, err
	}
	i, _ := r.Export()
	target := "export " + p.ExportPath(i)
	var props *reader.PropertyList
	if p.Exports[i].Class == 0 {
		// A class keeps its default properties at the end of its data.
		target = "class defaults of " + p.ExportPath(i)
		props, err = p.ClassDefaults(i)
		if err != nil {
			return nil, errorf(op.Pos, "%s is a class, whose default properties unrmod cannot find: %v", p.ExportPath(i), err)
		}
	} else if props, err = p.Properties(i); err != nil {
		return nil, errorf(op.Pos, "%v", err)
	}
	field := "property " + op.Property
	if op.Index != 0 {
		field = fmt.Sprintf("property %s[%d]", base, op.Index)
		if members != nil {
			field += "." + strings.Join(members, ".")
		}
	}
	q := props.Find(p, base, op.Index)
	typ, ok := legacyPropTypes[op.Type]
	if !ok {
		return nil, errorf(op.typePos, "type %s is not a property type of legacy packages (int, float, bool, byte, name, str, object)", op.Type)
	}
	if members != nil {
		return op.setLegacyMember(c, i, q, props, base, members, typ, target, field)
	}
	if q != nil {
		if typ != 0 && typ != q.Type {
			return nil, errorf(op.Pos, "%s %s is stored as %s, not %s", target, field, q.Type, typ)
		}
		typ = q.Type
	} else if typ == 0 {
		return nil, errorf(op.Pos, "%s has no %s (it has its class default); add `type:` (int, float, bool, byte, name, str or object) to add it%s",
			p.ExportPath(i), field, c.didYouMean(i, props, base))
	}
	value, shown, err := c.encodeValue(op, typ)
	if err != nil {
		return nil, err
	}
	tag := writerTag(c, base, typ, op.Index, q)
	if typ == reader.PropBool {
		tag.Bool = value[0] != 0
		value = nil
	}
	enc, err := appendTag(tag, value)
	if err != nil {
		return nil, errorf(op.Pos, "%v", err)
	}
	data := p.Exports[i].Data
	if q == nil {
		at := props.Start
		if n := len(props.Props); n > 0 {
			last := props.Props[n-1]
			at = last.ValueStart + last.Size
		}
		if err := c.splice(op.Pos, i, at, 0, enc); err != nil {
			return nil, err
		}
		warn := "the property is added; unrmod cannot check that the object's class declares it with this type"
		if hint := c.didYouMean(i, props, base); hint != "" {
			warn += hint
		}
		return []Change{{Op: op.Kind(), Target: target, Field: field, Old: "(class default)", New: shown, Warning: warn}}, nil
	}
	oldBytes := data[q.Start : q.ValueStart+q.Size]
	old := c.formatValue(i, q)
	if string(oldBytes) == string(enc) {
		return []Change{{Op: op.Kind(), Target: target, Field: field, New: shown, Already: true}}, nil
	}
	if err := c.splice(op.Pos, i, q.Start, len(oldBytes), enc); err != nil {
		return nil, err
	}
	return []Change{{Op: op.Kind(), Target: target, Field: field, Old: old, New: shown}}, nil
}

// legacyPath splits the property a legacy set-property names into the
// property's name and the struct members below it (Location.Z). Static
// arrays are addressed with index:, so a name holding '[' is refused with
// the form to use: the engine would ignore a property of that name.
func (op *SetProperty) legacyPath() (string, []string, error) {
	s := op.Property
	if k := strings.IndexByte(s, '['); k >= 0 {
		name, rest := s[:k], s[k:]
		hint := "property: " + name + ", index: N"
		if j := strings.IndexByte(rest, ']'); j > 1 {
			hint = "property: " + name + rest[j+1:] + ", index: " + rest[1:j]
		}
		return "", nil, errorf(op.Pos, "property %q: legacy packages address static-array elements with index: (%s); a property named %q would be one the engine ignores", s, hint, s)
	}
	parts := strings.Split(s, ".")
	for _, m := range parts {
		if strings.TrimSpace(m) == "" {
			return "", nil, errorf(op.Pos, "property %q has an empty part; a struct member is written Location.Z", s)
		}
	}
	if len(parts) == 1 {
		return s, nil, nil
	}
	return parts[0], parts[1:], nil
}

// setLegacyMember sets a member of the struct property q of export i
// (Location.Z, Region.Zone): the member's bytes are replaced inside the
// struct's value, which is written again with its tag.
func (op *SetProperty) setLegacyMember(c *legacyContext, i int, q *reader.Property, props *reader.PropertyList,
	base string, members []string, typ reader.PropertyType, target, field string) ([]Change, error) {
	p := c.p
	if q == nil {
		return nil, errorf(op.Pos, "%s stores no %s (it has its class default): a struct member is set inside a struct the object stores%s",
			target, base, c.didYouMean(i, props, base))
	}
	if q.Type != reader.PropStruct {
		return nil, errorf(op.Pos, "%s %s is a %s property, not a struct: %s has no members", target, base, q.Type, base)
	}
	v, err := p.PropertyValue(i, q)
	if err != nil {
		return nil, errorf(op.Pos, "%v", err)
	}
	span, err := p.StructMember(v, members)
	if err != nil {
		return nil, errorf(op.Pos, "%s %s (struct %s): %v", target, base, p.NameOf(q.StructName), err)
	}
	switch {
	case span.Type == reader.PropStruct:
		return nil, errorf(op.Pos, "%s is a %s struct; set its members one by one (%s.X)", op.Property, span.Struct, op.Property)
	case typ != 0 && typ != span.Type:
		return nil, errorf(op.typePos, "%s %s is stored as %s, not %s", target, op.Property, span.Type, typ)
	}
	value, shown, err := c.encodeValue(op, span.Type)
	if err != nil {
		return nil, err
	}
	var repl []byte
	at, n := span.Offset, span.Size
	if span.Tag != nil {
		// A member of a tagged struct: its tag is written again with it.
		t := span.Tag
		tag := writer.PropertyTag{Name: t.Name, Type: t.Type, StructName: t.StructName, ArrayIndex: t.ArrayIndex}
		if t.Type == reader.PropBool {
			tag.Bool, value = value[0] != 0, nil
		}
		if repl, err = appendTag(tag, value); err != nil {
			return nil, errorf(op.Pos, "%v", err)
		}
		at, n = t.Start, t.ValueStart+t.Size-t.Start
	} else {
		if span.Type != reader.PropObject && len(value) != span.Size {
			return nil, errorf(op.Pos, "%s: the new value takes %d bytes, the member %d", op.Property, len(value), span.Size)
		}
		repl = value
	}
	raw := make([]byte, 0, len(v.Raw)+len(repl)-n)
	raw = append(append(append(raw, v.Raw[:at]...), repl...), v.Raw[at+n:]...)
	old := "?"
	if fields, ok := p.StructFields(v); ok {
		if f := findField(fields, members); f != nil {
			old = p.FormatValue(f.Value)
		}
	}
	if string(raw) == string(v.Raw) {
		return []Change{{Op: op.Kind(), Target: target, Field: field, New: shown, Already: true}}, nil
	}
	enc, err := appendTag(writerTag(c, base, reader.PropStruct, op.Index, q), raw)
	if err != nil {
		return nil, errorf(op.Pos, "%v", err)
	}
	if err := c.splice(op.Pos, i, q.Start, q.ValueStart+q.Size-q.Start, enc); err != nil {
		return nil, err
	}
	return []Change{{Op: op.Kind(), Target: target, Field: field, Old: old, New: shown}}, nil
}

// findField walks path through struct fields, names compared without case.
func findField(fields []reader.StructField, path []string) *reader.StructField {
	for k := range fields {
		f := &fields[k]
		if f.Index != 0 || !strings.EqualFold(f.Name, path[0]) {
			continue
		}
		if len(path) == 1 {
			return f
		}
		return findField(f.Fields, path[1:])
	}
	return nil
}

// didYouMean names the properties close to name among export i's own and,
// when its class is a class of this package, the class's defaults: "" or
// "; did you mean X?".
func (c *legacyContext) didYouMean(i int, props *reader.PropertyList, name string) string {
	p := c.p
	cands := map[string]bool{}
	add := func(l *reader.PropertyList) {
		for k := range l.Props {
			cands[p.NameOf(l.Props[k].Name)] = true
		}
	}
	add(props)
	if cl := p.Exports[i].Class; cl > 0 {
		if d, err := p.ClassDefaults(int(cl) - 1); err == nil {
			add(d)
		}
	}
	best, bestD := "", 3
	ln := strings.ToLower(name)
	for n := range cands {
		if strings.EqualFold(n, name) {
			continue
		}
		if d := editdist.Distance(strings.ToLower(n), ln); d < bestD || d == bestD && n < best {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

func nameHint(p *reader.Package, s string) string {
	var close []string
	ls := strings.ToLower(s)
	for _, n := range p.Names {
		if len(close) < 8 && (strings.Contains(strings.ToLower(n.Name), ls) || editdist.Distance(strings.ToLower(n.Name), ls) <= 2) {
			close = append(close, n.Name)
		}
	}
	if len(close) == 0 {
		return ""
	}
	return "; close matches: " + strings.Join(close, ", ")
}

// renameWarning says what else the renamed name stands for.
func renameWarning(p *reader.Package, idx reader.NameRef) string {
	var uses []string
	for i := range p.Exports {
		e := &p.Exports[i]
		if e.ObjectName == idx && e.Flags&reader.RFPublic != 0 {
			uses = append(uses, fmt.Sprintf("it names the public object %s, which other packages import by name", p.ExportPath(i)))
			break
		}
	}
	for i := range p.Imports {
		im := &p.Imports[i]
		if im.ObjectName == idx || im.ClassName == idx || im.ClassPackage == idx {
			uses = append(uses, fmt.Sprintf("import %s uses it, so the engine will look for the new name in the other package", p.Path(reader.ImportRef(i))))
			break
		}
	}
	for i := range p.Exports {
		if l, err := p.Properties(i); err == nil {
			for _, q := range l.Props {
				if q.Name == idx {
					uses = append(uses, fmt.Sprintf("it tags property values (in %s), which the engine will skip under the new name", p.ExportPath(i)))
					break
				}
			}
		}
		if len(uses) > 0 && strings.Contains(uses[len(uses)-1], "tags property") {
			break
		}
	}
	return strings.Join(uses, "; ")
}

// renameReach counts what a name reaches besides its table entry: object
// names, the classes and outers of objects, import fields, property tags,
// struct names in tags and name-valued properties. Script bytecode and
// native data are not searched.
func renameReach(p *reader.Package, idx reader.NameRef) string {
	var exportNames, importNames, importClasses, classOf, outerOf, tags, structs, values int
	named := func(r reader.ObjectRef) bool {
		if i, ok := r.Export(); ok && i < len(p.Exports) {
			return p.Exports[i].ObjectName == idx
		}
		if i, ok := r.Import(); ok && i < len(p.Imports) {
			return p.Imports[i].ObjectName == idx
		}
		return false
	}
	for i := range p.Imports {
		im := &p.Imports[i]
		if im.ObjectName == idx {
			importNames++
		}
		if im.ClassName == idx || im.ClassPackage == idx {
			importClasses++
		}
		if named(im.Outer) {
			outerOf++
		}
	}
	for i := range p.Exports {
		e := &p.Exports[i]
		if e.ObjectName == idx {
			exportNames++
		}
		if e.Class != 0 && named(e.Class) {
			classOf++
		}
		if named(e.Outer) {
			outerOf++
		}
		l, err := p.Properties(i)
		if err != nil {
			continue
		}
		for k := range l.Props {
			q := &l.Props[k]
			if q.Name == idx {
				tags++
			}
			if q.Type == reader.PropStruct && q.StructName == idx {
				structs++
			}
			if q.Type == reader.PropName {
				if v, err := p.PropertyValue(i, q); err == nil && v.Name == idx {
					values++
				}
			}
		}
	}
	var parts []string
	add := func(n int, format string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf(format, n, plural(n)))
		}
	}
	add(exportNames, "%d export name%s")
	add(importNames, "%d import name%s")
	add(importClasses, "%d import class field%s")
	if classOf > 0 {
		parts = append(parts, "the class of "+count(classOf, "export"))
	}
	if outerOf > 0 {
		parts = append(parts, "the outer of "+count(outerOf, "object"))
	}
	add(tags, "%d property tag%s")
	add(structs, "%d struct tag%s")
	add(values, "%d name value%s")
	if len(parts) == 0 {
		return "reaches no object, import or property"
	}
	return "reaches " + strings.Join(parts, ", ")
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// retargetedSpec returns an import path spec with its top-level package
// replaced by pkg ("SkyCity.Deco.runeSgn2" → "MySky.Deco.runeSgn2"), or ""
// when spec has no package part.
func retargetedSpec(spec, pkg string) string {
	prefix, path, suffix := "", spec, ""
	if q := strings.IndexByte(spec, '\''); q >= 0 && strings.HasSuffix(spec, "'") && q < len(spec)-1 {
		prefix, path, suffix = spec[:q+1], spec[q+1:len(spec)-1], "'"
	}
	dot := strings.IndexByte(path, '.')
	if dot <= 0 {
		return ""
	}
	return prefix + pkg + path[dot:] + suffix
}

// findOrAddImport returns the import with these names and outer, adding it
// (and its names) when missing.
func (c *legacyContext) findOrAddImport(classPkg, class, name string, outer reader.ObjectRef) reader.ObjectRef {
	p := c.p
	for i := range p.Imports {
		im := &p.Imports[i]
		if im.Outer == outer && strings.EqualFold(p.NameOf(im.ObjectName), name) &&
			strings.EqualFold(p.NameOf(im.ClassName), class) && strings.EqualFold(p.NameOf(im.ClassPackage), classPkg) {
			return reader.ImportRef(i)
		}
	}
	p.Imports = append(p.Imports, reader.Import{ClassPackage: c.addName(classPkg), ClassName: c.addName(class), Outer: outer, ObjectName: c.addName(name)})
	return reader.ImportRef(len(p.Imports) - 1)
}
