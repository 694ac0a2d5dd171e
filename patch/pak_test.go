package patch_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/ufile"
)

// pakCase is a patch of a pak named as a container target.
type pakCase struct {
	name    string
	pak     string // corpus pak
	pkg     string // the package the ops change
	ops     string // YAML lines of the package's ops
	want    string // a text the changed export's properties show
	changed []string
}

var pakCases = []pakCase{
	{name: "grounded row", pak: groundedPak, pkg: "/Game/Blueprints/Items/CraftingTables/Table_Crafting_Tools",
		ops:  "          - set-property: {object: Table_Crafting_Tools, row: Axe, property: \"Requirements[0].ItemCount\", value: 1}\n",
		want: "ItemCount (IntProperty) = 1",
		changed: []string{"Maine/Content/Blueprints/Items/CraftingTables/Table_Crafting_Tools.uasset",
			"Maine/Content/Blueprints/Items/CraftingTables/Table_Crafting_Tools.uexp"}},
	{name: "ue58 zlib row", pak: "pak/cue4parse_ue5_8/LegacyPak/Tagged/Zlib/CUE4ParseFixtures-Legacy-Tagged-Zlib.pak",
		pkg:     "DataTables/DT_AllProperties",
		ops:     "          - set-property: {object: DT_AllProperties, row: Alpha, property: Message, value: \"Set through the pak\"}\n",
		want:    "Set through the pak",
		changed: []string{"DataTables/DT_AllProperties.uasset", "DataTables/DT_AllProperties.uexp"}},
}

// pakTargetText is a patch of the pak in (copied into dir) with c's ops.
func pakTargetText(in, out, mode string, c pakCase) string {
	return "unrmod: 1\ntargets:\n  - container: " + filepath.ToSlash(in) + "\n    output: " + filepath.ToSlash(out) +
		"\n    mode: " + mode + "\n    packages:\n      - package: " + c.pkg + "\n        ops:\n" + c.ops
}

// copyCorpus copies the corpus file rel into dir and returns the copy.
func copyCorpus(t *testing.T, rel, dir string) string {
	t.Helper()
	data, err := os.ReadFile(corpus.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.Base(rel))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// openPakT opens a pak and checks its index and every file.
func openPakT(t *testing.T, path string) *pak.ReadCloser {
	t.Helper()
	r, err := pak.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	if v := report.VerifyPak(path, &r.Reader, nil); !v.OK {
		t.Fatalf("%s does not verify: %+v", path, v.Problems)
	}
	return r
}

// checkPakAsset checks the asset pkg inside the pak at path: it verifies,
// shows want, and differs from the same asset in the input pak by exactly
// the one change the patch made.
func checkPakAsset(t *testing.T, in, out, pkg, want string) {
	t.Helper()
	ri, ro := openPakT(t, in), openPakT(t, out)
	a, err := ufile.PakAsset(&ri.Reader, pkg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ufile.PakAsset(&ro.Reader, pkg)
	if err != nil {
		t.Fatal(err)
	}
	pa, err := a.Asset(nil)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := b.Asset(nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := report.VerifyAsset(b.Path, pb); !v.OK {
		t.Errorf("the asset in %s does not verify: %+v", out, v.Problems)
	}
	all := make([]int, len(pb.Exports))
	for i := range all {
		all[i] = i
	}
	pr, err := report.NewCookedProperties(b.Path, pb, "", all, false, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, e := range pr.Exports {
		text.WriteString(e.Text)
	}
	if !strings.Contains(text.String(), want) {
		t.Errorf("the properties do not show %q", want)
	}
	d := patch.DiffAsset(a.Path, pa, report.CookedPackageName(a.Path, pa), b.Path, pb, report.CookedPackageName(b.Path, pb))
	var changes int
	for _, e := range d.Exports {
		changes += len(e.Properties)
	}
	if len(d.Header) != 0 || len(d.Names) != 0 || len(d.Imports) != 0 || len(d.Exports) != 1 || changes != 1 {
		var buf bytes.Buffer
		d.Format(&buf)
		t.Errorf("diff is not exactly the one change:\n%s", buf.String())
	}
}

// TestPakTargetMod patches a DataTable inside real paks with mode: mod:
// the _P pak holds exactly the changed asset's two files, in the input's
// version and mount point; it verifies, the row reads back, diff shows the
// one change, and applying the patch again finds it written.
func TestPakTargetMod(t *testing.T) {
	for _, c := range pakCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in := copyCorpus(t, c.pak, dir)
			f := parsePatch(t, filepath.Join(dir, "p.yaml"), pakTargetText(filepath.Base(in), "mods/z_Mod_P", "mod", c))
			res, err := patch.Apply(f, patch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "mods", "z_Mod_P.pak")
			tr := res.Targets[0]
			if tr.Kind != "pak" || tr.Output != out || !tr.Changed || len(tr.Changes) != 1 {
				t.Fatalf("result %+v", tr)
			}
			ri, ro := openPakT(t, in), openPakT(t, out)
			if ro.Footer.Version != ri.Footer.Version || ro.MountPoint != ri.MountPoint {
				t.Errorf("output version %v mounted at %s; the input's %v at %s", ro.Footer.Version, ro.MountPoint, ri.Footer.Version, ri.MountPoint)
			}
			var paths []string
			for _, g := range ro.Files {
				paths = append(paths, g.Path)
			}
			if strings.Join(paths, "\n") != strings.Join(c.changed, "\n") {
				t.Errorf("the mod holds %q, want %q", paths, c.changed)
			}
			checkPakAsset(t, in, out, c.pkg, c.want)
			again, err := patch.Apply(f, patch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !again.Targets[0].AlreadyWritten {
				t.Errorf("again: %s", again.Targets[0].Summary())
			}
		})
	}
}

// TestPakTargetFull rewrites real paks whole with one asset changed: every
// other file is copied as stored (same stored bytes), the list of files is
// the input's, and the changed asset verifies and reads back.
func TestPakTargetFull(t *testing.T) {
	for _, c := range pakCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in := copyCorpus(t, c.pak, dir)
			f := parsePatch(t, filepath.Join(dir, "p.yaml"), pakTargetText(filepath.Base(in), "out/Game_P", "full", c))
			res, err := patch.Apply(f, patch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out", "Game_P.pak")
			tr := res.Targets[0]
			ri, ro := openPakT(t, in), openPakT(t, out)
			if len(ro.Files) != len(ri.Files) || tr.Container.Chunks != len(ri.Files) || tr.Container.Copied != len(ri.Files)-len(c.changed) {
				t.Fatalf("%d files (%d written, %d copied), the input has %d", len(ro.Files), tr.Container.Chunks, tr.Container.Copied, len(ri.Files))
			}
			inBytes, _ := os.ReadFile(in)
			outBytes, _ := os.ReadFile(out)
			for i, g := range ro.Files {
				h := ri.Files[i]
				if g.Path != h.Path {
					t.Fatalf("file %d is %s, the input's %s", i, g.Path, h.Path)
				}
				isChanged := false
				for _, p := range c.changed {
					isChanged = isChanged || p == g.Path
				}
				same := bytes.Equal(outBytes[g.DataOffset():g.DataOffset()+g.Size], inBytes[h.DataOffset():h.DataOffset()+h.Size])
				if !isChanged && !same {
					t.Errorf("%s: unchanged, but its stored bytes are not the input's", g.Path)
				}
			}
			checkPakAsset(t, in, out, c.pkg, c.want)
		})
	}
}

