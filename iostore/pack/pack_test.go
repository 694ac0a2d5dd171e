package pack_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/zencorpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
)

func TestPackageName(t *testing.T) {
	for _, tt := range []struct {
		path, name string
		kind       pack.Kind
		ok         bool
	}{
		{"Maine/Content/Data/DT_Items.uasset", "/Game/Data/DT_Items", pack.Package, true},
		{"Maine/Content/Maps/Level.umap", "/Game/Maps/Level", pack.Package, true},
		{"Maine/Content/Maps/Level.ubulk", "/Game/Maps/Level", pack.BulkData, true},
		{"Maine/Content/T.m.ubulk", "/Game/T", pack.MemoryMappedBulkData, true},
		{"Maine/Content/T.uptnl", "/Game/T", pack.OptionalBulkData, true},
		{"Engine/Content/EngineMaterials/M.uasset", "/Engine/EngineMaterials/M", pack.Package, true},
		{"Maine/Plugins/Extra/MyPlugin/Content/A/B.uasset", "/MyPlugin/A/B", pack.Package, true},
		{"Engine/Plugins/FX/Niagara/Content/N.uasset", "/Niagara/N", pack.Package, true},
		{"Maine/Config/DefaultGame.ini", "", pack.Loose, false},
		{"Maine/Content/Localization/Game/en/Game.locres", "", pack.Loose, false},
		{"Maine/Stuff/A.uasset", "", pack.Loose, false},
		{"Content/A.uasset", "", pack.Loose, false},
	} {
		name, kind, ok := pack.PackageName(tt.path)
		if name != tt.name || kind != tt.kind || ok != tt.ok {
			t.Errorf("PackageName(%q) = %q, %v, %v; want %q, %v, %v", tt.path, name, kind, ok, tt.name, tt.kind, tt.ok)
		}
	}
}

// extractAll extracts every chunk of utoc into dir.
func extractAll(t *testing.T, utoc, dir string) *iostore.Container {
	t.Helper()
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Extract(dir, nil); err != nil {
		t.Fatal(err)
	}
	return c
}

// tree reads every file under dir.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	return out
}

