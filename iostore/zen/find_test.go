package zen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore/zen"
)

func TestFindExport(t *testing.T) {
	path := filepath.Join(corpus.Dir(t), "other/grounded/zen_ue4_27/BP_SpicyChoppingDamage.uasset")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := zen.DecodePackage(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	const pkg = "/Game/Blueprints/Attacks/DamageTypes/BP_SpicyChoppingDamage"
	for _, c := range []struct {
		spec  string
		want  int
		words []string // of the error, when want is -1
	}{
		{pkg + ".BP_SpicyChoppingDamage_C", 0, nil},
		{pkg + ".Default__BP_SpicyChoppingDamage_C", 1, nil},
		{"default__bp_spicychoppingdamage_c", 1, nil},
		{"BP_SpicyChoppingDamage_C", 0, nil},
		{"BP_SpicyChoppingDamage_C'Default__BP_SpicyChoppingDamage_C'", 1, nil},
		{"  Default__BP_SpicyChoppingDamage_C ", 1, nil},
		{"Texture2D'Default__BP_SpicyChoppingDamage_C'", -1, []string{"no export", "Texture2D'Default__BP_SpicyChoppingDamage_C'"}},
		{"Default__BP_Spicy", -1, []string{"no export", "close matches", "BP_SpicyChoppingDamage_C'" + pkg + ".Default__BP_SpicyChoppingDamage_C'"}},
		{"Nothing", -1, []string{`no export "Nothing"`, "the exports are"}},
		{"", -1, []string{"no export"}},
	} {
		i, err := p.FindExport(c.spec, nil)
		if c.want >= 0 {
			if err != nil || i != c.want {
				t.Errorf("FindExport(%q) = %d, %v; want %d", c.spec, i, err, c.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("FindExport(%q) = %d, want an error", c.spec, i)
			continue
		}
		for _, w := range c.words {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("FindExport(%q): %v; want %q in it", c.spec, err, w)
			}
		}
	}
	// Two exports of one name: the name alone is ambiguous.
	p.Exports[1].ObjectName = p.Exports[0].ObjectName
	if _, err := p.FindExport("BP_SpicyChoppingDamage_C", nil); err == nil || !strings.Contains(err.Error(), "is ambiguous") || strings.Count(err.Error(), pkg) != 2 {
		t.Errorf("ambiguous: %v", err)
	}
}
