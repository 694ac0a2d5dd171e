package zen_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue"
)

// ---- synthetic script objects, laid out byte by byte ----
//
// soBuild writes both forms itself (it does not use the encoders), from the
// layout in docs/iostore.md §1.4, §6.1–6.2: the UE5 ScriptObjects chunk (a
// separated name batch, int32 count, 32-byte entries) and the 4.27 chunks
// (interleaved names blob, algorithm id + hashes, int32 count + entries).

const soGlobal = 2 << 30 // FMappedName type Global

type soSpec struct {
	names   []string
	objects []zen.ScriptObjectEntry
}

// soNameText returns a name's 2-byte header and stored text.
func soNameText(s string) (hdr [2]byte, text []byte, wide bool) {
	wide = strings.ContainsFunc(s, func(r rune) bool { return r > 0x7F })
	if !wide {
		return [2]byte{byte(len(s) >> 8), byte(len(s))}, []byte(s), false
	}
	u := utf16.Encode([]rune(s))
	for _, x := range u {
		text = binary.LittleEndian.AppendUint16(text, x)
	}
	return [2]byte{0x80 | byte(len(u)>>8), byte(len(u))}, text, true
}

func soEntries(objects []zen.ScriptObjectEntry) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, uint32(len(objects)))
	for _, o := range objects {
		b = le.AppendUint32(b, o.Name.IndexAndType)
		b = le.AppendUint32(b, o.Name.Number)
		b = le.AppendUint64(b, uint64(o.Index))
		b = le.AppendUint64(b, uint64(o.Outer))
		b = le.AppendUint64(b, uint64(o.CDOClass))
	}
	return b
}

// soBuildUE5 lays out a UE5 ScriptObjects chunk.
func soBuildUE5(s soSpec) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, uint32(len(s.names)))
	if len(s.names) > 0 {
		var headers, text []byte
		for _, n := range s.names {
			h, t, _ := soNameText(n)
			headers = append(headers, h[:]...)
			text = append(text, t...)
		}
		b = le.AppendUint32(b, uint32(len(text)))
		b = le.AppendUint64(b, 0xC1640000)
		for _, n := range s.names {
			b = le.AppendUint64(b, cityhash.NameHash(n))
		}
		b = append(b, headers...)
		b = append(b, text...)
	}
	return append(b, soEntries(s.objects)...)
}

// soBuildUE4 lays out the 4.27 LoaderGlobalNames, LoaderGlobalNameHashes and
// LoaderInitialLoadMeta chunks; pads counts the alignment bytes written
// before UTF-16 text.
func soBuildUE4(s soSpec) (names, hashes, meta []byte, pads int) {
	le := binary.LittleEndian
	hashes = le.AppendUint64(nil, 0xC1640000)
	for _, n := range s.names {
		h, t, wide := soNameText(n)
		names = append(names, h[:]...)
		if wide && len(names)%2 == 1 {
			names = append(names, 0)
			pads++
		}
		names = append(names, t...)
		hashes = le.AppendUint64(hashes, cityhash.NameHash(n))
	}
	return names, hashes, soEntries(s.objects), pads
}

// soSynthetic is a small set: a script package, a class, its CDO, a
// subobject, a sub-subobject, a wide name and a numbered name, each with
// the index of its engine path.
func soSynthetic() (soSpec, []string) {
	names := []string{"/Script/Foo", "Bar", "Default__Bar", "Inner", "Deep", "Ünïcodé", "Thing"}
	paths := []string{"/Script/Foo", "/Script/Foo.Bar", "/Script/Foo.Default__Bar", "/Script/Foo.Bar:Inner",
		"/Script/Foo.Bar:Inner.Deep", "/Script/Foo.Ünïcodé", "/Script/Foo.Thing_2"}
	idx := func(i int) zen.ObjectIndex { return zen.ScriptObject(paths[i]) }
	obj := func(name, number uint32, self, outer int) zen.ScriptObjectEntry {
		o := zen.ScriptObjectEntry{Name: zen.MappedName{IndexAndType: soGlobal | name, Number: number}, Index: idx(self), Outer: zen.NullObject, CDOClass: zen.NullObject}
		if outer >= 0 {
			o.Outer = idx(outer)
		}
		return o
	}
	objects := []zen.ScriptObjectEntry{
		obj(0, 0, 0, -1), obj(1, 0, 1, 0), obj(2, 0, 2, 0), obj(3, 0, 3, 1), obj(4, 0, 4, 3), obj(5, 0, 5, 0), obj(6, 3, 6, 0),
	}
	objects[2].CDOClass = idx(1)
	return soSpec{names, objects}, paths
}

