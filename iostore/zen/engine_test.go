package zen_test

import (
	"testing"

	"github.com/unrmod/unrmod/iostore/zen"
)

// TestEngineTable pins what each release writes, as the table of
// ue.Releases gives it to zen: the package layout, the container-header
// version and the UE5 file version.
func TestEngineTable(t *testing.T) {
	want := []struct {
		e      zen.Engine
		layout zen.Layout
		header zen.HeaderVersion
		ue5    int32
	}{
		{zen.Engine426, zen.LayoutUE4, zen.HeaderUE4, 0},
		{zen.Engine427, zen.LayoutUE4, zen.HeaderUE4, 0},
		{zen.Engine{Major: 5, Minor: 0}, zen.LayoutUE50, zen.HeaderLocalizedPackages, 1004},
		{zen.Engine{Major: 5, Minor: 1}, zen.LayoutUE50, zen.HeaderOptionalSegmentPackages, 1008},
		{zen.Engine{Major: 5, Minor: 2}, zen.LayoutUE52, zen.HeaderOptionalSegmentPackages, 1009},
		{zen.Engine{Major: 5, Minor: 3}, zen.LayoutUE53, zen.HeaderNoExportInfo, 1010},
		{zen.Engine{Major: 5, Minor: 4}, zen.LayoutUE54, zen.HeaderNoExportInfo, 1012},
		{zen.Engine{Major: 5, Minor: 5}, zen.LayoutUE54, zen.HeaderSoftPackageReferences, 1013},
		{zen.Engine{Major: 5, Minor: 6}, zen.LayoutUE56, zen.HeaderSoftPackageReferencesOffset, 1017},
		{zen.Engine{Major: 5, Minor: 7}, zen.LayoutUE56, zen.HeaderSoftPackageReferencesOffset, 1018},
		{zen.Engine58, zen.LayoutUE56, zen.HeaderSoftPackageReferencesOffset, 1018},
		{zen.Engine{Major: 6, Minor: 0}, zen.LayoutUE56, zen.HeaderSoftPackageReferencesOffset, 1018},
	}
	engines := zen.Engines()
	if len(engines) != len(want) {
		t.Fatalf("Engines() = %v", engines)
	}
	for i, w := range want {
		e := engines[i]
		if e != w.e || !e.Known() || e.Layout() != w.layout || e.HeaderVersion() != w.header || e.ObjectVersionUE5() != w.ue5 {
			t.Errorf("%v: layout %v, header %v, UE5 %d; want %v: %v, %v, %d", e, e.Layout(), e.HeaderVersion(), e.ObjectVersionUE5(), w.e, w.layout, w.header, w.ue5)
		}
	}
	for _, e := range []zen.Engine{{Major: 4, Minor: 25}, {Major: 6, Minor: 1}, {Major: 5, Minor: 9}} {
		if e.Known() || e.Layout() != zen.LayoutUnknown {
			t.Errorf("%v: known %v, layout %v", e, e.Known(), e.Layout())
		}
	}
	if got := zen.EngineNames(); got != "4.26, 4.27, 5.0 … 5.8, 6.0" {
		t.Errorf("EngineNames = %q", got)
	}
	layouts := map[zen.Layout]string{zen.LayoutUE4: "UE 4.26–4.27", zen.LayoutUE50: "UE 5.0–5.1", zen.LayoutUE52: "UE 5.2",
		zen.LayoutUE53: "UE 5.3", zen.LayoutUE54: "UE 5.4–5.5", zen.LayoutUE56: "UE 5.6+"}
	for l, s := range layouts {
		if l.String() != s {
			t.Errorf("layout %d: %q, want %q", l, l.String(), s)
		}
	}
	newest := map[zen.HeaderVersion]zen.Engine{zen.HeaderUE4: zen.Engine427, zen.HeaderInitial: {},
		zen.HeaderLocalizedPackages: {Major: 5, Minor: 0}, zen.HeaderNoExportInfo: {Major: 5, Minor: 4},
		zen.HeaderSoftPackageReferencesOffset: {Major: 6, Minor: 0}}
	for v, e := range newest {
		if got := v.NewestEngine(); got != e {
			t.Errorf("%v.NewestEngine() = %v, want %v", v, got, e)
		}
	}
}
