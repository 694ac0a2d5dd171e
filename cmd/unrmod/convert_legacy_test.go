package main

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/uasset"
)

const (
	fixtureZlib   = "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"
	fixtureLegacy = "pak/cue4parse_ue5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak"
)

// TestConvertToLegacy converts the UE 5.8 fixture packages that the
// project also cooked into a legacy pak, from the container by name: the
// .uexp and the .ubulk are the engine's byte for byte and the asset
// decodes with the engine's name, import and export maps; a stale bulk
// file beside OUT is removed.
func TestConvertToLegacy(t *testing.T) {
	utoc := corpus.Path(t, fixtureZlib)
	r, err := pak.Open(corpus.Path(t, fixtureLegacy), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for _, f := range r.Files {
		ext := path.Ext(f.Path)
		if ext != ".uasset" && ext != ".umap" {
			continue
		}
		n++
		base := strings.TrimSuffix(f.Path, ext)
		t.Run(path.Base(f.Path), func(t *testing.T) {
			h, err := f.ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			x, err := r.ReadFile(base + ".uexp")
			if err != nil {
				t.Fatal(err)
			}
			want, err := uasset.Decode(f.Path, h, x, nil)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), path.Base(f.Path))
			oc := uasset.CompanionNames(out)
			os.WriteFile(oc.Uptnl, []byte("stale"), 0o644)
			stdout, stderr, code := runCLI(t, "convert", utoc, "--package", want.Summary.PackageName, "--to", "legacy", "--engine", "5.8", "-o", out, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var doc legacyDoc
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.Package != want.Summary.PackageName || doc.Engine != "5.8" || !strings.HasSuffix(doc.Global, "global.utoc") {
				t.Errorf("report %s (%v)", stdout, err)
			}
			gh, err1 := os.ReadFile(out)
			gx, err2 := os.ReadFile(oc.Uexp)
			if err1 != nil || err2 != nil || string(gx) != string(x) {
				t.Fatalf("output %v %v, .uexp equal %v", err1, err2, string(gx) == string(x))
			}
			got, err := uasset.Decode(out, gh, gx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Summary.TotalHeaderSize != want.Summary.TotalHeaderSize || len(got.Names) != len(want.Names) || len(got.Imports) != len(want.Imports) || len(got.Exports) != len(want.Exports) {
				t.Errorf("header %d bytes, %d names, %d imports, %d exports; engine %d, %d, %d, %d", got.Summary.TotalHeaderSize, len(got.Names), len(got.Imports), len(got.Exports),
					want.Summary.TotalHeaderSize, len(want.Names), len(want.Imports), len(want.Exports))
			}
			if bulk, err := r.ReadFile(base + ".ubulk"); err == nil {
				if b, err := os.ReadFile(oc.Ubulk); err != nil || string(b) != string(bulk) || len(doc.BulkFiles) != 1 {
					t.Errorf("bulk data %s: %v, report %v", oc.Ubulk, err, doc.BulkFiles)
				}
			} else if _, err := os.Stat(oc.Ubulk); err == nil {
				t.Errorf("%s written for a package without bulk data", oc.Ubulk)
			}
			if _, err := os.Stat(oc.Uptnl); err == nil {
				t.Errorf("the stale %s was left", oc.Uptnl)
			}
		})
	}
	if n == 0 {
		t.Fatal("no cooked assets in the legacy pak")
	}
}

// TestConvertToLegacyZenFile converts a zen package file as extract writes
// it, naming its imports through --containers, and shows the refusals.
func TestConvertToLegacyZenFile(t *testing.T) {
	utoc := corpus.Path(t, fixtureZlib)
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	dir := t.TempDir()
	write := func(pkg string) string {
		i, err := c.FindPackage(pkg)
		if err != nil {
			t.Fatal(err)
		}
		b, err := c.ReadChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "in", path.Base(pkg)+".uasset")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	da := write("/Game/Fixtures/Properties/DA_AllProperties")
	out := filepath.Join(dir, "out", "DA_AllProperties.uasset")
	if _, stderr, code := runCLI(t, "convert", da, "--to", "legacy", "--engine", "5.8", "--containers", utoc, "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(uasset.CompanionNames(out).Uexp); err != nil {
		t.Error(err)
	}
	out2 := filepath.Join(dir, "out2", "X.uasset")
	sm := write("/Game/Fixtures/Meshes/SM_Fixture")
	cases := []struct {
		name string
		args []string
		code int
		says []string
	}{
		{"no global.utoc", []string{"convert", da, "--to", "legacy", "--engine", "5.8", "-o", out2}, 1, []string{"global.utoc", "import 0"}},
		{"a package outside the set", []string{"convert", utoc, "--package", "SM_Fixture", "--to", "legacy", "--engine", "5.8", "-o", out2}, 1,
			[]string{"/Engine/EngineMaterials/WorldGridMaterial", "containers holding"}},
		{"outside the set, from a file", []string{"convert", sm, "--containers", utoc, "--to", "legacy", "--engine", "5.8", "-o", out2}, 1,
			[]string{"/Engine/EngineMaterials/WorldGridMaterial"}},
		{"engine not told", []string{"convert", da, "--to", "legacy", "--containers", utoc, "-o", out2}, 1, []string{"--engine"}},
		{"container without --package", []string{"convert", utoc, "--to", "legacy", "--engine", "5.8", "-o", out2}, 2, []string{"--package"}},
		{"a package not in the container", []string{"convert", utoc, "--package", "/Game/Nope", "--to", "legacy", "--engine", "5.8", "-o", out2}, 1, []string{"/Game/Nope"}},
		{"--base-game", []string{"convert", da, "--to", "legacy", "--base-game", "-o", out2}, 2, []string{"--base-game"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			for _, s := range tc.says {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q does not say %q", stderr, s)
				}
			}
			if _, err := os.Stat(out2); err == nil {
				t.Errorf("%s was written", out2)
			}
		})
	}
}

