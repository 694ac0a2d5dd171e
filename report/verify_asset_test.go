package report_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/uasset"
)

// TestVerifyAsset checks what VerifyAsset reports of engine-written
// assets: a cook with tagged properties gets its properties checked, and
// an export whose first property names no name is a problem of that
// export's properties; an asset saved by the editor, whose AssetImportData
// export holds editor data before its properties, is sound without a
// property check.
func TestVerifyAsset(t *testing.T) {
	r, err := pak.Open(corpus.Path(t, "pak/cue4parse_ue5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const file = "DataTables/DT_AllProperties.uasset"
	h, err := r.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	x, err := r.ReadFile(uasset.CompanionNames(file).Uexp)
	if err != nil {
		t.Fatal(err)
	}
	p, err := uasset.Decode(file, h, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := report.VerifyAsset(file, p)
	if !v.OK || v.Kind != "cooked-asset" || v.Asset == nil || !v.Asset.Cooked || !v.Asset.PropertiesChecked || v.Names != len(p.Names) {
		t.Fatalf("tagged cook: %+v %+v", v, v.Asset)
	}

	// The first property of the first export names a name past the table.
	x = bytes.Clone(x)
	at := p.Exports[0].SerialOffset - int64(p.Summary.TotalHeaderSize)
	binary.LittleEndian.PutUint32(x[at:], uint32(len(p.Names)+100))
	p, err = uasset.Decode(file, h, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	v = report.VerifyAsset(file, p)
	if v.OK || len(v.Problems) != 1 || !strings.HasPrefix(v.Problems[0].Struct, "export 0 ") || !strings.HasSuffix(v.Problems[0].Struct, " properties") {
		t.Errorf("damaged properties: %+v", v.Problems)
	}

	const editor = "other/grounded/uncooked/NewDataTable.uasset"
	b, err := os.ReadFile(corpus.Path(t, editor))
	if err != nil {
		t.Fatal(err)
	}
	p, err = uasset.Decode(editor, b, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	v = report.VerifyAsset(editor, p)
	if !v.OK || v.Asset.Cooked || v.Asset.PropertiesChecked {
		t.Errorf("editor asset: %+v %+v", v, v.Asset)
	}
}
