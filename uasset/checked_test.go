package uasset_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/uasset"
)

// TestEncodeChecked encodes every asset of the corpus through
// EncodeChecked: the output is the input, byte for byte, with the
// problems the input has (none for an engine-written asset). A cooked
// asset whose flags no longer say it was cooked (PKG_FilterEditorOnly
// and PKG_Cooked cleared) has that problem itself: it is kept, not
// refused. An output that does not decode again as the model's release
// (one unrmod does not know) is refused with ErrNotEncodable.
func TestEncodeChecked(t *testing.T) {
	for _, a := range corpusAssets(t) {
		p, err := uasset.Decode(a.name, a.uasset, a.uexp, nil)
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		h, x, kept, err := p.EncodeChecked("out.uasset")
		if err != nil || !bytes.Equal(h, a.uasset) || !bytes.Equal(x, a.uexp) || len(kept) != len(p.Problems()) {
			t.Errorf("%s: err %v, identical %v/%v, kept %v", a.name, err, bytes.Equal(h, a.uasset), bytes.Equal(x, a.uexp), kept)
		}
		if !p.Cooked() {
			continue
		}
		release := p.Release
		p.Release = uasset.Release{Major: 9, Minor: 9}
		if _, _, _, err := p.EncodeChecked("out.uasset"); !errors.Is(err, uasset.ErrNotEncodable) || !strings.Contains(err.Error(), "out.uasset") {
			t.Errorf("%s as release 9.9: %v, want ErrNotEncodable", a.name, err)
		}
		p.Release = release
		p.Summary.PackageFlags &^= uasset.PkgFilterEditorOnly | uasset.PkgCooked
		_, _, kept, err = p.EncodeChecked("out.uasset")
		if err != nil || len(kept) == 0 || !strings.Contains(kept[len(kept)-1].Msg+kept[0].Msg, "PKG_FilterEditorOnly") {
			t.Errorf("%s without PKG_FilterEditorOnly: %v, kept %v", a.name, err, kept)
		}
	}
}
