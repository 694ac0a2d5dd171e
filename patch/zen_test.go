package patch_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/unrmod/unrmod/internal/zencorpus"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/props"
)

// These tests patch every zen package of the corpus: the Grounded 4.27
// packages, the UE 5.4/5.6 .uzenasset files and the package chunks of the
// decompressible UE 5.8 containers (written to files, as extract writes
// them). Each output must pass every check of verify (with its store entry
// updated as the result says) and diff as exactly the intended change.

// zenFile is a corpus zen package as a file a patch can name.
type zenFile struct {
	name  string          // how failures name it
	path  string          // the file
	entry *zen.StoreEntry // its container's store entry, when known
}

var (
	zenFilesOnce sync.Once
	zenFilesList []zenFile
	zenFilesErr  error
)

// zenCorpusFiles returns every zen package of the corpus as a file: loose
// packages as they are, package chunks written once to a directory the
// test binary removes when it exits (see TestMain).
func zenCorpusFiles(t testing.TB) []zenFile {
	t.Helper()
	pkgs := zencorpus.Packages(t)
	zenFilesOnce.Do(func() { zenFilesList, zenFilesErr = writeZenFiles(pkgs) })
	if zenFilesErr != nil {
		t.Fatal(zenFilesErr)
	}
	return zenFilesList
}

func writeZenFiles(pkgs []zencorpus.Package) ([]zenFile, error) {
	var out []zenFile
	for n, zp := range pkgs {
		f := zenFile{name: zp.Name, path: zp.Path, entry: zp.Entry}
		if f.path == "" {
			tmp, err := zenTempDir()
			if err != nil {
				return nil, err
			}
			f.path = filepath.Join(tmp, fmt.Sprintf("%03d_%s", n, filepath.Base(zp.Name)))
			if err := os.WriteFile(f.path, zp.Data, 0o644); err != nil {
				return nil, err
			}
		}
		out = append(out, f)
	}
	return out, nil
}

var zenTmp string

func zenTempDir() (string, error) {
	if zenTmp == "" {
		d, err := os.MkdirTemp("", "unrmod-zen-patch-")
		if err != nil {
			return "", err
		}
		zenTmp = d
	}
	return zenTmp, nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if zenTmp != "" {
		os.RemoveAll(zenTmp)
	}
	os.Exit(code)
}

