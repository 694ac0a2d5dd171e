package uasset

// NameRef is an FName as the header tables store it: an index into the
// name map and an instance number (0 for none; N+1 prints as "_N").
type NameRef struct{ Index, Number int32 }

// Name is one entry of the name map: the text and the two 16-bit hashes
// the engine stores beside it from UE4 504 on (non-case-preserving first,
// then case-preserving).
type Name struct {
	Value       string
	NonCaseHash uint16
	CaseHash    uint16
	raw         rawString
}

func (n *Name) serialize(a *archive, l *layout) {
	a.fstring(&n.Value, &n.raw, "name")
	if l.UE4 >= ue4NameHashes {
		a.u16(&n.NonCaseHash, "non-case-preserving hash")
		a.u16(&n.CaseHash, "case-preserving hash")
	}
}

// PackageIndex refers to an object: 0 is null, a negative value −(i+1) is
// import i, a positive value i+1 is export i.
type PackageIndex int32

// IsImport reports whether x refers to an import; Import returns its index.
func (x PackageIndex) IsImport() bool { return x < 0 }

// IsExport reports whether x refers to an export.
func (x PackageIndex) IsExport() bool { return x > 0 }

// Import returns the import index x refers to (x must be negative).
func (x PackageIndex) Import() int { return int(-x) - 1 }

// Export returns the export index x refers to (x must be positive).
func (x PackageIndex) Export() int { return int(x) - 1 }

func (a *archive) index(v *PackageIndex, what string) {
	x := int32(*v)
	a.i32(&x, what)
	*v = PackageIndex(x)
}

// Import is one FObjectImport.
type Import struct {
	ClassPackage NameRef
	ClassName    NameRef
	OuterIndex   PackageIndex
	ObjectName   NameRef
	PackageName  NameRef // editor packages from UE4 520 on, and UE 5.8 cooks
	Optional     bool    // bImportOptional, UE5 1003+
}

func importSize(l *layout) int {
	n := 28
	if l.importHasPackageName() {
		n += 8
	}
	if l.UE5 >= ue5OptionalResources {
		n += 4
	}
	return n
}

func (im *Import) serialize(a *archive, l *layout) {
	a.name(&im.ClassPackage, "ClassPackage")
	a.name(&im.ClassName, "ClassName")
	a.index(&im.OuterIndex, "OuterIndex")
	a.name(&im.ObjectName, "ObjectName")
	if l.importHasPackageName() {
		a.name(&im.PackageName, "PackageName")
	}
	if l.UE5 >= ue5OptionalResources {
		a.bool32(&im.Optional, "bImportOptional")
	}
}

// Export is one FObjectExport with its serialized data. SerialOffset and
// SerialSize are as decoded; the encoder recomputes them from where Data
// lands (counted from the start of the .uasset).
type Export struct {
	ClassIndex, SuperIndex, TemplateIndex, OuterIndex PackageIndex
	ObjectName                                        NameRef
	ObjectFlags                                       uint32
	SerialSize, SerialOffset                          int64
	ForcedExport, NotForClient, NotForServer          bool
	PackageGUID                                       GUID // before UE5 1005
	IsInheritedInstance                               bool // UE5 1006+
	PackageFlags                                      uint32
	NotAlwaysLoadedForEditorGame                      bool
	IsAsset                                           bool
	GeneratePublicHash                                bool // UE5 1003+
	FirstExportDependency                             int32
	SerializationBeforeSerializationDependencies      int32
	CreateBeforeSerializationDependencies             int32
	SerializationBeforeCreateDependencies             int32
	CreateBeforeCreateDependencies                    int32
	// ScriptSerializationStartOffset and End: UE5 1010+, tagged properties only.
	ScriptSerializationStartOffset, ScriptSerializationEndOffset int64

	// Data is the export's serialized object, kept raw.
	Data []byte

	lead []byte // bytes between the previous export's data and this one's
}