// TestPakTargetEncrypted patches a pak whose index and files are
// encrypted: the target needs the key, and the output is encrypted with it
// under the input's key GUID.
func TestPakTargetEncrypted(t *testing.T) {
	key := ue.Key([]byte("unrmod pak target key, 32 bytes!"))
	guid := pak.GUID{1, 2, 3, 4}
	dir := t.TempDir()
	src := openPakT(t, corpus.Path(t, groundedPak))
	var buf bytes.Buffer
	w, err := pak.NewWriter(&buf, &pak.WriterOptions{Version: 11, Compress: true, EncryptIndex: true, EncryptFiles: true, Key: &key,
		EncryptionKeyGUID: guid, MountPoint: src.MountPoint})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range src.Files {
		data, err := g.ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteFile(g.Path, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "Game.pak")
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	c := pakCases[0]
	for _, mode := range []string{"mod", "full"} {
		text := pakTargetText("Game.pak", "out/z_"+mode+"_P", mode, c)
		if _, err := patch.Apply(parsePatch(t, filepath.Join(dir, "p.yaml"), text), patch.Options{}); err == nil || !errors.Is(err, pak.ErrKeyRequired) {
			t.Fatalf("%s without the key: %v, want an error wrapping ErrKeyRequired", mode, err)
		}
		text = strings.Replace(text, "    mode:", "    aes-key: 0x"+hexKey(key)+"\n    mode:", 1)
		if _, err := patch.Apply(parsePatch(t, filepath.Join(dir, "p.yaml"), text), patch.Options{}); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out", "z_"+mode+"_P.pak")
		if _, err := pak.Open(out, nil); !errors.Is(err, pak.ErrKeyRequired) {
			t.Errorf("%s: the output opens without the key: %v", mode, err)
		}
		r, err := pak.Open(out, &pak.Options{Key: &key})
		if err != nil {
			t.Fatal(err)
		}
		if r.Footer.EncryptionKeyGUID != guid || !r.Footer.IndexEncrypted {
			t.Errorf("%s: key GUID %s, index encrypted %v", mode, r.Footer.EncryptionKeyGUID, r.Footer.IndexEncrypted)
		}
		if v := report.VerifyPak(out, &r.Reader, nil); !v.OK {
			t.Errorf("%s: %+v", mode, v.Problems)
		}
		a, err := ufile.PakAsset(&r.Reader, c.pkg)
		if err == nil {
			_, err = a.Asset(nil)
		}
		if err != nil {
			t.Errorf("%s: %v", mode, err)
		}
		r.Close()
	}
}

func hexKey(k ue.Key) string {
	const digits = "0123456789ABCDEF"
	var b strings.Builder
	for _, x := range k {
		b.WriteByte(digits[x>>4])
		b.WriteByte(digits[x&15])
	}
	return b.String()
}

// TestPakTargetRefusals checks what a pak target refuses, each before
// anything is written.
func TestPakTargetRefusals(t *testing.T) {
	c := pakCases[0]
	cases := []struct {
		name, text, want string
	}{
		{"unknown package", strings.Replace(pakTargetText("Game.pak", "mods/z_Mod_P", "mod", c), c.pkg, "/Game/Nope/DT_Nothing", 1), "no such cooked asset"},
		{"mod name", pakTargetText("Game.pak", "mods/MyMod", "mod", c), "must end in _P"},
		{"lz4", strings.Replace(pakTargetText("Game.pak", "mods/z_Mod_P", "mod", c), "    mode: mod", "    mode: mod\n    compression: lz4", 1), "keep, none, zlib or oodle"},
		{"layout", strings.Replace(pakTargetText("Game.pak", "mods/z_Mod_P", "full", c), "    mode: full", "    mode: full\n    layout: compact", 1), "a pak is always written file after file"},
		{"remove-file in a mod", "unrmod: 1\ntargets:\n  - container: Game.pak\n    output: mods/z_Mod_P\n    files:\n      - remove-file: {path: Maine/Content/X.uasset}\n", "needs mode: full"},
		{"missing file", "unrmod: 1\ntargets:\n  - container: Game.pak\n    output: mods/z_Mod_P\n    files:\n      - replace-file: {path: Maine/Content/X.uasset, with: x.bin}\n", "lists no Maine/Content/X.uasset"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			data, err := os.ReadFile(corpus.Path(t, c.pak))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, "Game.pak"), data, 0o644)
			os.WriteFile(filepath.Join(dir, "x.bin"), []byte("x"), 0o644)
			f, err := patch.Parse(filepath.Join(dir, "p.yaml"), []byte(tc.text))
			if err == nil {
				_, err = patch.Apply(f, patch.Options{})
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "mods")); err == nil {
				t.Error("the refused patch wrote its output folder")
			}
		})
	}
}

