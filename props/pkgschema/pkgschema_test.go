package pkgschema_test

import (
	"encoding/binary"
	"errors"
	"reflect"
	"sort"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/props/pkgschema"
	"github.com/unrmod/unrmod/ue"
)

// structPart is the UStruct part of a definition of the fixture project:
// the export's data, where the part starts, and the decoding options.
type structPart struct {
	name string
	data []byte
	at   int
	o    pkgschema.Options
	enum bool
}

// structParts returns the definitions of the unversioned fixture
// containers (read with the mappings) and of the tagged twin.
func structParts(tb testing.TB) []structPart {
	tb.Helper()
	m := mappings(tb)
	var out []structPart
	files := append(unversionedFiles(tb)[:1], corpus.Path(tb, taggedContainer))
	for k, file := range files {
		c := openContainer(tb, file)
		for _, d := range c.definitions() {
			mm := m
			if k == 1 {
				mm = nil
			}
			ctx, err := zenprops.ContextWith(d.pkg, d.r, d.export, mm)
			if err != nil {
				tb.Fatal(err)
			}
			data := d.pkg.Exports[d.export].Data
			l, err := props.Decode(data, ctx)
			if err != nil {
				tb.Fatal(err)
			}
			o := pkgschema.Options{Names: d.pkg.Names, Imports: len(d.pkg.Imports), Exports: len(d.pkg.Exports), Flags: pkgschema.FlagsNotStored}
			out = append(out, structPart{d.pkg.ExportPath(d.export), data, l.TailEnd, o, d.class == "UserDefinedEnum"})
		}
	}
	return out
}

// fieldOffsets returns where every definition (inner ones too) starts.
func fieldOffsets(fs ...*pkgschema.Field) []int {
	var out []int
	for _, f := range fs {
		if f == nil {
			continue
		}
		out = append(out, f.Offset)
		out = append(out, fieldOffsets(f.Inner, f.Value)...)
	}
	return out
}

// clean drops what depends on the layout: offsets and object flags.
func clean(fs ...*pkgschema.Field) {
	for _, f := range fs {
		if f != nil {
			f.Offset, f.ObjectFlags = 0, 0
			clean(f.Inner, f.Value)
		}
	}
}

// TestFieldFlagsLayouts rewrites every definition of the fixture project
// (cooked by UE 5.8, whose FFields store no object flags) in the layout
// of earlier releases, with a uint32 of flags after each FField's name:
// read as FlagsStored, and with FlagsUnknown, it gives the same
// properties; the original read as FlagsStored fails with a FormatError.
func TestFieldFlagsLayouts(t *testing.T) {
	n := 0
	for _, sp := range structParts(t) {
		if sp.enum {
			continue
		}
		want, err := pkgschema.DecodeStruct(sp.data, sp.at, &sp.o)
		if err != nil {
			t.Fatalf("%s: %v", sp.name, err)
		}
		offs := fieldOffsets(want.Properties...)
		ref, _ := pkgschema.DecodeStruct(sp.data, sp.at, &sp.o)
		clean(ref.Properties...)
		sort.Sort(sort.Reverse(sort.IntSlice(offs)))
		old := append([]byte(nil), sp.data...)
		for _, off := range offs {
			at := off + 16 // after the type and the name
			old = append(old[:at], append(binary.LittleEndian.AppendUint32(nil, 0x00080008), old[at:]...)...)
		}
		for _, mode := range []pkgschema.FieldFlags{pkgschema.FlagsStored, pkgschema.FlagsUnknown} {
			o := sp.o
			o.Flags = mode
			got, err := pkgschema.DecodeStruct(old, sp.at, &o)
			if err != nil {
				t.Errorf("%s in the older layout, mode %d: %v", sp.name, mode, err)
				continue
			}
			if len(offs) > 0 && got.Flags != pkgschema.FlagsStored || got.End != want.End+4*len(offs) {
				t.Errorf("%s: read as %d, ends at %d (want %d)", sp.name, got.Flags, got.End, want.End+4*len(offs))
			}
			clean(got.Properties...)
			if !reflect.DeepEqual(got.Properties, ref.Properties) {
				t.Errorf("%s: the older layout reads differently", sp.name)
			}
		}
		if len(offs) > 0 {
			n++
			o := sp.o
			o.Flags = pkgschema.FlagsStored
			_, err := pkgschema.DecodeStruct(sp.data, sp.at, &o)
			var fe *ue.FormatError
			if !errors.As(err, &fe) || fe.Offset < int64(sp.at) {
				t.Errorf("%s read as FlagsStored: %v", sp.name, err)
			}
		}
	}
	if n < 2 {
		t.Errorf("%d definitions with properties", n)
	}
}

