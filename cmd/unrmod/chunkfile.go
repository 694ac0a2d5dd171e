package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
)

// chunkFile is a single IoStore chunk saved as a file (by 'unrmod extract'
// or another tool): a container header or a zen package.
type chunkFile struct {
	file    string
	data    []byte
	content iostore.ChunkContent
}

// readChunkFile reads file when it holds a container header or a zen
// package and returns nil for anything else (legacy packages, containers,
// unknown or unreadable files), which the caller hands to the legacy reader
// and its error messages.
func readChunkFile(file string) *chunkFile {
	data, k := pack.ReadChunkFile(file)
	if data == nil {
		return nil
	}
	return &chunkFile{file: file, data: data, content: k}
}

// header decodes the file as a container header.
func (c *chunkFile) header() (*zen.ContainerHeader, error) {
	return zen.DecodeContainerHeader(c.file, c.data)
}

// isZen reports whether the file holds a zen package.
func (c *chunkFile) isZen() bool { return c.content != iostore.ContentContainerHeader }

// headerInfoDoc is the output of "unrmod info" for a container-header chunk.
type headerInfoDoc struct {
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

// newHeaderInfoDoc summarizes a decoded container header.
func newHeaderInfoDoc(c *chunkFile, h *zen.ContainerHeader) *headerInfoDoc {
	s := h.Summary()
	d := &headerInfoDoc{
		File: c.file, Kind: "container-header", Size: len(c.data),
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

// headerVersionText is "5 SoftPackageReferencesOffset (UE 5.6–5.8)", or for
// the 4.2x layout "none: the UE 4.25–4.27 layout".
func headerVersionText(v int, name, engines string) string {
	if v < 0 {
		return fmt.Sprintf("none (the UE %s layout, which has no version field)", engines)
	}
	return fmt.Sprintf("%d %s (UE %s)", v, name, engines)
}

// writeText prints the summary as aligned "Field: value" lines.
func (d *headerInfoDoc) writeText(w io.Writer) error {
	var b strings.Builder
	line := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "%-19s%s\n", k+":", fmt.Sprintf(format, args...))
	}
	line("File", "%s", d.File)
	line("Kind", "container header (the package store of one IoStore container), %d bytes", d.Size)
	line("Version", "%s", headerVersionText(d.Version, d.VersionName, d.Engines))
	line("Container id", "%s", d.ContainerID)
	line("Packages", "%d (%d-byte store entries)", d.Packages, d.StoreEntrySize)
	if d.Version >= int(zen.HeaderOptionalSegmentPackages) {
		line("Optional segment", "%d packages", d.OptionalSegmentPackages)
	}
	line("Imported packages", "%d references", d.ImportedPackageRefs)
	if d.Version >= 0 {
		hashes := fmt.Sprintf("%d", d.ShaderMapHashes)
		if d.ShaderMapHashes > 0 {
			hashes += fmt.Sprintf(" of %d bytes", d.ShaderMapHashSize)
		}
		line("Shader map hashes", "%s", hashes)
	}
	line("Names", "%d", d.Names)
	if d.Version < 0 {
		line("Cultures", "%d (%d localized packages)", d.Cultures, d.LocalizedPackages)
	} else {
		line("Localized", "%d packages", d.LocalizedPackages)
	}
	line("Redirects", "%d", d.Redirects)
	if d.Version >= int(zen.HeaderSoftPackageReferences) {
		line("Soft references", "%d packages", d.SoftReferencedPackages)
	}
	layout := "canonical: unrmod re-encodes it byte for byte from the model"
	if len(d.KeptRaw) > 0 {
		layout = "not canonical in " + strings.Join(d.KeptRaw, ", ") + " (kept as read while unchanged)"
	}
	if d.TrailingBytes > 0 {
		layout += fmt.Sprintf("; %d bytes after the last structure", d.TrailingBytes)
	}
	line("Layout", "%s", layout)
	_, err := io.WriteString(w, b.String())
	return err
}

// headerDumpDoc is the output of "unrmod dump" for a container-header chunk.
type headerDumpDoc struct {
	File                    string                `json:"file" yaml:"file"`
	Kind                    string                `json:"kind" yaml:"kind"`
	Version                 int                   `json:"version" yaml:"version"`
	VersionName             string                `json:"version_name" yaml:"version_name"`
	ContainerID             string                `json:"container_id" yaml:"container_id"`
	Packages                []storeEntryDoc       `json:"packages" yaml:"packages"`
	OptionalSegmentPackages []storeEntryDoc       `json:"optional_segment_packages,omitempty" yaml:"optional_segment_packages,omitempty"`
	Names                   []string              `json:"names,omitempty" yaml:"names,omitempty"`
	LocalizedPackages       []localizedPackageDoc `json:"localized_packages,omitempty" yaml:"localized_packages,omitempty"`
	Cultures                []cultureDoc          `json:"cultures,omitempty" yaml:"cultures,omitempty"`
	Redirects               []redirectDoc         `json:"redirects,omitempty" yaml:"redirects,omitempty"`
	SoftReferences          *softReferencesDoc    `json:"soft_references,omitempty" yaml:"soft_references,omitempty"`
	exportInfo, ue4         bool
}

// storeEntryDoc is one package's store entry; fields the version does not
// store are left out.
type storeEntryDoc struct {
	PackageID         string   `json:"package_id" yaml:"package_id"`
	ExportBundlesSize *uint64  `json:"export_bundles_size,omitempty" yaml:"export_bundles_size,omitempty"`
	LoadOrder         *uint32  `json:"load_order,omitempty" yaml:"load_order,omitempty"`
	ExportCount       *int32   `json:"export_count,omitempty" yaml:"export_count,omitempty"`
	ExportBundleCount *int32   `json:"export_bundle_count,omitempty" yaml:"export_bundle_count,omitempty"`
	ImportedPackages  []string `json:"imported_packages" yaml:"imported_packages"`
	ShaderMapHashes   []string `json:"shader_map_hashes,omitempty" yaml:"shader_map_hashes,omitempty"`
}

// localizedPackageDoc is a UE5 localized package with its mapped name.
type localizedPackageDoc struct {
	SourcePackageID string `json:"source_package_id" yaml:"source_package_id"`
	SourceName      string `json:"source_name" yaml:"source_name"`
}

// cultureDoc is one UE4 culture with its source → localized package pairs.
type cultureDoc struct {
	Culture  string            `json:"culture" yaml:"culture"`
	Packages map[string]string `json:"packages" yaml:"packages"`
}

// redirectDoc is one package redirect.
type redirectDoc struct {
	SourcePackageID string `json:"source_package_id" yaml:"source_package_id"`
	TargetPackageID string `json:"target_package_id" yaml:"target_package_id"`
	SourceName      string `json:"source_name,omitempty" yaml:"source_name,omitempty"`
}

// softReferencesDoc lists the softly referenced packages and, per package,
// the indices into that list.
type softReferencesDoc struct {
	PackageIDs []string   `json:"package_ids" yaml:"package_ids"`
	Indices    [][]uint32 `json:"indices" yaml:"indices"`
}

// newHeaderDumpDoc converts a container header, with ids as hex.
func newHeaderDumpDoc(file string, h *zen.ContainerHeader) *headerDumpDoc {
	ue4 := h.Version == zen.HeaderUE4
	d := &headerDumpDoc{
		File: file, Kind: "container-header", Version: int(h.Version), VersionName: h.Version.String(),
		ContainerID: h.ContainerID.String(), Names: h.Names, ue4: ue4,
		exportInfo: h.Version < zen.HeaderNoExportInfo,
	}
	entries := func(es []zen.StoreEntry) []storeEntryDoc {
		out := make([]storeEntryDoc, len(es))
		for i, e := range es {
			o := &out[i]
			o.PackageID = e.PackageID.String()
			if ue4 && !h.CompactStoreEntries {
				o.ExportBundlesSize, o.LoadOrder = &e.ExportBundlesSize, &e.LoadOrder
			}
			if d.exportInfo {
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
		d.LocalizedPackages = append(d.LocalizedPackages, localizedPackageDoc{l.SourcePackageID.String(), name(l.SourceName)})
	}
	for _, c := range h.Cultures {
		cd := cultureDoc{Culture: c.Culture, Packages: map[string]string{}}
		for _, p := range c.Packages {
			cd.Packages[p.SourcePackageID.String()] = p.LocalizedPackageID.String()
		}
		d.Cultures = append(d.Cultures, cd)
	}
	for _, r := range h.Redirects {
		rd := redirectDoc{SourcePackageID: r.SourcePackageID.String(), TargetPackageID: r.TargetPackageID.String()}
		if !ue4 {
			rd.SourceName = name(r.SourceName)
		}
		d.Redirects = append(d.Redirects, rd)
	}
	if s := h.SoftReferences; s != nil {
		sd := &softReferencesDoc{PackageIDs: make([]string, len(s.PackageIDs)), Indices: s.Indices}
		for i, id := range s.PackageIDs {
			sd.PackageIDs[i] = id.String()
		}
		d.SoftReferences = sd
	}
	return d
}

// writeText prints the store entries as a table, then the other lists.
func (d *headerDumpDoc) writeText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Container header, version %s; container %s\n", headerVersionText(d.Version, d.VersionName, zen.HeaderVersion(d.Version).Engine()), d.ContainerID)
	d.writeEntries(&b, "Packages", d.Packages)
	if len(d.OptionalSegmentPackages) > 0 {
		d.writeEntries(&b, "Optional segment packages", d.OptionalSegmentPackages)
	}
	if len(d.Names) > 0 {
		fmt.Fprintf(&b, "\nNames: %d\n", len(d.Names))
		for i, n := range d.Names {
			fmt.Fprintf(&b, "%5d  %s\n", i, n)
		}
	}
	if len(d.LocalizedPackages) > 0 {
		fmt.Fprintf(&b, "\nLocalized packages: %d\n", len(d.LocalizedPackages))
		for _, l := range d.LocalizedPackages {
			fmt.Fprintf(&b, "  %s  %s\n", l.SourcePackageID, l.SourceName)
		}
	}
	for _, c := range d.Cultures {
		fmt.Fprintf(&b, "\nCulture %s: %d localized packages\n", c.Culture, len(c.Packages))
	}
	if len(d.Redirects) > 0 {
		fmt.Fprintf(&b, "\nRedirects: %d\n", len(d.Redirects))
		for _, r := range d.Redirects {
			fmt.Fprintf(&b, "  %s → %s  %s\n", r.SourcePackageID, r.TargetPackageID, r.SourceName)
		}
	}
	if s := d.SoftReferences; s != nil {
		fmt.Fprintf(&b, "\nSoft references: %d packages\n", len(s.PackageIDs))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeEntries prints one table of store entries.
func (d *headerDumpDoc) writeEntries(b *strings.Builder, title string, es []storeEntryDoc) {
	fmt.Fprintf(b, "\n%s: %d\n", title, len(es))
	t := &table{header: []string{"INDEX", "PACKAGE ID"}, right: []bool{true, false}}
	sizes := len(es) > 0 && es[0].ExportBundlesSize != nil
	if sizes {
		t.header = append(t.header, "BUNDLES SIZE", "LOAD ORDER")
		t.right = append(t.right, true, true)
	}
	if d.exportInfo {
		t.header = append(t.header, "EXPORTS", "BUNDLES")
		t.right = append(t.right, true, true)
	}
	t.header = append(t.header, "IMPORTS")
	t.right = append(t.right, true)
	if !d.ue4 {
		t.header = append(t.header, "SHADER MAPS")
		t.right = append(t.right, true)
	}
	for i, e := range es {
		row := []string{fmt.Sprint(i), e.PackageID}
		if sizes {
			row = append(row, fmt.Sprint(*e.ExportBundlesSize), fmt.Sprint(*e.LoadOrder))
		}
		if d.exportInfo {
			row = append(row, fmt.Sprint(*e.ExportCount), fmt.Sprint(*e.ExportBundleCount))
		}
		row = append(row, fmt.Sprint(len(e.ImportedPackages)))
		if !d.ue4 {
			row = append(row, fmt.Sprint(len(e.ShaderMapHashes)))
		}
		t.add(row...)
	}
	t.write(b)
}

// verifyChunkFile checks a chunk given as a file: a container header must
// decode and its entries must be consistent (no package listed twice, none
// importing itself); a zen package must decode and pass every check.
func verifyChunkFile(c *chunkFile, zf *zenFlags) verifyFileDoc {
	if c.isZen() {
		z, err := openZenFile("verify", c.file, c.data, zf)
		if err != nil {
			return verifyFileDoc{File: c.file, Kind: "zen-package", Problems: []problemDoc{containerReadProblem(err)}}
		}
		return verifyZen(z)
	}
	r := verifyFileDoc{File: c.file, Kind: "container-header", Problems: []problemDoc{}}
	h, err := c.header()
	if err != nil {
		r.Problems = append(r.Problems, containerReadProblem(err))
		return r
	}
	s := h.Summary()
	r.ContainerHeader = &s
	for _, q := range h.Problems() {
		d := problemDoc{Struct: q.Struct, Message: q.Msg, Text: q.String()}
		r.Problems = append(r.Problems, d)
	}
	r.OK = len(r.Problems) == 0
	return r
}
