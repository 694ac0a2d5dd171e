package convert

import (
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
)

// AssetDiff is what the internal tests need of patch.DiffAsset: the summary
// fields that differ, and the names, imports and exports that differ
// ("" when none). The internal tests cannot import patch (patch imports
// iostore/pack, which imports convert); assetdiff_test.go, of package
// convert_test, gives it to them through SetAssetDiff.
type AssetDiff struct {
	Header []HeaderDiff
	Rest   string
}

// HeaderDiff is one summary field that differs.
type HeaderDiff struct{ Field, Old, New string }

// assetDiff compares two cooked assets; nil until SetAssetDiff runs.
var assetDiff func(want, got *uasset.Package) AssetDiff

// SetAssetDiff sets the comparison the internal tests use.
func SetAssetDiff(f func(want, got *uasset.Package) AssetDiff) { assetDiff = f }

// diffAssets compares want and got, failing when no comparison was set.
func diffAssets(want, got *uasset.Package) AssetDiff {
	if assetDiff == nil {
		panic("convert tests: SetAssetDiff was not called (assetdiff_test.go)")
	}
	return assetDiff(want, got)
}

// PropsText is what the internal tests need of report's property
// documents: the JSON of each listed export's properties of a zen package
// and of a cooked asset. The internal tests cannot import report (report
// imports convert, for the shader libraries it verifies); assetdiff_test.go,
// of package convert_test, gives it to them through SetPropsText.
type PropsText func(zenFile string, p *zen.Package, r *zen.Resolver, assetFile string, a *uasset.Package, list []int) (zenProps, assetProps []string, err error)

// propsText compares properties; nil until SetPropsText runs.
var propsTexts PropsText

// SetPropsText sets the property documents the internal tests use.
func SetPropsText(f PropsText) { propsTexts = f }
