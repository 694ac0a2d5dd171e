package patch

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/reader"
)

// checkNewName applies the rules every kind of package has for a new name;
// each kind checks its own (legacy: 63 letters, digits, _ and -; zen: 1023
// characters) when the operation applies.
func checkNewName(pos Pos, s string) error {
	switch {
	case s == "":
		return errorf(pos, "a name cannot be empty")
	case strings.EqualFold(s, "None"):
		return errorf(pos, "the name None is reserved")
	}
	return nil
}

// ---- rename ----

// Rename renames a name table entry. Every reference to the name (object
// names, property tags, class names) sees the new text.
type Rename struct {
	Pos      Pos
	From, To string
	toPos    Pos
}

func parseRename(ps *parser, at Pos, n *yaml.Node) (Op, error) {
	m, err := ps.fields(n, "rename", []string{"from", "to"}, []string{"from", "to"})
	if err != nil {
		return nil, err
	}
	op := &Rename{Pos: at}
	if op.From, err = ps.nonEmpty(m["from"], "rename from"); err != nil {
		return nil, err
	}
	if op.To, err = ps.nonEmpty(m["to"], "rename to"); err != nil {
		return nil, err
	}
	op.toPos = ps.pos(m["to"])
	return op, checkNewName(op.toPos, op.To)
}

// Kind implements Op.
func (op *Rename) Kind() string { return "rename" }

// Position implements Op.
func (op *Rename) Position() Pos { return op.Pos }

// ---- add-name ----

// AddName appends a name to the name table (flags 0x00070010).
type AddName struct {
	Pos     Pos
	Name    string
	namePos Pos
}

func parseAddName(ps *parser, at Pos, n *yaml.Node) (Op, error) {
	m, err := ps.fields(n, "add-name", []string{"name"}, []string{"name"})
	if err != nil {
		return nil, err
	}
	op := &AddName{Pos: at}
	if op.Name, err = ps.nonEmpty(m["name"], "add-name name"); err != nil {
		return nil, err
	}
	op.namePos = ps.pos(m["name"])
	return op, checkNewName(op.namePos, op.Name)
}

// Kind implements Op.
func (op *AddName) Kind() string { return "add-name" }

// Position implements Op.
func (op *AddName) Position() Pos { return op.Pos }

// ---- package-flags ----

// PackageFlags sets and clears package flags (PKG_*). The flags are kept
// as written and read by the kind of package the patch applies to (legacy
// and zen packages name their flags differently).
type PackageFlags struct {
	Pos   Pos
	Flags FlagChange
}

// FlagChange is the set and clear lists of a flags operation, as written:
// flag names (with or without prefix, any case) or numbers.
type FlagChange struct {
	Set, Clear []FlagName
}

// FlagName is one entry of a flag list and where it is written.
type FlagName struct {
	Text string
	Pos  Pos
}

// flagParser reads one flag of one kind of package.
type flagParser struct {
	kind  string // "legacy", "zen"
	parse func(string) (uint32, error)
}

// resolve reads the lists with parse; the error points at the entry.
func (f *FlagChange) resolve(kind string, parse func(string) (uint32, error)) (set, clear uint32, err error) {
	for _, l := range []struct {
		names []FlagName
		bits  *uint32
	}{{f.Set, &set}, {f.Clear, &clear}} {
		for _, n := range l.names {
			v, err := parse(n.Text)
			if err != nil {
				return 0, 0, errorf(n.Pos, "%v (in a %s package)", err, kind)
			}
			*l.bits |= v
		}
	}
	return set, clear, nil
}

func parsePackageFlags(ps *parser, at Pos, n *yaml.Node) (Op, error) {
	m, err := ps.fields(n, "package-flags", []string{"set", "clear"}, nil)
	if err != nil {
		return nil, err
	}
	op := &PackageFlags{Pos: at}
	op.Flags, err = ps.flagLists(n, m, packageFlagParsers)
	return op, err
}

var (
	packageFlagParsers = []flagParser{
		{"legacy", func(s string) (uint32, error) { f, err := reader.ParsePackageFlag(s); return uint32(f), err }},
		{"zen", func(s string) (uint32, error) { f, err := zen.ParsePackageFlag(s); return uint32(f), err }},
	}
	objectFlagParsers = []flagParser{
		{"legacy", func(s string) (uint32, error) { f, err := reader.ParseObjectFlag(s); return uint32(f), err }},
		{"zen", func(s string) (uint32, error) { f, err := zen.ParseObjectFlag(s); return uint32(f), err }},
	}
)

// flagLists reads the set and clear lists of a flags operation. Each entry
// must name a flag of at least one kind of package (the first parser's
// error is reported otherwise), and no kind may both set and clear a flag.
func (ps *parser) flagLists(n *yaml.Node, m map[string]*yaml.Node, parsers []flagParser) (FlagChange, error) {
	var f FlagChange
	if len(m) == 0 {
		return f, ps.errf(n, "give set: [...] and/or clear: [...]")
	}
	for _, key := range []string{"set", "clear"} {
		ln, ok := m[key]
		if !ok {
			continue
		}
		list, err := ps.strList(ln, key)
		if err != nil {
			return f, err
		}
		for _, en := range list {
			var first error
			known := false
			for _, fp := range parsers {
				if _, err := fp.parse(en.Value); err == nil {
					known = true
				} else if first == nil {
					first = err
				}
			}
			if !known {
				return f, ps.errf(en, "%v", first)
			}
			name := FlagName{Text: en.Value, Pos: ps.pos(en)}
			if key == "set" {
				f.Set = append(f.Set, name)
			} else {
				f.Clear = append(f.Clear, name)
			}
		}
	}
	for _, fp := range parsers {
		set, clear, err := f.resolve(fp.kind, fp.parse)
		if err == nil && set&clear != 0 {
			return f, ps.errf(n, "flag 0x%X is both set and cleared", set&clear)
		}
	}
	if len(f.Set) == 0 && len(f.Clear) == 0 {
		return f, ps.errf(n, "the set and clear lists name no flag; list at least one, e.g. set: [AllowDownload]")
	}
	return f, nil
}

