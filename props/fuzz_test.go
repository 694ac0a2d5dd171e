package props_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/usmap"
)

// fuzzContexts returns the context of every tagged corpus export of at most
// 64 KiB, and of every unversioned export of the UE 5.8 fixture container
// that reads with its mappings, with its data: the fuzz seeds. AddName is nil so that no input
// changes a package's name map.
func fuzzContexts(tb testing.TB) ([]*props.Context, [][]byte) {
	var ctxs []*props.Context
	var seeds [][]byte
	for _, cp := range corpusPackages(tb) {
		p := cp.pkg
		if p.PackageFlags&zen.FlagUnversionedProperties != 0 {
			continue
		}
		for i := range p.Exports {
			if len(p.Exports[i].Data) > 64<<10 {
				continue
			}
			ctx, err := zenprops.ContextFor(p, i)
			if err != nil {
				tb.Fatal(err)
			}
			ctx.AddName = nil
			ctxs = append(ctxs, ctx)
			seeds = append(seeds, p.Exports[i].Data)
		}
	}
	// The unversioned twins with the fixture mappings: their native
	// structs (MovieScene channels and ranges, Niagara variables,
	// InstancedStruct …) are read by layout, not by tag size.
	if m, err := usmap.Open(corpus.Path(tb, "mappings/cue4parse_ue5_8/CUE4ParseFixtures-Uncompressed.usmap"), nil); err == nil {
		script, err := iostore.LoadScriptObjects(corpus.Path(tb, "iostore/cue4parse_ue5_8/Tagged/global.utoc"), nil)
		if err != nil {
			tb.Fatal(err)
		}
		c, err := iostore.Open(corpus.Path(tb, unversioned), nil)
		if err != nil {
			tb.Fatal(err)
		}
		defer c.Close()
		r := c.Resolver(script)
		for i, ch := range c.Chunks() {
			if ch.Type != iostore.ChunkExportBundleData {
				continue
			}
			p, err := c.ReadPackage(i, nil)
			if err != nil {
				tb.Fatal(err)
			}
			for j := range p.Exports {
				if len(p.Exports[j].Data) > 64<<10 {
					continue
				}
				if _, err := zenprops.DecodeExportWith(p, r, j, m); err != nil {
					continue
				}
				ctx, err := zenprops.ContextWith(p, r, j, m)
				if err != nil {
					tb.Fatal(err)
				}
				ctx.AddName = nil
				ctxs = append(ctxs, ctx)
				seeds = append(seeds, p.Exports[j].Data)
			}
		}
	} else {
		tb.Fatal(err)
	}
	// A struct's list alone (no control byte, no tail) with the names of
	// the last package.
	sctx := *ctxs[len(ctxs)-1]
	sctx.Object = false
	ctxs = append(ctxs, &sctx)
	return ctxs, seeds
}

// FuzzProperties decodes anything: what Decode or DecodeDataTable accepts
// encodes back to the same bytes and decodes the same way twice; Format,
// JSON and Set on it never panic, and what Set returns decodes.
func FuzzProperties(f *testing.F) {
	ctxs, seeds := fuzzContexts(f)
	for i, s := range seeds {
		f.Add(uint16(i), s)
	}
	f.Add(uint16(len(ctxs)-1), []byte{})
	f.Fuzz(func(t *testing.T, mode uint16, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		ctx := ctxs[int(mode)%len(ctxs)]
		l, err := props.Decode(data, ctx)
		if err == nil {
			out, err := props.Encode(l, ctx)
			if err != nil || !bytes.Equal(out, data) {
				t.Fatalf("decoded list encodes to %d bytes (%v), want the %d decoded", len(out), err, len(data))
			}
			l2, err := props.Decode(data, ctx)
			if err != nil || l2.String() != l.String() {
				t.Fatalf("second decode differs: %v", err)
			}
			if _, err := json.Marshal(l); err != nil {
				t.Fatalf("JSON: %v", err)
			}
			_ = l.Format(&props.FormatOptions{Object: ctx.ObjectName, MaxElements: -1})
			for _, path := range fuzzPaths(l) {
				for _, in := range []props.Input{{Text: "1"}, {Text: "a longer string value"}, {Text: "2", Type: "int"}} {
					out, _, err := props.Set(data, ctx, props.Target{Path: path}, in)
					if err == nil {
						if _, err := props.Decode(out, ctx); err != nil {
							t.Fatalf("Set %s = %q: the result does not decode: %v", path, in.Text, err)
						}
					}
				}
			}
		}
		tb, err := props.DecodeDataTable(data, ctx)
		if err == nil {
			out, err := props.EncodeTable(tb, ctx)
			if err != nil || !bytes.Equal(out, data) {
				t.Fatalf("decoded table encodes to %d bytes (%v), want the %d decoded", len(out), err, len(data))
			}
			_ = tb.String()
			for _, r := range tb.Rows {
				for _, path := range fuzzPaths(r.Properties) {
					if out, _, err := props.Set(data, ctx, props.Target{Row: r.Name.Text, Path: path}, props.Input{Text: "3"}); err == nil {
						if _, err := props.DecodeDataTable(out, ctx); err != nil {
							t.Fatalf("Set %s: %s: the result does not decode: %v", r.Name.Text, path, err)
						}
					}
				}
				break
			}
		}
	})
}

// fuzzPaths returns a few paths into l: its first properties, a member of
// its first struct, an element of its first array, and an absent property.
func fuzzPaths(l *props.List) []string {
	paths := []string{"FuzzAbsent"}
	for i, q := range l.Properties {
		if i == 3 {
			break
		}
		paths = append(paths, q.Label())
		switch v := q.Value.(type) {
		case *props.Struct:
			if v.Tagged != nil && len(v.Tagged.Properties) > 0 {
				paths = append(paths, q.Label()+"."+v.Tagged.Properties[0].Label())
			}
			if len(v.Native) > 0 && v.Native[0].Name != "" {
				paths = append(paths, q.Label()+"."+v.Native[0].Name)
			}
		case *props.Array:
			if len(v.Elements) > 0 {
				paths = append(paths, q.Label()+"[0]")
			}
		}
	}
	return paths
}

// BenchmarkDecodeDTAllProperties decodes the UE 5.8 fixture DataTable.
func BenchmarkDecodeDTAllProperties(b *testing.B) {
	p, ctx := dtAllProperties(b)
	data := p.Exports[0].Data
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := props.DecodeDataTable(data, ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSetDTAllProperties changes a string in a row of the fixture
// DataTable (decode, splice, verify).
func BenchmarkSetDTAllProperties(b *testing.B) {
	p, ctx := dtAllProperties(b)
	data := p.Exports[0].Data
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := props.Set(data, ctx, props.Target{Row: "Beta", Path: "Nested.Label"}, props.Input{Text: "a longer label"}); err != nil {
			b.Fatal(err)
		}
	}
}
