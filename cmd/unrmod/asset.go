package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/ufile"
)

// assetInfo summarizes the cooked asset f.
func assetInfo(f *ufile.File) (*report.AssetInfo, error) {
	p, err := f.Asset(nil)
	if err != nil {
		return nil, err
	}
	return report.NewAssetInfo(f.Path, f.Size, p, report.CookedPackageName(f.Path, p)), nil
}

// writeAssetInfo prints a cooked asset's info as aligned "Field: value"
// lines.
func writeAssetInfo(w io.Writer, d *report.AssetInfo) error {
	var b strings.Builder
	line := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "%-19s%s\n", k+":", fmt.Sprintf(format, args...))
	}
	flags := "none"
	if len(d.Flags.Names) > 0 {
		flags = strings.Join(d.Flags.Names, "|")
	}
	kind := "cooked asset"
	if !d.Cooked {
		kind = "asset saved by the editor"
	}
	line("File", "%s", d.File)
	line("Kind", "%s, %d bytes", kind, d.Size)
	pkg := d.Package
	if pkg == "" {
		pkg = "(not recorded)"
	}
	line("Package", "%s", pkg)
	release := "UE " + d.ReleaseText()
	if d.ReleaseDetected {
		release += " (detected from the layout)"
	}
	line("Release", "%s", release)
	if d.Unversioned {
		line("Version", "unversioned (summary %d; read as UE4 %d, UE5 %d)", d.LegacyFileVersion, d.ReadUE4, d.ReadUE5)
	} else {
		line("Version", "summary %d, UE4 %d, UE5 %d, licensee %d", d.LegacyFileVersion, d.FileVersionUE4, d.FileVersionUE5, d.FileVersionLicensee)
	}
	line("Saved by", "%s", d.SavedBy)
	line("Flags", "%s (%s)", flags, d.Flags.Value)
	props := "tagged"
	if d.UnversionedProperties {
		props = "unversioned (need the game's schema)"
	}
	line("Properties", "%s", props)
	line("Header size", "%d bytes", d.HeaderSize)
	line("Export data", "%d bytes", d.ExportData)
	line("Names", "%d", d.Names)
	line("Imports", "%d", d.Imports)
	line("Exports", "%d", d.Exports)
	line("Custom versions", "%d", d.CustomVersions)
	if len(d.Companions) == 0 {
		line("Companions", "none")
	}
	for _, c := range d.Companions {
		line("Companion", "%s (%s, %d bytes)", c.File, c.Role, c.Size)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
