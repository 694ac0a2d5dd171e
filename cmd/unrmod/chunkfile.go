package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/ufile"
	"github.com/unrmod/unrmod/usmap"
)

// headerInfoDoc is the output of "unrmod info" for a container-header chunk.
type headerInfoDoc struct {
	*report.ContainerHeaderInfo
}

// newHeaderInfoDoc summarizes a decoded container header.
func newHeaderInfoDoc(c *ufile.File, h *zen.ContainerHeader) *headerInfoDoc {
	return &headerInfoDoc{report.NewContainerHeaderInfo(c.Path, len(c.Data), h)}
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
	*report.ContainerHeaderDump `json:",inline" yaml:",inline"`
}

// newHeaderDumpDoc converts a container header, with ids as hex.
func newHeaderDumpDoc(file string, h *zen.ContainerHeader) *headerDumpDoc {
	return &headerDumpDoc{report.NewContainerHeaderDump(file, h)}
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
func (d *headerDumpDoc) writeEntries(b *strings.Builder, title string, es []report.StoreEntry) {
	v := zen.HeaderVersion(d.Version)
	exportInfo, ue4 := v < zen.HeaderNoExportInfo, v == zen.HeaderUE4
	fmt.Fprintf(b, "\n%s: %d\n", title, len(es))
	t := &table{header: []string{"INDEX", "PACKAGE ID"}, right: []bool{true, false}}
	sizes := len(es) > 0 && es[0].ExportBundlesSize != nil
	if sizes {
		t.header = append(t.header, "BUNDLES SIZE", "LOAD ORDER")
		t.right = append(t.right, true, true)
	}
	if exportInfo {
		t.header = append(t.header, "EXPORTS", "BUNDLES")
		t.right = append(t.right, true, true)
	}
	t.header = append(t.header, "IMPORTS")
	t.right = append(t.right, true)
	if !ue4 {
		t.header = append(t.header, "SHADER MAPS")
		t.right = append(t.right, true)
	}
	for i, e := range es {
		row := []string{fmt.Sprint(i), e.PackageID}
		if sizes {
			row = append(row, fmt.Sprint(*e.ExportBundlesSize), fmt.Sprint(*e.LoadOrder))
		}
		if exportInfo {
			row = append(row, fmt.Sprint(*e.ExportCount), fmt.Sprint(*e.ExportBundleCount))
		}
		row = append(row, fmt.Sprint(len(e.ImportedPackages)))
		if !ue4 {
			row = append(row, fmt.Sprint(len(e.ShaderMapHashes)))
		}
		t.add(row...)
	}
	t.write(b)
}

// verifyChunkFile checks a chunk given as a file: a container header must
// decode and its entries must be consistent (no package listed twice, none
// importing itself); a zen package must decode and pass every check.
func verifyChunkFile(c *ufile.File, zf *zenFlags, m *usmap.Mappings) report.FileVerify {
	if c.Kind == ufile.ZenPackage {
		z, err := openZenFile("verify", c.Path, c.Data, zf)
		if err != nil {
			return report.FileVerify{File: c.Path, Kind: "zen-package", Problems: []report.Problem{containerReadProblem(err)}}
		}
		return verifyZen(z, m)
	}
	h, err := c.ContainerHeader()
	if err != nil {
		return report.FileVerify{File: c.Path, Kind: "container-header", Problems: []report.Problem{containerReadProblem(err)}}
	}
	return report.VerifyContainerHeader(c.Path, h)
}
