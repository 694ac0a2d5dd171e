package uasset

import (
	"bytes"

	"github.com/unrmod/unrmod/ue"
)

// EncodeChecked encodes p (see Encode) and checks the output before it is
// written anywhere: it must decode again as p's release, and show no
// problem (Problems) that p does not show itself. name is the output's
// header file name, for errors. kept lists p's own problems, which an
// unchanged output keeps byte for byte. An output that fails the check is
// refused with an error wrapping ErrNotEncodable that names the structure.
func (p *Package) EncodeChecked(name string) (uasset, uexp []byte, kept []ue.Problem, err error) {
	uasset, uexp, err = p.Encode()
	if err != nil {
		return nil, nil, nil, err
	}
	var data []byte
	if p.Split {
		data = uexp
	}
	q, err := Decode(name, uasset, data, &Options{Release: p.Release})
	if err != nil {
		return nil, nil, nil, errorf(name, "encoded asset", -1, ErrNotEncodable, "the output does not decode again: %v", err)
	}
	kept = p.Problems()
	had := map[string]bool{}
	for _, x := range kept {
		had[x.Struct+"\x00"+x.Msg] = true
	}
	for _, x := range q.Problems() {
		if !had[x.Struct+"\x00"+x.Msg] {
			return nil, nil, nil, errorf(name, x.Struct, x.Offset, ErrNotEncodable, "the output would have a problem the input has not: %s", x.Msg)
		}
	}
	if len(q.Exports) != len(p.Exports) {
		return nil, nil, nil, errorf(name, "export map", -1, ErrNotEncodable, "the output decodes with %d exports, not %d", len(q.Exports), len(p.Exports))
	}
	for i := range p.Exports {
		if !bytes.Equal(q.Exports[i].Data, p.Exports[i].Data) {
			return nil, nil, nil, errorf(name, "export data", q.Exports[i].SerialOffset, ErrNotEncodable, "export %d decodes with other data than it was given", i)
		}
	}
	return uasset, uexp, kept, nil
}
