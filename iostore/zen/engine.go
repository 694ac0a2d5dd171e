package zen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/unrmod/unrmod/ue"
)

// Layout is the layout of a zen package: which summary it starts with and
// which regions follow. Each engine generation adds one thing to the one
// before, so layouts are ordered, and each difference is one comparison
// (docs/zen.md, "Package layouts").
type Layout uint8

// The zen package layouts, with the engine releases that write them.
const (
	// LayoutUnknown is the zero Layout: not detected yet.
	LayoutUnknown Layout = iota
	// LayoutUE4 is UE 4.26/4.27: the 64-byte FPackageSummary, the names and
	// their hashes as two blobs, export bundles and graph data.
	LayoutUE4
	// LayoutUE50 is UE 5.0–5.1: FZenPackageSummary (44 bytes, optional
	// versioning info), one name batch, imported public export hashes and
	// graph data with 16-byte export bundle headers.
	LayoutUE50
	// LayoutUE52 is UE 5.2: adds the bulk-data map.
	LayoutUE52
	// LayoutUE53 is UE 5.3: a 52-byte summary; dependency bundles and the
	// imported package names replace the graph data; one export bundle.
	LayoutUE53
	// LayoutUE54 is UE 5.4–5.5: pads the bulk-data map to 8 bytes.
	LayoutUE54
	// LayoutUE56 is UE 5.6 and later: adds the cell import and export maps.
	LayoutUE56
	layoutLast = LayoutUE56
)

// String names the engine releases that write the layout (the rows of
// ue.Releases), e.g. "UE 5.4–5.5", "UE 5.6+" for the newest layout.
func (l Layout) String() string {
	if l > layoutLast {
		return fmt.Sprintf("Layout(%d)", uint8(l))
	}
	if l == LayoutUnknown {
		return "unknown layout"
	}
	var rs []ue.Release
	for _, row := range ue.Releases() {
		if Layout(row.ZenLayout) == l {
			rs = append(rs, row.Release)
		}
	}
	if len(rs) > 0 && l == layoutLast {
		return "UE " + rs[0].String() + "+"
	}
	return "UE " + ue.Span(rs, "–")
}

// Layout differences: one predicate each, named after what changed.

// IsUE5 reports a UE5 layout (FZenPackageSummary) rather than the 4.26/4.27 one.
func (l Layout) IsUE5() bool { return l >= LayoutUE50 }

func (l Layout) hasGraphData() bool   { return l < LayoutUE53 }
func (l Layout) hasBulkDataMap() bool { return l >= LayoutUE52 }
func (l Layout) hasBulkDataPad() bool { return l >= LayoutUE54 }
func (l Layout) hasCells() bool       { return l >= LayoutUE56 }

// hasDependencies reports the 5.3+ dependency bundles and imported package
// names (and the 52-byte summary that locates them).
func (l Layout) hasDependencies() bool { return l >= LayoutUE53 }

// summarySize returns the size of the fixed summary.
func (l Layout) summarySize() int {
	switch {
	case !l.IsUE5():
		return 64
	case l.hasDependencies():
		return 52
	}
	return 44
}

// Engine is an Unreal Engine release, e.g. 4.27 or 5.4: what a user names,
// and what selects a package layout and a container-header version when
// the data cannot tell. It is a ue.Release (and converts to one); what
// each release writes is its row in ue.Releases.
type Engine struct{ Major, Minor int }

// The engine releases unrmod knows the zen formats of.
var (
	Engine426 = Engine{4, 26}
	Engine427 = Engine{4, 27}
	Engine50  = Engine{5, 0}
	Engine58  = Engine{5, 8}
)

// Engines lists the releases ParseEngine accepts, oldest first: those of
// ue.Releases whose zen layout is known.
func Engines() []Engine {
	var out []Engine
	for _, row := range ue.Releases() {
		if row.ZenLayout != 0 {
			out = append(out, Engine(row.Release))
		}
	}
	return out
}

// EngineNames lists Engines for messages and help: "4.26, 4.27, 5.0 …
// 5.8" (a run of more than two releases of one major version is shortened).
func EngineNames() string {
	var rs []ue.Release
	for _, e := range Engines() {
		rs = append(rs, ue.Release(e))
	}
	return ue.List(rs)
}

// info returns e's row in the table of releases.
func (e Engine) info() (ue.ReleaseInfo, bool) { return ue.Release(e).Info() }

// ParseEngine parses "4.26", "4.27", "5" (5.0) or "5.0" … "5.8".
func ParseEngine(s string) (Engine, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "UE")
	major, minor, _ := strings.Cut(strings.TrimSpace(s), ".")
	e := Engine{Minor: 0}
	var err1, err2 error
	e.Major, err1 = strconv.Atoi(major)
	if minor != "" {
		e.Minor, err2 = strconv.Atoi(minor)
	}
	if err1 == nil && err2 == nil && e.Known() {
		return e, nil
	}
	var names []string
	for _, k := range Engines() {
		names = append(names, k.String())
	}
	return Engine{}, fmt.Errorf("engine %q: unrmod knows %s", s, strings.Join(names, ", "))
}

// Known reports whether e is a release unrmod knows the zen formats of.
func (e Engine) Known() bool {
	row, ok := e.info()
	return ok && row.ZenLayout != 0
}

// String returns "4.27", "5.4".
func (e Engine) String() string { return fmt.Sprintf("%d.%d", e.Major, e.Minor) }

// Less reports whether e is an older release than o.
func (e Engine) Less(o Engine) bool {
	return e.Major < o.Major || e.Major == o.Major && e.Minor < o.Minor
}

// Layout returns the zen package layout the release writes
// (LayoutUnknown for a release not in ue.Releases).
func (e Engine) Layout() Layout {
	row, _ := e.info()
	return Layout(row.ZenLayout)
}

// HeaderVersion returns the container-header version the release writes
// (the UE5 runtime accepts only its own).
func (e Engine) HeaderVersion() HeaderVersion {
	row, _ := e.info()
	return HeaderVersion(row.ContainerHeaderVersion)
}

// ObjectVersionUE5 returns the package file version (EUnrealEngineObjectUE5Version)
// the release saves with: 0 for UE4, 1004 for 5.0 … 1018 for 5.7 and later.
// It decides the layout of tagged properties.
func (e Engine) ObjectVersionUE5() int32 {
	row, _ := e.info()
	return row.FileVersionUE5
}

// MarshalText returns the String form.
func (e Engine) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// PackageLayouts returns the range of package layouts the engine releases
// that write container-header version v write (lo == hi == LayoutUnknown
// for an unknown version): the packages of a container must be cooked for
// the container's engine.
func (v HeaderVersion) PackageLayouts() (lo, hi Layout) {
	switch v {
	case HeaderUE4:
		return LayoutUE4, LayoutUE4
	case HeaderInitial, HeaderLocalizedPackages:
		return LayoutUE50, LayoutUE50
	case HeaderOptionalSegmentPackages:
		return LayoutUE50, LayoutUE52
	case HeaderNoExportInfo:
		return LayoutUE53, LayoutUE54
	case HeaderSoftPackageReferences:
		return LayoutUE54, LayoutUE54
	case HeaderSoftPackageReferencesOffset:
		return LayoutUE56, LayoutUE56
	}
	return LayoutUnknown, LayoutUnknown
}
