package report

import (
	"fmt"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
	"github.com/zeebo/xxh3"
)

// AssetDump is the tables of a cooked asset (unrmod dump), in the shape of
// ZenDump: names with their stored hashes, imports by class and path, and
// exports with their class, path, serial size and offset, data hash and
// flags. A table not asked for is nil.
type AssetDump struct {
	File    string            `json:"file" yaml:"file"`
	Kind    string            `json:"kind" yaml:"kind"` // always "cooked-asset"
	Package string            `json:"package" yaml:"package"`
	Release string            `json:"release" yaml:"release"` // "5.8", or "5.2–5.5" for a range that fits
	Names   *[]AssetNameRow   `json:"names,omitempty" yaml:"names,omitempty"`
	Imports *[]AssetImportRow `json:"imports,omitempty" yaml:"imports,omitempty"`
	Exports *[]AssetExportRow `json:"exports,omitempty" yaml:"exports,omitempty"`
}

// AssetNameRow is one name map entry with the two 16-bit hashes stored
// beside it (non-case-preserving, case-preserving), as 0x0000 hex.
type AssetNameRow struct {
	Index       int    `json:"index" yaml:"index"`
	Name        string `json:"name" yaml:"name"`
	NonCaseHash string `json:"non_case_hash" yaml:"non_case_hash"`
	CaseHash    string `json:"case_hash" yaml:"case_hash"`
}

// AssetImportRow is one import: its class (ClassPackage.ClassName) and
// the object's path.
type AssetImportRow struct {
	Index    int    `json:"index" yaml:"index"`
	Class    string `json:"class" yaml:"class"`
	Path     string `json:"path" yaml:"path"`
	Optional bool   `json:"optional,omitempty" yaml:"optional,omitempty"`
}

// AssetExportRow is one export map entry.
type AssetExportRow struct {
	Index    int    `json:"index" yaml:"index"`
	Class    string `json:"class" yaml:"class"`
	Path     string `json:"path" yaml:"path"`
	Size     int64  `json:"size" yaml:"size"`     // SerialSize
	Offset   string `json:"offset" yaml:"offset"` // SerialOffset, counted from the start of the .uasset
	XXH3     string `json:"xxh3" yaml:"xxh3"`     // of the export's data
	Flags    Flags  `json:"flags" yaml:"flags"`
	Super    string `json:"super,omitempty" yaml:"super,omitempty"`
	Template string `json:"template,omitempty" yaml:"template,omitempty"`
}

// NewAssetDump lists the tables want asks for of cooked asset p, read
// from file, whose package is pkg (see CookedPackageName).
func NewAssetDump(file string, p *uasset.Package, pkg string, want Tables) *AssetDump {
	r := assetprops.NewResolver(p, pkg)
	release := p.Release.String()
	if n := len(p.Fitting); p.ReleaseDetected && n > 1 {
		release = p.Fitting[0].String() + "–" + p.Fitting[n-1].String()
	}
	d := &AssetDump{File: file, Kind: "cooked-asset", Package: pkg, Release: release}
	if want.Names {
		rows := make([]AssetNameRow, len(p.Names))
		for i, n := range p.Names {
			rows[i] = AssetNameRow{Index: i, Name: n.Value, NonCaseHash: hex16(n.NonCaseHash), CaseHash: hex16(n.CaseHash)}
		}
		d.Names = &rows
	}
	if want.Imports {
		rows := make([]AssetImportRow, len(p.Imports))
		for i, x := range p.Imports {
			rows[i] = AssetImportRow{Index: i, Class: p.NameOf(x.ClassPackage) + "." + p.NameOf(x.ClassName),
				Path: r.Object(uasset.PackageIndex(-i - 1)), Optional: x.Optional}
		}
		d.Imports = &rows
	}
	if want.Exports {
		rows := make([]AssetExportRow, len(p.Exports))
		for i, e := range p.Exports {
			row := AssetExportRow{Index: i, Class: r.ClassName(i), Path: r.ExportPath(i), Size: e.SerialSize,
				Offset: fmt.Sprintf("0x%08x", e.SerialOffset), XXH3: hex64(xxh3.Hash(e.Data)),
				Flags: NewFlags(e.ObjectFlags, zen.ObjectFlags(e.ObjectFlags).Names())}
			if e.SuperIndex != 0 {
				row.Super = r.Object(e.SuperIndex)
			}
			if e.TemplateIndex != 0 {
				row.Template = r.Object(e.TemplateIndex)
			}
			rows[i] = row
		}
		d.Exports = &rows
	}
	return d
}

// hex16 formats a 16-bit value as fixed-width hex: 0x00ff.
func hex16(v uint16) string { return fmt.Sprintf("0x%04x", v) }
