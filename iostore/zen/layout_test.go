package zen_test

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/iostore/zen"
)

// inLayout returns a copy of a UE5 package laid out for layout l, the way
// that release would have cooked it: one export bundle and graph data up to
// 5.2 (one empty arc list per imported package), dependency bundles and
// imported package names from 5.3, the bulk-data map from 5.2, versions
// that match.
func inLayout(t testing.TB, p *zen.Package, l zen.Layout) *zen.Package {
	t.Helper()
	q := *p
	q.Layout = l
	imported := len(p.ImportedPackages)
	if l < zen.LayoutUE53 {
		q.Bundles = []zen.ExportBundle{{FirstEntry: 0, EntryCount: uint32(len(p.BundleEntries))}}
		q.ExternalArcs = make([][]zen.ExternalArc, imported)
		q.DependencyHeaders, q.DependencyEntries, q.ImportedPackages = nil, nil, nil
	}
	if l < zen.LayoutUE52 {
		q.BulkData = nil
	}
	if l < zen.LayoutUE56 {
		q.CellImports, q.CellExports = nil, nil
	}
	if p.Versioning != nil {
		v := *p.Versioning
		versions := map[zen.Layout]struct {
			zen uint32
			ue5 int32
		}{zen.LayoutUE50: {0, 1004}, zen.LayoutUE52: {1, 1009}, zen.LayoutUE53: {3, 1010}, zen.LayoutUE54: {3, 1012}, zen.LayoutUE56: {3, 1017}}
		v.ZenVersion, v.FileVersionUE5 = versions[l].zen, versions[l].ue5
		q.Versioning = &v
	}
	return &q
}

