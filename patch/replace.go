package patch

import (
	"go.yaml.in/yaml/v3"
)

// ReplaceExport replaces an export's serialised data, either with given
// bytes or with a copy of another export (of this or another package).
//
// Given bytes must be this export's own (as `unrmod export-data` writes
// them), perhaps edited in place: they are checked against the package's
// names and objects and the export's class, and refused with a
// *DataMisfitError when they do not fit; they are rebased from the offset
// their lazy arrays name. A copy is rebased to where it lands; a copy from
// another package also has its names and object references remapped into
// this package.
type ReplaceExport struct {
	Pos    Pos
	Object string
	data   *dataSource
	from   *exportSource
}

type exportSource struct {
	pos    Pos
	file   string // "" for the same package
	object string
}

func parseReplaceExport(ps *parser, at Pos, n *yaml.Node) (Op, error) {
	m, err := ps.fields(n, "replace-export", []string{"object", "data", "from"}, []string{"object"})
	if err != nil {
		return nil, err
	}
	op := &ReplaceExport{Pos: at}
	if op.Object, err = ps.nonEmpty(m["object"], "object"); err != nil {
		return nil, err
	}
	dn, hasData := m["data"]
	fn, hasFrom := m["from"]
	if hasData == hasFrom {
		return nil, ps.errf(n, "replace-export takes exactly one of data: {file|hex|base64} or from: {file, object}")
	}
	if hasData {
		op.data, err = ps.data(dn)
		return op, err
	}
	fm, err := ps.fields(fn, "from", []string{"file", "object"}, []string{"object"})
	if err != nil {
		return nil, err
	}
	op.from = &exportSource{pos: ps.pos(fn)}
	if op.from.object, err = ps.nonEmpty(fm["object"], "from object"); err != nil {
		return nil, err
	}
	if f, ok := fm["file"]; ok {
		if op.from.file, err = ps.nonEmpty(f, "from file"); err != nil {
			return nil, err
		}
		op.from.file = slashes(op.from.file)
	}
	return op, nil
}

// Kind implements Op.
func (op *ReplaceExport) Kind() string { return "replace-export" }

// Position implements Op.
func (op *ReplaceExport) Position() Pos { return op.Pos }
