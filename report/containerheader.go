package report

import (
	"fmt"

	"github.com/unrmod/unrmod/iostore/zen"
)

// ContainerHeaderInfo is the summary of a container header (the package
// store of one IoStore container): what `unrmod info` shows of a
// container-header chunk saved as a file.
type ContainerHeaderInfo struct {
	File                    string   `json:"file"`
	Kind                    string   `json:"kind"` // always "container-header"
	Size                    int      `json:"size"`
	Version                 int      `json:"version"` // -1 for the 4.2x layout without a version field
	VersionName             string   `json:"version_name"`
	Engines                 string   `json:"engines"`
	ContainerID             string   `json:"container_id"`
	Packages                int      `json:"packages"`
	StoreEntrySize          int      `json:"store_entry_size"`
	OptionalSegmentPackages int      `json:"optional_segment_packages"`
	ImportedPackageRefs     int      `json:"imported_package_refs"`
	ShaderMapHashes         int      `json:"shader_map_hashes"`
	ShaderMapHashSize       int      `json:"shader_map_hash_size,omitempty"`
	Names                   int      `json:"names"`
	LocalizedPackages       int      `json:"localized_packages"`
	Cultures                int      `json:"cultures"`
	Redirects               int      `json:"redirects"`
	SoftReferencedPackages  int      `json:"soft_referenced_packages"`
	TrailingBytes           int      `json:"trailing_bytes"`
	KeptRaw                 []string `json:"kept_raw"`
}

// NewContainerHeaderInfo summarizes h, decoded from file, whose size is
// size bytes.
func NewContainerHeaderInfo(file string, size int, h *zen.ContainerHeader) *ContainerHeaderInfo {
	s := h.Summary()
	d := &ContainerHeaderInfo{
		File: file, Kind: "container-header", Size: size,
		Version: int(h.Version), VersionName: s.Version, Engines: s.Engine, ContainerID: h.ContainerID.String(),
		Packages: s.Packages, StoreEntrySize: h.StoreEntrySize(), OptionalSegmentPackages: s.OptionalSegmentPackages,
		ImportedPackageRefs: s.ImportedPackageRefs, ShaderMapHashes: s.ShaderMapHashes,
		Names: s.Names, LocalizedPackages: s.LocalizedPackages, Cultures: s.Cultures, Redirects: s.Redirects,
		SoftReferencedPackages: s.SoftReferencedPackages, TrailingBytes: s.TrailingBytes, KeptRaw: s.KeptRaw,
	}
	if s.ShaderMapHashes > 0 {
		d.ShaderMapHashSize = h.ShaderMapHashSize
	}
	if d.KeptRaw == nil {
		d.KeptRaw = []string{}
	}
	return d
}

// ContainerHeaderDump is the content of a container header: what `unrmod
// dump` shows of a container-header chunk saved as a file.
type ContainerHeaderDump struct {
	File                    string             `json:"file" yaml:"file"`
	Kind                    string             `json:"kind" yaml:"kind"`
	Version                 int                `json:"version" yaml:"version"`
	VersionName             string             `json:"version_name" yaml:"version_name"`
	ContainerID             string             `json:"container_id" yaml:"container_id"`
	Packages                []StoreEntry       `json:"packages" yaml:"packages"`
	OptionalSegmentPackages []StoreEntry       `json:"optional_segment_packages,omitempty" yaml:"optional_segment_packages,omitempty"`
	Names                   []string           `json:"names,omitempty" yaml:"names,omitempty"`
	LocalizedPackages       []LocalizedPackage `json:"localized_packages,omitempty" yaml:"localized_packages,omitempty"`
	Cultures                []Culture          `json:"cultures,omitempty" yaml:"cultures,omitempty"`
	Redirects               []Redirect         `json:"redirects,omitempty" yaml:"redirects,omitempty"`
	SoftReferences          *SoftReferences    `json:"soft_references,omitempty" yaml:"soft_references,omitempty"`
}

// StoreEntry is one package's store entry; fields the version does not
// store are left out.
type StoreEntry struct {
	PackageID         string   `json:"package_id" yaml:"package_id"`
	ExportBundlesSize *uint64  `json:"export_bundles_size,omitempty" yaml:"export_bundles_size,omitempty"`
	LoadOrder         *uint32  `json:"load_order,omitempty" yaml:"load_order,omitempty"`
	ExportCount       *int32   `json:"export_count,omitempty" yaml:"export_count,omitempty"`
	ExportBundleCount *int32   `json:"export_bundle_count,omitempty" yaml:"export_bundle_count,omitempty"`
	ImportedPackages  []string `json:"imported_packages" yaml:"imported_packages"`
	ShaderMapHashes   []string `json:"shader_map_hashes,omitempty" yaml:"shader_map_hashes,omitempty"`
}

