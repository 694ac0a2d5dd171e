package convert

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ue"
)

// Sentinel errors, wrapped by the errors ToZen returns, for callers that
// branch on the kind of refusal with errors.Is. Each also matches the
// shared sentinel of package ue it names.
var (
	// ErrNotCooked means the asset was saved by the editor, not by the
	// cooker (no PKG_FilterEditorOnly on UE4, no PKG_Cooked on UE5): its
	// exports hold editor-only data the game cannot load. Matches
	// ue.ErrNotEncodable.
	ErrNotCooked = ue.NewSentinel("not a cooked asset", ue.ErrNotEncodable)
	// ErrUnresolvedImport means an import's outer chain does not end in a
	// package (an outer outside the import map, an export, or a loop), so
	// the object it names has no path to hash. Matches ue.ErrCorrupt.
	ErrUnresolvedImport = ue.NewSentinel("import cannot be resolved", ue.ErrCorrupt)
	// ErrNotConvertible means the asset holds something the zen package of
	// the target engine cannot carry, or that the conversion would have to
	// guess. Matches ue.ErrNotEncodable.
	ErrNotConvertible = ue.NewSentinel("cannot be converted", ue.ErrNotEncodable)
	// ErrUnsupportedEngine means the target engine release is one whose
	// conversion this package does not do, or the asset's release cannot be
	// told and none was given. Matches ue.ErrUnsupportedVersion.
	ErrUnsupportedEngine = ue.NewSentinel("unsupported engine release", ue.ErrUnsupportedVersion)
)

// Options tell ToZen what the asset does not record.
type Options struct {
	// Engine is the release the zen package is made for. When zero, the
	// asset's release is used: its own for a versioned asset, or the one
	// detected from its layout when every release that fits writes the
	// same zen package.
	Engine zen.Engine
	// PackageName is the asset's long package name, e.g.
	// "/Game/Maps/Arena". When empty it is taken from the asset: the
	// name UE5 cooks record in the summary, else the one entry of the name
	// map that is a long package name ending in the file's base name (UE4
	// cooks record no name; most list their own among their names).
	PackageName string
	// ImportsFromBaseGame is for UE 4.26/4.27 targets: the packages this
	// one depends on are not packed with it (a mod on top of a shipped
	// game), so the arcs from their export bundles name bundle −1, as the
	// engine writes for base-game packages, rather than bundle 0, the one
	// bundle a package packed in the same run gets.
	ImportsFromBaseGame bool

	// fromBundle, when set, gives the bundle the arcs from a package's
	// export bundles name (EncodeLegacyChecked: the one the original
	// package's arcs from it name), overriding ImportsFromBaseGame.
	fromBundle map[zen.PackageID]int32
}

// importedBundle is the export bundle of an imported package that 4.26/4.27
// arcs start from.
// importedBundleOf is the bundle the arcs from package id's bundles name
// when id is not converted with this package.
func (o Options) importedBundleOf(id zen.PackageID) int32 {
	if b, ok := o.fromBundle[id]; ok {
		return b
	}
	return o.importedBundle()
}

func (o Options) importedBundle() int32 {
	if o.ImportsFromBaseGame {
		return -1
	}
	return 0
}

func errorf(file, structure string, cause error, format string, args ...any) error {
	return ue.Errorf(file, structure, -1, cause, format, args...)
}

// ToZen converts a cooked asset into the zen package the engine's IoStore
// packer (FPackageStoreOptimizer in UE5, the package conversion of
// IoStoreUtilities in 4.26/4.27) makes from it: the same summary, name
// map, import and export maps, load order and dependencies, and the
// asset's export data unchanged. Encoding the result gives the package
// chunk byte for byte as the engine writes it (docs/convert.md lists each
// rule and its engine source). Bulk data files (.ubulk, .uptnl, .m.ubulk)
// are not part of the package: they become the package's bulk-data chunks
// as they are.
//
// The asset is converted as it would be encoded: a model changed since it
// was decoded is encoded and decoded again first. ToZen refuses, with a
// *ue.FormatError naming the asset and the structure, what is not cooked
// (ErrNotCooked), imports it cannot resolve (ErrUnresolvedImport), what the
// target's package cannot carry (ErrNotConvertible) and targets it does
// not convert to (ErrUnsupportedEngine). a is not modified.
func ToZen(a *uasset.Package, opts *Options) (*zen.Package, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	s, engine, err := sourceOf(a, &o)
	if err != nil {
		return nil, err
	}
	if engine.Layout() == zen.LayoutUE4 {
		return s.toUE4(o)
	}
	return s.toUE5(engine)
}

// cooked reports whether the asset carries the cooker's flag for its
// generation: PKG_FilterEditorOnly on UE4, PKG_Cooked on UE5.
func cooked(a *uasset.Package) bool {
	if !ue5(a) {
		return a.Summary.PackageFlags&uasset.PkgFilterEditorOnly != 0
	}
	return a.Summary.PackageFlags&uasset.PkgCooked != 0
}

// ue5 reports whether the asset's summary is UE5's (LegacyFileVersion −8
// and later).
func ue5(a *uasset.Package) bool { return a.Summary.LegacyFileVersion <= -8 }

