package iostorebuild

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue"
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
// Both hold the same three zen packages (DemoPackages), cooked for their
// engine, and the map's bulk data. Ids and hashes are computed as the engine
// computes them.
func DemoContainers() ([]DemoContainer, error) {
	key, err := ue.ParseKey(DemoKey)
	if err != nil {
		return nil, err
	}
	var out []DemoContainer
	for _, d := range []struct {
		name    string
		version iostore.TocVersion
		layout  zen.Layout
		method  string
		key     *ue.Key
	}{
		{"UnrmodDemo427_P", iostore.VersionPartitionSize, zen.LayoutUE4, "Zlib", nil},
		{"UnrmodDemo58_P", iostore.VersionReplaceIoChunkHashWithIoHash, zen.LayoutUE56, "LZ4", &key},
	} {
		cid := cityhash.ContainerID(d.name)
		b := &Container{Version: d.version, ContainerID: cid, MountPoint: "../../../UnrmodDemo/Content/", Method: d.method, Key: d.key}
		var entries []zen.StoreEntry
		for n, spec := range DemoPackages(d.layout) {
			p, err := zenbuild.Build(spec)
			if err != nil {
				return nil, err
			}
			data, err := p.Encode()
			if err != nil {
				return nil, err
			}
			pid := uint64(p.ID())
			path := strings.TrimPrefix(spec.Name, "/Game/")
			id, err := iostore.NewChunkID(pid, 0, iostore.ChunkExportBundleData, d.version)
			if err != nil {
				return nil, err
			}
			ext := ".uasset"
			if strings.HasPrefix(path, "Maps/") {
				ext = ".umap"
			}
			b.Chunks = append(b.Chunks, Chunk{ID: id, Path: path + ext, Data: data})
			e := zen.StoreEntry{PackageID: p.ID()}
			if !d.layout.IsUE5() {
				e.ExportBundlesSize, e.ExportCount, e.ExportBundleCount, e.LoadOrder = uint64(len(data)), int32(len(p.Exports)), int32(len(p.Bundles)), uint32(n)
			}
			entries = append(entries, e)
			if bulk := demoBulk[spec.Name]; bulk > 0 {
				id, err := iostore.NewChunkID(pid, 0, iostore.ChunkBulkData, d.version)
				if err != nil {
					return nil, err
				}
				b.Chunks = append(b.Chunks, Chunk{ID: id, Path: path + ".ubulk", Data: demoBytes(spec.Name+" bulk", bulk)})
			}
		}
		sort.Slice(entries, func(x, y int) bool { return entries[x].PackageID < entries[y].PackageID })
		h := &zen.ContainerHeader{Version: zen.HeaderUE4, ContainerID: zen.ContainerID(cid), Packages: entries}
		if d.layout.IsUE5() {
			h.Version = zen.HeaderSoftPackageReferencesOffset
		}
		header, err := h.Encode()
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

// DemoPackageFiles returns the loose zen packages shipped in
// examples/packages/zen, by file name: the demo's item table and pickup
// Blueprint cooked for UE 4.27 (as Grounded cooks), byte for byte the
// package chunks of UnrmodDemo427_P, as 'unrmod extract' writes them.
func DemoPackageFiles() (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, spec := range DemoPackages(zen.LayoutUE4) {
		if strings.HasPrefix(spec.Name, "/Game/Maps/") {
			continue // the map has bulk data; it stays in the containers
		}
		data, err := zenbuild.Encode(spec)
		if err != nil {
			return nil, err
		}
		out[spec.Name[strings.LastIndexByte(spec.Name, '/')+1:]+".uasset"] = data
	}
	return out, nil
}

// demoBulk is the bulk data size of the demo packages that have bulk data.
var demoBulk = map[string]int{"/Game/Maps/DemoArena": 150000}

// DemoPackages returns the demo game's three packages, cooked for layout l:
//
//   - /Game/Maps/DemoArena: a map (a World, its PersistentLevel and a
//     PointLight with tagged properties);
//   - /Game/Items/BP_DemoPickup: a Blueprint class and its default object,
//     whose defaults are tagged properties (PickupAmount, RespawnTime,
//     bGlowing, PickupName, Tint);
//   - /Game/Data/DT_DemoItems: a DataTable of DemoItemRow rows (Stick,
//     Pebble, Acorn: DisplayName, MaxStackSize, Weight, bStackable, Rarity).
//
// Class data and the level's native data are placeholder bytes; everything
// the zen format and the tagged properties define is laid out as the engine
// lays it out.
func DemoPackages(l zen.Layout) []zenbuild.Spec {
	public := zen.FlagPublic
	const standalone, transactional, archetype = zen.ObjectFlags(0x2), zen.ObjectFlags(0x8), zen.ObjectFlags(0x20)
	cdo := public | transactional | zen.FlagClassDefaultObject | archetype
	linear := func(r, g, b, a float32) []byte {
		var out []byte
		for _, f := range []float32{r, g, b, a} {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(f))
		}
		return out
	}
	item := func(name string, stack int32, weight float32, stackable bool, rarity string) zenbuild.Row {
		return zenbuild.Row{Name: name, Props: []zenbuild.Prop{
			{Name: "DisplayName", Type: "StrProperty", Value: name},
			{Name: "MaxStackSize", Type: "IntProperty", Value: stack},
			{Name: "Weight", Type: "FloatProperty", Value: weight},
			{Name: "bStackable", Type: "BoolProperty", Value: stackable},
			{Name: "Rarity", Type: "EnumProperty", Param: "EDemoRarity", Module: "/Script/UnrmodDemo", Value: "EDemoRarity::" + rarity},
		}}
	}
	versioned := l.IsUE5()
	return []zenbuild.Spec{
		{
			Name: "/Game/Maps/DemoArena", Layout: l, Versioned: versioned, Flags: 0x00020000, // ContainsMap
			Imports: []string{"/Script/Engine.World", "/Script/Engine.Level", "/Script/Engine.PointLight", "/Script/Engine.Default__World",
				"/Script/Engine.Default__PointLight", "/Script/Engine"},
			Exports: []zenbuild.Export{
				{Name: "DemoArena", Class: "/Script/Engine.World", Template: "/Script/Engine.Default__World", Outer: -1, Flags: public | standalone | transactional,
					Props: []zenbuild.Prop{{Name: "PersistentLevel", Type: "ObjectProperty", Value: int32(2)}}, Native: demoBytes("World", 96)},
				{Name: "PersistentLevel", Class: "/Script/Engine.Level", Outer: 0, Flags: transactional, Data: demoBytes("Level", 6000)},
				{Name: "PointLight_0", Class: "/Script/Engine.PointLight", Template: "/Script/Engine.Default__PointLight", Outer: 1, Flags: transactional,
					Props: []zenbuild.Prop{
						{Name: "Intensity", Type: "FloatProperty", Value: float32(5000)},
						{Name: "LightColor", Type: "StructProperty", Param: "Color", Module: "/Script/CoreUObject", Value: []byte{255, 200, 120, 255}},
					}},
			},
		},
		{
			Name: "/Game/Items/BP_DemoPickup", Layout: l, Versioned: versioned,
			Imports: []string{"/Script/Engine.BlueprintGeneratedClass", "/Script/Engine.Actor", "/Script/Engine.Default__Actor",
				"/Script/Engine.Default__BlueprintGeneratedClass", "/Script/Engine", "/Script/CoreUObject"},
			Exports: []zenbuild.Export{
				{Name: "BP_DemoPickup_C", Class: "/Script/Engine.BlueprintGeneratedClass", Super: "/Script/Engine.Actor",
					Template: "/Script/Engine.Default__BlueprintGeneratedClass", Outer: -1, Flags: public | transactional, Data: demoBytes("BP_DemoPickup_C class", 640)},
				{Name: "Default__BP_DemoPickup_C", Class: "#0", Template: "/Script/Engine.Default__Actor", Outer: -1, Flags: cdo,
					Props: []zenbuild.Prop{
						{Name: "PickupAmount", Type: "IntProperty", Value: int32(5)},
						{Name: "RespawnTime", Type: "FloatProperty", Value: float32(30)},
						{Name: "bGlowing", Type: "BoolProperty", Value: false},
						{Name: "PickupName", Type: "NameProperty", Value: "Acorn"},
						{Name: "Tint", Type: "StructProperty", Param: "LinearColor", Module: "/Script/CoreUObject", Value: linear(1, 0.8, 0.2, 1)},
					}},
			},
		},
		{
			Name: "/Game/Data/DT_DemoItems", Layout: l, Versioned: versioned,
			Imports: []string{"/Script/UnrmodDemo.DemoItemRow", "/Script/Engine.DataTable", "/Script/Engine.Default__DataTable",
				"/Script/Engine", "/Script/UnrmodDemo"},
			Exports: []zenbuild.Export{
				{Name: "DT_DemoItems", Class: "/Script/Engine.DataTable", Template: "/Script/Engine.Default__DataTable", Outer: -1,
					Flags: public | standalone | transactional, Table: true,
					Props: []zenbuild.Prop{{Name: "RowStruct", Type: "ObjectProperty", Value: int32(-1)}},
					Rows:  []zenbuild.Row{item("Stick", 10, 0.5, true, "Common"), item("Pebble", 20, 1.25, true, "Common"), item("Acorn", 5, 0.75, false, "Rare")}},
			},
		},
	}
}

// demoBytes returns n bytes of compressible placeholder text seeded by s.
func demoBytes(s string, n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%s|%d|None|%08x\x00", s, i%251, uint32(i)*2654435761)
	}
	return b.Bytes()[:n]
}
