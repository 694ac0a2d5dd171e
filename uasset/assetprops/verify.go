package assetprops

import (
	"errors"
	"fmt"

	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/usmap"
)

// Problems adds to (*uasset.Package).Problems what only reading the
// properties shows: every export's tagged property list decodes (through
// DecodeExport) and, where the export records its script serialization
// range (UE5 1010+), starts at ScriptSerializationStartOffset and ends,
// just past its terminating None, at ScriptSerializationEndOffset. A
// package cooked with unversioned properties has no tags to read: it gets
// no property problem. The cost is that of decoding every export's
// properties.
func Problems(p *uasset.Package) []ue.Problem {
	return ProblemsWith(p, nil)
}

// ProblemsWith is Problems with the game's property schema m, with which
// the exports of a package cooked with unversioned properties are read
// and checked too (nil leaves them unchecked, as Problems does). An
// export whose class, or a struct it holds, is not in m, or that holds a
// native struct of a layout unrmod does not know, cannot be read; it is
// not counted as a problem.
func ProblemsWith(p *uasset.Package, m *usmap.Mappings) []ue.Problem {
	if p.UnversionedProperties() && m == nil {
		return nil
	}
	if err := checkPropertyVersion(p); err != nil {
		return []ue.Problem{{Struct: "package file summary", Offset: -1, Msg: err.Error()}}
	}
	var out []ue.Problem
	add := func(i int, off int64, format string, args ...any) {
		out = append(out, ue.Problem{Struct: fmt.Sprintf("export %d %q properties", i, p.NameOf(p.Exports[i].ObjectName)),
			Offset: off, Msg: fmt.Sprintf(format, args...)})
	}
	for i := range p.Exports {
		e := &p.Exports[i]
		x, err := DecodeExportWith(p, i, m)
		if err != nil {
			if errors.Is(err, props.ErrUnversioned) || errors.Is(err, usmap.ErrMissing) || errors.Is(err, props.ErrNoSchema) {
				continue
			}
			add(i, e.SerialOffset, "do not decode: %v", err)
			continue
		}
		if e.ScriptSerializationEndOffset == 0 && e.ScriptSerializationStartOffset == 0 {
			continue // not recorded (before UE5 1010)
		}
		l := x.Properties
		if int64(l.Start) != e.ScriptSerializationStartOffset || int64(l.End) != e.ScriptSerializationEndOffset {
			add(i, e.SerialOffset+int64(l.Start), "the property list spans %d..%d of the export's data, ScriptSerializationStart/EndOffset say %d..%d",
				l.Start, l.End, e.ScriptSerializationStartOffset, e.ScriptSerializationEndOffset)
		}
	}
	return out
}
