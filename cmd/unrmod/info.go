package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/ufile"
)

// infoCommand returns the "info" command.
func infoCommand() *command {
	return &command{
		name:     "info",
		synopsis: "FILE [--json] [--aes-key KEY] [--package PACKAGE] [--engine VERSION]",
		summary:  "show a package's or an IoStore container's header",
		description: `Show the summary of a package: file name, package name, size, file and
licensee version with the engine generation, package flags by name and in
hex, the GUID, the generation history (or, before file version 68, the
heritage GUIDs), and the count and offset of the name, import and export
tables.

For an IoStore container (a .utoc, recognized by its extension or its
magic) show the TOC version and the engine versions it implies, the
container id and flags, encryption, compression methods, block size,
partitions, chunk and block counts, the directory index (mount point, file
count), the container-header version and package count, every header field
by its engine name and where each TOC section is. The .ucas files are not
needed, except to read the container header. --aes-key decrypts the paths
of an encrypted container.

A .pak (the companion of an IoStore container, or a pak mod) shows its
pak version, mount point, key GUID, whether its index is encrypted, its
file count and the container it mounts.

A container-header chunk saved as a file (by 'unrmod extract', under
chunks/ContainerHeader/) shows its version and the engines that write it,
the container id, the package count and store-entry size, and the counts of
imported packages, shader map hashes, localized packages, redirects and
soft references.

A zen package (a package chunk saved as a file by 'unrmod extract', or a
package inside a container named with --package) shows its package name
and id, its layout (which engine releases write it), package flags, the
versioning info of UE5 packages, the header and export-data sizes and the
counts of names, imports, exports, export bundles, imported packages and,
where the layout has them, dependencies, bulk data and cells.

A cooked UE4/UE5 asset (.uasset or .umap with its .uexp beside it) shows
its package name, the engine release (or the range of releases whose
layout fits an unversioned cook), its file versions, whether it is
cooked and whether its properties are unversioned, package flags, the
header and export-data sizes, the counts of names, imports and exports,
and the companion files beside it (.uexp, .ubulk, .uptnl, .m.ubulk).`,
		examples: []string{
			"unrmod info Maps/CTF-Face.unr",
			"unrmod info --json System/Engine.u",
			"unrmod info Content/Paks/pakchunk0-Windows.utoc",
			"unrmod info out/chunks/ContainerHeader/8f1c35e1a2b3c4d500000006.bin",
			"unrmod info Paks/Game.utoc --aes-key 0x0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF",
			"unrmod info out/Maine/Content/Data/Table_Items.uasset",
			"unrmod info Paks/Game.utoc --package /Game/Data/Table_Items",
		},
		setup: func(fs *flag.FlagSet) runner {
			asJSON := fs.Bool("json", false, "print one JSON document instead of text")
			key := addKeyFlag(fs)
			zf := addZenFlags(fs, key)
			return func(s streams, args []string) error {
				file, err := oneArg("info", args, "FILE")
				if err != nil {
					return err
				}
				f, locks, err := openRead(s, file)
				if err != nil {
					return err
				}
				defer locks.Release()
				if f, err = pakPackageArg(f, zf); err != nil {
					return err
				}
				z, err := openZenArg("info", f, zf)
				if err != nil {
					return err
				}
				if z != nil {
					defer z.Close()
					doc := newZenInfoDoc(z)
					if *asJSON {
						return writeJSON(s.out, doc)
					}
					return doc.writeText(s.out)
				}
				switch f.Kind {
				case ufile.Pak:
					p, err := openPak(file, key)
					if err != nil {
						return err
					}
					defer p.Close()
					doc := report.NewPakInfo(file, &p.Reader)
					if *asJSON {
						return writeJSON(s.out, doc)
					}
					return writePakInfo(s.out, doc)
				case ufile.Container:
					c, err := openContainer(file, key)
					if err != nil {
						return err
					}
					defer c.Close()
					doc := report.NewContainerInfo(file, c, reportOptions())
					if *asJSON {
						return writeJSON(s.out, doc)
					}
					return writeContainerInfo(s.out, doc, c)
				case ufile.CookedAsset:
					doc, err := assetInfo(f)
					if err != nil {
						return err
					}
					if *asJSON {
						return writeJSON(s.out, doc)
					}
					return writeAssetInfo(s.out, doc)
				case ufile.ShaderLibrary:
					doc, err := shaderLibraryInfo(file)
					if err != nil {
						return err
					}
					if *asJSON {
						return writeJSON(s.out, doc)
					}
					return writeShaderLibraryInfo(s.out, doc)
				case ufile.ContainerHeader:
					h, err := f.ContainerHeader()
					if err != nil {
						return err
					}
					doc := newHeaderInfoDoc(f, h)
					if *asJSON {
						return writeJSON(s.out, doc)
					}
					return doc.writeText(s.out)
				}
				p, err := readLegacy("info", f)
				if err != nil {
					return err
				}
				doc := report.NewPackageInfo(file, p)
				if *asJSON {
					return writeJSON(s.out, doc)
				}
				return writePackageInfo(s.out, doc)
			}
		},
	}
}

// writePackageInfo prints a legacy package's info as aligned "Field:
// value" lines.
func writePackageInfo(w io.Writer, d *report.PackageInfo) error {
	var b strings.Builder
	line := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "%-13s%s\n", k+":", fmt.Sprintf(format, args...))
	}
	flags := "none"
	if len(d.Flags.Names) > 0 {
		flags = strings.Join(d.Flags.Names, "|")
	}
	line("File", "%s", d.File)
	line("Package", "%s", d.Package)
	line("Size", "%d bytes", d.Size)
	line("Version", "%d/%d (%s)", d.Version.File, d.Version.Licensee, d.Version.Engine)
	line("Flags", "%s (%s)", flags, d.Flags.Value)
	line("GUID", "%s", d.GUID)
	line("Header size", "%d bytes", d.HeaderSize)
	for _, t := range []struct {
		name string
		t    report.Table
	}{{"Names", d.Names}, {"Imports", d.Imports}, {"Exports", d.Exports}} {
		line(t.name, "%d at %s", t.t.Count, hex32(uint32(t.t.Offset)))
	}
	if d.Version.File >= reader.VerGUIDGenerations {
		line("Generations", "%d", len(d.Generations))
		for i, g := range d.Generations {
			fmt.Fprintf(&b, "  [%d] %d exports, %d names\n", i, g.Exports, g.Names)
		}
	} else {
		line("Heritage", "%d", len(d.Heritage))
		for i, g := range d.Heritage {
			fmt.Fprintf(&b, "  [%d] %s\n", i, g)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
