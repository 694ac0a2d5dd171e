package report

import (
	"strconv"

	"github.com/zeebo/xxh3"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/iostore/zen"
)

// ZenInfo is the summary of a zen package (a package chunk of an IoStore
// container): what `unrmod info` shows of one.
type ZenInfo struct {
	File              string         `json:"file"`
	Kind              string         `json:"kind"` // always "zen-package"
	Package           string         `json:"package"`
	PackageID         string         `json:"package_id"`
	Layout            string         `json:"layout"`
	Size              int            `json:"size"`
	HeaderSize        int            `json:"header_size"`
	Flags             Flags          `json:"flags"`
	CookedHeaderSize  uint32         `json:"cooked_header_size"`
	Versioning        *ZenVersioning `json:"versioning,omitempty"`
	Names             int            `json:"names"`
	Imports           int            `json:"imports"`
	Exports           int            `json:"exports"`
	ExportData        int            `json:"export_data"`
	Bundles           int            `json:"export_bundles"`
	BundleEntries     int            `json:"export_bundle_entries"`
	PublicHashes      int            `json:"imported_public_export_hashes,omitempty"`
	ImportedPackages  int            `json:"imported_packages"`
	DependencyEntries int            `json:"dependency_entries,omitempty"`
	BulkData          int            `json:"bulk_data_entries,omitempty"`
	CellExports       int            `json:"cell_exports,omitempty"`
	Trailing          int            `json:"trailing_bytes"`
	KeptRaw           []string       `json:"kept_raw"`
}

// ZenVersioning is a UE5 zen package's versioning info.
type ZenVersioning struct {
	ZenVersion     uint32 `json:"zen_version"`
	FileVersionUE4 int32  `json:"file_version_ue4"`
	FileVersionUE5 int32  `json:"file_version_ue5"`
	Licensee       int32  `json:"licensee"`
	CustomVersions int    `json:"custom_versions"`
}

// NewZenInfo summarizes zen package p, read from file (a file name, or
// CONTAINER:PATH for a package in a container), size bytes long.
func NewZenInfo(file string, size int, p *zen.Package) *ZenInfo {
	d := &ZenInfo{
		File: file, Kind: "zen-package", Package: p.PackageName(), PackageID: p.ID().String(),
		Layout: p.Layout.String(), Size: size, HeaderSize: p.HeaderSize(),
		Flags:            NewFlags(uint32(p.PackageFlags), p.PackageFlags.Names()),
		CookedHeaderSize: p.CookedHeaderSize,
		Names:            len(p.Names), Imports: len(p.Imports), Exports: len(p.Exports),
		Bundles: len(p.Bundles), BundleEntries: len(p.BundleEntries), PublicHashes: len(p.ImportedPublicExportHashes),
		DependencyEntries: len(p.DependencyEntries), BulkData: len(p.BulkData), CellExports: len(p.CellExports),
		Trailing: len(p.Trailing), KeptRaw: p.KeptRaw(),
	}
	if d.KeptRaw == nil {
		d.KeptRaw = []string{}
	}
	for _, e := range p.Exports {
		d.ExportData += len(e.Data)
	}
	switch {
	case p.Layout == zen.LayoutUE4:
		d.ImportedPackages = len(p.Graph)
	case p.Layout < zen.LayoutUE53:
		d.ImportedPackages = len(p.ExternalArcs)
	default:
		d.ImportedPackages = len(p.ImportedPackages)
	}
	if v := p.Versioning; v != nil {
		d.Versioning = &ZenVersioning{v.ZenVersion, v.FileVersionUE4, v.FileVersionUE5, v.Licensee, len(v.CustomVersions)}
	}
	return d
}

// ZenDump is the tables of a zen package: what `unrmod dump` shows of one,
// the tables a legacy dump shows, then the zen-only parts (bundle entries,
// imported packages, imported public export hashes, which are set only
// when every table is asked for).
type ZenDump struct {
	File             string          `json:"file" yaml:"file"`
	Kind             string          `json:"kind" yaml:"kind"`
	Package          string          `json:"package" yaml:"package"`
	PackageID        string          `json:"package_id" yaml:"package_id"`
	Layout           string          `json:"layout" yaml:"layout"`
	Names            *[]ZenNameRow   `json:"names,omitempty" yaml:"names,omitempty"`
	Imports          *[]ZenImportRow `json:"imports,omitempty" yaml:"imports,omitempty"`
	Exports          *[]ZenExportRow `json:"exports,omitempty" yaml:"exports,omitempty"`
	Bundles          []ZenBundleRow  `json:"export_bundles,omitempty" yaml:"export_bundles,omitempty"`
	ImportedPackages []string        `json:"imported_packages,omitempty" yaml:"imported_packages,omitempty"`
	PublicHashes     []string        `json:"imported_public_export_hashes,omitempty" yaml:"imported_public_export_hashes,omitempty"`
}

// ZenNameRow is one name with its hash.
type ZenNameRow struct {
	Index int    `json:"index" yaml:"index"`
	Name  string `json:"name" yaml:"name"`
	Hash  string `json:"hash" yaml:"hash"`
}

