package uasset

// NewCooked427 returns a new cooked UE 4.27 asset named fileName (a
// .uasset with a .uexp, tagged properties) holding names, imports and
// exports with their Data, laid out as the 4.27 cooker lays out a small
// asset: the name map (each name with its hashes), the import and export
// maps, an empty depends list per export, no soft package references,
// no preload dependencies and the package tag at the end of the .uexp.
// Encode writes it, computing every count and offset. Tests and tools use
// it to make an asset where no cooked file is at hand.
func NewCooked427(fileName string, names []string, imports []Import, exports []Export) *Package {
	l := layout{FileVersion: FileVersion{UE4: 522}, legacy: -7, editorFiltered: true}
	p := &Package{
		FileName: fileName,
		Split:    true,
		Version:  l.FileVersion,
		Release:  Release{4, 27},
		Summary: Summary{
			Tag: Tag, LegacyFileVersion: -7, LegacyUE3Version: 864, FileVersionUE4: 522,
			PackageName: "None", PackageFlags: PkgFilterEditorOnly,
			Generations:                 []Generation{{ExportCount: int32(len(exports)), NameCount: int32(len(names))}},
			SavedByEngineVersion:        EngineVersion{Major: 4, Minor: 27, Patch: 2, Branch: "++UE4+Release-4.27"},
			CompatibleWithEngineVersion: EngineVersion{Major: 4, Minor: 27, Branch: "++UE4+Release-4.27"},
			// Where the .uexp's tag starts: 4 bytes before the end of
			// the export data, placed by the encoder.
			BulkDataStartOffset: -4,
		},
		Imports:       append([]Import{}, imports...),
		Exports:       append([]Export{}, exports...),
		DependsMap:    make([][]PackageIndex, len(exports)),
		ExportTrailer: []byte{0xC1, 0x83, 0x2A, 0x9E},
		layout:        l,
		sections: []section{{kind: secNames}, {kind: secImports}, {kind: secExports}, {kind: secDepends},
			{kind: secSoftPackageRefs}, {kind: secPreload}, {kind: numSecKinds}},
		bulk: offsetFromEnd,
	}
	for _, n := range names {
		p.Names = append(p.Names, NewName(n))
	}
	for i := range p.DependsMap {
		p.DependsMap[i] = []PackageIndex{}
	}
	return p
}

// CookedUE5 is what NewCookedUE5 builds a cooked UE5 (or UE 4.26/4.27)
// asset from: the
// tables a zen package carries back, and the summary fields that are not
// counts or offsets.
type CookedUE5 struct {
	// Release is the engine release (4.26, 4.27, 5.0 or later) whose
	// layout is used.
	Release  Release
	FileName string
	// Summary gives PackageName, PackageFlags, the versions (zero: an
	// unversioned asset), Guid/SavedHash, the engine versions,
	// PackageSource and NamesReferencedFromExportDataCount. Tag,
	// LegacyFileVersion and every count, offset and size are set here or
	// by Encode.
	Summary             Summary
	Names               []string
	Imports             []Import
	Exports             []Export // with Data, in export-map order
	PreloadDependencies []PackageIndex
	DataResources       []DataResource
	// HeaderSize, when above the size the tables need, is the
	// TotalHeaderSize to reach: the header is padded with zero bytes after
	// its last table (the engine records the header size the export data
	// was cooked behind).
	HeaderSize int32
}

