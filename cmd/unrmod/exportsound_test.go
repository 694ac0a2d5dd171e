package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/audio"
)

const demoPackage = "../../examples/packages/UnrmodDemo.u"

// TestExportSoundDemo saves the demo's sound: a WAV that parses and plays,
// byte for byte what the package stores.
func TestExportSoundDemo(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := runCLI(t, "export-sound", demoPackage, "-o", dir)
	want := filepath.Join(dir, "Beep.wav") + ": 108 bytes from UnrmodDemo.Sounds.Beep (Sound, FileType WAV, PCM 8-bit mono 8000 Hz, 0.008 s)\n"
	if code != 0 || stdout != want || stderr != "" {
		t.Fatalf("exit %d\nstdout %q\nwant   %q\nstderr %s", code, stdout, want, stderr)
	}
	got, err := os.ReadFile(filepath.Join(dir, "Beep.wav"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := audio.CheckWAV(got)
	if err != nil || w.Format != audio.FormatPCM || w.DataSize != 64 {
		t.Errorf("saved WAV: %v %v", w, err)
	}
	p, err := reader.ReadFile(demoPackage)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(p.Source()), string(got)) {
		t.Error("the saved WAV is not the bytes the package stores")
	}

	// By Class'Path', as JSON.
	stdout, _, code = runCLI(t, "export-sound", demoPackage, "Sound'Sounds.Beep'", "-o", dir, "--json")
	var doc soundsDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 || len(doc.Files) != 1 {
		t.Fatalf("--json: exit %d, %v\n%s", code, err, stdout)
	}
	if f := doc.Files[0]; f.Object != "UnrmodDemo.Sounds.Beep" || f.FileType != "WAV" || f.Size != 108 || f.Format != "PCM 8-bit mono 8000 Hz, 0.008 s" ||
		string(p.Source()[f.Offset:f.Offset+int64(f.Size)]) != string(got) {
		t.Errorf("file %+v", f)
	}
}

// TestExportSoundMusic saves music by its module signature, names files
// that share a name by their group, and warns about odd files.
func TestExportSoundMusic(t *testing.T) {
	b := fixture.New("Tunes", reader.Version{File: 69}, reader.GUID{9, 9, 9, 9})
	flags := reader.RFPublic | reader.RFLoadContext | reader.RFStandalone
	music := b.Class("Engine", "Music")
	it := make([]byte, 64)
	copy(it, "IMPM")
	xm := []byte("Extended Module: tune")
	a, c := b.Group("A", 0), b.Group("C", 0)
	b.Export(music, a, "Song", flags, b.Sound(b.Props().Bytes(), "it", it))
	b.Export(music, c, "Song", flags, b.Sound(b.Props().Bytes(), "it", it[:32]))
	b.Export(music, 0, "Mixed", flags, b.Sound(b.Props().Bytes(), "it", xm)) // FileType disagrees
	b.Export(music, 0, "Silent", flags, b.Sound(b.Props().Bytes(), "s3m", nil))
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pkg := filepath.Join(dir, "Tunes.umx")
	if err := os.WriteFile(pkg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stdout, stderr, code := runCLI(t, "export-sound", pkg, "-o", out)
	for _, w := range []string{
		filepath.Join(out, "A.Song.it") + ": 64 bytes from Tunes.A.Song (Music, FileType it)\n",
		filepath.Join(out, "C.Song.it") + ": 32 bytes from Tunes.C.Song (Music, FileType it)\n",
		filepath.Join(out, "Mixed.xm") + ": 21 bytes from Tunes.Mixed (Music, FileType it)\n",
		"1 Sound/Music export(s) hold no data", "Tunes.Silent",
	} {
		if code != 0 || !strings.Contains(stdout, w) {
			t.Errorf("exit %d, stdout lacks %q:\n%s%s", code, w, stdout, stderr)
		}
	}
	if !strings.Contains(stderr, `warning: Tunes.Mixed: FileType is "it", but the data is a xm file`) {
		t.Errorf("stderr %q", stderr)
	}
	for name, want := range map[string][]byte{"A.Song.it": it, "C.Song.it": it[:32], "Mixed.xm": xm} {
		if got, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(got) != string(want) {
			t.Errorf("%s: %q %v", name, got, err)
		}
	}
}

func TestExportSoundErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		code  int
		words []string
	}{
		{[]string{"export-sound"}, 2, []string{"missing FILE"}},
		{[]string{"export-sound", demoPackage}, 2, []string{"missing -o DIR"}},
		{[]string{"export-sound", demoPackage, "-o", file}, 2, []string{"is a file"}},
		{[]string{"export-sound", demoPackage, " ", "-o", dir}, 2, []string{"OBJECT is empty"}},
		{[]string{"export-sound", demoPackage, "Checker", "-o", dir}, 1, []string{"UnrmodDemo.Skins.Checker is a Texture", "not a Sound or Music"}},
		{[]string{"export-sound", demoPackage, "Beeb", "-o", dir}, 1, []string{`no export "Beeb"`}},
		{[]string{"export-sound", "../../examples/packages/UnrmodDemoMap.unr", "-o", dir}, 1, []string{"has no Sound or Music exports"}},
	} {
		stdout, stderr, code := runCLI(t, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d\n%s%s", c.args[1:], code, c.code, stdout, stderr)
		}
		for _, w := range c.words {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args[1:], w, stderr)
			}
		}
	}
}

// TestExportSoundCorpusStripped: the stock server-tree sound and music
// packages hold empty arrays, which export-sound says rather than writing
// empty files.
func TestExportSoundCorpusStripped(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		file, object string
		words        []string
	}{
		{"legacy/ut99_stock/Activates.uax", "", []string{"none of its 50 Sound/Music exports holds data"}},
		{"legacy/ut99_stock/Activates.uax", "Beeps.mactiv10", []string{"Activates.Beeps.mactiv10 holds no sound data", "array is empty"}},
		{"legacy/ut99_stock/Foregone.umx", "", []string{"none of its 1 Sound/Music exports holds data"}},
	} {
		args := []string{"export-sound", corpus.Path(t, c.file), "-o", dir}
		if c.object != "" {
			args = append(args, c.object)
		}
		_, stderr, code := runCLI(t, args...)
		if code != 1 {
			t.Errorf("%s %s: exit %d", c.file, c.object, code)
		}
		for _, w := range c.words {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s %s: stderr lacks %q:\n%s", c.file, c.object, w, stderr)
			}
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("wrote %v", ents)
	}
}
