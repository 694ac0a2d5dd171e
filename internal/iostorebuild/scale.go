package iostorebuild

import (
	"fmt"
	"sort"
	"strings"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
)

// ManyPackagesPerFolder is how many packages ManyPackages puts in one
// folder of the directory index.
const ManyPackagesPerFolder = 100

// ManyPackagesBulkEvery is how often a ManyPackages package has bulk data:
// package k has a .ubulk chunk when k%ManyPackagesBulkEvery == 0.
const ManyPackagesBulkEvery = 10

// ManyPackageName returns the long name of package k of ManyPackages, e.g.
// "/Game/Scale/D0001/P000123".
func ManyPackageName(k int) string {
	return fmt.Sprintf("/Game/Scale/D%04d/P%06d", k/ManyPackagesPerFolder, k)
}

// ManyPackages describes a container of n small zen packages cooked for
// engine e, stored without compression, for benchmarks that measure how
// commands scale with the number of packages: package k is
// ManyPackageName(k), in folders of ManyPackagesPerFolder packages, with
// one public object holding two tagged properties (about 1 KB encoded);
// every ManyPackagesBulkEvery-th package has 256 bytes of bulk data. The
// container header lists every package, as the cooker's would, and the
// container is named name (its id is the name's hash).
func ManyPackages(name string, n int, e zen.Engine) (*Container, error) {
	if !e.Known() {
		return nil, fmt.Errorf("iostorebuild: engine %v is not known", e)
	}
	l, hv := e.Layout(), e.HeaderVersion()
	v := pack.TocVersionFor(e)
	cid := cityhash.ContainerID(name)
	b := &Container{Version: v, ContainerID: cid, MountPoint: "../../../Scale/Content/", Method: "None"}
	entries := make([]zen.StoreEntry, 0, n)
	for k := range n {
		pkg := ManyPackageName(k)
		obj := pkg[strings.LastIndexByte(pkg, '/')+1:]
		p, err := zenbuild.Build(zenbuild.Spec{
			Name: pkg, Layout: l, Versioned: l.IsUE5(),
			Imports: []string{"/Script/Engine.DataAsset", "/Script/Engine.Default__DataAsset", "/Script/Engine"},
			Exports: []zenbuild.Export{{
				Name: obj, Class: "/Script/Engine.DataAsset", Template: "/Script/Engine.Default__DataAsset", Outer: -1,
				Flags: zen.FlagPublic | 0x2 | 0x8,
				Props: []zenbuild.Prop{
					{Name: "Index", Type: "IntProperty", Value: int32(k)},
					{Name: "Label", Type: "StrProperty", Value: obj + " " + demoString(k)},
				},
				Native: demoBytes(pkg, 512),
			}},
		})
		if err != nil {
			return nil, err
		}
		data, err := p.Encode()
		if err != nil {
			return nil, err
		}
		pid := uint64(p.ID())
		id, err := iostore.NewChunkID(pid, 0, iostore.ChunkExportBundleData, v)
		if err != nil {
			return nil, err
		}
		rel := strings.TrimPrefix(pkg, "/Game/")
		b.Chunks = append(b.Chunks, Chunk{ID: id, Path: rel + ".uasset", Data: data})
		if k%ManyPackagesBulkEvery == 0 {
			bid, err := iostore.NewChunkID(pid, 0, iostore.ChunkBulkData, v)
			if err != nil {
				return nil, err
			}
			b.Chunks = append(b.Chunks, Chunk{ID: bid, Path: rel + ".ubulk", Data: demoBytes(pkg+" bulk", 256)})
		}
		se, err := p.StoreEntry(hv, nil)
		if err != nil {
			return nil, err
		}
		if hv == zen.HeaderUE4 {
			// A built package has no encoded size: the entry takes it from
			// the bytes, as the cooker's does.
			se.ExportBundlesSize, se.LoadOrder = uint64(len(data)), uint32(k)
		}
		entries = append(entries, se)
	}
	sort.Slice(entries, func(x, y int) bool { return entries[x].PackageID < entries[y].PackageID })
	h := &zen.ContainerHeader{Version: hv, ContainerID: zen.ContainerID(cid), Packages: entries}
	header, err := h.Encode()
	if err != nil {
		return nil, err
	}
	hid, err := iostore.NewChunkID(cid, 0, iostore.ChunkContainerHeader, v)
	if err != nil {
		return nil, err
	}
	b.Chunks = append(b.Chunks, Chunk{ID: hid, Data: header, Raw: true})
	return b, nil
}

// demoString returns a short label that differs from package to package.
func demoString(k int) string {
	return fmt.Sprintf("#%d/%08x", k, uint32(k)*2654435761)
}