// TestDecodeEnum reads the user-defined enums of the fixture project and
// refuses every truncation of one with a FormatError.
func TestDecodeEnum(t *testing.T) {
	n := 0
	for _, sp := range structParts(t) {
		if !sp.enum {
			continue
		}
		e, err := pkgschema.DecodeEnum(sp.data, sp.at, &sp.o)
		if err != nil {
			t.Fatalf("%s: %v", sp.name, err)
		}
		want := []pkgschema.EnumEntry{{"E_Fixture::NewEnumerator0", 0}, {"E_Fixture::NewEnumerator1", 1}, {"E_Fixture::NewEnumerator2", 2}, {"E_Fixture::E_MAX", 3}}
		if !reflect.DeepEqual(e.Entries, want) || e.CppForm != 1 {
			t.Errorf("%s: %+v", sp.name, e)
		}
		for cut := sp.at; cut < e.End; cut++ {
			_, err := pkgschema.DecodeEnum(sp.data[:cut], sp.at, &sp.o)
			var fe *ue.FormatError
			if !errors.As(err, &fe) || fe.Offset < int64(sp.at) || fe.Offset > int64(cut) {
				t.Errorf("%s cut at %d: %v", sp.name, cut, err)
			}
		}
		n++
	}
	if n == 0 {
		t.Error("no user-defined enum")
	}
}

// TestDecodeStructTruncated refuses every truncation of every definition
// of the fixture project with a FormatError at or before the cut.
func TestDecodeStructTruncated(t *testing.T) {
	for _, sp := range structParts(t) {
		if sp.enum {
			continue
		}
		s, err := pkgschema.DecodeStruct(sp.data, sp.at, &sp.o)
		if err != nil {
			t.Fatal(err)
		}
		for cut := sp.at; cut < s.End+8; cut++ {
			for _, mode := range []pkgschema.FieldFlags{pkgschema.FlagsNotStored, pkgschema.FlagsUnknown} {
				o := sp.o
				o.Flags = mode
				_, err := pkgschema.DecodeStruct(sp.data[:cut], sp.at, &o)
				var fe *ue.FormatError
				if !errors.As(err, &fe) || fe.Offset < int64(sp.at) || fe.Offset > int64(cut) || !errors.Is(err, ue.ErrCorrupt) {
					t.Errorf("%s cut at %d: %v", sp.name, cut, err)
				}
			}
		}
	}
}

// FuzzDecode checks that any bytes decode as a definition without panics
// or large allocations, and that what decodes is within the data. Seeds
// are the definitions of the fixture project.
func FuzzDecode(f *testing.F) {
	parts := structParts(f)
	names := parts[0].o.Names
	for _, sp := range parts {
		if len(sp.o.Names) > len(names) {
			names = sp.o.Names
		}
	}
	for _, sp := range parts {
		f.Add(sp.data[sp.at:], sp.enum, uint8(pkgschema.FlagsUnknown))
		f.Add(sp.data[sp.at:], sp.enum, uint8(pkgschema.FlagsStored))
	}
	f.Fuzz(func(t *testing.T, data []byte, enum bool, flags uint8) {
		o := &pkgschema.Options{Names: names, Imports: 20, Exports: 10, Flags: pkgschema.FieldFlags(flags % 3)}
		if enum {
			e, err := pkgschema.DecodeEnum(data, 0, o)
			if err == nil && (e.End > len(data) || len(e.Entries)*16 > len(data)) {
				t.Fatalf("enum of %d entries ends at %d of %d", len(e.Entries), e.End, len(data))
			}
			return
		}
		s, err := pkgschema.DecodeStruct(data, 0, o)
		if err != nil {
			var fe *ue.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("not a FormatError: %v", err)
			}
			return
		}
		if s.End > len(data) || len(s.Properties)*39 > len(data) {
			t.Fatalf("%d properties end at %d of %d", len(s.Properties), s.End, len(data))
		}
		if _, err := s.Usmap("Fuzzed", func(int32) string { return "X" }); err != nil && !errors.Is(err, ue.ErrCorrupt) && !errors.Is(err, pkgschema.ErrUnknownField) {
			t.Fatalf("schema: %v", err)
		}
	})
}