// TestConvertToLegacyUE427 converts Grounded's 4.27 zen packages (found by
// kind) with the corpus's 4.27 global chunks and container header: each
// writes an asset that verifies clean and names its imports; the flags'
// misuse and a file that is no container header are refused.
func TestConvertToLegacyUE427(t *testing.T) {
	global := corpus.Path(t, "other/ue4_27_global_chunks")
	header := filepath.Join(global, "ContainerHeader_1.bin")
	files, _ := filepath.Glob(filepath.Join(corpus.Path(t, "other/grounded/zen_ue4_27"), "*.uasset"))
	dir := t.TempDir()
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if p, err := zen.DecodePackage(f, data, nil); err != nil || p.Layout != zen.LayoutUE4 {
			continue
		}
		n++
		out := filepath.Join(dir, filepath.Base(f))
		stdout, stderr, code := runCLI(t, "convert", f, "--to", "legacy", "--engine", "4.27", "--global", global, "--container-header", header, "-o", out, "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, stderr)
		}
		var doc legacyDoc
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.Engine != "4.27" || doc.Global != global {
			t.Errorf("%s: report %+v (%v)", f, doc, err)
		}
		if _, stderr, code := runCLI(t, "verify", out); code != 0 {
			t.Errorf("verify %s: exit %d: %s", out, code, stderr)
		}
		stdout, _, _ = runCLI(t, "dump", "--imports", out)
		if strings.Contains(stdout, "/Script/CoreUObject.Object ") { // the class column
			t.Errorf("%s: an import of unknown class:\n%s", out, stdout)
		}
	}
	if n == 0 {
		t.Fatal("no 4.27 zen packages in other/grounded/zen_ue4_27")
	}
	in := files[0]
	out2 := filepath.Join(dir, "x", "X.uasset")
	for _, tc := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"no release", []string{"convert", in, "--to", "legacy", "--global", global, "-o", out2}, 1, "--engine"},
		{"not a container header", []string{"convert", in, "--to", "legacy", "--engine", "4.27", "--global", global, "--container-header", filepath.Join(global, "LoaderGlobalNames_1.bin"), "-o", out2}, 1, "LoaderGlobalNames_1.bin"},
		{"--global for --to zen", []string{"convert", in, "--to", "zen", "--global", global, "-o", out2}, 2, "--global"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.says) {
				t.Errorf("exit %d (want %d): %s (want %q)", code, tc.code, stderr, tc.says)
			}
			if _, err := os.Stat(out2); err == nil {
				t.Errorf("%s was written", out2)
			}
		})
	}
}

