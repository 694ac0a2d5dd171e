package report

import (
	"fmt"

	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// CookedPackageName returns the package name of cooked asset p read from
// file: the one its summary records, else the one its path gives
// (".../Content/Items/DT_Items.uasset" is "/Game/Items/DT_Items"), else
// "" (NewCookedProperties then takes the summary's).
func CookedPackageName(file string, p *uasset.Package) string {
	if n := assetprops.PackageName(p); n != "" {
		return n
	}
	return assetprops.PackageNameFromPath(file)
}

// FindCookedExport returns the index of the export of cooked asset p (in
// the package named pkg) that spec names: its path, its path relative to
// the package, its name, or Class'Path'. An import or an unknown name is
// refused with an error wrapping props.ErrNotFound.
func FindCookedExport(p *uasset.Package, pkg, spec string) (int, error) {
	x, err := assetprops.NewResolver(p, pkg).Index(spec)
	if err != nil {
		return 0, err
	}
	if x <= 0 {
		return 0, fmt.Errorf("%s: %q is no export (an import or None): %w", p.FileName, spec, props.ErrNotFound)
	}
	if int(x) > len(p.Exports) {
		return 0, fmt.Errorf("%s: %q is no export: the package has %d: %w", p.FileName, spec, len(p.Exports), props.ErrNotFound)
	}
	return int(x - 1), nil
}

// CookedExportData returns the serialized bytes of export i of cooked
// asset p, as they stand in its .uexp (or after the header of a
// single-file asset): what a replace-export patch takes as data. It
// refuses, with an error naming the file, the export and its offset, data
// whose length is not the export's SerialSize.
func CookedExportData(p *uasset.Package, i int) ([]byte, error) {
	if i < 0 || i >= len(p.Exports) {
		return nil, fmt.Errorf("%s: export %d out of range (the package has %d): %w", p.FileName, i, len(p.Exports), props.ErrNotFound)
	}
	e := &p.Exports[i]
	if int64(len(e.Data)) != e.SerialSize {
		return nil, fmt.Errorf("%s: export %d (%s) at offset %d: %d bytes of data, but SerialSize says %d",
			p.FileName, i, p.NameOf(e.ObjectName), e.SerialOffset, len(e.Data), e.SerialSize)
	}
	return e.Data, nil
}

// PropertySpan describes where an export's decoded properties (and a
// DataTable's rows) lie in its data of size bytes, for the summary of
// export-data: "properties at 0x0..0x1A2 (12 properties), 40 bytes of
// native data after them".
func PropertySpan(x *props.Export, size int) string {
	end := x.Properties.TailEnd
	plural := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	what := plural(len(x.Properties.Properties), "property", "properties")
	if x.Table != nil {
		end = x.Table.End
		what += ", " + plural(len(x.Table.Rows), "row", "rows")
	}
	return fmt.Sprintf("properties at 0x%X..0x%X (%s), %d bytes of native data after them", x.Properties.Start, end, what, size-end)
}
