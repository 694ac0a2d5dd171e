package report

import (
	"os"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
)

// AssetInfo is the summary of a cooked UE4/UE5 asset (unrmod info).
type AssetInfo struct {
	File    string `json:"file"`
	Kind    string `json:"kind"`    // always "cooked-asset"
	Package string `json:"package"` // "" when neither the summary nor the path names one
	// Release is the engine release; Fitting lists every release whose
	// layout fits when it was detected from an unversioned file's layout.
	Release         string   `json:"release"`
	ReleaseDetected bool     `json:"release_detected"`
	Fitting         []string `json:"fitting,omitempty"`
	// LegacyFileVersion, FileVersionUE4/UE5 and Licensee are the summary's
	// own (0 in an unversioned file); the versions read with are Read*.
	LegacyFileVersion     int32  `json:"legacy_file_version"`
	FileVersionUE4        int32  `json:"file_version_ue4"`
	FileVersionUE5        int32  `json:"file_version_ue5"`
	FileVersionLicensee   int32  `json:"file_version_licensee"`
	ReadUE4               int32  `json:"read_file_version_ue4"`
	ReadUE5               int32  `json:"read_file_version_ue5"`
	Unversioned           bool   `json:"unversioned"`
	Cooked                bool   `json:"cooked"`
	UnversionedProperties bool   `json:"unversioned_properties"`
	SavedBy               string `json:"saved_by_engine"`
	Flags                 Flags  `json:"flags"`
	Names                 int    `json:"names"`
	Imports               int    `json:"imports"`
	Exports               int    `json:"exports"`
	CustomVersions        int    `json:"custom_versions"`
	// Size is the header file's size; HeaderSize the summary's
	// TotalHeaderSize; ExportData the sum of the exports' serial sizes.
	Size       int64       `json:"size"`
	HeaderSize int32       `json:"header_size"`
	ExportData int64       `json:"export_data"`
	BulkDataAt int64       `json:"bulk_data_start_offset"`
	Split      bool        `json:"split"`
	HasTailTag bool        `json:"tail_tag"`
	Companions []Companion `json:"companions"`
}

// Companion is a file beside a cooked asset's header: its .uexp, .ubulk,
// .uptnl or .m.ubulk.
type Companion struct {
	Role string `json:"role"` // "export data", "bulk data", "optional payload", "memory-mapped bulk data"
	File string `json:"file"`
	Size int64  `json:"size"`
}

// NewAssetInfo describes cooked asset p, whose header file is file (size
// bytes), with the companion files found beside it and pkg its package
// name (see CookedPackageName).
func NewAssetInfo(file string, size int64, p *uasset.Package, pkg string) *AssetInfo {
	s := &p.Summary
	d := &AssetInfo{File: file, Kind: "cooked-asset", Package: pkg,
		Release: p.Release.String(), ReleaseDetected: p.ReleaseDetected,
		LegacyFileVersion: s.LegacyFileVersion, FileVersionUE4: s.FileVersionUE4, FileVersionUE5: s.FileVersionUE5,
		FileVersionLicensee: s.FileVersionLicensee, ReadUE4: p.Version.UE4, ReadUE5: p.Version.UE5,
		Unversioned: s.FileVersionUE4 == 0, Cooked: p.Cooked(), UnversionedProperties: p.UnversionedProperties(),
		SavedBy: s.SavedByEngineVersion.String(), Flags: NewFlags(s.PackageFlags, zen.PackageFlags(s.PackageFlags).Names()),
		Names: len(p.Names), Imports: len(p.Imports), Exports: len(p.Exports), CustomVersions: len(s.CustomVersions),
		Size: size, HeaderSize: s.TotalHeaderSize, BulkDataAt: s.BulkDataStartOffset,
		Split: p.Split, HasTailTag: p.HasTailTag(), Companions: []Companion{}}
	if p.ReleaseDetected && len(p.Fitting) > 1 {
		for _, f := range p.Fitting {
			d.Fitting = append(d.Fitting, f.String())
		}
	}
	for i := range p.Exports {
		d.ExportData += p.Exports[i].SerialSize
	}
	c := uasset.CompanionNames(file)
	for _, x := range []struct{ role, name string }{
		{"export data", c.Uexp}, {"bulk data", c.Ubulk}, {"optional payload", c.Uptnl}, {"memory-mapped bulk data", c.MUbulk},
	} {
		if fi, err := os.Stat(x.name); err == nil && fi.Mode().IsRegular() {
			d.Companions = append(d.Companions, Companion{Role: x.role, File: x.name, Size: fi.Size()})
		}
	}
	return d
}

// ReleaseText is the release as text: "5.8", or "5.2–5.5" when several
// releases fit an unversioned file's layout.
func (d *AssetInfo) ReleaseText() string {
	if n := len(d.Fitting); n > 1 {
		return d.Fitting[0] + "–" + d.Fitting[n-1]
	}
	return d.Release
}
