package reader_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// ---- a byte-by-byte builder of small synthetic packages ----
//
// The builder writes every structure itself (it does not use the writer), so
// the reader is tested against bytes laid out from the format description
// alone, and tests can corrupt any field before or after building.

type synthName struct {
	s     string
	flags uint32
}

type synthImport struct {
	classPkg, className int32 // name indices
	outer               int32 // object ref (INT)
	name                int32 // name index
}

type synthExport struct {
	class, super int32 // object refs (INDEX)
	outer        int32 // object ref (INT)
	name         int32 // name index
	flags        uint32
	// data builds the export's data for the absolute offset it is placed
	// at; nil means no data (SerialSize 0, no SerialOffset).
	data func(off int) []byte
	// sizeOverride / offsetOverride, when non-nil, replace the SerialSize /
	// SerialOffset written to the table (the data is still placed).
	sizeOverride, offsetOverride *int32
}

type synthPkg struct {
	version  uint32 // the header DWORD (licensee << 16 | file version)
	names    []synthName
	imports  []synthImport
	exports  []synthExport
	gens     [][2]int32 // generations (v >= 68); nil: one {exports, names}
	heritage int        // v < 68: number of heritage GUIDs (0 means 1)
	// order of the sections after the header; nil means the engine order
	// "heritage names data imports exports".
	order []string
}

// synthLayout records where build put each structure.
type synthLayout struct {
	nameOff, importOff, exportOff, heritageOff int
	nameEntry, importEntry, exportEntry        []int // offset of each table entry
	dataOff                                    []int // offset of each export's data (-1: none)
	size                                       int
}

func (s *synthPkg) fileVersion() int { return int(s.version & 0xFFFF) }

func synthIndex(b []byte, v int32) []byte { return binio.AppendIndex(b, v) }

func synthU32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }

// build lays the package out and encodes it. When the export table comes
// before the data, the data offsets are only known after a first pass, so
// build repeats until the layout is stable.
func (s *synthPkg) build() ([]byte, synthLayout) {
	dataAt := make([]int, len(s.exports))
	for pass := 0; ; pass++ {
		if pass == 10 {
			panic("synthetic layout does not settle")
		}
		out, lay := s.buildWith(dataAt)
		stable := true
		for i, off := range lay.dataOff {
			if off >= 0 && off != dataAt[i] {
				stable = false
				dataAt[i] = off
			}
		}
		if stable {
			return out, lay
		}
	}
}