func readZen(t testing.TB, path string) (*zen.Package, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := zen.DecodePackage(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, data
}

// zenPatched is one applied zen patch: the input and output packages and
// what Apply said.
type zenPatched struct {
	old, new *zen.Package
	res      *patch.TargetResult
	diff     *patch.PackageDiff
}

// applyZenOps applies ops to f, checks that the input is untouched and the
// output passes verify with the store entry the result describes, and
// diffs the two.
func applyZenOps(t *testing.T, f zenFile, ops string) *zenPatched {
	t.Helper()
	before, err := os.ReadFile(f.path)
	if err != nil {
		t.Fatal(err)
	}
	res, out := applyText(t, oneTarget(f.path, ops))
	if len(res.Targets) != 1 {
		t.Fatalf("%d targets", len(res.Targets))
	}
	tr := res.Targets[0]
	if tr.Kind != "zen" {
		t.Fatalf("%s: kind %q", f.name, tr.Kind)
	}
	if after, _ := os.ReadFile(f.path); !bytes.Equal(after, before) {
		t.Fatalf("%s: the input changed", f.name)
	}
	old, err := zen.DecodePackage(f.path, before, nil)
	if err != nil {
		t.Fatal(err)
	}
	outPath := filepath.Join(out, filepath.Base(f.path))
	if tr.Output != outPath {
		t.Fatalf("output %s, want %s", tr.Output, outPath)
	}
	p, data := readZen(t, outPath)
	if tr.Size != int64(len(data)) {
		t.Errorf("%s: result size %d, file %d bytes", f.name, tr.Size, len(data))
	}
	if enc, err := p.Encode(); err != nil || !bytes.Equal(enc, data) {
		t.Errorf("%s: the output does not re-encode to itself: %v", f.name, err)
	}
	opts := &zen.VerifyOptions{ChunkPackageID: p.ID()}
	if f.entry != nil {
		e := storeAfter(t, f.entry, tr.Store)
		e.PackageID = p.ID()
		opts.Entry = e
		if len(tr.Store) > 0 {
			// The old entry no longer fits: the reported change is needed.
			stale := *f.entry
			stale.PackageID = p.ID()
			if len(p.Problems(&zen.VerifyOptions{Entry: &stale})) == 0 {
				t.Errorf("%s: the store changes %v are reported, but the old entry still verifies", f.name, tr.Store)
			}
		}
	}
	for _, q := range p.Problems(opts) {
		t.Errorf("%s: verify: %s", f.name, q)
	}
	return &zenPatched{old: old, new: p, res: tr, diff: patch.DiffZen("a", old, nil, "b", p, nil)}
}

// storeAfter applies the store-entry changes a result reports to a copy of
// e.
func storeAfter(t *testing.T, e *zen.StoreEntry, changes []patch.StoreChange) *zen.StoreEntry {
	t.Helper()
	n := *e
	for _, c := range changes {
		v, err := strconv.ParseUint(c.New, 10, 64)
		if err != nil {
			t.Fatalf("store change %v: %v", c, err)
		}
		switch c.Field {
		case "ExportBundlesSize":
			n.ExportBundlesSize = v
		case "ExportCount":
			n.ExportCount = int32(v)
		case "ExportBundleCount":
			n.ExportBundleCount = int32(v)
		default:
			t.Fatalf("unknown store field %q", c.Field)
		}
	}
	return &n
}

// renameCandidate returns a name of p that a rename may change (not the
// package's name or source name, not a public export's name, not None, not
// a type in a property tag, not the path of a package it imports from),
// preferring one that names no export; -1 when there is none.
func renameCandidate(t *testing.T, p *zen.Package) int {
	t.Helper()
	blocked := map[int]bool{int(p.Name.Index()): true}
	if !p.Layout.IsUE5() {
		blocked[int(p.SourceName.Index())] = true
	}
	exportName := map[int]bool{}
	for _, e := range p.Exports {
		exportName[int(e.ObjectName.Index())] = true
		if e.ObjectFlags&zen.FlagPublic != 0 || (e.PublicExportHash != 0 && zen.ObjectIndex(e.PublicExportHash) != zen.NullObject) {
			blocked[int(e.ObjectName.Index())] = true
		}
	}
	for _, n := range tagTypeNames(p) {
		blocked[n] = true
	}
	for n := range importPackagePaths(p) {
		blocked[n] = true
	}
	fallback := -1
	for i, n := range p.Names {
		if blocked[i] || strings.EqualFold(n, "None") {
			continue
		}
		if !exportName[i] {
			return i
		}
		if fallback < 0 {
			fallback = i
		}
	}
	return fallback
}

// tagTypeNames returns the name indices the property tags of p use as
// types.
func tagTypeNames(p *zen.Package) []int {
	var out []int
	var typ func(props.TypeName)
	typ = func(tn props.TypeName) {
		out = append(out, int(tn.Name.Index))
		for _, q := range tn.Params {
			typ(q)
		}
	}
	var list func(*props.List)
	var value func(props.Value)
	list = func(l *props.List) {
		if l == nil {
			return
		}
		for _, q := range l.Properties {
			typ(q.Type)
			value(q.Value)
		}
	}
	value = func(v props.Value) {
		switch x := v.(type) {
		case *props.Struct:
			list(x.Tagged)
		case *props.Array:
			for _, e := range x.Elements {
				value(e.Value)
			}
		}
	}
	for i := range p.Exports {
		e, err := zenprops.DecodeExport(p, nil, i)
		if err != nil {
			continue
		}
		list(e.Properties)
		if e.Table != nil {
			for _, r := range e.Table.Rows {
				list(r.Properties)
			}
		}
	}
	return out
}

// TestZenRenameEveryPackage renames one name in every corpus zen package:
// the output verifies and the diff shows that name, and nothing else.
func TestZenRenameEveryPackage(t *testing.T) {
	files := zenCorpusFiles(t)
	renamed, refused := 0, 0
	for _, f := range files {
		p, _ := readZen(t, f.path)
		idx := renameCandidate(t, p)
		if idx < 0 {
			// Every name is one the package's identity or its tags depend
			// on: each rename is refused, saying why.
			for _, n := range p.Names {
				text := oneTarget(f.path, fmt.Sprintf("      - rename: {from: %s, to: Unrmod_Renamed}\n", yamlQuote(n)))
				_, err := patch.Apply(parsePatch(t, filepath.Join(t.TempDir(), "p.yaml"), text), patch.Options{OutputDir: t.TempDir()})
				if err == nil || !strings.Contains(err.Error(), "cannot rename") {
					t.Errorf("%s: rename %q: %v, want a refusal", f.name, n, err)
				}
			}
			refused++
			continue
		}
		from, to := p.Names[idx], p.Names[idx]+"_Unrmod"
		z := applyZenOps(t, f, fmt.Sprintf("      - rename: {from: %s, to: %s}\n", yamlQuote(from), yamlQuote(to)))
		if len(z.res.Changes) != 1 || z.res.Changes[0].Old != from || z.res.Changes[0].New != to || !z.res.Changed {
			t.Errorf("%s: changes %v", f.name, z.res.Changes)
		}
		d := z.diff
		want := []patch.NameDiff{{Change: patch.DiffRenamed, OldIndex: idx, NewIndex: idx, Old: from, New: to}}
		if fmt.Sprint(d.Names) != fmt.Sprint(want) || len(d.Header) != 0 || len(d.Imports) != 0 {
			t.Errorf("%s: diff names %v, header %v, imports %v", f.name, d.Names, d.Header, d.Imports)
		}
		// Only an export the name names may change: its path.
		for _, e := range d.Exports {
			if e.Change != patch.DiffRemoved && e.Change != patch.DiffAdded || !strings.Contains(strings.ToLower(e.Path), strings.ToLower(from)) && !strings.Contains(strings.ToLower(e.Path), strings.ToLower(to)) {
				t.Errorf("%s: export diff %+v", f.name, e)
			}
		}
		// Every export keeps its data; a 4.27 package grows by the longer name.
		for i := range z.old.Exports {
			if !bytes.Equal(z.old.Exports[i].Data, z.new.Exports[i].Data) {
				t.Errorf("%s: export %d data changed", f.name, i)
			}
		}
		renamed++
	}
	t.Logf("renamed a name in %d zen packages; in %d every name is refused (package, public export, type names and None)", renamed, refused)
	if renamed+refused != len(files) || renamed < 150 {
		t.Errorf("renamed %d, refused %d, of %d packages", renamed, refused, len(files))
	}
}

// Kinds of export data, for what a diff of a replacement must say.
const (
	dataProps = "properties" // a property list with properties
	dataList  = "list"       // a property list without properties: the rest is native data
	dataRaw   = "raw"        // not readable as properties (unversioned)
)

// replaceBlobs returns a larger and a smaller replacement for export i's
// data and the data's kind: 4 more bytes after it; without the last
// property (a property list with properties, unless tail), else without
// the last 4 bytes (kind dataList when they follow a property list). kind
// is "" when export i has no such smaller data that still reads as a
// property list.
func replaceBlobs(t *testing.T, p *zen.Package, i int, tail bool) (larger, smaller []byte, kind, lastProp string) {
	t.Helper()
	data := p.Exports[i].Data
	larger = append(bytes.Clone(data), 0x55, 0x4E, 0x52, 0x4D)
	smaller = bytes.Clone(data[:len(data)-4])
	ctx, err := zenprops.ContextFor(p, i)
	if err != nil {
		return larger, smaller, dataRaw, ""
	}
	l, err := props.Decode(data, ctx)
	switch {
	case err != nil:
		return larger, smaller, dataRaw, ""
	case len(l.Properties) == 0 || tail:
		if len(l.Rest) < 4 {
			return nil, nil, "", "" // no smaller data that still reads
		}
		return larger, smaller, dataList, ""
	}
	last := l.Properties[len(l.Properties)-1]
	l.Properties = l.Properties[:len(l.Properties)-1]
	if smaller, err = props.Encode(l, ctx); err != nil {
		t.Fatalf("encode without %s: %v", last.Label(), err)
	}
	return larger, smaller, dataProps, last.Name.Text
}

// movesInlineBulk reports whether replacing export i's data with blob
// resizes it and changes bytes at or before the end of a payload the bulk
// data map may place inline in it.
func movesInlineBulk(p *zen.Package, i int, blob []byte) bool {
	was := p.Exports[i].Data
	if len(was) == len(blob) {
		return false
	}
	for _, e := range p.BulkData {
		end := e.SerialOffset + e.SerialSize
		if e.Flags&0x100 != 0 || e.SerialSize <= 0 || e.SerialOffset < 0 || end > int64(len(was)) {
			continue
		}
		if end > int64(len(blob)) || !bytes.Equal(was[:end], blob[:end]) {
			return true
		}
	}
	return false
}

// replaceTarget picks the export whose data a test replaces and its
// blobs: the first export with at least 8 bytes, preferring one whose
// replacements move no inline bulk-data payload (which unrmod refuses),
// then one whose data is a property list with properties.
func replaceTarget(t *testing.T, p *zen.Package) (i int, larger, smaller []byte, kind, lastProp string) {
	best, bestTail, bestRank := -1, false, 4
	for j := range p.Exports {
		if len(p.Exports[j].Data) < 8 {
			continue
		}
		for _, tail := range []bool{false, true} {
			l, s, k, _ := replaceBlobs(t, p, j, tail)
			if k == "" {
				continue
			}
			rank := 0
			if k != dataProps {
				rank++
			}
			if movesInlineBulk(p, j, l) || movesInlineBulk(p, j, s) {
				rank += 2
			}
			if rank < bestRank {
				best, bestTail, bestRank = j, tail, rank
			}
		}
	}
	if best < 0 {
		return -1, nil, nil, "", ""
	}
	larger, smaller, kind, lastProp = replaceBlobs(t, p, best, bestTail)
	return best, larger, smaller, kind, lastProp
}

// TestZenReplaceExportEveryPackage replaces one export's data of every
// corpus zen package with a larger and with a smaller blob: the output
// verifies (offsets, sizes and bundles follow) and the diff shows that one
// export changed as intended.
func TestZenReplaceExportEveryPackage(t *testing.T) {
	files := zenCorpusFiles(t)
	dir := t.TempDir()
	done, refused, kinds := 0, 0, map[string]int{}
	for n, f := range files {
		p, _ := readZen(t, f.path)
		i, larger, smaller, kind, lastProp := replaceTarget(t, p)
		if i < 0 {
			t.Errorf("%s: no export with data", f.name)
			continue
		}
		kinds[kind]++
		for k, blob := range [][]byte{larger, smaller} {
			bin := filepath.Join(dir, fmt.Sprintf("%d_%d.bin", n, k))
			if err := os.WriteFile(bin, blob, 0o644); err != nil {
				t.Fatal(err)
			}
			object := p.ExportPath(i)
			ops := fmt.Sprintf("      - replace-export: {object: %s, data: {file: %s}}\n", yamlQuote(object), yamlQuote(bin))
			if movesInlineBulk(p, i, blob) {
				// A payload stored inline in the export would move while
				// the bulk data map keeps its offset: refused.
				text := oneTarget(f.path, ops)
				_, err := patch.Apply(parsePatch(t, filepath.Join(t.TempDir(), "p.yaml"), text), patch.Options{OutputDir: t.TempDir()})
				if err == nil || !strings.Contains(err.Error(), "inline bulk-data payload") {
					t.Errorf("%s: %v, want the inline bulk data refusal", f.name, err)
				}
				refused++
				continue
			}
			z := applyZenOps(t, f, ops)
			d := z.diff
			if len(d.Names) != 0 || len(d.Header) != 0 || len(d.Imports) != 0 || len(d.Exports) != 1 {
				t.Errorf("%s: diff %+v", f.name, d)
				continue
			}
			e := d.Exports[0]
			if e.Change != patch.DiffChanged || e.OldIndex != i || e.NewIndex != i || len(e.Fields) != 0 ||
				e.OldSize != len(p.Exports[i].Data) || e.NewSize != len(blob) {
				t.Errorf("%s: export diff %+v", f.name, e)
			}
			switch {
			case kind == dataRaw:
				if e.Data != patch.DataDiffers {
					t.Errorf("%s: data %q", f.name, e.Data)
				}
			case kind == dataProps && k == 1:
				if e.Data != "" || len(e.Properties) != 1 || e.Properties[0].Change != patch.DiffRemoved || e.Properties[0].Name != lastProp {
					t.Errorf("%s (smaller): data %q, properties %+v, want %s removed", f.name, e.Data, e.Properties, lastProp)
				}
			default: // native data after the properties grew or shrank
				if e.Data != patch.DataNative || e.NativeNewSize-e.NativeOldSize != len(blob)-e.OldSize || len(e.Properties) != 0 {
					t.Errorf("%s: data %q, native %d → %d, properties %v", f.name, e.Data, e.NativeOldSize, e.NativeNewSize, e.Properties)
				}
			}
			// Every other export keeps its bytes; the new one has the blob.
			for j := range z.old.Exports {
				want := z.old.Exports[j].Data
				if j == i {
					want = blob
				}
				if !bytes.Equal(z.new.Exports[j].Data, want) {
					t.Errorf("%s: export %d data", f.name, j)
				}
			}
			if len(z.res.Data) != 1 || z.res.Data[0].NewSize != int64(len(blob)) {
				t.Errorf("%s: result data changes %v", f.name, z.res.Data)
			}
			done++
		}
	}
	t.Logf("%d replacements in %d packages (export data kinds: %v); %d refused as they would move an inline bulk-data payload", done, len(files), kinds, refused)
	if done+refused != 2*len(files) || refused > len(files)/4 {
		t.Errorf("%d replacements and %d refusals for %d packages", done, refused, len(files))
	}
}

// newValue returns a different value for a simple property, as set-property
// takes it, or "" when v is not of a simple numeric or bool kind.
func newValue(v props.Value) string {
	switch x := v.(type) {
	case props.Bool:
		return strconv.FormatBool(!bool(x))
	case props.Int:
		return strconv.Itoa(int(x) ^ 0x40)
	case props.Int8:
		return strconv.Itoa(int(x) ^ 0x20)
	case props.Int16, props.Int64, props.Byte, props.UInt16, props.UInt32, props.UInt64:
		n, _ := strconv.ParseUint(strings.TrimPrefix(x.String(), "-"), 10, 64)
		if strings.HasPrefix(x.String(), "-") {
			return "-" + strconv.FormatUint(n^0x10, 10)
		}
		return strconv.FormatUint(n^0x10, 10)
	case props.Float:
		return props.Float(float32(x) + 0.5).String()
	case props.Double:
		return props.Double(float64(x) + 0.25).String()
	}
	return ""
}

// TestZenSetPropertyEveryTaggedPackage sets one simple property of an
// export of every corpus package cooked with property tags: the output
// verifies and the diff shows that property, with the new value, and
// nothing else.
func TestZenSetPropertyEveryTaggedPackage(t *testing.T) {
	set := 0
	for _, f := range zenCorpusFiles(t) {
		p, _ := readZen(t, f.path)
		if p.PackageFlags&zen.FlagUnversionedProperties != 0 {
			continue
		}
		export, name, old, value := -1, "", "", ""
	exports:
		for i := range p.Exports {
			ctx, err := zenprops.ContextFor(p, i)
			if err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
			l, err := props.Decode(p.Exports[i].Data, ctx)
			if err != nil {
				continue
			}
			for _, q := range l.Properties {
				if v := newValue(q.Value); v != "" && q.ArrayIndex == 0 && l.Find(q.Name.Text, 0) == q {
					export, name, old, value = i, q.Name.Text, props.Display(q.Value, nil), v
					break exports
				}
			}
		}
		if export < 0 {
			continue
		}
		z := applyZenOps(t, f, fmt.Sprintf("      - set-property: {object: %s, property: %s, value: %s}\n",
			yamlQuote(p.ExportPath(export)), yamlQuote(name), yamlQuote(value)))
		if len(z.res.Changes) != 1 || z.res.Changes[0].Old != old || z.res.Changes[0].New != value {
			t.Errorf("%s: changes %v, want %s %s → %s", f.name, z.res.Changes, name, old, value)
		}
		d := z.diff
		if len(d.Names) != 0 || len(d.Header) != 0 || len(d.Imports) != 0 || len(d.Exports) != 1 {
			t.Errorf("%s: diff %+v", f.name, d)
			continue
		}
		e := d.Exports[0]
		want := []patch.PropertyDiff{{Change: patch.DiffChanged, Name: name, Old: old, New: value}}
		if e.OldIndex != export || e.Data != "" || len(e.Properties) != 1 || e.Properties[0].Change != want[0].Change ||
			e.Properties[0].Name != name || e.Properties[0].Old != old || e.Properties[0].New != value {
			t.Errorf("%s: export diff %+v, want %+v", f.name, e, want)
		}
		set++
	}
	t.Logf("set a property in %d tagged zen packages", set)
	if set < 50 {
		t.Errorf("only %d packages had a property to set", set)
	}
}

// zenFileNamed returns the corpus zen package whose name ends with suffix.
func zenFileNamed(t *testing.T, suffix string) zenFile {
	t.Helper()
	for _, f := range zenCorpusFiles(t) {
		if strings.HasSuffix(f.name, suffix) {
			return f
		}
	}
	t.Fatalf("no corpus zen package %s", suffix)
	return zenFile{}
}

// propertyLines returns the property changes of a diff as text, one
// "export: [row ]name old → new" line each, sorted.
func propertyLines(d *patch.PackageDiff) []string {
	var out []string
	for _, e := range d.Exports {
		for _, q := range e.Properties {
			row := ""
			if q.Row != "" {
				row = q.Row + ": "
			}
			out = append(out, fmt.Sprintf("%s %s%s %s → %s", e.Path[strings.LastIndexByte(e.Path, '.')+1:], row, q.Name, q.Old, q.New))
		}
	}
	sort.Strings(out)
	return out
}

// TestZenSetPropertyGroundedBlueprint sets a Grounded Blueprint's defaults:
// a uint32, an element of an object array (to another imported texture)
// and an absent float (added with its type).
func TestZenSetPropertyGroundedBlueprint(t *testing.T) {
	f := zenFileNamed(t, "BP_SpicyChoppingDamage.uasset")
	const (
		chopping = "/Game/UI/Images/ItemStats/T_UI_Dmg_Chopping.T_UI_Dmg_Chopping"
		spice    = "/Game/UI/Images/ItemStats/T_UI_Dmg_Spice.T_UI_Dmg_Spice"
	)
	z := applyZenOps(t, f, `      - set-property: {object: Default__BP_SpicyChoppingDamage_C, property: DamageTypeFlags, value: 0x1103}
      - set-property: {object: Default__BP_SpicyChoppingDamage_C, property: 'Icons[1]', value: `+chopping+`}
      - set-property: {object: Default__BP_SpicyChoppingDamage_C, property: DamageMultiplier, type: float, value: 1.5}
`)
	got := propertyLines(z.diff)
	want := []string{
		"Default__BP_SpicyChoppingDamage_C DamageMultiplier  → 1.5",
		"Default__BP_SpicyChoppingDamage_C DamageTypeFlags 4354 → 4355",
		"Default__BP_SpicyChoppingDamage_C Icons [" + chopping + "," + spice + "] → [" + chopping + "," + chopping + "]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("property changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The names the added property needs are appended; every other name
	// stays where it was.
	for _, n := range z.diff.Names {
		if n.Change != patch.DiffAdded {
			t.Errorf("name change %+v", n)
		}
	}
	// ExportBundlesSize follows the package's size.
	if len(z.res.Store) != 1 || z.res.Store[0].Field != "ExportBundlesSize" || z.res.Store[0].New != strconv.FormatInt(z.res.Size, 10) {
		t.Errorf("store changes %v", z.res.Store)
	}
}

// TestZenSetPropertyDataTableRows sets row values of the UE 5.8 fixture
// DataTable (5.4+ complete type names), of every kind a row holds: an int,
// an int64, a string, an enum, a struct member, a member of a native
// Vector inside it, an array element and a bool.
func TestZenSetPropertyDataTableRows(t *testing.T) {
	f := zenFileNamed(t, "Minimal-Zlib-Windows.utoc:DataTables/DT_AllProperties.uasset")
	z := applyZenOps(t, f, `      - set-property: {object: DT_AllProperties, row: Alpha, property: Number, value: 999}
      - set-property: {object: DT_AllProperties, row: Beta, property: LargeNumber, value: 9007199254740993}
      - set-property: {object: DT_AllProperties, row: Alpha, property: Message, value: "Patched by unrmod"}
      - set-property: {object: DT_AllProperties, row: Defaults, property: Kind, value: EFixtureEnum::Beta}
      - set-property: {object: DT_AllProperties, row: Beta, property: Nested.Marker, value: 7}
      - set-property: {object: DT_AllProperties, row: Alpha, property: Nested.Position.Z, value: -0.5}
      - set-property: {object: DT_AllProperties, row: Beta, property: 'Values[3]', value: -1}
      - set-property: {object: DT_AllProperties, row: Beta, property: Nested.bEnabled, value: true}
`)
	changed := map[string]bool{}
	for _, e := range z.diff.Exports {
		for _, q := range e.Properties {
			changed[e.Path[strings.LastIndexByte(e.Path, '.')+1:]+" "+q.Row+": "+q.Name] = true
		}
	}
	// The diff compares top-level properties: a change inside Nested shows
	// as Nested changed.
	want := []string{
		"DT_AllProperties Alpha: Message", "DT_AllProperties Alpha: Nested", "DT_AllProperties Alpha: Number",
		"DT_AllProperties Beta: LargeNumber", "DT_AllProperties Beta: Nested", "DT_AllProperties Beta: Values",
		"DT_AllProperties Defaults: Kind",
	}
	var got []string
	for k := range changed {
		got = append(got, k)
	}
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("changed properties:\n%s\nwant:\n%s", strings.Join(propertyLines(z.diff), "\n"), strings.Join(want, "\n"))
	}
	// Read back, value by value.
	ctx, err := zenprops.ContextFor(z.new, 0)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := props.DecodeDataTable(z.new.Exports[0].Data, ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ row, path, want string }{
		{"Alpha", "Number", "999"},
		{"Beta", "LargeNumber", "9007199254740993"},
		{"Alpha", "Message", `"Patched by unrmod"`},
		{"Defaults", "Kind", "EFixtureEnum::Beta"},
		{"Alpha", "Kind", "EFixtureEnum::Alpha"},
		{"Beta", "Nested.Marker", "7"},
		{"Alpha", "Nested.Position.Z", "-0.5"},
		{"Alpha", "Nested.Position.Y", "-2.5"},
		{"Beta", "Values[3]", "-1"},
		{"Beta", "Values[2]", "7"},
		{"Beta", "Nested.bEnabled", "true"},
	} {
		v, _, _, err := tb.Lookup(c.row, c.path)
		if err != nil {
			t.Errorf("%s: %s: %v", c.row, c.path, err)
			continue
		}
		if got := props.Display(v, nil); got != c.want {
			t.Errorf("%s: %s = %s, want %s", c.row, c.path, got, c.want)
		}
	}
}

// TestZenRefusals: what cannot be done safely on a zen package is refused
// at the operation, saying why, and nothing is written.
func TestZenRefusals(t *testing.T) {
	bp := zenFileNamed(t, "BP_SpicyChoppingDamage.uasset").path
	dt := zenFileNamed(t, "Minimal-Zlib-Windows.utoc:DataTables/DT_AllProperties.uasset").path
	unv := zenFileNamed(t, "Minimal-Uncompressed-Windows.utoc:Curves/Curve_Float.uasset").path
	other := zenFileNamed(t, "T_Emissive.uasset").path
	const cdo = "Default__BP_SpicyChoppingDamage_C"
	cases := []struct {
		name, file, ops string
		pos             string // line:column of the error, or ""
		words           []string
	}{
		{"rename the package name", bp, "      - rename: {from: /Game/Blueprints/Attacks/DamageTypes/BP_SpicyChoppingDamage, to: /Game/X}\n",
			"5:9", []string{"package's name", "package id"}},
		{"rename a public export (4.27)", bp, "      - rename: {from: BP_SpicyChoppingDamage_C, to: BP_Other_C}\n",
			"5:9", []string{"public export", "GlobalImportIndex"}},
		{"rename a public export (UE5)", dt, "      - rename: {from: DT_AllProperties, to: DT_Other}\n",
			"5:9", []string{"public export", "PublicExportHash"}},
		{"rename None", bp, "      - rename: {from: None, to: Nothing}\n", "5:9", []string{"cannot rename None"}},
		{"rename a tag type", bp, "      - rename: {from: UInt32Property, to: IntProperty2}\n",
			"5:9", []string{"type in the property tags", cdo}},
		{"rename a struct type", dt, "      - rename: {from: FixtureNestedStruct, to: OtherStruct}\n",
			"5:9", []string{"type in the property tags", "DT_AllProperties"}},
		{"rename onto a name", bp, "      - rename: {from: DamageTypeFlags, to: Icons}\n", "5:9", []string{"already has the name"}},
		{"rename a missing name", bp, "      - rename: {from: DamageTypeFlag, to: X}\n", "5:9", []string{`no name "DamageTypeFlag"`, "DamageTypeFlags"}},
		{"name too long", bp, "      - add-name: {name: " + strings.Repeat("n", 1024) + "}\n", "5:26", []string{"1024 characters", "at most 1023"}},
		{"unversioned flag", dt, "      - package-flags: {set: [UnversionedProperties]}\n", "5:9", []string{"UnversionedProperties", "cannot be changed"}},
		{"properties of an unversioned package", unv, "      - set-property: {object: Curve_Float, property: FloatCurve, value: 1}\n",
			"5:9", []string{"unversioned", "schema"}},
		{"public flag", bp, "      - object-flags: {object: BP_SpicyChoppingDamage_C, clear: [Public]}\n", "5:9", []string{"Public", "GlobalImportIndex"}},
		{"CDO flag", bp, "      - object-flags: {object: " + cdo + ", clear: [ClassDefaultObject]}\n", "5:9", []string{"ClassDefaultObject"}},
		{"from another package", bp, "      - replace-export: {object: " + cdo + ", from: {file: " + yamlQuote(other) + ", object: T_Emissive}}\n",
			"5:75", []string{"another package is not supported", "data:"}},
		{"from another class", bp, "      - replace-export: {object: " + cdo + ", from: {object: BP_SpicyChoppingDamage_C}}\n",
			"5:75", []string{"differ in class", "must be of its own class"}},
		{"data that is no property list", bp, "      - replace-export: {object: " + cdo + ", data: {hex: '0000'}}\n",
			"5:9", []string{"not a property list", "export-data"}},
		{"guid", bp, "", "4:11", []string{"no GUID"}},
		{"retarget-import", bp, "      - retarget-import: {import: X, package: Y}\n", "5:9", []string{"not supported on zen packages"}},
		{"unknown row", dt, "      - set-property: {object: DT_AllProperties, row: Gamma, property: Number, value: 1}\n", "5:9", []string{"Gamma", "Alpha"}},
		{"wrong type", dt, "      - set-property: {object: DT_AllProperties, row: Alpha, property: Number, type: float, value: 1}\n", "", []string{"IntProperty"}},
		{"out of range", dt, "      - set-property: {object: DT_AllProperties, row: Alpha, property: Number, value: 4294967296}\n", "5:87", []string{"4294967296", "32 bits"}},
		{"whole array", bp, "      - set-property: {object: " + cdo + ", property: Icons, value: 1}\n", "5:9", []string{"Icons"}},
		{"unknown export", bp, "      - set-property: {object: Default__BP_Spicy, property: X, value: 1}\n", "5:9", []string{`no export "Default__BP_Spicy"`, cdo}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			text := "unrmod: 1\ntargets:\n  - file: " + yamlQuote(c.file) + "\n    ops:\n" + c.ops
			if c.name == "guid" {
				text = "unrmod: 1\ntargets:\n  - file: " + yamlQuote(c.file) + "\n    guid: regenerate\n    ops:\n      - add-name: {name: X}\n"
			}
			f := parsePatch(t, filepath.Join(dir, "p.yaml"), text)
			_, err := patch.Apply(f, patch.Options{OutputDir: out})
			if err == nil {
				t.Fatalf("no error for\n%s", text)
			}
			var pe *patch.Error
			if !errors.As(err, &pe) {
				t.Fatalf("%T: %v", err, err)
			}
			if got := pe.Pos.String(); c.pos != "" && !strings.HasSuffix(got, ":"+c.pos) {
				t.Errorf("position %s, want %s: %v", got, c.pos, err)
			}
			for _, w := range c.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("%d files written", len(entries))
			}
		})
	}
}
