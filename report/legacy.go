package report

import (
	"github.com/unrmod/unrmod/reader"
	"github.com/zeebo/xxh3"
)

// PackageInfo is the header summary of a legacy (UE1/UE2) package: what
// `unrmod info` shows.
type PackageInfo struct {
	File       string  `json:"file"`
	Package    string  `json:"package"`
	Size       int64   `json:"size"`
	Version    Version `json:"version"`
	Flags      Flags   `json:"flags"`
	GUID       string  `json:"guid"`
	HeaderSize int     `json:"header_size"`
	Names      Table   `json:"names"`
	Imports    Table   `json:"imports"`
	Exports    Table   `json:"exports"`
	// Generations is set from file version 68 on, Heritage before it; the
	// other is empty.
	Generations []Generation `json:"generations"`
	Heritage    []string     `json:"heritage"`
}

// Version is a legacy package's version and its engine generation.
type Version struct {
	File     uint16 `json:"file"`
	Licensee uint16 `json:"licensee"`
	Engine   string `json:"engine"`
}

// Table locates a table in the file.
type Table struct {
	Count  int   `json:"count"`
	Offset int32 `json:"offset"`
}

// Generation is one entry of the generation history.
type Generation struct {
	Exports int32 `json:"exports"`
	Names   int32 `json:"names"`
}

// NewPackageInfo summarizes the header of p, read from file.
func NewPackageInfo(file string, p *reader.Package) *PackageInfo {
	h := &p.Header
	d := &PackageInfo{
		File:    file,
		Package: p.Name,
		Size:    int64(len(p.Source())),
		Version: Version{File: h.Version.File, Licensee: h.Version.Licensee, Engine: h.Version.Engine()},
		Flags:   NewFlags(uint32(h.Flags), h.Flags.Names()),
		GUID:    p.GUID().String(),

		HeaderSize:  h.Size(),
		Names:       Table{len(p.Names), h.NameOffset},
		Imports:     Table{len(p.Imports), h.ImportOffset},
		Exports:     Table{len(p.Exports), h.ExportOffset},
		Generations: []Generation{},
		Heritage:    []string{},
	}
	for _, g := range h.Generations {
		d.Generations = append(d.Generations, Generation{Exports: g.ExportCount, Names: g.NameCount})
	}
	for _, g := range h.Heritage {
		d.Heritage = append(d.Heritage, g.String())
	}
	return d
}

// PackageDump is the tables of a legacy package: what `unrmod dump` shows.
// A table that was not asked for is nil and left out.
type PackageDump struct {
	File    string       `json:"file" yaml:"file"`
	Package string       `json:"package" yaml:"package"`
	Names   *[]NameRow   `json:"names,omitempty" yaml:"names,omitempty"`
	Imports *[]ImportRow `json:"imports,omitempty" yaml:"imports,omitempty"`
	Exports *[]ExportRow `json:"exports,omitempty" yaml:"exports,omitempty"`
}

// NameRow is one name table entry.
type NameRow struct {
	Index int    `json:"index" yaml:"index"`
	Name  string `json:"name" yaml:"name"`
	Flags Flags  `json:"flags" yaml:"flags"`
}

// ImportRow is one import table entry.
type ImportRow struct {
	Index int    `json:"index" yaml:"index"`
	Class string `json:"class" yaml:"class"`
	Path  string `json:"path" yaml:"path"`
}

// ExportRow is one export table entry.
type ExportRow struct {
	Index      int    `json:"index" yaml:"index"`
	Class      string `json:"class" yaml:"class"`
	Path       string `json:"path" yaml:"path"`
	SerialSize int32  `json:"serial_size" yaml:"serial_size"`
	// SerialOffset is nil for an export without data, whose table entry
	// stores no offset.
	SerialOffset *int32 `json:"serial_offset" yaml:"serial_offset"`
	XXH3         string `json:"xxh3" yaml:"xxh3"` // of the export's data
	Flags        Flags  `json:"flags" yaml:"flags"`
}

// Tables selects the tables of a dump.
type Tables struct {
	Names, Imports, Exports bool
}

// NewPackageDump collects the tables of p, read from file, that want
// selects.
func NewPackageDump(file string, p *reader.Package, want Tables) *PackageDump {
	d := &PackageDump{File: file, Package: p.Name}
	// A package uses a handful of flag words for thousands of rows: each is
	// described once.
	described := map[reader.ObjectFlags]Flags{}
	flags := func(f reader.ObjectFlags) Flags {
		doc, ok := described[f]
		if !ok {
			doc = NewFlags(uint32(f), f.Names())
			described[f] = doc
		}
		return doc
	}
	if want.Names {
		rows := make([]NameRow, len(p.Names))
		for i, n := range p.Names {
			rows[i] = NameRow{Index: i, Name: n.Name, Flags: flags(n.Flags)}
		}
		d.Names = &rows
	}
	if want.Imports {
		rows := make([]ImportRow, len(p.Imports))
		for i, im := range p.Imports {
			rows[i] = ImportRow{
				Index: i,
				Class: p.NameOf(im.ClassPackage) + "." + p.NameOf(im.ClassName),
				Path:  p.Path(reader.ImportRef(i)),
			}
		}
		d.Imports = &rows
	}
	if want.Exports {
		rows := make([]ExportRow, len(p.Exports))
		paths := p.ExportPaths()
		for i := range p.Exports {
			e := &p.Exports[i]
			rows[i] = ExportRow{
				Index:      i,
				Class:      p.ClassName(i),
				Path:       paths[i],
				SerialSize: e.SerialSize,
				XXH3:       hex64(xxh3.Hash(e.Data)),
				Flags:      flags(e.Flags),
			}
			if e.SerialSize != 0 {
				off := e.SerialOffset
				rows[i].SerialOffset = &off
			}
		}
		d.Exports = &rows
	}
	return d
}
