package ue

import (
	"fmt"
	"strconv"
	"strings"
)

// Release is an Unreal Engine release, e.g. 4.27 or 5.4.
type Release struct{ Major, Minor int }

// String returns "4.27", "5.4".
func (r Release) String() string { return fmt.Sprintf("%d.%d", r.Major, r.Minor) }

// Less reports whether r is an older release than o.
func (r Release) Less(o Release) bool {
	return r.Major < o.Major || r.Major == o.Major && r.Minor < o.Minor
}

// Info returns the row of r in the release table and whether it has one.
func (r Release) Info() (ReleaseInfo, bool) {
	for _, row := range releases {
		if row.Release == r {
			return row, true
		}
	}
	return ReleaseInfo{Release: r, ContainerHeaderVersion: UnknownContainerHeader}, false
}

// UnknownContainerHeader is the ContainerHeaderVersion of a release whose
// container-header version is not known.
const UnknownContainerHeader = -128

// ReleaseInfo is one row of the table of engine releases: what the
// release's tools write. A zero field is not known (or does not exist in
// that release).
type ReleaseInfo struct {
	Release Release
	// TocVersion is the IoStore TOC version (EIoStoreTocVersion) the
	// release's packer writes.
	TocVersion uint8
	// PakVersion is the pak version unrmod writes for the release: the
	// one its UnrealPak writes, or, where unrmod cannot write that one,
	// the newest older version the release reads.
	PakVersion uint32
	// ContainerHeaderVersion is the container-header version
	// (EIoContainerHeaderVersion) it writes: -1 for the UE4 layout, which
	// has no version field; UnknownContainerHeader when not known.
	ContainerHeaderVersion int8
	// ZenLayout is the zen package layout it writes, numbered as package
	// iostore/zen numbers its Layout constants (1 for 4.26–4.27, 2 for
	// 5.0–5.1, 3 for 5.2, 4 for 5.3, 5 for 5.4–5.5, 6 for 5.6 and later).
	ZenLayout uint8
	// FileVersionUE4 and FileVersionUE5 are the package file versions it
	// saves with (EUnrealEngineObjectUE4Version, VER_UE4_AUTOMATIC_VERSION;
	// EUnrealEngineObjectUE5Version, 0 before UE5). FileVersionUE5 decides
	// the layout of tagged properties.
	FileVersionUE4, FileVersionUE5 int32
}

// releases is the table, oldest first: a new engine release is one row.
// Sources: docs/ue.md (TOC versions from the engine's EIoStoreTocVersion
// per release and retoc's version.rs; container-header versions from the
// engine's EIoContainerHeaderVersion; pak versions from docs/pak.md; file
// versions from the engine's object version enums and the corpus).
var releases = [...]ReleaseInfo{
	{Release: Release{4, 20}, PakVersion: 5, ContainerHeaderVersion: UnknownContainerHeader, FileVersionUE4: 516},
	{Release: Release{4, 21}, PakVersion: 7, ContainerHeaderVersion: UnknownContainerHeader, FileVersionUE4: 517},
	{Release: Release{4, 22}, PakVersion: 7, ContainerHeaderVersion: UnknownContainerHeader, FileVersionUE4: 517},
	{Release: Release{4, 23}, PakVersion: 8, ContainerHeaderVersion: UnknownContainerHeader, FileVersionUE4: 517},
	{Release: Release{4, 24}, PakVersion: 8, ContainerHeaderVersion: UnknownContainerHeader, FileVersionUE4: 518},
	{Release{4, 25}, 1, 9, -1, 0, 518, 0},
	{Release{4, 26}, 2, 11, -1, 1, 519, 0},
	{Release{4, 27}, 3, 11, -1, 1, 522, 0},
	{Release{5, 0}, 5, 11, 1, 2, 522, 1004},
	{Release{5, 1}, 5, 11, 2, 2, 522, 1008},
	{Release{5, 2}, 5, 11, 2, 3, 522, 1009},
	{Release{5, 3}, 5, 11, 3, 4, 522, 1010},
	{Release{5, 4}, 6, 11, 3, 5, 522, 1012},
	{Release{5, 5}, 8, 11, 4, 5, 522, 1013},
	{Release{5, 6}, 8, 11, 5, 6, 522, 1017},
	{Release{5, 7}, 8, 12, 5, 6, 522, 1018},
	{Release{5, 8}, 8, 12, 5, 6, 522, 1018},
	{Release{6, 0}, 10, 15, 5, 6, 522, 1018},
}

// Releases returns the table's rows, oldest first.
func Releases() []ReleaseInfo { return releases[:] }

// ParseRelease parses "4.27", "5.4", "UE5.4" or "5" (5.0). It accepts any
// MAJOR.MINOR; whether unrmod knows the release is Info's second result.
func ParseRelease(s string) (Release, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "UE")
	major, minor, _ := strings.Cut(strings.TrimSpace(t), ".")
	var r Release
	var err1, err2 error
	r.Major, err1 = strconv.Atoi(major)
	if minor != "" {
		r.Minor, err2 = strconv.Atoi(minor)
	}
	if err1 != nil || err2 != nil {
		return Release{}, fmt.Errorf("engine release %q: want MAJOR.MINOR such as 4.27 or 5.4", s)
	}
	return r, nil
}

// List names releases for messages and help: "4.26, 4.27, 5.0 … 5.8"
// (a run of more than two releases of one major version is shortened).
func List(rs []Release) string {
	var parts []string
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1].Major == rs[i].Major {
			j++
		}
		if j-i >= 2 {
			parts = append(parts, rs[i].String()+" … "+rs[j].String())
		} else {
			for k := i; k <= j; k++ {
				parts = append(parts, rs[k].String())
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// Span names a run of releases the way unrmod prints them: "5.2", or
// "5.5" + dash + "5.8" for several (dash is "-" or "–").
func Span(rs []Release, dash string) string {
	switch len(rs) {
	case 0:
		return ""
	case 1:
		return rs[0].String()
	}
	return rs[0].String() + dash + rs[len(rs)-1].String()
}