// Kind implements Op.
func (op *PackageFlags) Kind() string { return "package-flags" }

// Position implements Op.
func (op *PackageFlags) Position() Pos { return op.Pos }

// ---- object-flags ----

// ObjectFlags sets and clears an export's object flags (RF_*), kept as
// written as for PackageFlags.
type ObjectFlags struct {
	Pos    Pos
	Object string
	Flags  FlagChange
}

func parseObjectFlags(ps *parser, at Pos, n *yaml.Node) (Op, error) {
	m, err := ps.fields(n, "object-flags", []string{"object", "set", "clear"}, []string{"object"})
	if err != nil {
		return nil, err
	}
	op := &ObjectFlags{Pos: at}
	if op.Object, err = ps.nonEmpty(m["object"], "object"); err != nil {
		return nil, err
	}
	delete(m, "object")
	op.Flags, err = ps.flagLists(n, m, objectFlagParsers)
	return op, err
}

// Kind implements Op.
func (op *ObjectFlags) Kind() string { return "object-flags" }

// Position implements Op.
func (op *ObjectFlags) Position() Pos { return op.Pos }

// ---- retarget-import ----

// RetargetImport makes an import come from another package: the import's
// outermost package is replaced (groups under it are recreated as needed),
// adding names and imports as required. Other imports are not touched.
type RetargetImport struct {
	Pos        Pos
	Import     string
	Package    string
	packagePos Pos
}

func parseRetargetImport(ps *parser, at Pos, n *yaml.Node) (Op, error) {
	m, err := ps.fields(n, "retarget-import", []string{"import", "package"}, []string{"import", "package"})
	if err != nil {
		return nil, err
	}
	op := &RetargetImport{Pos: at}
	if op.Import, err = ps.nonEmpty(m["import"], "import"); err != nil {
		return nil, err
	}
	if op.Package, err = ps.nonEmpty(m["package"], "package"); err != nil {
		return nil, err
	}
	op.packagePos = ps.pos(m["package"])
	return op, checkNewName(op.packagePos, op.Package)
}

// Kind implements Op.
func (op *RetargetImport) Kind() string { return "retarget-import" }

// Position implements Op.
func (op *RetargetImport) Position() Pos { return op.Pos }

// ---- set-property ----

// SetProperty sets a tagged property on an export (or on a row of a
// DataTable export, in a zen package), adding the tag when the property
// has its class default (then Type must be given).
type SetProperty struct {
	Pos      Pos
	Object   string
	Row      string // a DataTable row name (zen packages), or ""
	Property string // a property name; for zen packages a path into structs and arrays (Position.X, Values[2])
	Index    int
	Type     string // "" to take the type of the existing tag; else one of PropertyTypes, lower case
	Value    string
	valuePos Pos
	typePos  Pos
}

// PropertyTypes are the type names set-property takes: those of legacy
// packages (int, float, bool, byte, name, str, object) and the ones zen
// packages add. string is another name for str, soft for softobject.
var PropertyTypes = []string{"int", "float", "bool", "byte", "name", "str", "string", "object",
	"int8", "int16", "int64", "uint16", "uint32", "uint64", "double", "enum", "class", "softobject", "soft", "softclass"}

func parseSetProperty(ps *parser, at Pos, n *yaml.Node) (Op, error) {
	m, err := ps.fields(n, "set-property", []string{"object", "row", "property", "index", "value", "type"}, []string{"object", "property", "value"})
	if err != nil {
		return nil, err
	}
	op := &SetProperty{Pos: at}
	if op.Object, err = ps.nonEmpty(m["object"], "object"); err != nil {
		return nil, err
	}
	if op.Property, err = ps.nonEmpty(m["property"], "property"); err != nil {
		return nil, err
	}
	if rn, ok := m["row"]; ok {
		if op.Row, err = ps.nonEmpty(rn, "row"); err != nil {
			return nil, err
		}
	}
	if in, ok := m["index"]; ok {
		v, err := strconv.ParseInt(strings.TrimSpace(in.Value), 0, 32)
		if err != nil || in.Kind != yaml.ScalarNode || v < 0 || v >= 1<<30 {
			return nil, ps.errf(in, "index must be a static-array index (0 or more)")
		}
		op.Index = int(v)
	}
	if tn, ok := m["type"]; ok {
		t := strings.ToLower(strings.TrimSpace(tn.Value))
		if !contains(PropertyTypes, t) || tn.Kind != yaml.ScalarNode {
			return nil, ps.errf(tn, "type must be one of %s", strings.Join(PropertyTypes, ", "))
		}
		op.Type, op.typePos = t, ps.pos(tn)
	}
	vn := m["value"]
	if vn.Kind == yaml.ScalarNode && vn.Tag == "!!null" {
		return nil, ps.errf(vn, "value is missing; write the new value, e.g. value: 5, value: \"text\" (\"\" for an empty string) or value: None for no object")
	}
	if vn.Kind != yaml.ScalarNode {
		return nil, ps.errf(vn, "value must be a single value (number, true/false, text or object path), not %s", kindName(vn))
	}
	op.Value, op.valuePos = vn.Value, ps.pos(vn)
	return op, nil
}

// Kind implements Op.
func (op *SetProperty) Kind() string { return "set-property" }

// Position implements Op.
func (op *SetProperty) Position() Pos { return op.Pos }