// TestConvertWholeContainer converts the whole UE 5.8 fixture container
// with -j 1 and -j 4: the same files, each the bytes 'convert --package'
// writes for it; the packages refused are listed with the reason the
// single conversion gives and make the exit status 1; --filter selects;
// usage errors are 2.
func TestConvertWholeContainer(t *testing.T) {
	utoc := corpus.Path(t, fixtureZlib)
	type pk struct {
		Path    string   `json:"path"`
		Package string   `json:"package"`
		Files   []string `json:"files"`
		Reason  string   `json:"reason"`
	}
	type doc struct {
		Converted int  `json:"converted_count"`
		Refused   int  `json:"refused_count"`
		Packages  []pk `json:"converted"`
		Refusals  []pk `json:"refused"`
	}
	var trees []map[string]string
	for _, j := range []string{"1", "4"} {
		dir := filepath.Join(t.TempDir(), "out")
		stdout, stderr, code := runCLI(t, "convert", utoc, "--to", "legacy", "--engine", "5.8", "-o", dir, "-j", j, "--json")
		if code != 1 {
			t.Fatalf("-j %s: exit %d, want 1 (refused packages): %s", j, code, stderr)
		}
		var d doc
		if err := json.Unmarshal([]byte(stdout), &d); err != nil {
			t.Fatal(err)
		}
		if d.Converted != len(d.Packages) || d.Refused != len(d.Refusals) || d.Converted == 0 || d.Refused == 0 {
			t.Fatalf("-j %s: %d converted (%d listed), %d refused (%d listed)", j, d.Converted, len(d.Packages), d.Refused, len(d.Refusals))
		}
		files := map[string]string{}
		single := t.TempDir()
		for _, p := range d.Packages {
			out := filepath.Join(single, path.Base(p.Path))
			if _, stderr, code := runCLI(t, "convert", utoc, "--package", p.Package, "--to", "legacy", "--engine", "5.8", "-o", out); code != 0 {
				t.Fatalf("%s: the single conversion fails: %s", p.Path, stderr)
			}
			for _, f := range p.Files {
				got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
				if err != nil {
					t.Fatal(err)
				}
				w, err := os.ReadFile(filepath.Join(single, path.Base(f)))
				if err != nil || string(got) != string(w) {
					t.Errorf("%s: differs from the single conversion (%v)", f, err)
				}
				files[f] = string(got)
			}
		}
		for _, r := range d.Refusals {
			_, stderr, code := runCLI(t, "convert", utoc, "--package", r.Path, "--to", "legacy", "--engine", "5.8", "-o", filepath.Join(single, path.Base(r.Path)))
			if code != 1 || !strings.Contains(stderr, r.Reason) || r.Reason == "" {
				t.Errorf("%s refused for %q; the single conversion exits %d: %s", r.Path, r.Reason, code, stderr)
			}
		}
		trees = append(trees, files)
	}
	if len(trees[0]) != len(trees[1]) {
		t.Errorf("-j 1 wrote %d files, -j 4 %d", len(trees[0]), len(trees[1]))
	}
	for f, b := range trees[0] {
		if trees[1][f] != b {
			t.Errorf("%s differs between -j 1 and -j 4", f)
		}
	}

	// Textures import nothing outside the set: all convert, exit 0.
	dir := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := runCLI(t, "convert", utoc, "--to", "legacy", "--engine", "5.8", "-o", dir, "--filter", "Textures/**", "--filter", "DT_*")
	if code != 0 || !strings.Contains(stdout, "refused 0") {
		t.Fatalf("--filter: exit %d: %s%s", code, stdout, stderr)
	}
	if err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(p, "Textures") && !strings.HasPrefix(filepath.Base(p), "DT_") {
			t.Errorf("%s written, outside the filter", p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"--filter", "NoSuchAsset*"}, 1},
		{[]string{"-j", "-1"}, 2},
		{[]string{"--containers", utoc}, 2},
		{[]string{"--filter", "[unclosed"}, 2},
	} {
		args := append([]string{"convert", utoc, "--to", "legacy", "--engine", "5.8", "-o", filepath.Join(t.TempDir(), "o")}, tc.args...)
		if _, stderr, code := runCLI(t, args...); code != tc.code {
			t.Errorf("%q: exit %d, want %d: %s", tc.args, code, tc.code, stderr)
		}
	}
	if _, stderr, code := runCLI(t, "convert", utoc, "--to", "legacy", "-o", filepath.Join(t.TempDir(), "o")); code != 1 || !strings.Contains(stderr, "--engine") {
		t.Errorf("without --engine: exit %d: %s", code, stderr)
	}
}
