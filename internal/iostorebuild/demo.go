package iostorebuild

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
)

// DemoKey is the AES key of the encrypted demo container, printed in the
// README. It protects nothing: it exists so the demo can show --aes-key.
const DemoKey = "UnrmodDemoKeyForExamples-0123456"

// DemoContainer is one demo container: its base file name and its layout.
type DemoContainer struct {
	Name      string // base name: NAME.utoc, NAME.ucas
	Container *Container
}

// DemoContainers returns the demo containers shipped in examples/containers:
//
//   - UnrmodDemo427_P: the layout of a Grounded (UE 4.27) mod container, TOC
//     version 3, Zlib blocks, SHA-1 chunk metas and a 4.27 container header;
//   - UnrmodDemo58_P: a UE 5.5-5.8 container, TOC version 8, LZ4 blocks,
//     BLAKE3 chunk metas, a version 5 container header, encrypted with
//     DemoKey.
//
// Their package chunks hold generated placeholder bytes, not zen packages:
// they show how containers are listed, extracted and verified. Ids and
// hashes are computed as the engine computes them.
func DemoContainers() ([]DemoContainer, error) {
	type pkg struct {
		name string // long package name
		size int
		bulk int // bytes of bulk data; 0 for none
	}
	pkgs := []pkg{
		{"/Game/UnrmodDemo/Maps/DemoArena", 9000, 150000},
		{"/Game/UnrmodDemo/Items/BP_DemoPickup", 4000, 0},
		{"/Game/UnrmodDemo/Data/DT_DemoItems", 2500, 0},
	}
	key, err := iostore.ParseKey(DemoKey)
	if err != nil {
		return nil, err
	}
	var out []DemoContainer
	for _, d := range []struct {
		name    string
		version iostore.TocVersion
		method  string
		key     *iostore.Key
	}{
		{"UnrmodDemo427_P", iostore.VersionPartitionSize, "Zlib", nil},
		{"UnrmodDemo58_P", iostore.VersionReplaceIoChunkHashWithIoHash, "LZ4", &key},
	} {
		cid := cityhash.ContainerID(d.name)
		b := &Container{Version: d.version, ContainerID: cid, MountPoint: "../../../UnrmodDemo/Content/", Method: d.method, Key: d.key}
		sizes := map[uint64]int{}
		for n, p := range pkgs {
			pid := cityhash.PackageID(p.name)
			path := p.name[len("/Game/UnrmodDemo/"):]
			id, err := iostore.NewChunkID(pid, 0, iostore.ChunkExportBundleData, d.version)
			if err != nil {
				return nil, err
			}
			data := demoBytes(p.name, p.size)
			b.Chunks = append(b.Chunks, Chunk{ID: id, Path: path + ".uasset", Data: data})
			sizes[pid] = len(data)
			if p.bulk > 0 {
				id, err := iostore.NewChunkID(pid, 0, iostore.ChunkBulkData, d.version)
				if err != nil {
					return nil, err
				}
				b.Chunks = append(b.Chunks, Chunk{ID: id, Path: path + ".ubulk", Data: demoBytes(fmt.Sprintf("%s bulk %d", p.name, n), p.bulk)})
			}
		}
		header, err := demoHeader(d.version, cid, sizes)
		if err != nil {
			return nil, err
		}
		hid, err := iostore.NewChunkID(cid, 0, iostore.ChunkContainerHeader, d.version)
		if err != nil {
			return nil, err
		}
		b.Chunks = append(b.Chunks, Chunk{ID: hid, Data: header, Raw: true})
		out = append(out, DemoContainer{Name: d.name, Container: b})
	}
	return out, nil
}

// demoHeader encodes the container header of the engine that writes TOC
// version v, listing the packages (id → package chunk size).
func demoHeader(v iostore.TocVersion, cid uint64, sizes map[uint64]int) ([]byte, error) {
	ids := make([]uint64, 0, len(sizes))
	for id := range sizes {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
	if !v.UsesUE5ChunkTypes() {
		entries := make([]StoreEntry427, len(ids))
		for n, id := range ids {
			entries[n] = StoreEntry427{PackageID: id, ExportBundlesSize: uint64(sizes[id]), ExportCount: 1, ExportBundleCount: 1, LoadOrder: uint32(n)}
		}
		return ContainerHeader427(cid, entries), nil
	}
	h := &zen.ContainerHeader{Version: zen.HeaderSoftPackageReferencesOffset, ContainerID: zen.ContainerID(cid)}
	for _, id := range ids {
		h.Packages = append(h.Packages, zen.StoreEntry{PackageID: zen.PackageID(id)})
	}
	return h.Encode()
}

// demoBytes returns n bytes of compressible placeholder text seeded by s.
func demoBytes(s string, n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%s|%d|None|%08x\x00", s, i%251, uint32(i)*2654435761)
	}
	return b.Bytes()[:n]
}