func soDecodeUE4(t testing.TB, names, hashes, meta []byte) *zen.ScriptObjects {
	t.Helper()
	s, err := zen.DecodeScriptObjectsUE4("test", names, hashes, meta)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func soDecodeUE5(t testing.TB, data []byte) *zen.ScriptObjects {
	t.Helper()
	s, err := zen.DecodeScriptObjects("test", data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// soRoundTripUE5 checks that s encodes to data.
func soRoundTripUE5(t testing.TB, s *zen.ScriptObjects, data []byte) {
	t.Helper()
	out, err := s.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, data) {
		t.Fatalf("UE5 round trip differs: %d vs %d bytes, first difference at %d", len(out), len(data), soFirstDiff(out, data))
	}
}

func soRoundTripUE4(t testing.TB, s *zen.ScriptObjects, names, hashes, meta []byte) {
	t.Helper()
	n, h, m, err := s.EncodeUE4()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what      string
		got, want []byte
	}{{"LoaderGlobalNames", n, names}, {"LoaderGlobalNameHashes", h, hashes}, {"LoaderInitialLoadMeta", m, meta}} {
		if !bytes.Equal(c.got, c.want) {
			t.Fatalf("%s round trip differs: %d vs %d bytes, first difference at %d", c.what, len(c.got), len(c.want), soFirstDiff(c.got, c.want))
		}
	}
}

func soFirstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestScriptObjectsSynthetic(t *testing.T) {
	spec, paths := soSynthetic()
	ue5 := soBuildUE5(spec)
	names, hashes, meta, pads := soBuildUE4(spec)
	if pads == 0 {
		t.Fatal("the synthetic 4.27 names blob should need an alignment byte before its UTF-16 name")
	}
	s5 := soDecodeUE5(t, ue5)
	s4 := soDecodeUE4(t, names, hashes, meta)
	for _, c := range []struct {
		form string
		s    *zen.ScriptObjects
		ue4  bool
	}{{"UE5", s5, false}, {"4.27", s4, true}} {
		s := c.s
		if s.UE4 != c.ue4 || !slices.Equal(s.Names, spec.names) || !reflect.DeepEqual(s.Objects, spec.objects) || s.Trailing != nil {
			t.Fatalf("%s: decoded %+v", c.form, s)
		}
		if s.Len() != len(spec.objects) || len(s.KeptRaw()) != 0 || len(s.Problems()) != 0 {
			t.Errorf("%s: Len %d, KeptRaw %v, Problems %v", c.form, s.Len(), s.KeptRaw(), s.Problems())
		}
		for i, p := range paths {
			x := spec.objects[i].Index
			if got, ok := s.Path(x); !ok || got != p {
				t.Errorf("%s: Path(%v) = %q, %v; want %q", c.form, x, got, ok, p)
			}
			o, ok := s.Find(x)
			if !ok || o != spec.objects[i] {
				t.Errorf("%s: Find(%v) = %+v, %v", c.form, x, o, ok)
			}
			name, _ := s.Name(o.Name)
			if got, ok := s.ObjectName(x); !ok || got != name || !strings.HasSuffix(p, name) {
				t.Errorf("%s: ObjectName(%v) = %q, %v", c.form, x, got, ok)
			}
		}
		for _, x := range []zen.ObjectIndex{zen.NullObject, 0, zen.ScriptObject("/Script/Foo.Nope")} {
			if _, ok := s.Path(x); ok {
				t.Errorf("%s: Path(%v) resolves", c.form, x)
			}
			if _, ok := s.Find(x); ok {
				t.Errorf("%s: Find(%v) finds", c.form, x)
			}
			if _, ok := s.ObjectName(x); ok {
				t.Errorf("%s: ObjectName(%v) resolves", c.form, x)
			}
		}
		// Both encoders, whatever the form decoded.
		soRoundTripUE5(t, s, ue5)
		soRoundTripUE4(t, s, names, hashes, meta)
		// AppendBinary appends.
		out, err := s.AppendBinary([]byte("head"))
		if err != nil || !bytes.Equal(out, append([]byte("head"), ue5...)) {
			t.Errorf("%s: AppendBinary does not append: %v", c.form, err)
		}
	}
	js, err := json.Marshal(s5)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"name":{"index_and_type":%d,"number":0},"index":"%v","outer":"0xffffffffffffffff","cdo_class":"0xffffffffffffffff"}`, soGlobal, spec.objects[0].Index)
	if !strings.Contains(string(js), want) || !strings.Contains(string(js), `"ue4":false`) {
		t.Errorf("JSON %s lacks %s", js, want)
	}
	var back zen.ScriptObjects
	if err := json.Unmarshal(js, &back); err != nil || !reflect.DeepEqual(back.Objects, s5.Objects) || !slices.Equal(back.Names, s5.Names) {
		t.Errorf("JSON does not read back: %v", err)
	}
	// A value built without the decoder indexes itself on first use.
	if p, ok := back.Path(spec.objects[4].Index); !ok || p != paths[4] {
		t.Errorf("Path on an unmarshalled value = %q, %v", p, ok)
	}
}

func TestScriptObjectsEmpty(t *testing.T) {
	ue5 := soBuildUE5(soSpec{})
	if !bytes.Equal(ue5, make([]byte, 8)) {
		t.Fatalf("empty UE5 chunk % x", ue5)
	}
	s := soDecodeUE5(t, ue5)
	if s.Len() != 0 || len(s.Names) != 0 || len(s.Problems()) != 0 {
		t.Errorf("empty set: %+v", s)
	}
	soRoundTripUE5(t, s, ue5)
	names, hashes, meta, _ := soBuildUE4(soSpec{})
	s = soDecodeUE4(t, names, hashes, meta)
	soRoundTripUE4(t, s, names, hashes, meta)
}

// TestScriptObjectsKeptRaw checks that bytes the encoders would not write
// survive an unchanged round trip, are reported, and give way to the
// canonical encoding once the names change.
func TestScriptObjectsKeptRaw(t *testing.T) {
	spec, _ := soSynthetic()
	le := binary.LittleEndian

	t.Run("UE5 stale hash", func(t *testing.T) {
		data := soBuildUE5(spec)
		le.PutUint64(data[16+8*2:], 0x1234) // hash of name 2
		s := soDecodeUE5(t, data)
		if k := s.KeptRaw(); !slices.Equal(k, []string{"name batch"}) {
			t.Fatalf("KeptRaw %v", k)
		}
		soRoundTripUE5(t, s, data)
		p := s.Problems()
		if len(p) != 1 || !strings.Contains(p[0].String(), `name 2 "Default__Bar"`) || !strings.Contains(p[0].Msg, "0x0000000000001234") {
			t.Errorf("Problems %v", p)
		}
		// Changed names: fresh hashes, nothing kept, no hash problem.
		s.Names = slices.Clone(s.Names)
		s.Names[6] = "Other"
		s.Reindex()
		out, err := s.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		spec2 := soSpec{names: s.Names, objects: spec.objects}
		if !bytes.Equal(out, soBuildUE5(spec2)) {
			t.Error("changed names are not encoded canonically")
		}
		p = s.Problems()
		if len(p) != 1 || !strings.Contains(p[0].Msg, `not the ScriptImport index of its path "/Script/Foo.Other_2"`) {
			t.Errorf("Problems after renaming %v", p)
		}
	})
	t.Run("UE5 other algorithm", func(t *testing.T) {
		data := soBuildUE5(spec)
		le.PutUint64(data[8:], 0xC1640001)
		s := soDecodeUE5(t, data)
		soRoundTripUE5(t, s, data)
		if p := s.Problems(); len(p) != 1 || !strings.Contains(p[0].Msg, "algorithm id 0xC1640001") {
			t.Errorf("Problems %v", p)
		}
	})
	t.Run("UE5 trailing", func(t *testing.T) {
		data := append(soBuildUE5(spec), 1, 2, 3)
		s := soDecodeUE5(t, data)
		if !bytes.Equal(s.Trailing, []byte{1, 2, 3}) || len(s.KeptRaw()) != 0 {
			t.Errorf("Trailing %v, KeptRaw %v", s.Trailing, s.KeptRaw())
		}
		soRoundTripUE5(t, s, data)
	})
	t.Run("UE5 Latin-1 name", func(t *testing.T) {
		// A narrow name with a byte above 0x7F (the engine writes such
		// names as UTF-16) decodes as Latin-1 and is kept raw.
		data := soBuildUE5(soSpec{names: []string{"abc"}})
		data[len(data)-4-1] = 0xE9
		s := soDecodeUE5(t, data)
		if s.Names[0] != "abé" || len(s.KeptRaw()) != 1 {
			t.Errorf("names %q, KeptRaw %v", s.Names, s.KeptRaw())
		}
		soRoundTripUE5(t, s, data)
	})
	t.Run("4.27 stale hash, extra names, pad, trailing", func(t *testing.T) {
		names, hashes, meta, _ := soBuildUE4(spec)
		le.PutUint64(hashes[8+8*3:], 0x5678)
		s := soDecodeUE4(t, names, hashes, meta)
		if k := s.KeptRaw(); !slices.Equal(k, []string{"LoaderGlobalNameHashes"}) {
			t.Fatalf("KeptRaw %v", k)
		}
		soRoundTripUE4(t, s, names, hashes, meta)
		if p := s.Problems(); len(p) != 1 || !strings.Contains(p[0].String(), `LoaderGlobalNameHashes name 3 "Inner"`) {
			t.Errorf("Problems %v", p)
		}

		names, hashes, meta, _ = soBuildUE4(spec)
		names = append(names, 0, 3, 'x', 'y', 'z') // a name the hashes do not count
		meta = append(meta, 0xAA)
		s = soDecodeUE4(t, names, hashes, meta)
		if k := s.KeptRaw(); !slices.Equal(k, []string{"LoaderGlobalNames"}) || len(s.Names) != len(spec.names) || !bytes.Equal(s.Trailing, []byte{0xAA}) {
			t.Fatalf("KeptRaw %v, %d names, Trailing %v", k, len(s.Names), s.Trailing)
		}
		soRoundTripUE4(t, s, names, hashes, meta)
		if p := s.Problems(); len(p) != 1 || !strings.Contains(p[0].Msg, "5 bytes after the 7 names") {
			t.Errorf("Problems %v", p)
		}

		names, hashes, meta, _ = soBuildUE4(spec)
		pad := bytes.Index(names, []byte{0x80, 7}) + 2 // the alignment byte before "Ünïcodé"
		if pad%2 != 1 || names[pad] != 0 {
			t.Fatalf("no pad byte at %d", pad)
		}
		names[pad] = 0xFF
		s = soDecodeUE4(t, names, hashes, meta)
		if s.Names[5] != "Ünïcodé" || len(s.KeptRaw()) != 1 {
			t.Errorf("names %q, KeptRaw %v", s.Names, s.KeptRaw())
		}
		soRoundTripUE4(t, s, names, hashes, meta)
	})
}

// soIsCorrupt reports whether err is a *ue.FormatError about script objects
// wrapping ErrCorrupt.
func soIsCorrupt(err error) bool {
	var fe *ue.FormatError
	return errors.As(err, &fe) && errors.Is(err, zen.ErrCorrupt) && strings.HasPrefix(fe.Struct, "script objects ") && fe.File == "test"
}

// TestScriptObjectsTruncated decodes every prefix of the synthetic chunks:
// each gives a *ue.FormatError wrapping ErrCorrupt, or a clean value that
// encodes back to exactly that prefix.
func TestScriptObjectsTruncated(t *testing.T) {
	spec, _ := soSynthetic()
	ue5 := soBuildUE5(spec)
	for n := range len(ue5) {
		s, err := zen.DecodeScriptObjects("test", ue5[:n])
		if err == nil || s != nil || !soIsCorrupt(err) {
			t.Fatalf("UE5 prefix of %d bytes: %v, %v", n, s != nil, err)
		}
	}
	names, hashes, meta, _ := soBuildUE4(spec)
	clean := 0
	for k := range 3 {
		parts := [][]byte{names, hashes, meta}
		for n := range len(parts[k]) {
			p := slices.Clone(parts)
			p[k] = p[k][:n]
			s, err := zen.DecodeScriptObjectsUE4("test", p[0], p[1], p[2])
			switch {
			case err == nil && s != nil:
				// Fewer hashes: fewer names, the rest of the blob kept raw.
				clean++
				soRoundTripUE4(t, s, p[0], p[1], p[2])
				_ = s.Problems()
			case s != nil || !soIsCorrupt(err):
				t.Fatalf("4.27 chunk %d, prefix of %d bytes: %v, %v", k, n, s != nil, err)
			}
		}
	}
	if clean != len(spec.names) { // hashes prefixes of 8, 16, … 8×len(names) bytes
		t.Errorf("%d truncated hash chunks decode; want %d", clean, len(spec.names))
	}
}

// soAllocs returns the bytes fn allocates.
func soAllocs(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestScriptObjectsHugeCounts gives counts far beyond the data: each fails
// before allocating for them.
func TestScriptObjectsHugeCounts(t *testing.T) {
	le := binary.LittleEndian
	spec, _ := soSynthetic()
	ue5 := soBuildUE5(spec)
	objectsAt := len(ue5) - 4 - 32*len(spec.objects)
	names, hashes, meta, _ := soBuildUE4(spec)
	set := func(b []byte, at int, v uint32) []byte {
		b = slices.Clone(b)
		le.PutUint32(b[at:], v)
		return b
	}
	for _, c := range []struct {
		what  string
		ue5   []byte
		parts [3][]byte
		msg   string
	}{
		{what: "name count", ue5: set(ue5, 0, 0x7FFFFFFF), msg: "script objects name batch"},
		{what: "name count all ones", ue5: set(ue5, 0, 0xFFFFFFFF), msg: "script objects name batch"},
		{what: "string bytes", ue5: set(ue5, 4, 0xFFFFFFF0), msg: "script objects name batch"},
		{what: "object count", ue5: set(ue5, objectsAt, 0x7FFFFFFF), msg: "script objects object count"},
		{what: "negative object count", ue5: set(ue5, objectsAt, 0xFFFFFFFF), msg: "negative count -1"},
		{what: "4.27 object count", parts: [3][]byte{names, hashes, set(meta, 0, 0x40000000)}, msg: "script objects LoaderInitialLoadMeta object count"},
		{what: "4.27 hashes for more names than the blob holds", parts: [3][]byte{names[:9], make([]byte, 8+8*65536), meta}, msg: "script objects LoaderGlobalNames names"},
		{what: "4.27 hash chunk size", parts: [3][]byte{names, hashes[:len(hashes)-1], meta}, msg: "script objects LoaderGlobalNameHashes"},
		{what: "4.27 no hash chunk", parts: [3][]byte{names, nil, meta}, msg: "script objects LoaderGlobalNameHashes"},
		{what: "4.27 name runs past the blob", parts: [3][]byte{[]byte{0, 200, 'a'}, hashes[:16], meta}, msg: "script objects LoaderGlobalNames name 0"},
	} {
		var err error
		var s *zen.ScriptObjects
		alloc := soAllocs(func() {
			if c.ue5 != nil {
				s, err = zen.DecodeScriptObjects("test", c.ue5)
			} else {
				s, err = zen.DecodeScriptObjectsUE4("test", c.parts[0], c.parts[1], c.parts[2])
			}
		})
		if s != nil || !soIsCorrupt(err) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, %v", c.what, s != nil, err)
		}
		if alloc > 64<<10 {
			t.Errorf("%s: decoding allocated %d bytes", c.what, alloc)
		}
	}
}

// soSet decodes a UE5 chunk holding the given names and objects.
func soSet(t testing.TB, names []string, objects []zen.ScriptObjectEntry) (*zen.ScriptObjects, []byte) {
	t.Helper()
	data := soBuildUE5(soSpec{names, objects})
	s := soDecodeUE5(t, data)
	soRoundTripUE5(t, s, data)
	return s, data
}

func soObj(name uint32, index, outer zen.ObjectIndex) zen.ScriptObjectEntry {
	return zen.ScriptObjectEntry{Name: zen.MappedName{IndexAndType: soGlobal | name}, Index: index, Outer: outer, CDOClass: zen.NullObject}
}

// TestScriptObjectsBadReferences decodes sets whose references are wrong:
// they decode, encode back, resolve what can be resolved and report the
// rest.
func TestScriptObjectsBadReferences(t *testing.T) {
	pkg := zen.ScriptObject("/Script/Foo")
	a, b, c := zen.ScriptObject("/Script/Foo.A"), zen.ScriptObject("/Script/Foo.B"), zen.ScriptObject("/Script/Foo.C")
	names := []string{"/Script/Foo", "A", "B", "C"}
	for _, tc := range []struct {
		what    string
		objects []zen.ScriptObjectEntry
		good    []zen.ObjectIndex // resolve
		bad     []zen.ObjectIndex // do not resolve
		msgs    []string          // each in some problem
	}{
		{"name index", []zen.ScriptObjectEntry{soObj(0, pkg, zen.NullObject), soObj(99, a, pkg), soObj(2, b, a)},
			[]zen.ObjectIndex{pkg}, []zen.ObjectIndex{a, b}, []string{"name index 99 outside the 4 global names", "outer " + a.String() + " has no path"}},
		{"name map type", []zen.ScriptObjectEntry{soObj(0, pkg, zen.NullObject), {Name: zen.MappedName{IndexAndType: 1}, Index: a, Outer: pkg}},
			nil, []zen.ObjectIndex{a}, []string{"name map type 0 is not Global"}},
		{"missing outer", []zen.ScriptObjectEntry{soObj(0, pkg, zen.NullObject), soObj(1, a, 0x4000000000000123)},
			[]zen.ObjectIndex{pkg}, []zen.ObjectIndex{a}, []string{"outer 0x4000000000000123 is not a script object"}},
		{"loop", []zen.ScriptObjectEntry{soObj(0, pkg, zen.NullObject), soObj(1, a, b), soObj(2, b, c), soObj(3, c, a)},
			[]zen.ObjectIndex{pkg}, []zen.ObjectIndex{a, b, c}, []string{"script object 1 \"A\": its outers loop back to it", "script object 3 \"C\": its outers loop back to it"}},
		{"self loop", []zen.ScriptObjectEntry{soObj(1, a, a)}, nil, []zen.ObjectIndex{a}, []string{"its outers loop back to it"}},
		{"into a loop", []zen.ScriptObjectEntry{soObj(1, a, b), soObj(2, b, b), soObj(3, c, a)}, nil, []zen.ObjectIndex{c, a, b},
			[]string{"script object 2 \"C\": outer " + a.String() + " has no path"}},
		{"not a ScriptImport", []zen.ScriptObjectEntry{soObj(0, pkg, zen.NullObject), soObj(1, zen.ExportObject(3), pkg)},
			[]zen.ObjectIndex{pkg, zen.ExportObject(3)}, nil, []string{"is a Export reference, not a ScriptImport"}},
		{"duplicate", []zen.ScriptObjectEntry{soObj(0, pkg, zen.NullObject), soObj(1, a, pkg), soObj(2, a, pkg)},
			[]zen.ObjectIndex{pkg, a}, nil, []string{"script object 2 \"B\": index " + a.String() + " is also that of script object 1"}},
		{"wrong index", []zen.ScriptObjectEntry{soObj(0, pkg, zen.NullObject), soObj(1, b, pkg)},
			[]zen.ObjectIndex{pkg, b}, nil, []string{"is not the ScriptImport index of its path \"/Script/Foo.A\" (" + a.String() + ")"}},
		{"CDO class", []zen.ScriptObjectEntry{soObj(0, pkg, zen.NullObject), {Name: zen.MappedName{IndexAndType: soGlobal | 1}, Index: a, Outer: pkg, CDOClass: c}},
			[]zen.ObjectIndex{pkg, a}, nil, []string{"CDO class " + c.String() + " is not a script object"}},
	} {
		s, _ := soSet(t, names, tc.objects)
		for _, x := range tc.good {
			if _, ok := s.Path(x); !ok {
				t.Errorf("%s: Path(%v) does not resolve", tc.what, x)
			}
		}
		for _, x := range tc.bad {
			if p, ok := s.Path(x); ok || p != "" {
				t.Errorf("%s: Path(%v) = %q, %v", tc.what, x, p, ok)
			}
		}
		problems := s.Problems()
		var all []string
		for _, p := range problems {
			all = append(all, p.String())
		}
		for _, m := range tc.msgs {
			if !strings.Contains(strings.Join(all, "\n"), m) {
				t.Errorf("%s: no problem says %q in\n%s", tc.what, m, strings.Join(all, "\n"))
			}
		}
		if len(problems) == 0 {
			t.Errorf("%s: no problems", tc.what)
		}
	}
}

// soHostileChains returns n script objects in three shapes: one chain
// (each object's outer is the one before), one loop (each object's outer
// is the next, the last's the first) and one fan (every object's outer is
// the first).
func soHostileChains(n int) (chain, loop, fan []zen.ScriptObjectEntry) {
	idx := func(i int) zen.ObjectIndex { return zen.ObjectIndex(1<<62 | uint64(i+1)) }
	for i := range n {
		outer := zen.NullObject
		if i > 0 {
			outer = idx(i - 1)
		}
		name := uint32(min(i, 1)) // the package, then "X"
		chain = append(chain, soObj(name, idx(i), outer))
		loop = append(loop, soObj(1, idx(i), idx((i+1)%n)))
		if i > 0 {
			outer = idx(0)
		}
		fan = append(fan, soObj(name, idx(i), outer))
	}
	return chain, loop, fan
}

// TestScriptObjectsLimits checks the depth and length limits, and that
// long chains and loops get their paths and problems right
// (BenchmarkScriptObjectsChains measures that resolving them stays
// linear).
func TestScriptObjectsLimits(t *testing.T) {
	const n = 20000
	names := []string{"/Script/Foo", "X"}
	idx := func(i int) zen.ObjectIndex { return zen.ObjectIndex(1<<62 | uint64(i+1)) }
	chain, loop, fan := soHostileChains(n)
	for _, tc := range []struct {
		what    string
		objects []zen.ScriptObjectEntry
		ok      int // objects with a path
	}{{"chain", chain, zen.MaxScriptPathDepth + 1}, {"loop", loop, 0}, {"fan", fan, n}} {
		s, _ := soSet(t, names, tc.objects)
		problems := s.Problems()
		ok := 0
		for _, o := range s.Objects {
			if _, good := s.Path(o.Index); good {
				ok++
			}
		}
		if ok != tc.ok {
			t.Errorf("%s: %d paths, want %d", tc.what, ok, tc.ok)
		}
		if len(problems) < n-tc.ok {
			t.Errorf("%s: %d problems", tc.what, len(problems))
		}
	}
	// The deepest path and the one just too deep.
	s, _ := soSet(t, names, chain)
	p, ok := s.Path(idx(zen.MaxScriptPathDepth))
	if !ok || p != "/Script/Foo.X:X"+strings.Repeat(".X", zen.MaxScriptPathDepth-2) {
		t.Errorf("deepest path %q, %v", p, ok)
	}
	if _, ok := s.Path(idx(zen.MaxScriptPathDepth + 1)); ok {
		t.Error("a path one level too deep resolves")
	}
	// A path longer than MaxScriptPathLength.
	long := strings.Repeat("L", zen.MaxScriptPathLength/2)
	s, _ = soSet(t, []string{"/Script/Foo", long}, []zen.ScriptObjectEntry{soObj(0, idx(0), zen.NullObject), soObj(1, idx(1), idx(0)), soObj(1, idx(2), idx(1))})
	if _, ok := s.Path(idx(1)); !ok {
		t.Error("a long path does not resolve")
	}
	if _, ok := s.Path(idx(2)); ok {
		t.Error("a path over the length limit resolves")
	}
	if !strings.Contains(fmt.Sprint(s.Problems()), fmt.Sprintf("longer than %d bytes", zen.MaxScriptPathLength)) {
		t.Errorf("Problems %v", s.Problems())
	}
}

func TestScriptObjectsReindex(t *testing.T) {
	spec, paths := soSynthetic()
	s := soDecodeUE5(t, soBuildUE5(spec))
	if p, _ := s.Path(spec.objects[1].Index); p != paths[1] {
		t.Fatalf("Path %q", p)
	}
	s.Names = slices.Clone(s.Names)
	s.Names[1] = "Baz"
	s.Objects = append(s.Objects, soObj(3, zen.ScriptObject("/Script/Foo.Extra"), spec.objects[0].Index))
	s.Reindex()
	if p, _ := s.Path(spec.objects[3].Index); p != "/Script/Foo.Baz:Inner" {
		t.Errorf("Path after Reindex %q", p)
	}
	if p, ok := s.Path(zen.ScriptObject("/Script/Foo.Extra")); !ok || p != "/Script/Foo.Inner" {
		t.Errorf("added object: %q, %v", p, ok)
	}
	if s.Len() != len(spec.objects)+1 {
		t.Errorf("Len %d", s.Len())
	}
	// Without Reindex, a changed entry is not found under its old index
	// (rather than resolved to another object).
	s = soDecodeUE5(t, soBuildUE5(spec))
	s.Objects = slices.Clone(s.Objects)
	s.Objects[1].Index = 0x4000000000000001
	if p, ok := s.Path(spec.objects[1].Index); ok {
		t.Errorf("stale index resolves to %q", p)
	}
	if _, ok := s.Path(spec.objects[3].Index); ok {
		t.Error("an object under a stale outer resolves")
	}
}

// TestScriptObjectsConcurrentLookups resolves paths from several goroutines
// (run with -race).
func TestScriptObjectsConcurrentLookups(t *testing.T) {
	spec, paths := soSynthetic()
	s := soDecodeUE5(t, soBuildUE5(spec))
	done := make(chan error)
	for g := range 4 {
		go func() {
			var err error
			for k := range 200 {
				i := (g + k) % len(paths)
				if p, ok := s.Path(spec.objects[i].Index); !ok || p != paths[i] {
					err = fmt.Errorf("Path %q, %v; want %q", p, ok, paths[i])
				}
				if k%50 == 0 && len(s.Problems()) != 0 {
					err = errors.New("problems")
				}
			}
			done <- err
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestScriptObjectsEncodeRefuses(t *testing.T) {
	s := &zen.ScriptObjects{Names: []string{strings.Repeat("x", zen.MaxNameLength+1)}}
	if _, err := s.AppendBinary(nil); !errors.Is(err, zen.ErrNotEncodable) {
		t.Errorf("AppendBinary: %v", err)
	}
	if _, _, _, err := s.EncodeUE4(); !errors.Is(err, zen.ErrNotEncodable) {
		t.Errorf("EncodeUE4: %v", err)
	}
}

// ---- real global containers ----

// soCorpusUE427 returns the three 4.27 global chunks.
func soCorpusUE427(tb testing.TB) (names, hashes, meta []byte) {
	tb.Helper()
	var parts [3][]byte
	for i, n := range []string{"LoaderGlobalNames_1.bin", "LoaderGlobalNameHashes_1.bin", "LoaderInitialLoadMeta_1.bin"} {
		b, err := os.ReadFile(corpus.Path(tb, "other/ue4_27_global_chunks/"+n))
		if err != nil {
			tb.Fatal(err)
		}
		parts[i] = b
	}
	return parts[0], parts[1], parts[2]
}

// soCorpusUE5 returns the ScriptObjects chunk (id 0, UE5 type 5) of a
// global container (read with the container-header tests' TOC reader).
func soCorpusUE5(tb testing.TB, rel string) []byte {
	tb.Helper()
	toc := chReadTOC(tb, corpus.Path(tb, rel))
	return toc.chunk(tb, toc.find(tb, 0, 5))
}

var soCorpusUE5Files = []string{
	"iostore/cue4parse_ue5_8/Tagged/global.utoc",
	"iostore/game_TempleOfGiants_ue5/global.utoc",
}

// soCheckReal checks a real set against the engine's rules directly:
// every stored name hash (stored is the hash list as in the file, without
// the algorithm id) and every index recomputed from the object's path.
func soCheckReal(t *testing.T, s *zen.ScriptObjects, stored []byte, wantNames, wantObjects int) {
	t.Helper()
	if len(s.Names) != wantNames || s.Len() != wantObjects {
		t.Fatalf("%d names, %d objects; want %d, %d", len(s.Names), s.Len(), wantNames, wantObjects)
	}
	if len(stored) != 8*len(s.Names) {
		t.Fatalf("%d hash bytes for %d names", len(stored), len(s.Names))
	}
	hashes := 0
	for i, n := range s.Names {
		if h := binary.LittleEndian.Uint64(stored[8*i:]); h != cityhash.NameHash(n) {
			t.Errorf("name %d %q: stored hash %#x, computed %#x", i, n, h, cityhash.NameHash(n))
		} else {
			hashes++
		}
	}
	indices, packages := 0, 0
	for i, o := range s.Objects {
		p, ok := s.Path(o.Index)
		switch {
		case !ok:
			t.Errorf("object %d (%v): no path", i, o.Index)
		case cityhash.ScriptImportIndex(p) != uint64(o.Index):
			t.Errorf("object %d %q: index %v, path hashes to %#x", i, p, o.Index, cityhash.ScriptImportIndex(p))
		default:
			indices++
		}
		if o.Outer.IsNull() {
			packages++
			if !strings.HasPrefix(p, "/Script/") || strings.ContainsAny(p, ".:") {
				t.Errorf("object %d: package path %q", i, p)
			}
		}
		if o.Name.MapType() != 2 {
			t.Errorf("object %d: name map type %d", i, o.Name.MapType())
		}
	}
	if p := s.Problems(); len(p) != 0 || len(s.KeptRaw()) != 0 || len(s.Trailing) != 0 {
		t.Errorf("Problems %v, KeptRaw %v, %d trailing bytes", p, s.KeptRaw(), len(s.Trailing))
	}
	t.Logf("%d of %d name hashes and %d of %d indices recomputed (%d script packages)", hashes, len(s.Names), indices, s.Len(), packages)
}

func soWantPath(t *testing.T, s *zen.ScriptObjects, x zen.ObjectIndex, want string) {
	t.Helper()
	if p, ok := s.Path(x); !ok || p != want {
		t.Errorf("Path(%v) = %q, %v; want %q", x, p, ok, want)
	}
	if x != zen.ScriptObject(want) {
		t.Errorf("ScriptObject(%q) = %v, want %v", want, zen.ScriptObject(want), x)
	}
}

func TestScriptObjectsUE427(t *testing.T) {
	names, hashes, meta := soCorpusUE427(t)
	s := soDecodeUE4(t, names, hashes, meta)
	if !s.UE4 || binary.LittleEndian.Uint64(hashes) != cityhash.NameHashAlgorithmID {
		t.Fatalf("UE4 %v, algorithm id %#x", s.UE4, binary.LittleEndian.Uint64(hashes))
	}
	// LoaderInitialLoadMeta is int32 count + count × 32 bytes, nothing after.
	if n := int(binary.LittleEndian.Uint32(meta)); 4+32*n != len(meta) {
		t.Errorf("meta: count %d, %d bytes", n, len(meta))
	}
	soCheckReal(t, s, hashes[8:], 21550, 23393)
	soRoundTripUE4(t, s, names, hashes, meta)
	soWantPath(t, s, 0x6b62d0815847a520, "/Script/Engine.BlueprintGeneratedClass")
	soWantPath(t, s, 0x61febf02cdde2af3, "/Script/CoreUObject")
	if n, ok := s.ObjectName(0x6b62d0815847a520); !ok || n != "BlueprintGeneratedClass" {
		t.Errorf("ObjectName %q, %v", n, ok)
	}
	// The 4.27 set written as a UE5 chunk decodes to the same objects.
	ue5, err := s.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	s5 := soDecodeUE5(t, ue5)
	if !slices.Equal(s5.Names, s.Names) || !slices.Equal(s5.Objects, s.Objects) {
		t.Error("UE5 form of the 4.27 set differs")
	}
}

func TestScriptObjectsUE5(t *testing.T) {
	for _, c := range []struct {
		rel            string
		names, objects int
		numbered, deep int // objects with a name number, paths with 3+ separators
		sampleX        zen.ObjectIndex
		samplePath     string
	}{
		{soCorpusUE5Files[0], 34639, 36979, 90, 57, 0x6b62d0815847a520, "/Script/Engine.BlueprintGeneratedClass"},
		{soCorpusUE5Files[1], 24122, 25703, 2, 8, 0x6b62d0815847a520, "/Script/Engine.BlueprintGeneratedClass"},
	} {
		t.Run(c.rel, func(t *testing.T) {
			data := soCorpusUE5(t, c.rel)
			s := soDecodeUE5(t, data)
			if s.UE4 || binary.LittleEndian.Uint64(data[8:]) != cityhash.NameHashAlgorithmID {
				t.Fatalf("UE4 %v", s.UE4)
			}
			n := len(s.Names)
			soCheckReal(t, s, data[16:16+8*n], c.names, c.objects)
			soRoundTripUE5(t, s, data)
			soWantPath(t, s, c.sampleX, c.samplePath)
			soWantPath(t, s, 0x61febf02cdde2af3, "/Script/CoreUObject")
			numbered, deep := 0, 0
			for _, o := range s.Objects {
				if o.Name.Number != 0 {
					numbered++
				}
				if p, _ := s.Path(o.Index); strings.Count(p, ".")+strings.Count(p, ":") >= 3 {
					deep++
				}
			}
			if numbered != c.numbered || deep != c.deep {
				t.Errorf("%d numbered names, %d deep paths; want %d, %d", numbered, deep, c.numbered, c.deep)
			}
			// The same set in the 4.27 form and back.
			names, hashes, meta, err := s.EncodeUE4()
			if err != nil {
				t.Fatal(err)
			}
			s4 := soDecodeUE4(t, names, hashes, meta)
			soRoundTripUE5(t, s4, data)
		})
	}
	// A subobject of a CDO, and one a level deeper, as UObject path names
	// write them ('.' again below the first subobject level).
	s := soDecodeUE5(t, soCorpusUE5(t, soCorpusUE5Files[1]))
	soWantPath(t, s, zen.ScriptObject("/Script/ActorSequence.Default__ActorSequenceComponent:Sequence.MovieScene"),
		"/Script/ActorSequence.Default__ActorSequenceComponent:Sequence.MovieScene")
	soWantPath(t, s, zen.ScriptObject("/Script/Engine.Default__Actor"), "/Script/Engine.Default__Actor")
}

// ---- fuzzing and benchmarks ----

// soFuzzUE4 packs the three 4.27 chunks into one fuzz input: a form byte
// (1), the sizes of the first two chunks, then the chunks.
func soFuzzUE4(names, hashes, meta []byte) []byte {
	b := []byte{1}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(names)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(hashes)))
	return append(append(append(b, names...), hashes...), meta...)
}

// soFuzzSplit undoes soFuzzUE4, clamping the sizes to the input.
func soFuzzSplit(b []byte) (names, hashes, meta []byte) {
	if len(b) < 8 {
		return nil, nil, b
	}
	n := min(int(binary.LittleEndian.Uint32(b)), len(b)-8)
	h := min(int(binary.LittleEndian.Uint32(b[4:])), len(b)-8-n)
	b = b[8:]
	return b[:n], b[n : n+h], b[n+h:]
}

// soShrink keeps the first n objects of a real set, with only the names
// they use, so that it can seed the fuzzer.
func soShrink(s *zen.ScriptObjects, n int) *zen.ScriptObjects {
	out := &zen.ScriptObjects{UE4: s.UE4}
	remap := map[uint32]uint32{}
	for _, o := range s.Objects[:min(n, len(s.Objects))] {
		i := o.Name.Index()
		if _, ok := remap[i]; !ok {
			remap[i] = uint32(len(out.Names))
			out.Names = append(out.Names, s.Names[i])
		}
		o.Name.IndexAndType = o.Name.IndexAndType&^0x3FFFFFFF | remap[i]
		out.Objects = append(out.Objects, o)
	}
	return out
}

// FuzzScriptObjects decodes arbitrary bytes in either form (first byte even:
// a UE5 ScriptObjects chunk; odd: three 4.27 chunks, see soFuzzUE4); what
// decodes must encode back to exactly the input, and lookups and Problems
// must not fail.
func FuzzScriptObjects(f *testing.F) {
	spec, _ := soSynthetic()
	f.Add(append([]byte{0}, soBuildUE5(spec)...))
	n4, h4, m4, _ := soBuildUE4(spec)
	f.Add(soFuzzUE4(n4, h4, m4))
	f.Add(append([]byte{0}, soBuildUE5(soSpec{})...))
	if os.Getenv(corpus.EnvVar) != "" {
		var sets []*zen.ScriptObjects
		names, hashes, meta := soCorpusUE427(f)
		sets = append(sets, soDecodeUE4(f, names, hashes, meta))
		for _, rel := range soCorpusUE5Files {
			sets = append(sets, soDecodeUE5(f, soCorpusUE5(f, rel)))
		}
		for _, s := range sets {
			small := soShrink(s, 100)
			var seed []byte
			if s.UE4 {
				n, h, m, err := small.EncodeUE4()
				if err != nil {
					f.Fatal(err)
				}
				seed = soFuzzUE4(n, h, m)
			} else {
				b, err := small.AppendBinary([]byte{0})
				if err != nil {
					f.Fatal(err)
				}
				seed = b
			}
			if len(seed) > 48<<10 {
				f.Fatalf("seed of %d bytes", len(seed))
			}
			f.Add(seed)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		if len(data) == 0 {
			return
		}
		var s *zen.ScriptObjects
		var err error
		var names, hashes, meta []byte
		ue4 := data[0]&1 == 1
		if ue4 {
			names, hashes, meta = soFuzzSplit(data[1:])
			s, err = zen.DecodeScriptObjectsUE4("fuzz", names, hashes, meta)
		} else {
			s, err = zen.DecodeScriptObjects("fuzz", data[1:])
		}
		if err != nil {
			var fe *ue.FormatError
			if !errors.As(err, &fe) || !errors.Is(err, zen.ErrCorrupt) || s != nil {
				t.Fatalf("error %T %v with value %v", err, err, s != nil)
			}
			return
		}
		if ue4 {
			n, h, m, err := s.EncodeUE4()
			if err != nil || !bytes.Equal(n, names) || !bytes.Equal(h, hashes) || !bytes.Equal(m, meta) {
				t.Fatalf("4.27 round trip differs (%v)", err)
			}
		} else {
			out, err := s.AppendBinary(nil)
			if err != nil || !bytes.Equal(out, data[1:]) {
				t.Fatalf("UE5 round trip differs (%v)", err)
			}
		}
		for _, o := range s.Objects {
			s.Path(o.Index)
			s.ObjectName(o.Outer)
		}
		_ = s.Problems()
		if _, err := json.Marshal(s); err != nil {
			t.Fatal(err)
		}
	})
}

var soSink any

// BenchmarkDecodeScriptObjects decodes the UE 5.8 global ScriptObjects
// chunk (34,639 names, 36,979 objects).
func BenchmarkDecodeScriptObjects(b *testing.B) {
	data := soCorpusUE5(b, soCorpusUE5Files[0])
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := zen.DecodeScriptObjects("bench", data)
		if err != nil {
			b.Fatal(err)
		}
		soSink = s
	}
}

// BenchmarkScriptObjectsProblems decodes the 5.8 chunk and checks every
// hash and path (Problems resolves every path).
func BenchmarkScriptObjectsProblems(b *testing.B) {
	data := soCorpusUE5(b, soCorpusUE5Files[0])
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := zen.DecodeScriptObjects("bench", data)
		if err != nil {
			b.Fatal(err)
		}
		if p := s.Problems(); len(p) != 0 {
			b.Fatal(p)
		}
	}
}

// BenchmarkScriptObjectsChains times Problems and every Path on the 20,000
// objects of soHostileChains' chain, loop and fan: resolving them must stay
// linear (the chain is cut at MaxScriptPathDepth, the loop detected).
func BenchmarkScriptObjectsChains(b *testing.B) {
	chain, loop, fan := soHostileChains(20000)
	for _, c := range []struct {
		what    string
		objects []zen.ScriptObjectEntry
	}{{"chain", chain}, {"loop", loop}, {"fan", fan}} {
		s, _ := soSet(b, []string{"/Script/Foo", "X"}, c.objects)
		b.Run(c.what, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Problems()
				for _, o := range s.Objects {
					s.Path(o.Index)
				}
			}
		})
	}
}