// ZenImportRow is one import: its kind, its value and the object it
// resolves to.
type ZenImportRow struct {
	Index  int    `json:"index" yaml:"index"`
	Kind   string `json:"kind" yaml:"kind"`
	Value  string `json:"value" yaml:"value"`
	Object string `json:"object" yaml:"object"`
}

// ZenExportRow is one export map entry.
type ZenExportRow struct {
	Index      int    `json:"index" yaml:"index"`
	Class      string `json:"class" yaml:"class"`
	Path       string `json:"path" yaml:"path"`
	Size       int    `json:"size" yaml:"size"`
	Offset     string `json:"offset" yaml:"offset"`                               // where the data is in the chunk
	Serial     uint64 `json:"serial_offset" yaml:"serial_offset"`                 // CookedSerialOffset
	XXH3       string `json:"xxh3" yaml:"xxh3"`                                   //
	Flags      Flags  `json:"flags" yaml:"flags"`                                 //
	PublicHash string `json:"public_hash,omitempty" yaml:"public_hash,omitempty"` // PublicExportHash or GlobalImportIndex
	Super      string `json:"super,omitempty" yaml:"super,omitempty"`             //
	Template   string `json:"template,omitempty" yaml:"template,omitempty"`
	Filter     uint8  `json:"filter_flags,omitempty" yaml:"filter_flags,omitempty"`
}

// ZenBundleRow is one export bundle entry.
type ZenBundleRow struct {
	Bundle  int    `json:"bundle" yaml:"bundle"`
	Entry   int    `json:"entry" yaml:"entry"`
	Export  uint32 `json:"export" yaml:"export"`
	Command string `json:"command" yaml:"command"`
}

// NewZenDump collects the tables of zen package p, read from file, that
// want selects; r resolves imports to object paths.
func NewZenDump(file string, p *zen.Package, r *zen.Resolver, want Tables) *ZenDump {
	d := &ZenDump{File: file, Kind: "zen-package", Package: p.PackageName(), PackageID: p.ID().String(), Layout: p.Layout.String()}
	if want.Names {
		rows := make([]ZenNameRow, len(p.Names))
		for i, n := range p.Names {
			h, _, ok := p.StoredNameHash(i)
			if !ok {
				h = cityhash.NameHash(n)
			}
			rows[i] = ZenNameRow{Index: i, Name: n, Hash: hex64(h)}
		}
		d.Names = &rows
	}
	if want.Imports {
		rows := make([]ZenImportRow, len(p.Imports))
		for i, x := range p.Imports {
			rows[i] = ZenImportRow{Index: i, Kind: x.Kind().String(), Value: x.String(), Object: r.Object(p, x)}
		}
		d.Imports = &rows
	}
	if want.Exports {
		rows := make([]ZenExportRow, len(p.Exports))
		for i, e := range p.Exports {
			row := ZenExportRow{Index: i, Class: r.ClassName(p, i), Path: p.ExportPath(i), Size: len(e.Data),
				Offset: hex32(uint32(e.DataOffset)), Serial: e.SerialOffset, XXH3: hex64(xxh3.Hash(e.Data)),
				Flags: NewFlags(uint32(e.ObjectFlags), e.ObjectFlags.Names()), Filter: e.FilterFlags}
			if public := zen.ObjectIndex(e.PublicExportHash); e.PublicExportHash != 0 && public != zen.NullObject {
				row.PublicHash = hex64(e.PublicExportHash)
			}
			if !e.Super.IsNull() {
				row.Super = r.Object(p, e.Super)
			}
			if !e.Template.IsNull() {
				row.Template = r.Object(p, e.Template)
			}
			rows[i] = row
		}
		d.Exports = &rows
	}
	if want.Names && want.Imports && want.Exports {
		bundles := p.Bundles
		if len(bundles) == 0 {
			bundles = []zen.ExportBundle{{EntryCount: uint32(len(p.BundleEntries))}}
		}
		for b, bd := range bundles {
			for k := bd.FirstEntry; k < bd.FirstEntry+bd.EntryCount && int(k) < len(p.BundleEntries); k++ {
				e := p.BundleEntries[k]
				cmd := "Create"
				if e.Command == zen.CommandSerialize {
					cmd = "Serialize"
				} else if e.Command != zen.CommandCreate {
					cmd = strconv.Itoa(int(e.Command))
				}
				d.Bundles = append(d.Bundles, ZenBundleRow{Bundle: b, Entry: int(k), Export: e.Export, Command: cmd})
			}
		}
		for _, ip := range p.ImportedPackages {
			d.ImportedPackages = append(d.ImportedPackages, ip.String())
		}
		for _, g := range p.Graph {
			d.ImportedPackages = append(d.ImportedPackages, g.Package.String())
		}
		for _, h := range p.ImportedPublicExportHashes {
			d.PublicHashes = append(d.PublicHashes, hex64(h))
		}
	}
	return d
}