func (s *synthPkg) buildWith(dataAt []int) ([]byte, synthLayout) {
	ver := s.fileVersion()
	hdr := 44
	if ver >= 68 {
		gens := len(s.gens)
		if s.gens == nil {
			gens = 1
		}
		hdr = 56 + 8*gens
	}
	order := s.order
	if order == nil {
		order = []string{"heritage", "names", "data", "imports", "exports"}
	}
	lay := synthLayout{dataOff: make([]int, len(s.exports))}
	out := make([]byte, hdr)
	for _, sec := range order {
		switch sec {
		case "heritage":
			if ver >= 68 {
				continue
			}
			lay.heritageOff = len(out)
			n := s.heritage
			if n == 0 {
				n = 1
			}
			for k := 0; k < n; k++ {
				out = append(out, bytes.Repeat([]byte{byte(0xA0 + k)}, 16)...)
			}
		case "names":
			lay.nameOff = len(out)
			for _, n := range s.names {
				lay.nameEntry = append(lay.nameEntry, len(out))
				if ver < 64 {
					out = append(out, n.s...)
					out = append(out, 0)
				} else {
					out = synthIndex(out, int32(len(n.s)+1))
					out = append(out, n.s...)
					out = append(out, 0)
				}
				out = synthU32(out, n.flags)
			}
		case "data":
			for i, e := range s.exports {
				lay.dataOff[i] = -1
				if e.data == nil {
					continue
				}
				lay.dataOff[i] = len(out)
				out = append(out, e.data(len(out))...)
			}
		case "imports":
			lay.importOff = len(out)
			for _, im := range s.imports {
				lay.importEntry = append(lay.importEntry, len(out))
				out = synthIndex(out, im.classPkg)
				out = synthIndex(out, im.className)
				out = synthU32(out, uint32(im.outer))
				out = synthIndex(out, im.name)
			}
		case "exports":
			lay.exportOff = len(out)
			for i, e := range s.exports {
				lay.exportEntry = append(lay.exportEntry, len(out))
				out = synthIndex(out, e.class)
				out = synthIndex(out, e.super)
				out = synthU32(out, uint32(e.outer))
				out = synthIndex(out, e.name)
				out = synthU32(out, e.flags)
				var size, off int32
				if e.data != nil {
					size = int32(len(e.data(dataAt[i])))
					off = int32(dataAt[i])
				}
				if e.sizeOverride != nil {
					size = *e.sizeOverride
				}
				if e.offsetOverride != nil {
					off = *e.offsetOverride
				}
				out = synthIndex(out, size)
				if size != 0 {
					out = synthIndex(out, off)
				}
			}
		}
	}
	h := out[:0]
	h = synthU32(h, reader.Tag)
	h = synthU32(h, s.version)
	h = synthU32(h, 0x0001) // AllowDownload
	h = synthU32(h, uint32(len(s.names)))
	h = synthU32(h, uint32(lay.nameOff))
	h = synthU32(h, uint32(len(s.exports)))
	h = synthU32(h, uint32(lay.exportOff))
	h = synthU32(h, uint32(len(s.imports)))
	h = synthU32(h, uint32(lay.importOff))
	if ver < 68 {
		n := s.heritage
		if n == 0 {
			n = 1
		}
		h = synthU32(h, uint32(n))
		h = synthU32(h, uint32(lay.heritageOff))
	} else {
		h = synthU32(h, 0x11111111)
		h = synthU32(h, 0x22222222)
		h = synthU32(h, 0x33333333)
		h = synthU32(h, 0x44444444)
		gens := s.gens
		if gens == nil {
			gens = [][2]int32{{int32(len(s.exports)), int32(len(s.names))}}
		}
		h = synthU32(h, uint32(len(gens)))
		for _, g := range gens {
			h = synthU32(h, uint32(g[0]))
			h = synthU32(h, uint32(g[1]))
		}
	}
	if len(h) != hdr {
		panic("synthetic header size mismatch")
	}
	lay.size = len(out)
	return out, lay
}

// Name indices of the synthetic package.
const (
	sNone = iota
	sCore
	sPackage
	sClass
	sObject
	sEngine
	sTexture
	sBar
	sBaz
	sQux
	sFoo
	sTint
	sLabel
	sBOn
	sCount
)

// synthProps encodes a small tagged property list: an IntProperty, a
// NameProperty, a true BoolProperty in the engine's form, then None.
func synthProps(tint int32) []byte {
	var b []byte
	b = synthIndex(b, sTint)
	b = append(b, 0x22) // Int, size code 2 (4 bytes)
	b = synthU32(b, uint32(tint))
	b = synthIndex(b, sLabel)
	b = append(b, 0x06) // Name, size code 0 (1 byte)
	b = synthIndex(b, sBaz)
	b = synthIndex(b, sBOn)
	b = append(b, 0xD3, 0x00) // Bool true, size code 5 + size byte 0
	return synthIndex(b, sNone)
}

// synthTexture is a Texture export's data: an empty property list and one
// 4x1 mip whose SeekPos (file version > 61) points at its USize field.
func synthTexture(ver int) func(off int) []byte {
	return func(off int) []byte {
		b := synthIndex(nil, sNone)
		b = synthIndex(b, 1) // one mip
		if ver > 61 {
			seek := off + len(b) + 4 + 1 + 4 // SeekPos, count, 4 pixel bytes
			b = synthU32(b, uint32(seek))
		}
		b = synthIndex(b, 4)
		b = append(b, 1, 2, 3, 4)
		b = synthU32(b, 4) // USize
		b = synthU32(b, 1) // VSize
		return append(b, 2, 0)
	}
}

