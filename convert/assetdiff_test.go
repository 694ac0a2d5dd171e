package convert_test

import (
	"fmt"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/uasset"
)

func init() {
	convert.SetAssetDiff(func(want, got *uasset.Package) convert.AssetDiff {
		d := patch.DiffAsset("engine", want, want.Summary.PackageName, "converted", got, got.Summary.PackageName)
		var out convert.AssetDiff
		for _, h := range d.Header {
			out.Header = append(out.Header, convert.HeaderDiff{Field: h.Field, Old: h.Old, New: h.New})
		}
		if len(d.Names)+len(d.Imports)+len(d.Exports) > 0 {
			out.Rest = fmt.Sprintf("names %v imports %v exports %v", d.Names, d.Imports, d.Exports)
		}
		return out
	})
}
