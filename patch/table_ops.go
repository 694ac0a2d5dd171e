package patch

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/tables"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// ---- add-row, remove-row, rename-row, remove-element ----

// AddRow adds a row to a DataTable export: a copy of the row CopyOf, or
// the row struct's defaults (tagged: no properties; unversioned: every
// property zero).
type AddRow struct {
	Pos    Pos
	Object string
	Row    string
	CopyOf string
}

// RemoveRow removes a row from a DataTable export.
type RemoveRow struct {
	Pos    Pos
	Object string
	Row    string
}

// RenameRow renames a row of a DataTable export (the row name is an
// FName; a new name is added to the name map).
type RenameRow struct {
	Pos    Pos
	Object string
	Row    string
	To     string
	toPos  Pos
}

// RemoveElement removes one element of an array property (Property names
// it with its index, e.g. Values[2]) of an export or of a DataTable row.
type RemoveElement struct {
	Pos      Pos
	Object   string
	Row      string
	Property string
}

func parseAddRow(ps *parser, at Pos, n *yaml.Node) (Op, error) {
	m, err := ps.fields(n, "add-row", []string{"object", "row", "copy-of"}, []string{"object", "row"})
	if err != nil {
		return nil, err
	}
	op := &AddRow{Pos: at}
	if op.Object, err = ps.nonEmpty(m["object"], "object"); err != nil {
		return nil, err
	}
	if op.Row, err = ps.nonEmpty(m["row"], "row"); err != nil {
		return nil, err
	}
	if err := checkNewName(ps.pos(m["row"]), op.Row); err != nil {
		return nil, err
	}
	if c, ok := m["copy-of"]; ok {
		if op.CopyOf, err = ps.nonEmpty(c, "copy-of"); err != nil {
			return nil, err
		}
	}
	return op, nil
}

func parseRemoveRow(ps *parser, at Pos, n *yaml.Node) (Op, error) {
	m, err := ps.fields(n, "remove-row", []string{"object", "row"}, []string{"object", "row"})
	if err != nil {
		return nil, err
	}
	op := &RemoveRow{Pos: at}
	if op.Object, err = ps.nonEmpty(m["object"], "object"); err != nil {
		return nil, err
	}
	if op.Row, err = ps.nonEmpty(m["row"], "row"); err != nil {
		return nil, err
	}
	return op, nil
}

func parseRenameRow(ps *parser, at Pos, n *yaml.Node) (Op, error) {
	m, err := ps.fields(n, "rename-row", []string{"object", "row", "to"}, []string{"object", "row", "to"})
	if err != nil {
		return nil, err
	}
	op := &RenameRow{Pos: at}
	if op.Object, err = ps.nonEmpty(m["object"], "object"); err != nil {
		return nil, err
	}
	if op.Row, err = ps.nonEmpty(m["row"], "row"); err != nil {
		return nil, err
	}
	if op.To, err = ps.nonEmpty(m["to"], "to"); err != nil {
		return nil, err
	}
	op.toPos = ps.pos(m["to"])
	return op, checkNewName(op.toPos, op.To)
}

func parseRemoveElement(ps *parser, at Pos, n *yaml.Node) (Op, error) {
	m, err := ps.fields(n, "remove-element", []string{"object", "row", "property"}, []string{"object", "property"})
	if err != nil {
		return nil, err
	}
	op := &RemoveElement{Pos: at}
	if op.Object, err = ps.nonEmpty(m["object"], "object"); err != nil {
		return nil, err
	}
	if op.Property, err = ps.nonEmpty(m["property"], "property"); err != nil {
		return nil, err
	}
	if !strings.HasSuffix(strings.TrimSpace(op.Property), "]") {
		return nil, ps.errf(m["property"], "property must name an array element with its index, e.g. Values[2]")
	}
	if rn, ok := m["row"]; ok {
		if op.Row, err = ps.nonEmpty(rn, "row"); err != nil {
			return nil, err
		}
	}
	return op, nil
}

// Kind implements Op.
func (op *AddRow) Kind() string { return "add-row" }

// Position implements Op.
func (op *AddRow) Position() Pos { return op.Pos }

// Kind implements Op.
func (op *RemoveRow) Kind() string { return "remove-row" }

// Position implements Op.
func (op *RemoveRow) Position() Pos { return op.Pos }

// Kind implements Op.
func (op *RenameRow) Kind() string { return "rename-row" }

// Position implements Op.
func (op *RenameRow) Position() Pos { return op.Pos }

// Kind implements Op.
func (op *RemoveElement) Kind() string { return "remove-element" }

// Position implements Op.
func (op *RemoveElement) Position() Pos { return op.Pos }

// dataEdit is an operation that changes one export's data through props.
type dataEdit struct {
	pos    Pos
	object string
	field  string
	edit   func([]byte, *props.Context) ([]byte, props.Change, error)
}

func (op *AddRow) dataEdit() dataEdit {
	return dataEdit{op.Pos, op.Object, "row " + op.Row, func(d []byte, c *props.Context) ([]byte, props.Change, error) {
		return props.AddRow(d, c, op.Row, op.CopyOf)
	}}
}