// TestRoundTripCorpus extracts the decompressible UE 5.8 corpus containers,
// packs the files again under the same name and extracts the result: every
// file must come back byte for byte, the container header included, and
// the packed container must verify.
func TestRoundTripCorpus(t *testing.T) {
	dir := corpus.Dir(t)
	for _, rel := range []string{
		"iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc",
		"iostore/cue4parse_ue5_8/Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc",
		"iostore/cue4parse_ue5_8/Patch/CUE4ParseFixtures-PatchBase.utoc",
	} {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			tmp := t.TempDir()
			a := filepath.Join(tmp, "a")
			src := extractAll(t, filepath.Join(dir, rel), a)
			plan, err := pack.Scan(a, src.Header().Version)
			if err != nil {
				t.Fatal(err)
			}
			method := "None"
			if len(src.TOC().Methods) > 0 {
				method = src.TOC().Methods[0]
			}
			out := filepath.Join(tmp, "out", filepath.Base(rel))
			res, err := pack.Pack(plan, out, &pack.Options{Engine: zen.Engine{Major: 5, Minor: 8}, Writer: iostore.WriterOptions{Method: method, Verify: iostore.VerifyAll}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Chunks != len(src.Chunks()) {
				t.Errorf("packed %d chunks, the source has %d", res.Chunks, len(src.Chunks()))
			}
			c, err := iostore.Open(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if r := c.Verify(nil); !r.OK() || r.PackagesChecked != res.Packages {
				t.Fatalf("packed container: %d problems (%v), %d packages checked of %d", len(r.Problems), r.Problems, r.PackagesChecked, res.Packages)
			}
			if c.MountPoint() != src.MountPoint() {
				t.Errorf("mount point %q, want %q", c.MountPoint(), src.MountPoint())
			}
			b := filepath.Join(tmp, "b")
			extractAll(t, out, b)
			ta, tb := tree(t, a), tree(t, b)
			if len(ta) != len(tb) {
				t.Errorf("%d files after the round trip, want %d", len(tb), len(ta))
			}
			for p, want := range ta {
				if got, ok := tb[p]; !ok || !bytes.Equal(got, want) {
					t.Errorf("%s: %d bytes after the round trip (present %v), want %d", p, len(got), ok, len(want))
				}
			}
			t.Logf("%d files, %d packages, %d chunks round-tripped", len(ta), res.Packages, res.Chunks)
		})
	}
	_ = strings.TrimSpace
}

// TestPackGrounded packs the three real Grounded zen packages for UE 4.27
// under their game paths, against Grounded's real container header: the
// store entries must equal the ones recorded with the packages, the
// container must verify, and extract then pack again must give the same
// files.
func TestPackGrounded(t *testing.T) {
	dir := corpus.Dir(t)
	hdata, err := os.ReadFile(filepath.Join(dir, "other/ue4_27_global_chunks/ContainerHeader_1.bin"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := zen.DecodeContainerHeader("ContainerHeader_1.bin", hdata)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	loose := filepath.Join(tmp, "loose")
	files, _ := filepath.Glob(filepath.Join(dir, "other/grounded/zen_ue4_27/*.uasset"))
	if len(files) != 3 {
		t.Fatalf("%d Grounded packages, want 3", len(files))
	}
	want := map[zen.PackageID]*zen.StoreEntry{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := zen.DecodePackage(f, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		e, err := zencorpusEntry(strings.TrimSuffix(f, ".uasset") + ".metadata.json")
		if err != nil {
			t.Fatal(err)
		}
		e.PackageID = p.ID()
		want[p.ID()] = e
		rel := "Maine/Content/" + strings.TrimPrefix(p.PackageName(), "/Game/") + ".uasset"
		if after, ok := strings.CutPrefix(p.PackageName(), "/Engine/"); ok {
			rel = "Engine/Content/" + after + ".uasset"
		}
		out := filepath.Join(loose, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(out), 0o755)
		if err := os.WriteFile(out, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A loose file that is not package data goes to the .pak.
	os.MkdirAll(filepath.Join(loose, "Maine/Config"), 0o755)
	os.WriteFile(filepath.Join(loose, "Maine/Config/DefaultGame.ini"), []byte("[/Script/Maine]\n"), 0o644)

	e427 := zen.Engine{Major: 4, Minor: 27}
	plan, err := pack.Scan(loose, iostore.VersionPartitionSize)
	if err != nil {
		t.Fatal(err)
	}
	utoc := filepath.Join(tmp, "mod", "z_Grounded_P.utoc")
	res, err := pack.Pack(plan, utoc, &pack.Options{Engine: e427, Base: base, Writer: iostore.WriterOptions{Method: "Zlib", Verify: iostore.VerifyAll}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Packages != 3 || len(res.Loose) != 1 || res.Loose[0].Path != "Maine/Config/DefaultGame.ini" {
		t.Fatalf("result %+v", res)
	}
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if h := c.Header(); h.Version != iostore.VersionPartitionSize || h.ContainerID != zen.ContainerIDFromName("z_Grounded_P") || c.MountPoint() != "../../../" {
		t.Errorf("header: version %d, id %v, mount point %q", h.Version, h.ContainerID, c.MountPoint())
	}
	if r := c.Verify(nil); !r.OK() || r.PackagesChecked != 3 {
		t.Fatalf("verify: %v, %d packages checked", r.Problems, r.PackagesChecked)
	}
	hdr, err := c.ContainerHeader()
	if err != nil {
		t.Fatal(err)
	}
	if hdr.Version != zen.HeaderUE4 || len(hdr.Packages) != 3 {
		t.Fatalf("container header: version %v, %d packages", hdr.Version, len(hdr.Packages))
	}
	for _, e := range hdr.Packages {
		w := want[e.PackageID]
		if w == nil || e.ExportBundlesSize != w.ExportBundlesSize || e.LoadOrder != w.LoadOrder || e.ExportCount != w.ExportCount ||
			e.ExportBundleCount != w.ExportBundleCount || len(e.ImportedPackages) != len(w.ImportedPackages) {
			t.Errorf("store entry %+v, want %+v", e, w)
			continue
		}
		for k := range e.ImportedPackages {
			if e.ImportedPackages[k] != w.ImportedPackages[k] {
				t.Errorf("package %v: imported package %d is %v, want %v", e.PackageID, k, e.ImportedPackages[k], w.ImportedPackages[k])
			}
		}
	}
	for _, ch := range c.Chunks() {
		if ch.Type == iostore.ChunkExportBundleData && ch.Meta.Flags&iostore.MetaCompressed == 0 {
			t.Errorf("chunk %v: not compressed", ch.ID)
		}
	}

	// extract → pack → extract.
	a := filepath.Join(tmp, "a")
	extractAll(t, utoc, a)
	plan2, err := pack.Scan(a, iostore.VersionPartitionSize)
	if err != nil {
		t.Fatal(err)
	}
	utoc2 := filepath.Join(tmp, "again", "z_Grounded_P.utoc")
	if _, err := pack.Pack(plan2, utoc2, &pack.Options{Engine: e427, Writer: iostore.WriterOptions{Method: "Zlib"}}); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(tmp, "b")
	extractAll(t, utoc2, b)
	ta, tb := tree(t, a), tree(t, b)
	if len(ta) != 4 || len(tb) != len(ta) {
		t.Errorf("%d and %d files, want 4 (3 packages and the header)", len(ta), len(tb))
	}
	for p, x := range ta {
		if !bytes.Equal(tb[p], x) {
			t.Errorf("%s differs after extract, pack, extract", p)
		}
	}
}

// zencorpusEntry reads a Grounded .metadata.json store entry.
func zencorpusEntry(path string) (*zen.StoreEntry, error) { return zencorpus.GroundedEntry(path) }

// TestScanRefusals builds hostile folders and checks that Scan or Pack
// refuses each with a clear error, and that a refused pack leaves no file.
func TestScanRefusals(t *testing.T) {
	pkg, err := os.ReadFile("../../examples/packages/zen/DT_DemoItems.uasset")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, root string)
		want  string
	}{
		{"over 4 GiB", func(t *testing.T, root string) {
			f, err := os.Create(filepath.Join(root, "Game", "Content", "Big.ubulk"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(pack.MaxFileSize + 1); err != nil { // sparse: no disk used
				t.Skip("the file system cannot make a sparse 4 GiB file:", err)
			}
		}, "under 4 GiB"},
		{"path too long", func(t *testing.T, root string) {
			d := filepath.Join(root, "Game", "Content")
			for i := 0; i < 9; i++ {
				d = filepath.Join(d, strings.Repeat("d", 120))
			}
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Skip("the file system refuses the deep folder:", err)
			}
			os.WriteFile(filepath.Join(d, "X.uasset"), pkg, 0o644)
		}, "more than the 1024"},
		{"two files one chunk", func(t *testing.T, root string) {
			os.WriteFile(filepath.Join(root, "Game", "Content", "Data", "DT_DemoItems.umap"), pkg, 0o644)
		}, "both chunk"},
		{"bulk without package", func(t *testing.T, root string) {
			os.WriteFile(filepath.Join(root, "Game", "Content", "Orphan.ubulk"), []byte("x"), 0o644)
		}, "has no Orphan.uasset"},
		{"symlink", func(t *testing.T, root string) {
			if err := os.Symlink("/etc/hostname", filepath.Join(root, "Game", "Content", "link.uasset")); err != nil {
				t.Skip("no symlinks:", err)
			}
		}, "not a regular file"},
		{"name mismatch", func(t *testing.T, root string) {
			os.WriteFile(filepath.Join(root, "Game", "Content", "Other.uasset"), pkg, 0o644)
		}, "but its path makes it /Game/Other"},
		{"damaged cooked asset", func(t *testing.T, root string) {
			os.WriteFile(filepath.Join(root, "Game", "Content", "Legacy.uasset"), []byte{0xC1, 0x83, 0x2A, 0x9E, 0, 0, 0, 0}, 0o644)
		}, "Legacy.uasset: header at 0x0"},
		{"export data alone", func(t *testing.T, root string) {
			os.WriteFile(filepath.Join(root, "Game", "Content", "Alone.uexp"), []byte{0xC1, 0x83, 0x2A, 0x9E}, 0o644)
		}, "Alone.uexp: the export data of a cooked asset, but the folder has no cooked Alone.uasset"},
		{"wrong engine", func(t *testing.T, root string) {}, "cooked for"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "root")
			os.MkdirAll(filepath.Join(root, "Game", "Content", "Data"), 0o755)
			os.WriteFile(filepath.Join(root, "Game", "Content", "Data", "DT_DemoItems.uasset"), pkg, 0o644)
			tt.setup(t, root)
			engine := zen.Engine{Major: 4, Minor: 27}
			if tt.name == "wrong engine" {
				engine = zen.Engine{Major: 5, Minor: 8}
			}
			out := filepath.Join(dir, "out", "z_P.utoc")
			plan, err := pack.Scan(root, pack.TocVersionFor(engine))
			if err == nil {
				_, err = pack.Pack(plan, out, &pack.Options{Engine: engine})
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if ents, _ := os.ReadDir(filepath.Join(dir, "out")); len(ents) != 0 {
				t.Errorf("a refused pack left %d files", len(ents))
			}
		})
	}
}

// TestScanSkipsStagingFolders: the staging folder a killed extract left
// (a folder named as unrmod's temporary files) is not packed; a folder of
// another name is.
func TestScanSkipsStagingFolders(t *testing.T) {
	pkg, err := os.ReadFile("../../examples/packages/zen/DT_DemoItems.uasset")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, d := range []string{"Game/Content/Data", "Game/Content/.Data.unrmod-77.tmp/Game/Content/Data", "Game/Content/Other"} {
		os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755)
	}
	os.WriteFile(filepath.Join(root, "Game", "Content", "Data", "DT_DemoItems.uasset"), pkg, 0o644)
	os.WriteFile(filepath.Join(root, "Game", "Content", ".Data.unrmod-77.tmp", "Game", "Content", "Data", "DT_DemoItems.uasset"), pkg, 0o644)
	plan, err := pack.Scan(root, pack.TocVersionFor(zen.Engine{Major: 4, Minor: 27}))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 1 || plan.Files[0].Path != "Game/Content/Data/DT_DemoItems.uasset" {
		var got []string
		for _, f := range plan.Files {
			got = append(got, f.Path)
		}
		t.Errorf("planned %q, want the package outside the staging folder alone", got)
	}
}
