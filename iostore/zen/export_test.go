package zen

import (
	"bytes"

	"github.com/unrmod/unrmod/internal/binio"
)

// KeepShortcut decodes data as DecodePackage does, up to the check that it
// encodes back, and returns what the shortcut of that check (canonical)
// says and what encoding the whole package and comparing it with data
// says: the shortcut must never say yes where the comparison says no.
func KeepShortcut(name string, data []byte) (short, full bool, err error) {
	l, err := decodeLayout(name, data, nil)
	if err != nil {
		return false, false, err
	}
	d := &decoder{file: name, data: data, total: len(data), c: binio.NewCursor(data, 0), p: &Package{Layout: l, size: len(data)}}
	d.c.SetKind(ErrCorrupt)
	if l.IsUE5() {
		err = d.decodeUE5()
	} else {
		err = d.decodeUE4()
	}
	if err == nil {
		err = d.c.Err()
	}
	if err == nil {
		err = d.mapData()
	}
	if err == nil {
		err = d.checkPaths()
	}
	if err != nil {
		return false, false, err
	}
	var canon [secCount][]byte
	out, err := d.p.encode(nil, &canon)
	return d.canonical(), err == nil && bytes.Equal(out, data), nil
}
