package zen_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore/zen"
)

// TestKeepShortcut checks that DecodePackage's shortcut for a package that
// encodes back as it is (its header is encoded and compared, its export
// data found where the encoder puts it, not copied and compared) agrees
// with encoding the whole package and comparing: on built packages of
// every layout, with trailing bytes, with bytes between two exports' data
// (which the encoder cannot place: the package keeps its data part as
// stored) and on the corpus's packages; and that each package that decodes encodes back byte for byte.
func TestKeepShortcut(t *testing.T) {
	type input struct {
		name string
		data []byte
	}
	var inputs []input
	for l := zen.LayoutUE4; l <= zen.LayoutUE56; l++ {
		data, err := zenbuild.Encode(zenbuild.Spec{
			Name: "/Game/Items/BP_Crate", Layout: l, Versioned: l.IsUE5(),
			Imports: []string{"/Script/Engine.BlueprintGeneratedClass", "/Script/Engine.Actor"},
			Exports: []zenbuild.Export{
				{Name: "BP_Crate_C", Class: "/Script/Engine.BlueprintGeneratedClass", Super: "/Script/Engine.Actor", Outer: -1, Flags: zen.FlagPublic | 0x8, Data: []byte("class data")},
				{Name: "Default__BP_Crate_C", Class: "#0", Outer: -1, Flags: zen.FlagPublic | zen.FlagClassDefaultObject, Data: []byte("defaults")},
				{Name: "Mesh", Class: "/Script/Engine.Actor", Outer: 1, Data: nil},
			},
		})
		if err != nil {
			t.Fatalf("%v: %v", l, err)
		}
		inputs = append(inputs,
			input{fmt.Sprintf("%v", l), data},
			input{fmt.Sprintf("%v trailing", l), append(bytes.Clone(data), "trailing bytes"...)})
		if gap, ok := withGap(t, data); ok {
			inputs = append(inputs, input{fmt.Sprintf("%v gap", l), gap})
		}
	}
	if os.Getenv(corpus.EnvVar) != "" {
		for _, cp := range corpusPackages(t) {
			inputs = append(inputs, input{cp.name, cp.data})
		}
	}
	var shortcuts, kept int
	for _, in := range inputs {
		short, full, err := zen.KeepShortcut(in.name, in.data)
		if err != nil {
			t.Errorf("%s: %v", in.name, err)
			continue
		}
		if short && !full {
			t.Errorf("%s: the shortcut takes a package that does not encode back as it is", in.name)
		}
		if short {
			shortcuts++
		}
		p, err := zen.DecodePackage(in.name, in.data, nil)
		if err != nil {
			t.Errorf("%s: %v", in.name, err)
			continue
		}
		if len(p.KeptRaw()) > 0 {
			kept++
		}
		if out, err := p.Encode(); err != nil || !bytes.Equal(out, in.data) {
			t.Errorf("%s: encodes back to %d bytes (%v), want the %d decoded", in.name, len(out), err, len(in.data))
		}
	}
	if shortcuts == 0 || kept == 0 {
		t.Errorf("%d packages took the shortcut, %d kept parts as stored: both paths must be tried", shortcuts, kept)
	}
}

// withGap returns a UE 5.3+ package (whose export map gives each export's
// data offset) with 8 bytes inserted before the data of its last export,
// whose offset (and those of the empty exports after it) moves past them:
// bytes that belong to no export.
func withGap(t *testing.T, data []byte) ([]byte, bool) {
	p, err := zen.DecodePackage("gap", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Layout < zen.LayoutUE53 || len(p.Exports) < 2 {
		return nil, false
	}
	le := binary.LittleEndian
	headerEnd, exportsAt := int(le.Uint32(data[4:])), int(le.Uint32(data[32:]))
	last := -1
	for i, e := range p.Exports {
		if len(e.Data) > 0 && (last < 0 || e.DataOffset > p.Exports[last].DataOffset) {
			last = i
		}
	}
	if last < 0 {
		return nil, false
	}
	at := p.Exports[last].DataOffset
	out := append(append(bytes.Clone(data[:at]), "loose 8!"...), data[at:]...)
	for i, e := range p.Exports { // it and the empty exports after it
		if e.DataOffset < at {
			continue
		}
		entry := exportsAt + i*72
		if off := le.Uint64(out[entry:]); int(off)+headerEnd != e.DataOffset {
			t.Fatalf("export %d: serial offset %d, data at %d, header end %d", i, off, e.DataOffset, headerEnd)
		}
		le.PutUint64(out[entry:], le.Uint64(out[entry:])+8)
	}
	return out, true
}
