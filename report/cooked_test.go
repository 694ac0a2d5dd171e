package report_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/report"
)

// TestCookedExportData returns an export's data of a real cooked asset,
// refuses data whose length disagrees with SerialSize (naming the file,
// the export and its offset), and refuses an export index, given as a
// number, beyond the export map instead of panicking.
func TestCookedExportData(t *testing.T) {
	const path = "DataTables/DT_AllProperties.uasset"
	p := cookedAsset(t, path)
	data, err := report.CookedExportData(p, 0)
	if err != nil || !bytes.Equal(data, p.Exports[0].Data) || int64(len(data)) != p.Exports[0].SerialSize {
		t.Fatalf("%d bytes, %v", len(data), err)
	}
	for _, spec := range []string{"2", "-9"} {
		if _, err := report.FindCookedExport(p, "", spec); !errors.Is(err, props.ErrNotFound) {
			t.Errorf("FindCookedExport(%q): %v, want props.ErrNotFound", spec, err)
		}
	}
	if _, err := report.CookedExportData(p, 1); !errors.Is(err, props.ErrNotFound) {
		t.Errorf("export 1 of 1: %v", err)
	}
	p.Exports[0].SerialSize++
	_, err = report.CookedExportData(p, 0)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "DT_AllProperties") || !strings.Contains(err.Error(), "SerialSize") {
		t.Errorf("a SerialSize that disagrees: %v", err)
	}
}
