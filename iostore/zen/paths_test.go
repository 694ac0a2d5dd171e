package zen_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue"
)

func TestParseObjectPath(t *testing.T) {
	good := []struct{ in, pkg, obj, rel string }{
		{"/Game/Props/BP_Crate.BP_Crate_C", "/Game/Props/BP_Crate", "BP_Crate_C", "BP_Crate_C"},
		{"/Game/Maps/Arena.Arena:PersistentLevel.Wall", "/Game/Maps/Arena", "Arena:PersistentLevel.Wall", "Arena/PersistentLevel/Wall"},
		{"/Script/Engine.Default__Actor", "/Script/Engine", "Default__Actor", "Default__Actor"},
	}
	for _, g := range good {
		p, err := zen.ParseObjectPath(g.in)
		if err != nil || p.Package != g.pkg || p.Object != g.obj || p.Relative() != g.rel || p.String() != g.in {
			t.Errorf("ParseObjectPath(%q) = %+v, %v", g.in, p, err)
		}
	}
	for _, bad := range []string{"", " /Game/A.B", "Game/A.B", "/Game/A", "/Game/A.", "/Game/A.B::C", "/Game.A/B", "/Game/A:B", "//A.B", "/Game/.B"} {
		if p, err := zen.ParseObjectPath(bad); err == nil {
			t.Errorf("ParseObjectPath(%q) = %+v, want an error", bad, p)
		}
	}
	for _, s := range []string{"/Game/A", "/Engine/Maps/Entry", "/MyPlugin/Data/X"} {
		if err := zen.CheckPackageName(s); err != nil {
			t.Errorf("CheckPackageName(%q): %v", s, err)
		}
	}
	for _, s := range []string{"/Game", "/Game/", "/Game//A", "/Game/A.B", "Game/A"} {
		if err := zen.CheckPackageName(s); err == nil {
			t.Errorf("CheckPackageName(%q) accepted", s)
		}
	}
	for _, s := range []string{"/Script/Engine", "/Script/Engine.Actor", "/script/CoreUObject"} {
		if err := zen.CheckScriptPath(s); err != nil {
			t.Errorf("CheckScriptPath(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "/Game/A.B", "/Script", "/Script/"} {
		if err := zen.CheckScriptPath(s); err == nil {
			t.Errorf("CheckScriptPath(%q) accepted", s)
		}
	}
	// An asset's path is refused with advice to take it as an export,
	// which names no command-line flag.
	err := zen.CheckScriptPath("/Game/A.B")
	var a *ue.Advice
	if !errors.As(err, &a) || a.Setting != ue.SettingExport || strings.Contains(err.Error(), "--") {
		t.Errorf("CheckScriptPath(/Game/A.B) = %v, want advice to take an export", err)
	}
}

func TestSplitNameNumber(t *testing.T) {
	for in, want := range map[string][2]string{"Light_0": {"Light", "0"}, "SCS_Node_12": {"SCS_Node", "12"}, "A_2147483646": {"A", "2147483646"}} {
		base, num, ok := zen.SplitNameNumber(in)
		if !ok || base != want[0] || num != want[1] {
			t.Errorf("SplitNameNumber(%q) = %q, %q, %v", in, base, num, ok)
		}
	}
	for _, in := range []string{"Light", "Light_", "_0", "Light_01", "A_2147483647", "Light0", "A_12345678901"} {
		if base, num, ok := zen.SplitNameNumber(in); ok {
			t.Errorf("SplitNameNumber(%q) = %q, %q", in, base, num)
		}
	}
}