// TargetEngine returns the release ToZen converts a for when given is the
// release asked for (zero: none): given, when a's layout is one it writes,
// or a's own release, when a records it or every release its layout fits
// writes the same zen package. It refuses with ErrUnsupportedEngine
// otherwise.
func TargetEngine(a *uasset.Package, given zen.Engine) (zen.Engine, error) {
	fits := a.Fitting
	if !a.ReleaseDetected || len(fits) == 0 {
		fits = []uasset.Release{a.Release}
	}
	if given != (zen.Engine{}) {
		if !given.Known() {
			return zen.Engine{}, errorf(a.FileName, "package", ErrUnsupportedEngine, "engine %s: unrmod knows %s", given, zen.EngineNames())
		}
		for _, r := range fits {
			if r.Major == given.Major && r.Minor == given.Minor {
				return given, nil
			}
		}
		if !a.ReleaseDetected && (given.Major >= 5) == ue5(a) {
			// A versioned asset names its own release, which may be a
			// licensee's; trust the caller over the table within the
			// asset's generation.
			return given, nil
		}
		return zen.Engine{}, errorf(a.FileName, "package", ErrUnsupportedEngine,
			"the asset's layout is not one UE %s writes (it fits UE %s)", given, releaseSpan(fits))
	}
	var out zen.Engine
	for _, r := range fits {
		e := zen.Engine{Major: r.Major, Minor: r.Minor}
		if e.Layout() == zen.LayoutUnknown {
			continue // a release without IoStore (or whose zen layout is not known)
		}
		if out != (zen.Engine{}) && !sameOutput(e, out) {
			return zen.Engine{}, errorf(a.FileName, "package", ErrUnsupportedEngine,
				"the asset records no version and its layout fits UE %s, whose zen packages differ: give the engine release", releaseSpan(fits))
		}
		out = e
	}
	if !out.Known() {
		return zen.Engine{}, errorf(a.FileName, "package", ErrUnsupportedEngine, "UE %s writes no zen packages unrmod knows", releaseSpan(fits))
	}
	return out, nil
}

func releaseSpan(rs []uasset.Release) string {
	if len(rs) == 1 {
		return rs[0].String()
	}
	return rs[0].String() + "–" + rs[len(rs)-1].String()
}

// packageName returns the long package name the zen package is named by.
func packageName(a *uasset.Package, given string) (string, error) {
	if given != "" {
		if err := zen.CheckPackageName(given); err != nil {
			return "", errorf(a.FileName, "package name", ErrNotConvertible, "%v", err)
		}
		return given, nil
	}
	if n := a.Summary.PackageName; n != "" && n != "None" && zen.CheckPackageName(n) == nil {
		return n, nil
	}
	base := a.FileName
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	var found []string
	for _, n := range a.Names {
		if strings.HasPrefix(n.Value, "/") && !strings.HasPrefix(n.Value, "/Script/") && strings.HasSuffix(n.Value, "/"+base) && zen.CheckPackageName(n.Value) == nil {
			found = append(found, n.Value)
		}
	}
	if len(found) == 1 && base != "" {
		return found[0], nil
	}
	why := "no name in its name map is a package path ending in /" + base
	if len(found) > 1 {
		why = fmt.Sprintf("%d names in its name map could be it (%s)", len(found), strings.Join(found, ", "))
	}
	return "", errorf(a.FileName, "package name", ErrNotConvertible,
		"the asset does not record its long package name (e.g. /Game/Maps/Arena) and %s: give the package name", why)
}

// settled returns a as the encoder would write it: a itself when its
// summary and export offsets still describe the model, else the asset
// encoded and decoded again.
func settled(a *uasset.Package) (*uasset.Package, error) {
	if asDecoded(a) {
		return a, nil
	}
	h, x, err := a.Encode()
	if err != nil {
		return nil, err
	}
	if !a.Split {
		x = nil
	}
	b, err := uasset.Decode(a.FileName, h, x, &uasset.Options{Release: a.Release})
	if err != nil {
		return nil, err
	}
	b.Fitting, b.ReleaseDetected = a.Fitting, a.ReleaseDetected
	return b, nil
}

// asDecoded reports whether a's summary counts and export offsets agree
// with its tables and data, as they do right after Decode.
func asDecoded(a *uasset.Package) bool {
	s := &a.Summary
	if int(s.NameCount) != len(a.Names) || int(s.ImportCount) != len(a.Imports) || int(s.ExportCount) != len(a.Exports) {
		return false
	}
	if s.PreloadDependencyCount >= 0 && int(s.PreloadDependencyCount) != len(a.PreloadDependencies) {
		return false
	}
	for i := range a.Exports {
		if a.Exports[i].SerialSize != int64(a.DataLen(i)) {
			return false
		}
	}
	return true
}

// exportData checks that the export data is laid out as the zen package
// will hold it, each export right after the one before it in export-map
// order from the end of the header, and returns what follows the last
// export (the .uexp's package tag).
func exportData(a *uasset.Package) ([]byte, error) {
	off := int64(a.Summary.TotalHeaderSize)
	for i, e := range a.Exports {
		if e.SerialOffset != off {
			return nil, errorf(a.FileName, exportLabel(a, i), ErrNotConvertible,
				"its data starts at 0x%X, not right after the export before it in the export map (0x%X): a zen package keeps export data in export-map order without gaps",
				e.SerialOffset, off)
		}
		off += int64(a.DataLen(i))
	}
	return bytes.Clone(a.ExportTrailer), nil
}

func exportLabel(a *uasset.Package, i int) string {
	return fmt.Sprintf("export %d %q", i, a.NameOf(a.Exports[i].ObjectName))
}

func importLabel(a *uasset.Package, i int) string {
	return fmt.Sprintf("import %d %q", i, a.NameOf(a.Imports[i].ObjectName))
}