// newSynth returns the minimal package: "None" and a few names with the
// engine's flags, Core/Engine package imports with two class imports, and
// four exports (one without data, one texture, one in a group).
func newSynth(version uint32) *synthPkg {
	ver := int(version & 0xFFFF)
	names := make([]synthName, sCount)
	for i, s := range []string{"None", "Core", "Package", "Class", "Object", "Engine", "Texture",
		"Bar", "Baz", "Qux", "Foo", "Tint", "Label", "bOn"} {
		names[i] = synthName{s, uint32(reader.NewNameFlags)}
	}
	names[sNone].flags = 0x04070410
	const pub = 0x00070004
	return &synthPkg{
		version: version,
		names:   names,
		imports: []synthImport{
			{sCore, sPackage, 0, sCore},   // import 0: Core
			{sCore, sClass, -1, sObject},  // import 1: Core.Object
			{sCore, sPackage, 0, sEngine}, // import 2: Engine
			{sCore, sClass, -3, sTexture}, // import 3: Engine.Texture
		},
		exports: []synthExport{
			{class: -2, name: sBar, flags: pub, data: func(int) []byte { return synthProps(42) }},
			{class: -2, name: sBaz, flags: pub},
			{class: -4, name: sQux, flags: pub, data: synthTexture(ver)},
			{class: -2, outer: 1, name: sFoo, flags: pub, data: func(int) []byte { return synthProps(-7) }},
		},
	}
}

// synthV69 and synthV61 are the two minimal packages every test starts from.
func synthV69() []byte { b, _ := newSynth(69).build(); return b }
func synthV61() []byte { b, _ := newSynth(61).build(); return b }

func int32p(v int32) *int32 { return &v }

