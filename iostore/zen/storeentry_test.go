package zen_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/zencorpus"
	"github.com/unrmod/unrmod/iostore/zen"
)

// TestStoreEntryCorpus derives the store entry of every corpus package that
// has a recorded one and compares it with the real entry: without a base
// entry every field a package holds must match, and with the real entry
// as base the whole entry.
func TestStoreEntryCorpus(t *testing.T) {
	var checked, derivedAlone int
	for _, c := range zencorpus.Packages(t) {
		if c.Entry == nil {
			continue
		}
		p, err := zen.DecodePackage(c.Name, c.Data, nil)
		if err != nil {
			t.Fatal(err)
		}
		v := zen.HeaderUE4
		if c.Header != nil {
			v = c.Header.Version
		}
		got, err := p.StoreEntry(v, c.Entry)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		want := *c.Entry
		if want.PackageID == 0 { // the recorded Grounded entries leave the id out
			want.PackageID = p.ID()
		}
		if len(want.ShaderMapHashes) == 0 {
			want.ShaderMapHashes = nil
		}
		if len(got.ShaderMapHashes) == 0 {
			got.ShaderMapHashes = nil
		}
		if len(want.ImportedPackages) == 0 {
			want.ImportedPackages = nil
		}
		if len(got.ImportedPackages) == 0 {
			got.ImportedPackages = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: derived entry\n%+v\nwant\n%+v", c.Name, got, want)
		}
		checked++

		alone, err := p.StoreEntry(v, nil)
		if p.Layout.IsUE5() && v < zen.HeaderNoExportInfo {
			if !errors.Is(err, zen.ErrNeedsBaseEntry) {
				t.Errorf("%s: 5.0-5.2 entry without a base: %v, want ErrNeedsBaseEntry", c.Name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		alone.LoadOrder, alone.ShaderMapHashes = want.LoadOrder, want.ShaderMapHashes
		if len(alone.ImportedPackages) == 0 {
			alone.ImportedPackages = nil
		}
		if !reflect.DeepEqual(alone, want) {
			t.Errorf("%s: entry derived without a base\n%+v\nwant\n%+v", c.Name, alone, want)
		}
		derivedAlone++
	}
	if checked < 200 {
		t.Errorf("checked %d packages with entries, want the 200 of the corpus", checked)
	}
	t.Logf("%d store entries derived equal to the real ones (%d without a base entry)", checked, derivedAlone)
}

// TestStoreEntryGroundedBase takes the LoadOrder of the Grounded packages
// from Grounded's real container header, the base a 4.27 mod is packed
// against.
func TestStoreEntryGroundedBase(t *testing.T) {
	dir := corpus.Dir(t)
	data, err := os.ReadFile(filepath.Join(dir, "other/ue4_27_global_chunks/ContainerHeader_1.bin"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := zen.DecodeContainerHeader("ContainerHeader_1.bin", data)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range zencorpus.Packages(t) {
		if c.Container != "" || c.Entry == nil {
			continue
		}
		p, err := zen.DecodePackage(c.Name, c.Data, nil)
		if err != nil {
			t.Fatal(err)
		}
		k := h.PackageIndex(p.ID())
		if k < 0 {
			t.Fatalf("%s: package %v is not in Grounded's container header", c.Name, p.ID())
		}
		got, err := p.StoreEntry(zen.HeaderUE4, &h.Packages[k])
		if err != nil {
			t.Fatal(err)
		}
		if got.LoadOrder != c.Entry.LoadOrder || !reflect.DeepEqual(got.ImportedPackages, c.Entry.ImportedPackages) || got.ExportBundlesSize != c.Entry.ExportBundlesSize {
			t.Errorf("%s: %+v, want %+v", c.Name, got, *c.Entry)
		}
		n++
	}
	if n != 3 {
		t.Errorf("checked %d Grounded packages, want 3", n)
	}
}