// LocalizedPackage is a UE5 localized package with its mapped name.
type LocalizedPackage struct {
	SourcePackageID string `json:"source_package_id" yaml:"source_package_id"`
	SourceName      string `json:"source_name" yaml:"source_name"`
}

// Culture is one UE4 culture with its source → localized package pairs.
type Culture struct {
	Culture  string            `json:"culture" yaml:"culture"`
	Packages map[string]string `json:"packages" yaml:"packages"`
}

// Redirect is one package redirect.
type Redirect struct {
	SourcePackageID string `json:"source_package_id" yaml:"source_package_id"`
	TargetPackageID string `json:"target_package_id" yaml:"target_package_id"`
	SourceName      string `json:"source_name,omitempty" yaml:"source_name,omitempty"`
}

// SoftReferences lists the softly referenced packages and, per package,
// the indices into that list.
type SoftReferences struct {
	PackageIDs []string   `json:"package_ids" yaml:"package_ids"`
	Indices    [][]uint32 `json:"indices" yaml:"indices"`
}

// NewContainerHeaderDump converts h, decoded from file, with ids as hex.
func NewContainerHeaderDump(file string, h *zen.ContainerHeader) *ContainerHeaderDump {
	ue4 := h.Version == zen.HeaderUE4
	d := &ContainerHeaderDump{
		File: file, Kind: "container-header", Version: int(h.Version), VersionName: h.Version.String(),
		ContainerID: h.ContainerID.String(), Names: h.Names,
	}
	exportInfo := h.Version < zen.HeaderNoExportInfo
	entries := func(es []zen.StoreEntry) []StoreEntry {
		out := make([]StoreEntry, len(es))
		for i, e := range es {
			o := &out[i]
			o.PackageID = e.PackageID.String()
			if ue4 && !h.CompactStoreEntries {
				o.ExportBundlesSize, o.LoadOrder = &e.ExportBundlesSize, &e.LoadOrder
			}
			if exportInfo {
				o.ExportCount, o.ExportBundleCount = &es[i].ExportCount, &es[i].ExportBundleCount
			}
			o.ImportedPackages = make([]string, len(e.ImportedPackages))
			for k, id := range e.ImportedPackages {
				o.ImportedPackages[k] = id.String()
			}
			for _, sh := range e.ShaderMapHashes {
				o.ShaderMapHashes = append(o.ShaderMapHashes, fmt.Sprintf("%x", sh))
			}
		}
		return out
	}
	d.Packages = entries(h.Packages)
	if len(h.OptionalSegmentPackages) > 0 {
		d.OptionalSegmentPackages = entries(h.OptionalSegmentPackages)
	}
	name := func(n zen.MappedName) string {
		s, err := h.Name(n)
		if err != nil {
			return fmt.Sprintf("(name index %d: %v)", n.IndexAndType&(1<<30-1), err)
		}
		return s
	}
	for _, l := range h.LocalizedPackages {
		d.LocalizedPackages = append(d.LocalizedPackages, LocalizedPackage{l.SourcePackageID.String(), name(l.SourceName)})
	}
	for _, c := range h.Cultures {
		cd := Culture{Culture: c.Culture, Packages: map[string]string{}}
		for _, p := range c.Packages {
			cd.Packages[p.SourcePackageID.String()] = p.LocalizedPackageID.String()
		}
		d.Cultures = append(d.Cultures, cd)
	}
	for _, r := range h.Redirects {
		rd := Redirect{SourcePackageID: r.SourcePackageID.String(), TargetPackageID: r.TargetPackageID.String()}
		if !ue4 {
			rd.SourceName = name(r.SourceName)
		}
		d.Redirects = append(d.Redirects, rd)
	}
	if s := h.SoftReferences; s != nil {
		sd := &SoftReferences{PackageIDs: make([]string, len(s.PackageIDs)), Indices: s.Indices}
		for i, id := range s.PackageIDs {
			sd.PackageIDs[i] = id.String()
		}
		d.SoftReferences = sd
	}
	return d
}
