package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ufile"
	"github.com/unrmod/unrmod/usmap"
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

// assetRewriteUses are the files rewriting cooked asset f to out reads and
// writes: the input's header, .uexp and bulk companions, and each output
// file of the same role.
func assetRewriteUses(f *ufile.File, out string) []safefile.Use {
	in, o := uasset.CompanionNames(f.Path), uasset.CompanionNames(out)
	uses := append(f.Uses(), safefile.Use{Path: out, Write: true, What: "the output asset"})
	if f.Uexp != "" {
		uses = append(uses, safefile.Use{Path: o.Uexp, Write: true, What: "the output's export data"})
	}
	for _, c := range [][2]string{{in.Ubulk, o.Ubulk}, {in.Uptnl, o.Uptnl}, {in.MUbulk, o.MUbulk}} {
		uses = append(uses, safefile.Use{Path: c[0], What: "a bulk data file of the input"},
			safefile.Use{Path: c[1], Write: true, What: "a bulk data file of the output"})
	}
	return uses
}

// rewriteAsset decodes cooked asset f, encodes it again, checks the output
// (uasset.EncodeChecked) and writes it to out with its .uexp, and copies of
// the .ubulk, .uptnl and .m.ubulk beside the input, as one batch: every
// file is replaced or none. A bulk file beside out that the input has not
// is removed with the commit, so that the output is not read with stale
// bulk data.
func rewriteAsset(sess *safefile.Session, f *ufile.File, out string) (*rewriteDoc, error) {
	p, err := f.Asset(nil)
	if err != nil {
		return nil, err
	}
	head, uexp, kept, err := p.EncodeChecked(out)
	if err != nil {
		return nil, err
	}
	in, o := uasset.CompanionNames(f.Path), uasset.CompanionNames(out)
	b := &safefile.Batch{Session: sess}
	defer b.Abort()
	if err := b.Add(out, head, 0o644); err != nil {
		return nil, err
	}
	size := int64(len(head))
	identical := bytes.Equal(head, f.Data)
	if p.Split {
		if err := b.Add(o.Uexp, uexp, 0o644); err != nil {
			return nil, err
		}
		size += int64(len(uexp))
		if identical {
			old, err := os.ReadFile(f.Uexp)
			identical = err == nil && bytes.Equal(old, uexp)
		}
	} else {
		b.Remove(o.Uexp)
	}
	doc := &rewriteDoc{Input: f.Path, Output: out, Layout: "preserve", MovedTables: []string{}, Companions: []string{}}
	for _, c := range [][2]string{{in.Ubulk, o.Ubulk}, {in.Uptnl, o.Uptnl}, {in.MUbulk, o.MUbulk}} {
		n, err := copyInto(b, c[0], c[1])
		if err != nil {
			return nil, err
		}
		if n < 0 {
			b.Remove(c[1])
			continue
		}
		size += n
		doc.Companions = append(doc.Companions, c[1])
	}
	if err := b.Commit(); err != nil {
		return nil, err
	}
	doc.Size, doc.Identical = size, identical
	for _, q := range kept {
		doc.InputProblems = append(doc.InputProblems, q.String())
	}
	return doc, nil
}

// copyInto stages a copy of the regular file src as dst in b and returns
// its size, or −1 when there is no file src.
func copyInto(b *safefile.Batch, src, dst string) (int64, error) {
	in, err := os.Open(src)
	if errors.Is(err, fs.ErrNotExist) {
		return -1, nil
	}
	if err != nil {
		return 0, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("%s: not a regular file", src)
	}
	w, err := b.Create(dst, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(w, in)
	if err != nil {
		return 0, fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return n, nil
}

// assetDumpDoc is the output of "unrmod dump" for a cooked asset.
type assetDumpDoc struct {
	report.AssetDump `json:",inline" yaml:",inline"`
	// Properties are the exports' tagged properties (--props), or
	// PropertiesNote says why they cannot be read.
	Properties     *propsDoc `json:"properties,omitempty" yaml:"properties,omitempty"`
	PropertiesNote string    `json:"properties_note,omitempty" yaml:"properties_note,omitempty"`
}

// assetDump lists the tables want asks for of cooked asset f, and with
// withProps its exports' properties.
func assetDump(f *ufile.File, want report.Tables, withProps bool, m *usmap.Mappings) (*assetDumpDoc, error) {
	p, err := f.Asset(nil)
	if err != nil {
		return nil, err
	}
	doc := &assetDumpDoc{AssetDump: *report.NewAssetDump(f.Path, p, report.CookedPackageName(f.Path, p), want)}
	if withProps {
		if doc.Properties, err = cookedProps(f, nil, "", m); errors.Is(err, props.ErrUnversioned) {
			doc.PropertiesNote, err = props.ErrUnversioned.Error(), nil
		}
		if err != nil {
			return nil, err
		}
	}
	return doc, nil
}

func (d *assetDumpDoc) writeText(w io.Writer) error {
	var b strings.Builder
	pkg := d.Package
	if pkg == "" {
		pkg = "(not recorded)"
	}
	fmt.Fprintf(&b, "Package: %s (UE %s cooked asset)\n", pkg, d.Release)
	if d.Names != nil {
		t := &table{header: []string{"INDEX", "NAME", "HASH", "CASE HASH"}, right: []bool{true, false, false, false}}
		for _, r := range *d.Names {
			t.add(strconv.Itoa(r.Index), r.Name, r.NonCaseHash, r.CaseHash)
		}
		fmt.Fprintf(&b, "\nNames: %d\n", len(*d.Names))
		t.write(&b)
	}
	if d.Imports != nil {
		t := &table{header: []string{"INDEX", "CLASS", "PATH"}, right: []bool{true, false, false}}
		for _, r := range *d.Imports {
			path := r.Path
			if r.Optional {
				path += " (optional)"
			}
			t.add(strconv.Itoa(r.Index), r.Class, path)
		}
		fmt.Fprintf(&b, "\nImports: %d\n", len(*d.Imports))
		t.write(&b)
	}
	if d.Exports != nil {
		t := &table{header: []string{"INDEX", "CLASS", "PATH", "SIZE", "OFFSET", "XXH3", "FLAGS"},
			right: []bool{true, false, false, true, false, false, false}}
		for _, r := range *d.Exports {
			t.add(strconv.Itoa(r.Index), r.Class, r.Path, strconv.FormatInt(r.Size, 10), r.Offset, r.XXH3, joinNames(r.Flags))
		}
		fmt.Fprintf(&b, "\nExports: %d\n", len(*d.Exports))
		t.write(&b)
	}
	if d.PropertiesNote != "" {
		fmt.Fprintf(&b, "\nProperties: %s\n", d.PropertiesNote)
	}
	if _, err := io.WriteString(w, b.String()); err != nil || d.Properties == nil {
		return err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return d.Properties.writeSection(w)
}
