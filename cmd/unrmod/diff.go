package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/ufile"
	"github.com/unrmod/unrmod/usmap"
)

// diffCommand returns the "diff" command.
func diffCommand() *command {
	return &command{
		name:     "diff",
		synopsis: "OLD NEW [--json] [--exit-code] [--package PACKAGE] [--engine VERSION]",
		summary:  "show the semantic differences between two packages",
		description: `Compare two packages by what they mean rather than byte by byte, and print
one line per difference:

  header: version, flags by name, GUID, generations (heritage before file
          version 68)
  name:   names added, removed, renamed at the same index, flags changed
  import: imports added, removed or with another class, matched by path
  export: exports added or removed, matched by path (and class where a path
          repeats); for exports in both, class, super, flags, and for
          changed data the tagged properties that were added, removed or
          changed (old → new), "native data differs (N bytes → M bytes)"
          when the data after the property list differs, or "moved only"
          when the data differs only in lazy-array offsets rebased because
          it moved in the file

Names and object references are compared by the text they resolve to in
their own package, so renumbered tables are not differences, and export
paths are compared without the package name, so a copy saved under another
file name compares equal.

Zen packages (files as 'unrmod extract' writes them, or with --package the
package of that name in each of two containers) compare the same way:
header fields (layout, package name, flags, versioning), names, imports
by the object they name (script imports by path when the global container
is at hand), exports by path with their class, super, template, flags,
public export hash and data; changed data is compared property by
property, DataTable rows row by row ("property MaxStackSize of row
Stick: 10 → 999").

With --json, print one JSON document: the header, names, imports and
exports lists, with sizes and xxh3-64 hashes of changed export data.

Cooked UE4/UE5 assets (a .uasset or .umap with its .uexp, as a pak or
'unrmod extract' holds them) compare the same way: summary fields
(release, versions, package name, flags, GUID), names, imports by path and
class, exports by path with their class, super, template, flags, sizes and
data hashes; for assets cooked with tagged properties, changed data is
compared property by property and DataTable rows row by row.

Packages and assets cooked with unversioned properties (most UE5 games)
have no tags: with --mappings (the game's .usmap schema) their changed
data is compared property by property too; without it, by its bytes.

Exit status: 0 when both packages were read, whether or not they differ
(identical packages print 'no differences'); 1 when a package cannot be
read; 2 on a usage error.

With --exit-code the exit status is 1 when the packages differ and 0 when
they do not, as with git diff --exit-code, so scripts can test it.`,
		examples: []string{
			"unrmod diff Maps/CTF-Face.unr /tmp/CTF-Face.unr",
			"unrmod diff --json Textures/BluffFX.utx BluffFX-patched.utx",
			"unrmod diff out/Maine/Content/Data/Table_Items.uasset patched/Table_Items.uasset",
			"unrmod diff Paks/pakchunk0-Windows.utoc mods/MyMod_P.utoc --package /Game/Data/Table_Items",
		},
		setup: func(fs *flag.FlagSet) runner {
			asJSON := fs.Bool("json", false, "print one JSON document instead of text")
			exitCode := fs.Bool("exit-code", false, "exit with status 1 when the packages differ (as git diff --exit-code), for scripts")
			key := addKeyFlag(fs)
			zf := addZenFlags(fs, key)
			mf := addMappingsFlag(fs)
			return func(s streams, args []string) error {
				if len(args) != 2 {
					return usagef("diff", "want OLD and NEW, got %d argument(s)%s", len(args), diffArgList(args))
				}
				m, err := mf.load(key)
				if err != nil {
					return err
				}
				fa, err := pakPackageArg(recognise(args[0]), zf)
				if err != nil {
					return err
				}
				fb, err := pakPackageArg(recognise(args[1]), zf)
				if err != nil {
					return err
				}
				d, err := diffAssetArgs(fa, fb, m)
				if err == nil && d == nil {
					d, err = diffZenArgs(fa, fb, zf, m)
				}
				if err != nil {
					return err
				}
				if d == nil {
					a, err := readLegacy("diff", fa)
					if err != nil {
						return err
					}
					b, err := readLegacy("diff", fb)
					if err != nil {
						return err
					}
					d = patch.Diff(a, b)
				}
				if *asJSON {
					err = writeJSON(s.out, d)
				} else if d.Empty() {
					_, err = fmt.Fprintln(s.out, "no differences")
				} else {
					err = d.Format(s.out)
				}
				if err == nil && *exitCode && !d.Empty() {
					return errReported // the differences are the report
				}
				return err
			}
		},
	}
}

// diffArgList shows the arguments of a wrong-count error: " (a b c)".
func diffArgList(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return " (" + strings.Join(args, " ") + ")"
}

// diffAssetArgs compares two cooked assets (each .uasset with its .uexp),
// or returns nil when neither argument is one.
func diffAssetArgs(a, b *ufile.File, m *usmap.Mappings) (*patch.PackageDiff, error) {
	ca, cb := a.Kind == ufile.CookedAsset, b.Kind == ufile.CookedAsset
	switch {
	case !ca && !cb:
		return nil, nil
	case !ca:
		return nil, fmt.Errorf("%s is a cooked asset, %s is not: diff compares two packages of the same kind", b.Path, a.Path)
	case !cb:
		return nil, fmt.Errorf("%s is a cooked asset, %s is not: diff compares two packages of the same kind", a.Path, b.Path)
	}
	pa, err := a.Asset(nil)
	if err != nil {
		return nil, err
	}
	pb, err := b.Asset(nil)
	if err != nil {
		return nil, err
	}
	return patch.DiffAssetWith(a.Path, pa, report.CookedPackageName(a.Path, pa), b.Path, pb, report.CookedPackageName(b.Path, pb), m), nil
}

// diffZenArgs compares two zen packages, or returns nil when the arguments
// are not zen packages (legacy packages are compared by the caller).
func diffZenArgs(a, b *ufile.File, zf *zenFlags, m *usmap.Mappings) (*patch.PackageDiff, error) {
	za, err := openZenArg("diff", a, zf)
	if err != nil || za == nil {
		return nil, err
	}
	defer za.Close()
	zb, err := openZenArg("diff", b, zf)
	if err != nil {
		return nil, err
	}
	if zb == nil {
		return nil, fmt.Errorf("%s is a zen package, %s is not: diff compares two packages of the same kind", za.name, b.Path)
	}
	defer zb.Close()
	return patch.DiffZenWith(za.name, za.pkg, za.resolver, zb.name, zb.pkg, zb.resolver, m), nil
}
