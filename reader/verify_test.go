package reader_test

import (
	"encoding/binary"
	"testing"

	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// Every problem Verify reports says which structure it is in, by part and
// index, so that the problems of two versions of a package can be compared.
func TestVerifyProblemParts(t *testing.T) {
	src, err := fixture.Demo(reader.Version{File: 69})
	if err != nil {
		t.Fatal(err)
	}
	base, err := reader.Read("UnrmodDemo.u", src)
	if err != nil {
		t.Fatal(err)
	}
	texture, _ := base.Lookup("Stripes")[0].Export()
	cases := []struct {
		name  string
		model func(p *reader.Package)                     // changes the model, which is then encoded
		bytes func(p *reader.Package, data []byte) []byte // or changes the encoded bytes
		part  string
		index int
	}{
		{name: "name without load flags", model: func(p *reader.Package) { p.Names[3].Flags = 0 },
			part: reader.PartName, index: 3},
		{name: "import under an export", model: func(p *reader.Package) { p.Imports[1].Outer = 1 },
			part: reader.PartImport, index: 1},
		{name: "export without load flags", model: func(p *reader.Package) { p.Exports[2].Flags &^= reader.RFLoadContext },
			part: reader.PartExport, index: 2},
		{name: "generation that does not match the tables", model: func(p *reader.Package) { p.Header.Generations[0].NameCount++ },
			part: reader.PartHeader, index: -1},
		{name: "texture SeekPos off by 4", bytes: func(p *reader.Package, data []byte) []byte {
			nl, err := p.Native(texture)
			if err != nil {
				t.Fatal(err)
			}
			at := int(p.Exports[texture].SerialOffset) + nl.Lazy[0].SeekPosAt
			binary.LittleEndian.PutUint32(data[at:], uint32(nl.Lazy[0].SeekPos+4))
			return data
		}, part: reader.PartExportData, index: texture},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := reader.Read("UnrmodDemo.u", src)
			if err != nil {
				t.Fatal(err)
			}
			data := append([]byte(nil), src...)
			if c.model != nil {
				c.model(p)
				if data, _, err = writer.Encode(p, writer.Options{}); err != nil {
					t.Fatal(err)
				}
			}
			if c.bytes != nil {
				data = c.bytes(p, data)
			}
			q, err := reader.Read("Damaged.u", data)
			if err != nil {
				t.Fatal(err)
			}
			probs := q.Verify()
			if len(probs) != 1 {
				t.Fatalf("%d problems, want 1: %v", len(probs), probs)
			}
			if probs[0].Part != c.part || probs[0].Index != c.index {
				t.Errorf("%s: part %q index %d, want %q %d", probs[0], probs[0].Part, probs[0].Index, c.part, c.index)
			}
		})
	}
}
