package reader_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
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

// A name entry may store characters after a zero byte, as Deus Ex packages
// do: the engine copies the stored text as a C string, so the name ends at
// the first zero. The reader does the same, Verify accepts the entry, and
// Warnings reports what the entry stores beyond the name. The bytes are kept:
// an unchanged model encodes to the input.
func TestNamesWithZeroInside(t *testing.T) {
	cases := []struct {
		stored string // the characters the entry stores before its terminating zero
		name   string // the name the engine (and the reader) makes of them
		after  int    // characters stored after the name
		ok     bool   // Verify has no problem with it
	}{
		{"Plain", "Plain", 0, true},
		{"Ab\x00", "Ab", 1, true},
		{"\x11\x14\x00", "\x11\x14", 1, true}, // as OpenDX.u stores them
		{"Ab\x00junk", "Ab", 5, true},
		{"\x00Ab", "", 3, false}, // the engine reads an empty name
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%q", c.stored), func(t *testing.T) {
			s := newSynth(68)
			s.names[sQux].s = c.stored
			data, _ := s.build()
			p, err := reader.Read("Synth.u", data)
			if err != nil {
				t.Fatal(err)
			}
			n := &p.Names[sQux]
			if n.Name != c.name || n.StoredAfter() != c.after {
				t.Errorf("name %q storing %d more, want %q and %d", n.Name, n.StoredAfter(), c.name, c.after)
			}
			if probs := p.Verify(); (len(probs) == 0) != c.ok {
				t.Errorf("Verify: %v", probs)
			}
			warns := p.Warnings()
			if (len(warns) == 1) != (c.after > 0) || len(warns) > 1 {
				t.Fatalf("Warnings: %v", warns)
			}
			if len(warns) == 1 && (!warns[0].Warning || warns[0].Part != reader.PartName || warns[0].Index != sQux ||
				!strings.HasPrefix(warns[0].String(), "warning: name ")) {
				t.Errorf("warning %+v", warns[0])
			}
			out, _, err := writer.Encode(p, writer.Options{})
			if err != nil || !bytes.Equal(out, data) {
				t.Fatalf("preserve encode differs (%v)", err)
			}
			// Renaming writes the entry canonically: nothing after the name.
			n.Name = "Renamed"
			if out, _, err = writer.Encode(p, writer.Options{}); err != nil {
				t.Fatal(err)
			}
			q, err := reader.Read("Synth.u", out)
			if err != nil {
				t.Fatal(err)
			}
			if m := q.Names[sQux]; m.Name != "Renamed" || m.StoredAfter() != 0 || len(q.Warnings()) != 0 {
				t.Errorf("renamed entry %q stores %d more", m.Name, m.StoredAfter())
			}
		})
	}
}
