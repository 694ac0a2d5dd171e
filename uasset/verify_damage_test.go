package uasset

import (
	"bytes"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/pak"
)

// damageSource is an engine-written asset the damage tests start from.
type damageSource struct {
	h, x []byte
	p    *Package
}

func loosePair(t *testing.T, rel string) damageSource {
	t.Helper()
	h, err := os.ReadFile(corpus.Path(t, rel+".uasset"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := os.ReadFile(corpus.Path(t, rel+".uexp"))
	if err != nil {
		t.Fatal(err)
	}
	return decodeSource(t, rel, h, x)
}

func pakPair(t *testing.T, rel, file string) damageSource {
	t.Helper()
	r, err := pak.Open(corpus.Path(t, rel), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h, err := r.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	x, err := r.ReadFile(CompanionNames(file).Uexp)
	if err != nil {
		t.Fatal(err)
	}
	return decodeSource(t, rel+":"+file, h, x)
}

func decodeSource(t *testing.T, name string, h, x []byte) damageSource {
	t.Helper()
	p, err := Decode(name, h, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q := p.Problems(); len(q) != 0 {
		t.Fatalf("%s: the undamaged asset has problems: %v", name, q)
	}
	return damageSource{h, x, p}
}

func put32(b []byte, off int, v int32) { binary.LittleEndian.PutUint32(b[off:], uint32(v)) }
func put64(b []byte, off int, v int64) { binary.LittleEndian.PutUint64(b[off:], uint64(v)) }
func get32(b []byte, off int) int32    { return int32(binary.LittleEndian.Uint32(b[off:])) }

// summaryAt returns the offset in the summary of the only place holding
// the i32 values vals in a row.
func summaryAt(t *testing.T, src damageSource, vals ...int32) int {
	t.Helper()
	var pat []byte
	for _, v := range vals {
		pat = binary.LittleEndian.AppendUint32(pat, uint32(v))
	}
	sum := src.h[:src.p.sections[0].kind.offsetIn(src.p)]
	i := bytes.Index(sum, pat)
	if i < 0 || bytes.Index(sum[i+1:], pat) >= 0 {
		t.Fatalf("%v: not found once in the summary", vals)
	}
	return i
}

// offsetIn is the offset of the first table: where the summary ends at
// the latest.
func (k secKind) offsetIn(p *Package) int {
	f32, _ := p.Summary.offsetField(k)
	return int(*f32)
}

// exportField is the offset of a field of export i's entry in the header.
func exportField(src damageSource, i, field int) int {
	return int(src.p.Summary.ExportOffset) + i*exportSize(&src.p.layout) + field
}

// Export map entry fields (UE4 508+): ClassIndex 0, SuperIndex 4,
// TemplateIndex 8, OuterIndex 12, ObjectName 16, ObjectFlags 24, SerialSize 28,
// SerialOffset 36; on 4.27, FirstExportDependency 84.
const (
	exClass, exOuter, exObjectName, exSerialSize, exSerialOffset = 0, 12, 16, 28, 36
	ex427FirstDependency                                         = 84
)

// TestProblemsDamaged damages one engine-written asset per rule; each
// copy decodes and Problems names the broken structure.
func TestProblemsDamaged(t *testing.T) {
	ue4 := loosePair(t, "other/ue4_27_cooked_pairs/TestModUI")
	cube := loosePair(t, "other/ue5_cooked_pairs/UE5.6_SM_Cube")
	tagged := pakPair(t, "pak/cue4parse_ue5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak", "DataTables/DT_AllProperties.uasset")
	hint427 := &Options{Release: Release{4, 27}}
	for _, tc := range []struct {
		name   string
		src    damageSource
		opts   *Options
		damage func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte)
		want   string // the Problem's structure
		msg    string // in its message
	}{
		{"name count one short", ue4, hint427, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			s := src.p.Summary
			put32(h, summaryAt(t, src, s.NameCount, s.NameOffset), s.NameCount-1)
			return h, x
		}, "import map", "belong to no part of the header"},
		{"generation counts", ue4, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			s := src.p.Summary
			put32(h, summaryAt(t, src, 1, s.ExportCount, s.NameCount)+8, s.NameCount+1)
			return h, x
		}, "package file summary", "generation 0 records"},
		{"name hash", ue4, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			at := int(src.p.Summary.NameOffset) + 4 + len(src.p.Names[0].Value) + 1
			h[at] ^= 0x55
			return h, x
		}, "name 0", "stored hashes"},
		{"one name's hashes zeroed", ue4, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			at := int(src.p.Summary.NameOffset) + 4 + len(src.p.Names[0].Value) + 1
			put32(h, at, 0)
			return h, x
		}, "name 0", "stored hashes 0x0000 0x0000"},
		{"export outer out of range", ue4, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			put32(h, exportField(src, 0, exOuter), int32(len(src.p.Exports)+5))
			return h, x
		}, "export 0", "OuterIndex"},
		{"export class is itself", ue4, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			put32(h, exportField(src, 0, exClass), 1)
			return h, x
		}, "export 0", "ClassIndex 1 is the export itself"},
		{"export name out of range", ue4, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			put32(h, exportField(src, 0, exObjectName), int32(len(src.p.Names)))
			return h, x
		}, "export 0", "ObjectName"},
		{"import outer out of range", ue4, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			put32(h, int(src.p.Summary.ImportOffset)+16, -int32(len(src.p.Imports)+3))
			return h, x
		}, "import 0", "not one of the"},
		{"outer loop", ue4, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			put32(h, exportField(src, 0, exOuter), 2)
			put32(h, exportField(src, 1, exOuter), 1)
			return h, x
		}, "export 0", "outer chain comes back"},
		{"serial range with a gap", ue4, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			e := src.p.Exports[0]
			put64(h, exportField(src, 0, exSerialOffset), e.SerialOffset+1)
			put64(h, exportField(src, 0, exSerialSize), e.SerialSize-1)
			return h, x
		}, "export 0", "1 bytes before the export's data"},
		{"serial range short of the tag", ue4, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			i := src.p.order[len(src.p.order)-1]
			put64(h, exportField(src, i, exSerialSize), src.p.Exports[i].SerialSize-2)
			return h, x
		}, "export data", "2 bytes after the last export's data"},
		{"tail tag", ue4, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			x[len(x)-1] ^= 0xFF
			return h, x
		}, "export data", "package tag"},
		{"bulk data start", ue4, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			s := src.p.Summary
			at := summaryAt(t, src, s.AssetRegistryDataOffset, int32(s.BulkDataStartOffset), int32(s.BulkDataStartOffset>>32)) + 4
			put64(h, at, s.BulkDataStartOffset+8)
			return h, x
		}, "package file summary", "BulkDataStartOffset"},
		{"header trailer", ue4, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			return append(h, 1, 2, 3), x
		}, "header", "after TotalHeaderSize"},
		{"preload dependency out of range", ue4, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			put32(h, int(src.p.Summary.PreloadDependencyOffset), -int32(len(src.p.Imports)+7))
			return h, x
		}, "preload dependency 0", "not one of the"},
		{"export preload range", ue4, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			put32(h, exportField(src, 0, ex427FirstDependency), int32(len(src.p.PreloadDependencies)))
			return h, x
		}, "export 0", "lie outside the"},
		{"UE5 cook without PKG_Cooked", cube, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			s := src.p.Summary
			put32(h, summaryAt(t, src, int32(s.PackageFlags), s.NameCount, s.NameOffset), int32(s.PackageFlags&^PkgCooked))
			return h, x
		}, "package file summary", "PKG_Cooked"},
		{"data resource outer", cube, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			put32(h, int(src.p.Summary.DataResourceOffset)+8+37, -1)
			return h, x
		}, "data resource 0", "is an import"},
		{"script serialization end", tagged, nil, func(t *testing.T, src damageSource, h, x []byte) ([]byte, []byte) {
			size := exportSize(&src.p.layout)
			put64(h, exportField(src, 0, size-8), src.p.Exports[0].SerialSize+1)
			return h, x
		}, "export 0", "script serialization"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, x := tc.damage(t, tc.src, bytes.Clone(tc.src.h), bytes.Clone(tc.src.x))
			p, err := Decode("damaged.uasset", h, x, tc.opts)
			if err != nil {
				t.Fatalf("the damaged copy does not decode: %v", err)
			}
			probs := p.Problems()
			for _, q := range probs {
				if strings.HasPrefix(q.Struct, tc.want) && strings.Contains(q.Msg, tc.msg) {
					t.Logf("%v", q)
					return
				}
			}
			t.Errorf("no problem of %q saying %q; got %v", tc.want, tc.msg, probs)
		})
	}
}

