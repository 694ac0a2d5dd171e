package props_test

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/ue"
)

// checkCorrupt fails unless err is a *ue.FormatError wrapping
// zen.ErrCorrupt.
func checkCorrupt(t *testing.T, what string, err error) {
	t.Helper()
	var fe *ue.FormatError
	if err == nil {
		t.Errorf("%s: no error", what)
	} else if !errors.Is(err, zen.ErrCorrupt) || !errors.As(err, &fe) {
		t.Errorf("%s: %v is not a *ue.FormatError wrapping ErrCorrupt", what, err)
	}
}

// TestTruncated decodes every truncation of every real property list up to
// 8 KiB: each one fails with a format error.
func TestTruncated(t *testing.T) {
	lists, tables, decodes := 0, 0, 0
	for _, cp := range corpusPackages(t) {
		p := cp.pkg
		if p.PackageFlags&zen.FlagUnversionedProperties != 0 {
			continue
		}
		for i := range p.Exports {
			data := p.Exports[i].Data
			if len(data) > 8<<10 {
				continue
			}
			ctx, err := zenprops.ContextFor(p, i)
			if err != nil {
				t.Fatal(err)
			}
			l, err := props.Decode(data, ctx)
			if err != nil {
				continue
			}
			lists++
			for n := 0; n < l.TailEnd; n++ {
				decodes++
				if _, err := props.Decode(data[:n], ctx); err == nil || !errors.Is(err, zen.ErrCorrupt) {
					t.Fatalf("%s export %d cut at %d of %d: %v", cp.name, i, n, l.TailEnd, err)
				}
			}
			tb, err := props.DecodeDataTable(data, ctx)
			if err != nil || tb.End != len(data) {
				continue
			}
			tables++
			for n := l.TailEnd; n < tb.End; n++ {
				decodes++
				if _, err := props.DecodeDataTable(data[:n], ctx); err == nil || !errors.Is(err, zen.ErrCorrupt) {
					t.Fatalf("%s export %d (DataTable) cut at %d of %d: %v", cp.name, i, n, tb.End, err)
				}
			}
		}
	}
	t.Logf("%d property lists and %d DataTables: %d truncations, each refused", lists, tables, decodes)
	if lists == 0 || tables == 0 {
		t.Error("nothing truncated")
	}
}

// TestHugeCounts patches counts and sizes of a real export to huge and
// negative values: each is refused before anything is allocated.
func TestHugeCounts(t *testing.T) {
	p := findPackage(t, taggedZlib, "/Game/Fixtures/Properties/DA_AllProperties")
	ctx, err := zenprops.ContextFor(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	data := p.Exports[1].Data
	l, err := props.Decode(data, ctx)
	if err != nil {
		t.Fatal(err)
	}
	find := func(name string) *props.Property {
		q := l.Find(name, 0)
		if q == nil {
			t.Fatalf("no %s", name)
		}
		return q
	}
	patch := func(at int, v uint32) []byte {
		b := append([]byte(nil), data...)
		binary.LittleEndian.PutUint32(b[at:], v)
		return b
	}
	first := l.Properties[0]
	for _, c := range []struct {
		what string
		data []byte
	}{
		{"array count 2^31-1", patch(find("IntegerArray").ValueOffset, 0x7FFFFFFF)},
		{"array count -1", patch(find("IntegerArray").ValueOffset, 0xFFFFFFFF)},
		{"array count one too many", patch(find("IntegerArray").ValueOffset, 5)},
		{"struct array count 2^31-1", patch(find("StructArray").ValueOffset, 0x7FFFFFFF)},
		{"size 2^31-1", patch(find("Integer").SizeOffset, 0x7FFFFFFF)},
		{"size -1", patch(find("Integer").SizeOffset, 0xFFFFFFFF)},
		{"size of an int 5", patch(find("Integer").SizeOffset, 5)},
		{"type parameter count 2^31-1", patch(first.Offset+16, 0x7FFFFFFF)},
		{"type parameter count -1", patch(first.Offset+16, 0xFFFFFFFF)},
		{"name index 2^31-1", patch(first.Offset, 0x7FFFFFFF)},
		{"name index -1", patch(first.Offset, 0xFFFFFFFF)},
		{"string length 2^31-1", patch(find("String").ValueOffset, 0x7FFFFFFF)},
		{"string length -2^31", patch(find("String").ValueOffset, 0x80000000)},
		{"tag flags 0xFF", func() []byte { b := append([]byte(nil), data...); b[find("Integer").SizeOffset+4] = 0xFF; return b }()},
		{"control flags 0xFF", func() []byte { b := append([]byte(nil), data...); b[0] = 0xFF; return b }()},
	} {
		_, err := props.Decode(c.data, ctx)
		checkCorrupt(t, c.what, err)
		t.Logf("%s: %v", c.what, err)
	}

	dt, dctx := dtAllProperties(t)
	ddata := dt.Exports[0].Data
	tb, err := props.DecodeDataTable(ddata, dctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []uint32{0x7FFFFFFF, 0xFFFFFFFF, 4} {
		b := append([]byte(nil), ddata...)
		binary.LittleEndian.PutUint32(b[tb.RowsOffset:], v)
		_, err := props.DecodeDataTable(b, dctx)
		checkCorrupt(t, "row count", err)
	}
}

// TestDeepNesting decodes structs nested far deeper than MaxDepth, in the
// UE 5.4+ layout (where the tag says a struct is tagged) and the UE4 one
// (where the decoder guesses): both are refused.
func TestDeepNesting(t *testing.T) {
	for _, ue5 := range []int32{0, 1018} {
		s := &synth{}
		typ := s.typ("StructProperty", s.typ("Deep"))
		var v props.Value = props.Int(1)
		inner := s.prop("Leaf", s.typ("IntProperty"), v)
		for range 200 {
			inner = s.prop("Child", typ, &props.Struct{Type: "Deep", Tagged: s.list(inner)})
		}
		ctx := &props.Context{Names: s.names, FileVersionUE5: ue5}
		data, err := props.Encode(s.list(inner), ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = props.Decode(data, ctx)
		checkCorrupt(t, "200 nested structs", err)
		if err != nil && !strings.Contains(err.Error(), "nested") {
			t.Errorf("version %d: %v", ue5, err)
		}
		t.Logf("version %d: %d bytes: %v", ue5, len(data), err)
		// Set on it fails the same way.
		if _, _, err := props.Set(data, ctx, props.Target{Path: "Child.Child.Child"}, props.Input{Text: "1"}); err == nil {
			t.Errorf("version %d: Set on too deep data", ue5)
		}
	}
}
