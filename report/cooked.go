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
	return int(x - 1), nil
}