// NewCookedUE5 returns a cooked UE5 asset (a .uasset/.umap with a .uexp)
// laid out as the UE5 cooker lays out its header: the summary, the name
// map, the (empty) soft object paths, the import and export maps, the
// (empty) Verse cell maps of 5.6 and later, an empty depends list per
// export, the asset registry data of a cooked package (an empty object
// list), the preload dependencies and, when there are any, the data
// resources; the .uexp ends with the package tag and BulkDataStartOffset
// points at it. Encode writes it, computing every count and offset.
// For 4.26 and 4.27 the same tables are laid out as those cookers lay
// them out (the UE5-only tables are not written).
func NewCookedUE5(c CookedUE5) (*Package, error) {
	ri, ok := releaseVersions(c.Release)
	if !ok || ri.Legacy > -7 || ri.Legacy == -7 && ri.FileVersion.UE4 < 519 {
		return nil, errorf(c.FileName, "package file summary", -1, ErrUnsupportedVersion, "release %s: NewCookedUE5 makes UE 4.26, 4.27 and 5.0 and later assets", c.Release)
	}
	s := c.Summary
	fv := ri.FileVersion
	if !s.Unversioned() {
		fv = FileVersion{s.FileVersionUE4, s.FileVersionUE5}
	}
	l := layout{FileVersion: fv, legacy: ri.Legacy, importPackageName: ri.importPackageName,
		editorFiltered: s.PackageFlags&PkgFilterEditorOnly != 0, unversionedProps: s.PackageFlags&PkgUnversionedProperties != 0}
	s.Tag, s.LegacyFileVersion = Tag, ri.Legacy
	s.Generations = []Generation{{ExportCount: int32(len(c.Exports)), NameCount: int32(len(c.Names))}}
	// Where the .uexp's tag starts: 4 bytes before the end of the export
	// data, placed by the encoder (offsetFromEnd from an empty start).
	s.TotalHeaderSize, s.BulkDataStartOffset = 0, -4
	s.PayloadTOCOffset = -1
	s.DataResourceOffset = -1
	s.NameCount, s.ImportCount, s.ExportCount = 0, 0, 0
	s.PreloadDependencyCount = int32(len(c.PreloadDependencies))
	p := &Package{
		FileName:            c.FileName,
		Split:               true,
		Version:             fv,
		Release:             c.Release,
		Summary:             s,
		Imports:             append([]Import{}, c.Imports...),
		Exports:             append([]Export{}, c.Exports...),
		DependsMap:          make([][]PackageIndex, len(c.Exports)),
		PreloadDependencies: append([]PackageIndex{}, c.PreloadDependencies...),
		ExportTrailer:       []byte{0xC1, 0x83, 0x2A, 0x9E},
		layout:              l,
		bulk:                offsetFromEnd,
	}
	for i := range p.DependsMap {
		p.DependsMap[i] = []PackageIndex{}
	}
	for _, n := range c.Names {
		p.Names = append(p.Names, NewName(n))
	}
	secs := []section{{kind: secNames}}
	if fv.UE5 >= ue5SoftObjectPathList {
		secs = append(secs, section{kind: secSoftObjectPaths})
	}
	secs = append(secs, section{kind: secImports}, section{kind: secExports})
	if fv.UE5 >= ue5VerseCells {
		secs = append(secs, section{kind: secCellExports}, section{kind: secCellImports})
	}
	secs = append(secs, section{kind: secDepends}, section{kind: secAssetRegistry},
		section{kind: secPreload, lead: make([]byte, 4)}) // the asset registry data: no objects
	if len(c.DataResources) > 0 && fv.UE5 >= ue5DataResources {
		p.DataResources = append([]DataResource{}, c.DataResources...)
		p.DataResourceVersion = 1
		if fv.UE5 >= ue5DataResourceCookedIndex {
			p.DataResourceVersion = 2
		}
		secs = append(secs, section{kind: secDataResources})
	}
	secs = append(secs, section{kind: numSecKinds})
	p.sections = secs
	if c.HeaderSize > 0 {
		h, _, err := p.Encode()
		if err != nil {
			return nil, err
		}
		if pad := int(c.HeaderSize) - len(h); pad > 0 {
			p.sections[len(p.sections)-1].lead = make([]byte, pad)
		}
	}
	return p, nil
}

// ue5DataResourceCookedIndex is the first object version whose cooker
// writes data resources in version 2 (with the cooked index): UE 5.5.
const ue5DataResourceCookedIndex = 1013