func (op *RemoveRow) dataEdit() dataEdit {
	return dataEdit{op.Pos, op.Object, "row " + op.Row, func(d []byte, c *props.Context) ([]byte, props.Change, error) {
		return props.RemoveRow(d, c, op.Row)
	}}
}

func (op *RenameRow) dataEdit() dataEdit {
	return dataEdit{op.Pos, op.Object, "row " + op.Row, func(d []byte, c *props.Context) ([]byte, props.Change, error) {
		return props.RenameRow(d, c, op.Row, op.To)
	}}
}

func (op *RemoveElement) dataEdit() dataEdit {
	field := "property " + op.Property
	if op.Row != "" {
		field = "row " + op.Row + ": " + op.Property
	}
	return dataEdit{op.Pos, op.Object, field, func(d []byte, c *props.Context) ([]byte, props.Change, error) {
		return props.RemoveElement(d, c, props.Target{Row: op.Row, Path: op.Property})
	}}
}

func (op *AddRow) applyZen(c *zenContext) ([]Change, error) { return op.dataEdit().zen(c, op.Kind()) }
func (op *RemoveRow) applyZen(c *zenContext) ([]Change, error) {
	return op.dataEdit().zen(c, op.Kind())
}
func (op *RenameRow) applyZen(c *zenContext) ([]Change, error) {
	return op.dataEdit().zen(c, op.Kind())
}
func (op *RemoveElement) applyZen(c *zenContext) ([]Change, error) {
	return op.dataEdit().zen(c, op.Kind())
}
func (op *AddRow) applyCooked(c *cookedContext) ([]Change, error) {
	return op.dataEdit().cooked(c, op.Kind())
}
func (op *RemoveRow) applyCooked(c *cookedContext) ([]Change, error) {
	return op.dataEdit().cooked(c, op.Kind())
}
func (op *RenameRow) applyCooked(c *cookedContext) ([]Change, error) {
	return op.dataEdit().cooked(c, op.Kind())
}
func (op *RemoveElement) applyCooked(c *cookedContext) ([]Change, error) {
	return op.dataEdit().cooked(c, op.Kind())
}

// zen applies the edit to an export of a zen package.
func (de dataEdit) zen(c *zenContext, kind string) ([]Change, error) {
	p := c.p
	i, ctx, err := c.propsContext(de.pos, de.object)
	if err != nil {
		return nil, err
	}
	names := len(p.Names)
	data, ch, err := de.edit(p.Exports[i].Data, ctx)
	if err != nil {
		p.Names = p.Names[:names]
		return nil, errorf(de.pos, "%s: %v", p.ExportPath(i), err)
	}
	if !ch.Already {
		p.Exports[i].Data = data
	}
	return []Change{de.change(kind, "export "+p.ExportPath(i), ch)}, nil
}

// cooked applies the edit to an export of a cooked asset.
func (de dataEdit) cooked(c *cookedContext, kind string) ([]Change, error) {
	i, err := c.resolveExport(de.pos, de.object)
	if err != nil {
		return nil, err
	}
	ch, err := assetprops.EditWith(c.p, i, c.mappings, de.edit)
	if errors.Is(err, props.ErrUnversioned) {
		return nil, &Error{Pos: de.pos, Msg: fmt.Sprintf("%v; give the target mappings: (the game's .usmap file)", err), Err: err}
	}
	if err != nil {
		return nil, errorf(de.pos, "%v", err)
	}
	return []Change{de.change(kind, "export "+c.r.ExportPath(i), ch)}, nil
}

func (de dataEdit) change(kind, target string, ch props.Change) Change {
	return Change{Op: kind, Target: target, Field: de.field, Old: ch.Old, New: ch.New, Already: ch.Already,
		Warning: strings.Join(ch.Warnings, "; ")}
}

// tableTypes maps property types to the set-property type names that add
// a property of that type.
var tableTypes = map[string]string{
	"BoolProperty": "bool", "Int8Property": "int8", "Int16Property": "int16", "IntProperty": "int",
	"Int64Property": "int64", "ByteProperty": "byte", "UInt16Property": "uint16", "UInt32Property": "uint32",
	"UInt64Property": "uint64", "FloatProperty": "float", "DoubleProperty": "double", "NameProperty": "name",
	"StrProperty": "str", "EnumProperty": "enum", "ObjectProperty": "object", "ClassProperty": "class",
	"SoftObjectProperty": "softobject", "SoftClassProperty": "softclass",
}

// TableOps returns the operations that make edits (as tables.Plan
// returns them) on the DataTable export object: add-row, remove-row and
// set-property, in the edits' order, at pos.
func TableOps(pos Pos, object string, edits []tables.Edit) []Op {
	ops := make([]Op, 0, len(edits))
	for _, e := range edits {
		switch e.Kind {
		case "add-row":
			ops = append(ops, &AddRow{Pos: pos, Object: object, Row: e.Row, CopyOf: e.CopyOf})
		case "remove-row":
			ops = append(ops, &RemoveRow{Pos: pos, Object: object, Row: e.Row})
		default:
			ops = append(ops, &SetProperty{Pos: pos, Object: object, Row: e.Row, Property: e.Path, Value: e.Text,
				Type: tableTypes[e.Type], valuePos: pos, typePos: pos})
		}
	}
	return ops
}
