package uasset

import "testing"

// buildSmall writes a small UE 4.27 cooked asset with the package's own
// encoder: five names, two imports, one export of 12 bytes, an empty
// preload dependency table and the package tag at the end of the .uexp.
// Tests and fuzz seeds use it where no corpus is at hand.
func buildSmall(tb testing.TB) (uasset, uexp []byte) {
	tb.Helper()
	name := func(i int32) NameRef { return NameRef{Index: i} }
	p := &Package{
		FileName: "Small.uasset",
		Split:    true,
		Version:  FileVersion{UE4: 522},
		Release:  Release{4, 27},
		Summary: Summary{
			Tag: Tag, LegacyFileVersion: -7, LegacyUE3Version: 864, FileVersionUE4: 522,
			PackageName: "None", PackageFlags: PkgFilterEditorOnly,
			Generations:                 []Generation{{ExportCount: 1, NameCount: 6}},
			SavedByEngineVersion:        EngineVersion{Major: 4, Minor: 27, Patch: 2, Branch: "++UE4+Release-4.27"},
			CompatibleWithEngineVersion: EngineVersion{Major: 4, Minor: 27, Branch: "++UE4+Release-4.27"},
			// Where the .uexp's tag starts, as in every cooked file of the
			// corpus: counted from the end of the export data here, placed
			// by the encoder.
			BulkDataStartOffset: -4,
		},
		Names: []Name{{Value: "/Script/CoreUObject"}, {Value: "Class"}, {Value: "Object"}, {Value: "Package"},
			{Value: "Small"}, {Value: "None"}},
		Imports: []Import{
			{ClassPackage: name(0), ClassName: name(3), ObjectName: name(0)},
			{ClassPackage: name(0), ClassName: name(1), OuterIndex: -1, ObjectName: name(2)},
		},
		Exports: []Export{{ClassIndex: -2, ObjectName: name(4), ObjectFlags: 0x9, IsAsset: true,
			Data: []byte{5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
		DependsMap:    [][]PackageIndex{{}},
		ExportTrailer: []byte{0xC1, 0x83, 0x2A, 0x9E},
		layout:        layout{FileVersion: FileVersion{UE4: 522}, legacy: -7, editorFiltered: true},
		sections: []section{{kind: secNames}, {kind: secImports}, {kind: secExports}, {kind: secDepends},
			{kind: secSoftPackageRefs}, {kind: secPreload}, {kind: numSecKinds}},
		bulk: offsetFromEnd,
	}
	h, x, err := p.Encode()
	if err != nil {
		tb.Fatal(err)
	}
	return h, x
}
