package convert_test

import (
	"encoding/json"
	"fmt"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/report"
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
	convert.SetPropsText(func(zenFile string, p *zen.Package, r *zen.Resolver, assetFile string, a *uasset.Package, list []int) ([]string, []string, error) {
		zp, err := report.NewZenProperties(zenFile, p, r, list, true, "", nil)
		if err != nil {
			return nil, nil, err
		}
		lp, err := report.NewCookedProperties(assetFile, a, p.PackageName(), list, true, "", nil)
		if err != nil {
			return nil, nil, err
		}
		texts := func(exports []report.ExportProperties) ([]string, error) {
			var out []string
			for _, e := range exports {
				b, err := json.Marshal(e.Properties)
				if err != nil {
					return nil, err
				}
				out = append(out, string(b))
			}
			return out, nil
		}
		zt, err := texts(zp.Exports)
		if err != nil {
			return nil, nil, err
		}
		lt, err := texts(lp.Exports)
		return zt, lt, err
	})
}