// TestSyntheticPackages checks the builder: its packages read, verify,
// encode byte-identically and survive the compact layout.
func TestSyntheticPackages(t *testing.T) {
	for _, v := range []uint32{61, 63, 64, 68, 69, 29<<16 | 128} {
		s := newSynth(v)
		data, lay := s.build()
		name := "Synth" + reader.Version{File: uint16(v), Licensee: uint16(v >> 16)}.String() + ".u"
		name = strings.ReplaceAll(name, "/", "_")
		t.Run(name, func(t *testing.T) {
			p, err := reader.Read(name, data)
			if err != nil {
				t.Fatal(err)
			}
			if probs := p.Verify(); len(probs) > 0 {
				t.Fatalf("verify: %v", probs)
			}
			if len(p.Names) != sCount || len(p.Imports) != 4 || len(p.Exports) != 4 {
				t.Fatalf("tables: %d names, %d imports, %d exports", len(p.Names), len(p.Imports), len(p.Exports))
			}
			if got := p.ExportPath(3); got != p.Name+".Bar.Foo" {
				t.Errorf("export 3 path %q", got)
			}
			props, err := p.Properties(0)
			if err != nil || len(props.Props) != 3 {
				t.Fatalf("properties of export 0: %v, %v", props, err)
			}
			if q := props.Find(p, "bOn", 0); q == nil || !q.Bool {
				t.Errorf("bOn = %+v", q)
			}
			nl, err := p.Native(2)
			if err != nil || nl.Kind != reader.NativeTexture || len(nl.Mips) != 1 || nl.End != len(p.Exports[2].Data) {
				t.Fatalf("texture native layout %+v, %v", nl, err)
			}
			if int(p.Exports[2].SerialOffset) != lay.dataOff[2] {
				t.Errorf("texture at 0x%X, built at 0x%X", p.Exports[2].SerialOffset, lay.dataOff[2])
			}
			out, _, err := writer.Encode(p, writer.Options{Layout: writer.Preserve})
			if err != nil || !bytes.Equal(out, data) {
				t.Fatalf("preserve encode differs (err %v)", err)
			}
			p.Names = append(p.Names, reader.Name{Name: "Shifted", Flags: reader.NewNameFlags})
			if n := len(p.Header.Generations); n > 0 {
				p.Header.Generations[n-1] = reader.Generation{ExportCount: int32(len(p.Exports)), NameCount: int32(len(p.Names))}
			}
			out, _, err = writer.Encode(p, writer.Options{Layout: writer.Compact})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := writer.Check(name, out); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// ---- FuzzRead ----

// fuzzSeeds returns the seeds that do not need the corpus.
func fuzzSeeds() [][]byte {
	seeds := [][]byte{synthV69(), synthV61()}
	for _, v := range []uint32{64, 29<<16 | 128} {
		b, _ := newSynth(v).build()
		seeds = append(seeds, b)
	}
	// Layout variants: tables before the data, and the names last.
	s := newSynth(69)
	s.order = []string{"exports", "imports", "names", "data"}
	b, _ := s.build()
	seeds = append(seeds, b)
	s = newSynth(63)
	s.order = []string{"data", "imports", "exports", "heritage", "names"}
	s.heritage = 2
	b, _ = s.build()
	seeds = append(seeds, b)
	// The demo packages (textures, sound, mesh) from the fixture builder.
	for _, v := range []reader.Version{{File: 61}, {File: 66}, {File: 69}, {File: 128, Licensee: 29}} {
		if b, err := fixture.Demo(v); err == nil {
			seeds = append(seeds, b)
		}
	}
	// Hostile packages: many tags named by one long name, and deep outer
	// chains of long names, whose cost must stay linear in their size.
	for _, build := range []func() ([]byte, error){
		func() ([]byte, error) { return fixture.LongNameTags(40000, 1024) },
		func() ([]byte, error) { return fixture.DeepOuters(200, 4) },
		func() ([]byte, error) { return fixture.DeepOuters(250, 1000) },
	} {
		if b, err := build(); err == nil {
			seeds = append(seeds, b)
		}
	}
	return seeds
}

// corpusSeeds lists the corpus's legacy packages (legacy/ and legacy-next/)
// when UNRMOD_CORPUS is set. It reads the environment directly so that
// fuzzing also works without it.
func corpusSeeds(f *testing.F) [][]byte {
	dir := os.Getenv("UNRMOD_CORPUS")
	if dir == "" {
		return nil
	}
	var files []string
	for _, d := range corpus.LegacyDirs {
		m, _ := filepath.Glob(filepath.Join(dir, d, "*", "*"))
		files = append(files, m...)
	}
	sort.Strings(files)
	var out [][]byte
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatalf("corpus seed: %v", err)
		}
		out = append(out, b)
	}
	return out
}

// Allocation bounds for one input of n bytes. Read bounds every count by the
// bytes left, so it allocates a fixed multiple of the input; the whole
// check (Verify, Native and Properties of every export, Encode) a larger one.
func readAllocBound(n int) uint64  { return 64*uint64(n) + 256<<10 }
func totalAllocBound(n int) uint64 { return 256*uint64(n) + 1<<20 }

const fuzzFile = "Fuzz.u"

// FuzzRead feeds arbitrary bytes to the reader. It must never panic; errors
// are *reader.FormatError naming the file; a package that reads must survive
// Verify, Native and Properties of every export (and StructTags of every
// struct value) and encode back to exactly
// the input with the preserve layout; and memory stays proportional to the
// input.
func FuzzRead(f *testing.F) {
	for _, b := range fuzzSeeds() {
		f.Add(b)
	}
	for _, b := range corpusSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		var m0, m1, m2 runtime.MemStats
		runtime.ReadMemStats(&m0)
		p, err := reader.Read(fuzzFile, data)
		runtime.ReadMemStats(&m1)
		if d := m1.TotalAlloc - m0.TotalAlloc; d > readAllocBound(len(data)) {
			t.Fatalf("Read of %d bytes allocated %d bytes", len(data), d)
		}
		if err != nil {
			var fe *reader.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is %T, not *reader.FormatError", err, err)
			}
			if !strings.HasPrefix(err.Error(), fuzzFile+": ") || fe.Struct == "" {
				t.Fatalf("error %q does not name the file and structure", err)
			}
			if p != nil {
				t.Fatal("Read returned a package with an error")
			}
			return
		}
		_ = p.Verify()
		for i := range p.Exports {
			_, _ = p.Native(i)
			if l, err := p.Properties(i); err == nil {
				for k := range l.Props {
					if q := &l.Props[k]; q.Type == reader.PropStruct {
						_, _ = p.StructTags(q.Value(p.Exports[i].Data))
					}
				}
			}
			_ = p.ExportPath(i)
		}
		out, _, err := writer.Encode(p, writer.Options{Layout: writer.Preserve})
		if err != nil {
			t.Fatalf("preserve encode of an unchanged package failed: %v", err)
		}
		if !bytes.Equal(out, data) {
			at := 0
			for at < len(out) && at < len(data) && out[at] == data[at] {
				at++
			}
			t.Fatalf("preserve encode is not byte-identical: %d bytes in, %d out, first difference at 0x%X", len(data), len(out), at)
		}
		runtime.ReadMemStats(&m2)
		if d := m2.TotalAlloc - m0.TotalAlloc; d > totalAllocBound(len(data)) {
			t.Fatalf("reading, verifying and encoding %d bytes allocated %d bytes", len(data), d)
		}
	})
}