// TestLayoutsFromCorpus re-lays every loose UE5 package of the corpus and
// the UE 5.8 fixture DataTable out in every UE5 layout: each encodes,
// is detected as that layout, decodes in canonical form to the same model
// and encodes back byte for byte.
func TestLayoutsFromCorpus(t *testing.T) {
	for _, sub := range []string{"UE5.4_BP_Table_Lamp", "UE5.6_SM_Cube", "Zlib-Windows.utoc:DataTables/DT_AllProperties", "Uncompressed-Windows.utoc:DataTables/DT_AllProperties"} {
		cp := corpusSample(t, sub)
		p, err := zen.DecodePackage(cp.name, cp.data, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []zen.Layout{zen.LayoutUE50, zen.LayoutUE52, zen.LayoutUE53, zen.LayoutUE54, zen.LayoutUE56} {
			q := inLayout(t, p, l)
			data, err := q.Encode()
			if err != nil {
				t.Fatalf("%s as %v: %v", cp.name, l, err)
			}
			if got, err := zen.DetectLayout(data); got != l {
				t.Errorf("%s as %v: detected %v, %v", cp.name, l, got, err)
			}
			r, err := zen.DecodePackage(cp.name, data, nil)
			if err != nil {
				t.Fatalf("%s as %v: %v", cp.name, l, err)
			}
			if k := r.KeptRaw(); len(k) > 0 {
				t.Errorf("%s as %v: kept raw %v", cp.name, l, k)
			}
			for i := range r.Exports {
				if !bytes.Equal(r.Exports[i].Data, p.Exports[i].Data) {
					t.Errorf("%s as %v: export %d data differs", cp.name, l, i)
				}
			}
			if !reflect.DeepEqual(r.Names, p.Names) || !reflect.DeepEqual(r.Imports, p.Imports) || len(r.ExternalArcs) != len(q.ExternalArcs) {
				t.Errorf("%s as %v: model differs", cp.name, l)
			}
			if out, err := r.Encode(); err != nil || !bytes.Equal(out, data) {
				t.Errorf("%s as %v: does not encode back: %v", cp.name, l, err)
			}
			for _, pr := range r.Problems(nil) {
				t.Errorf("%s as %v: %s", cp.name, l, pr)
			}
		}
	}
}

// TestLayoutUE52ByHand decodes a small 5.2 package laid out byte by byte
// from the format notes (docs/zen.md): 44-byte summary, no versioning, name
// batch, bulk-data map, one imported public export hash, two imports, two
// exports in two bundles with graph data, and the export data. It checks
// every field and that Encode writes the same bytes.
func TestLayoutUE52ByHand(t *testing.T) {
	le := binary.LittleEndian
	var b []byte
	u32 := func(v uint32) { b = le.AppendUint32(b, v) }
	u64 := func(v uint64) { b = le.AppendUint64(b, v) }
	names := []string{"/Game/Hand", "None", "Obj", "Default__Obj"}
	b = make([]byte, 44)
	// Name batch.
	u32(uint32(len(names)))
	text := 0
	for _, n := range names {
		text += len(n)
	}
	u32(uint32(text))
	u64(cityhash.NameHashAlgorithmID)
	for _, n := range names {
		u64(cityhash.NameHash(n))
	}
	for _, n := range names {
		b = append(b, 0, byte(len(n)))
	}
	for _, n := range names {
		b = append(b, n...)
	}
	// Bulk-data map: one entry.
	u64(32)
	u64(100)
	u64(^uint64(0))
	u64(16)
	u32(1)
	b = append(b, 3, 0, 0, 0)
	hashesAt := len(b)
	u64(0x1111)
	importsAt := len(b)
	u64(uint64(cityhash.ScriptImportIndex("/Script/CoreUObject.Object")))
	u64(uint64(zen.PackageImportUE5(0, 0)))
	exportsAt := len(b)
	const cooked = 500
	dataA, dataB := []byte("first export data"), []byte("second!")
	for i, d := range [][]byte{dataA, dataB} {
		off := uint64(cooked)
		if i == 1 {
			off += uint64(len(dataA))
		}
		u64(off)
		u64(uint64(len(d)))
		u32(uint32(2 + i))
		u32(0)
		u64(^uint64(0))                         // outer: null
		u64(uint64(zen.ExportObject(0)))        // class: export 0 (for the test)
		u64(^uint64(0))                         // super
		u64(uint64(zen.PackageImportUE5(0, 0))) // template
		u64(0)                                  // not public
		u32(1)
		b = append(b, 0, 0, 0, 0)
	}
	entriesAt := len(b)
	// Bundle 0: create 0, create 1, serialize 1; bundle 1: serialize 0.
	for _, e := range [][2]uint32{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
		u32(e[0])
		u32(e[1])
	}
	graphAt := len(b)
	u64(0)
	u32(0)
	u32(3)
	u64(uint64(len(dataB)))
	u32(3)
	u32(1)
	u32(1) // one internal arc
	u32(0)
	u32(1)
	u32(1) // one imported package with one external arc
	u32(1)
	b = append(b, 1)
	u32(0)
	headerSize := len(b)
	b = append(b, dataB...)
	b = append(b, dataA...)
	le.PutUint32(b[4:], uint32(headerSize))
	le.PutUint32(b[8:], 0)
	le.PutUint32(b[16:], uint32(zen.FlagFilterEditorOnly))
	le.PutUint32(b[20:], cooked)
	for k, v := range []int{hashesAt, importsAt, exportsAt, entriesAt, graphAt} {
		le.PutUint32(b[24+4*k:], uint32(v))
	}

	if l, err := zen.DetectLayout(b); l != zen.LayoutUE52 {
		t.Fatalf("detected %v, %v", l, err)
	}
	p, err := zen.DecodePackage("hand", b, nil)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case p.PackageName() != "/Game/Hand" || p.Versioning != nil || p.CookedHeaderSize != cooked:
		t.Errorf("summary: %q %+v %d", p.PackageName(), p.Versioning, p.CookedHeaderSize)
	case len(p.BulkData) != 1 || p.BulkData[0].SerialOffset != 100 || p.BulkData[0].DuplicateSerialOffset != -1 || p.BulkData[0].CookedIndex != 3:
		t.Errorf("bulk data %+v", p.BulkData)
	case len(p.ImportedPublicExportHashes) != 1 || len(p.Imports) != 2 || len(p.Exports) != 2:
		t.Errorf("maps: %d hashes, %d imports, %d exports", len(p.ImportedPublicExportHashes), len(p.Imports), len(p.Exports))
	case !bytes.Equal(p.Exports[0].Data, dataA) || !bytes.Equal(p.Exports[1].Data, dataB):
		t.Errorf("data %q %q", p.Exports[0].Data, p.Exports[1].Data)
	case len(p.Bundles) != 2 || p.Bundles[1].SerialOffset != uint64(len(dataB)) || p.Bundles[1].FirstEntry != 3:
		t.Errorf("bundles %+v", p.Bundles)
	case len(p.InternalArcs) != 1 || p.InternalArcs[0] != (zen.Arc{From: 0, To: 1}):
		t.Errorf("internal arcs %+v", p.InternalArcs)
	case len(p.ExternalArcs) != 1 || p.ExternalArcs[0][0] != (zen.ExternalArc{FromImport: 1, FromCommand: 1, ToBundle: 0}):
		t.Errorf("external arcs %+v", p.ExternalArcs)
	case len(p.KeptRaw()) > 0:
		t.Errorf("kept raw %v", p.KeptRaw())
	}
	for _, q := range p.Problems(nil) {
		t.Errorf("problem: %s", q)
	}
	// Growing the first export moves the second bundle and the legacy
	// offsets after it.
	p.Exports[0].Data = append(bytes.Clone(dataA), "grown"...)
	out, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	r, err := zen.DecodePackage("hand", out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Exports[1].SerialOffset != cooked+uint64(len(dataA))+5 || r.Bundles[1].SerialOffset != uint64(len(dataB)) || string(r.Exports[0].Data) != string(dataA)+"grown" {
		t.Errorf("after growing: offsets %d, bundle %d", r.Exports[1].SerialOffset, r.Bundles[1].SerialOffset)
	}
	for _, q := range r.Problems(nil) {
		t.Errorf("problem after growing: %s", q)
	}
}