func (e *Export) serialize(a *archive, l *layout) {
	a.index(&e.ClassIndex, "ClassIndex")
	a.index(&e.SuperIndex, "SuperIndex")
	if l.UE4 >= ue4TemplateIndex {
		a.index(&e.TemplateIndex, "TemplateIndex")
	}
	a.index(&e.OuterIndex, "OuterIndex")
	a.name(&e.ObjectName, "ObjectName")
	a.u32(&e.ObjectFlags, "ObjectFlags")
	if l.UE4 >= ue4ExportSizes64 {
		a.i64(&e.SerialSize, "SerialSize")
		a.i64(&e.SerialOffset, "SerialOffset")
	} else {
		size, off := int32(e.SerialSize), int32(e.SerialOffset)
		a.i32(&size, "SerialSize")
		a.i32(&off, "SerialOffset")
		e.SerialSize, e.SerialOffset = int64(size), int64(off)
	}
	a.bool32(&e.ForcedExport, "bForcedExport")
	a.bool32(&e.NotForClient, "bNotForClient")
	a.bool32(&e.NotForServer, "bNotForServer")
	if l.UE5 < ue5RemoveExportPackageGUID {
		a.bytes(e.PackageGUID[:], "PackageGuid")
	}
	if l.UE5 >= ue5TrackExportIsInherited {
		a.bool32(&e.IsInheritedInstance, "bIsInheritedInstance")
	}
	a.u32(&e.PackageFlags, "PackageFlags")
	if l.UE4 >= ue4LoadForEditorGame {
		a.bool32(&e.NotAlwaysLoadedForEditorGame, "bNotAlwaysLoadedForEditorGame")
	}
	if l.UE4 >= ue4CookedAssetsInEditor {
		a.bool32(&e.IsAsset, "bIsAsset")
	}
	if l.UE5 >= ue5OptionalResources {
		a.bool32(&e.GeneratePublicHash, "bGeneratePublicHash")
	}
	if l.UE4 >= ue4PreloadDependencies {
		a.i32(&e.FirstExportDependency, "FirstExportDependency")
		a.i32(&e.SerializationBeforeSerializationDependencies, "SerializationBeforeSerializationDependencies")
		a.i32(&e.CreateBeforeSerializationDependencies, "CreateBeforeSerializationDependencies")
		a.i32(&e.SerializationBeforeCreateDependencies, "SerializationBeforeCreateDependencies")
		a.i32(&e.CreateBeforeCreateDependencies, "CreateBeforeCreateDependencies")
	}
	if l.UE5 >= ue5ScriptSerializationOffset && !l.unversionedProps {
		a.i64(&e.ScriptSerializationStartOffset, "ScriptSerializationStartOffset")
		a.i64(&e.ScriptSerializationEndOffset, "ScriptSerializationEndOffset")
	}
}

func exportSize(l *layout) int {
	var a archive
	var e Export
	e.serialize(&a, l)
	return len(a.out)
}

// DataResource is one FObjectDataResource (UE 5.2+): where a bulk data
// payload of an export lives.
type DataResource struct {
	Flags                 uint32
	CookedIndex           uint8 // version 2 (AddedCookedIndex) and later
	SerialOffset          int64
	DuplicateSerialOffset int64
	SerialSize            int64
	RawSize               int64
	OuterIndex            PackageIndex
	LegacyBulkDataFlags   uint32
}

func (d *DataResource) serialize(a *archive, version uint32) {
	a.u32(&d.Flags, "Flags")
	if version >= 2 {
		a.u8(&d.CookedIndex, "CookedIndex")
	}
	a.i64(&d.SerialOffset, "SerialOffset")
	a.i64(&d.DuplicateSerialOffset, "DuplicateSerialOffset")
	a.i64(&d.SerialSize, "SerialSize")
	a.i64(&d.RawSize, "RawSize")
	a.index(&d.OuterIndex, "OuterIndex")
	a.u32(&d.LegacyBulkDataFlags, "LegacyBulkDataFlags")
}
