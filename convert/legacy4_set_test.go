package convert_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
)

// TestToLegacyUE427ContainerSet names a 4.27 package's imported packages
// from the store entry in its container set's header: a 4.27 container
// holding Grounded's Blueprint with a store entry listing its imported
// packages in another order gives the null imports that order (the names
// alone would give the sorted one).
func TestToLegacyUE427ContainerSet(t *testing.T) {
	file := filepath.Join(corpus.Path(t, "other/grounded/zen_ue4_27"), "BP_SpicyChoppingDamage.uasset")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p, err := zen.DecodePackage(file, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []zen.PackageID
	for _, s := range p.Names {
		if strings.HasPrefix(s, "/Game/") && s != p.PackageName() {
			ids = append(ids, zen.PackageIDFromName(s))
		}
	}
	slices.Reverse(ids)
	v := iostore.VersionPartitionSize
	id := func(value uint64, typ iostore.ChunkType) iostore.ChunkID {
		c, err := iostore.NewChunkID(value, 0, typ, v)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	const cid = 0x5EED0000C0FFEE01
	b := &iostorebuild.Container{Version: v, ContainerID: cid, MountPoint: "../../../Maine/Content/",
		Chunks: []iostorebuild.Chunk{
			{ID: id(uint64(p.ID()), iostore.ChunkExportBundleData), Path: "Blueprints/Attacks/DamageTypes/BP_SpicyChoppingDamage.uasset", Data: data},
			{ID: id(cid, iostore.ChunkContainerHeader), Raw: true, Data: iostorebuild.ContainerHeader427(cid, []zen.StoreEntry{
				{PackageID: p.ID(), ExportBundlesSize: uint64(len(data)), ExportCount: 2, ExportBundleCount: 1, ImportedPackages: ids}})},
		}}
	utoc, err := b.WriteFiles(t.TempDir(), "Maine-WindowsNoEditor")
	if err != nil {
		t.Fatal(err)
	}
	set, err := convert.OpenContainerSet(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	a, err := convert.ToLegacy(p, &convert.LegacyOptions{Engine: zen.Engine{Major: 4, Minor: 27}, Imports: set.Source})
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for i, x := range p.Imports {
		if !x.IsNull() {
			continue
		}
		if got := zen.PackageIDFromName(a.NameOf(a.Imports[i].ObjectName)); got != ids[k] {
			t.Errorf("null import %d is %s, the store entry's %d is %v", i, a.NameOf(a.Imports[i].ObjectName), k, ids[k])
		}
		k++
	}
	if k != len(ids) {
		t.Fatalf("%d null imports for %d imported packages", k, len(ids))
	}
	if _, _, err := convert.EncodeLegacyChecked(a, p); err != nil {
		t.Error(err)
	}
}
