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