// TestPakTargetFiles adds and replaces files of a pak in a mod, and
// removes one in a full rewrite.
func TestPakTargetFiles(t *testing.T) {
	dir := t.TempDir()
	copyCorpus(t, groundedPak, dir)
	os.WriteFile(filepath.Join(dir, "new.txt"), []byte("a file the mod adds"), 0o644)
	os.WriteFile(filepath.Join(dir, "tools.uasset"), []byte("replacement bytes"), 0o644)
	tools := "Maine/Content/Blueprints/Items/CraftingTables/Table_Crafting_Tools.uasset"
	text := "unrmod: 1\ntargets:\n  - container: " + filepath.Base(groundedPak) + "\n    output: mods/z_Files_P\n    files:\n" +
		"      - add-file: {path: Maine/Content/Mod/readme.txt, from: new.txt}\n" +
		"      - replace-file: {path: " + tools + ", with: tools.uasset}\n"
	if _, err := patch.Apply(parsePatch(t, filepath.Join(dir, "p.yaml"), text), patch.Options{}); err != nil {
		t.Fatal(err)
	}
	r := openPakT(t, filepath.Join(dir, "mods", "z_Files_P.pak"))
	if len(r.Files) != 2 {
		t.Fatalf("%d files, want 2", len(r.Files))
	}
	if got, err := r.ReadFile("Maine/Content/Mod/readme.txt"); err != nil || string(got) != "a file the mod adds" {
		t.Errorf("added file: %q, %v", got, err)
	}
	if got, err := r.ReadFile(tools); err != nil || string(got) != "replacement bytes" {
		t.Errorf("replaced file: %q, %v", got, err)
	}
	full := "unrmod: 1\ntargets:\n  - container: " + filepath.Base(groundedPak) + "\n    output: out/Game_P\n    mode: full\n    files:\n" +
		"      - remove-file: {path: " + strings.TrimSuffix(tools, ".uasset") + ".uexp}\n"
	if _, err := patch.Apply(parsePatch(t, filepath.Join(dir, "p.yaml"), full), patch.Options{}); err != nil {
		t.Fatal(err)
	}
	in := openPakT(t, filepath.Join(dir, filepath.Base(groundedPak)))
	out := openPakT(t, filepath.Join(dir, "out", "Game_P.pak"))
	if len(out.Files) != len(in.Files)-1 || out.Lookup(strings.TrimSuffix(tools, ".uasset")+".uexp") != nil {
		t.Errorf("%d files after removing one of %d", len(out.Files), len(in.Files))
	}
}