// TestProblemsChangedModel changes a decoded package the way a careless
// caller might: the summary's counts no longer match the tables.
func TestProblemsChangedModel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(p *Package)
		want   string
	}{
		{"a name dropped", func(p *Package) { p.Names = p.Names[:len(p.Names)-1] }, "NameCount"},
		{"an import dropped", func(p *Package) { p.Imports = p.Imports[:len(p.Imports)-1] }, "ImportCount"},
		{"a preload dependency added", func(p *Package) { p.PreloadDependencies = append(p.PreloadDependencies, -1) }, "PreloadDependencyCount"},
		// Clearing the flag in the file's bytes changes the summary's layout
		// (editor-only fields) and the copy no longer decodes.
		{"PKG_FilterEditorOnly cleared", func(p *Package) { p.Summary.PackageFlags &^= PkgFilterEditorOnly }, "PKG_FilterEditorOnly"},
		{"a depends list dropped", func(p *Package) { p.DependsMap = p.DependsMap[:len(p.DependsMap)-1] }, "one per export"},
		{"a depends entry out of range", func(p *Package) { p.DependsMap[0] = append(p.DependsMap[0], PackageIndex(len(p.Exports)+1)) }, "not one of the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := loosePair(t, "other/ue4_27_cooked_pairs/TestModUI").p
			tc.change(p)
			for _, q := range p.Problems() {
				if strings.Contains(q.Msg, tc.want) {
					t.Logf("%v", q)
					return
				}
			}
			t.Errorf("no problem saying %q: %v", tc.want, p.Problems())
		})
	}
}
