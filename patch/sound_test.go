package patch_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/audio"
	"github.com/unrmod/unrmod/writer"
)

// testWAV returns a PCM WAVE file of frames frames of silence.
func testWAV(channels, bits uint16, rate uint32, frames int) []byte {
	le16 := binary.LittleEndian.AppendUint16
	le32 := binary.LittleEndian.AppendUint32
	align := channels * bits / 8
	data := make([]byte, frames*int(align))
	for k := range data {
		data[k] = byte(k * 7)
	}
	b := []byte("RIFF")
	b = le32(b, uint32(36+len(data)))
	b = append(b, "WAVEfmt "...)
	b = le32(b, 16)
	b = le16(b, 1)
	b = le16(b, channels)
	b = le32(b, rate)
	b = le32(b, rate*uint32(align))
	b = le16(b, align)
	b = le16(b, bits)
	b = append(b, "data"...)
	b = le32(b, uint32(len(data)))
	return append(b, data...)
}

// soundOf returns the file sound export i embeds and its FileType.
func soundOf(t testing.TB, p *reader.Package, i int) *audio.Asset {
	t.Helper()
	a, err := audio.Locate(p, i)
	if err != nil {
		t.Fatalf("%s: %v", p.ExportPath(i), err)
	}
	return a
}

func checkReplaceSoundExample(t *testing.T, _ *patch.File, res *patch.Result) {
	in, out := targetInput(t, res, 0), targetOutput(t, res, 0)
	want, err := os.ReadFile(filepath.Join(examplesDir, "data", "Chirp.wav"))
	if err != nil {
		t.Fatal(err)
	}
	i := exportByPath(t, out, "UnrmodDemo.Sounds.Beep")
	a, err := audio.Extract(out, i)
	if err != nil || !bytes.Equal(a.Data, want) || a.FileType != "WAV" || a.Problem != nil {
		t.Fatalf("Beep after the patch: %+v, %v", a, err)
	}
	withoutSeekPos(t, out, i) // checks the SeekPos
	sameExportContent(t, in, out, "UnrmodDemo.Sounds.Beep")
	ch := res.Targets[0].Changes[0]
	if ch.Old != "WAV PCM 8-bit mono 8000 Hz, 0.008 s, 108 bytes" || ch.New != "WAV PCM 16-bit mono 11025 Hz, 0.1 s, 2248 bytes from Chirp.wav" {
		t.Errorf("change %q", ch)
	}
}

// soundPackage builds a package at version v with a sound Bell (FileType
// fileType, holding payload) after a texture, and for UE2 a second sound
// with the UT2004 Likelihood float before its array.
func soundPackage(t *testing.T, v reader.Version, fileType string, payload []byte) []byte {
	t.Helper()
	b := fixture.New("Bells", v, reader.GUID{5, 6, 7, 8})
	flags := reader.RFPublic | reader.RFLoadContext | reader.RFStandalone
	b.Export(b.Class("Engine", "Texture"), 0, "Plate", flags,
		b.Texture(b.Props().Int("USize", 2).Bytes(), []fixture.Mip{{USize: 2, VSize: 2, Pixels: []byte{1, 2, 3, 4}}}))
	sound := b.Class("Engine", "Sound")
	b.Export(sound, 0, "Bell", flags, b.Sound(b.Props().Float("Volume", 0.5).Bytes(), fileType, payload))
	if v.File >= reader.VerUE2 {
		// Properties, FileType, FLOAT Likelihood, then the lazy array laid
		// out as if the data started at offset 0 (the builder rebases it).
		d := b.Props().Bytes()
		d = binio.AppendIndex(d, int32(b.Name("WAV")))
		d = binary.LittleEndian.AppendUint32(d, math.Float32bits(0.75))
		end := len(d) + 4 + binio.IndexLen(int32(len(payload))) + len(payload)
		d = binio.AppendI32(d, int32(end))
		d = binio.AppendIndex(d, int32(len(payload)))
		d = append(d, payload...)
		b.Export(sound, 0, "Gong", flags, d)
	}
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// before returns what precedes a sound's FileType (the properties).
func before(p *reader.Package, a *audio.Asset) []byte { return p.Exports[a.Export].Data[:a.FileTypeAt] }

// between returns what lies between a sound's FileType and its lazy array
// (UE2's Likelihood).
func between(p *reader.Package, a *audio.Asset) []byte {
	end := a.Lazy.SeekPosAt
	if end < 0 {
		end = a.FileTypeAt + a.FileTypeLen
	}
	return p.Exports[a.Export].Data[a.FileTypeAt+a.FileTypeLen : end]
}

// TestReplaceSound replaces a sound in every layout the reader knows: no
// SeekPos (61), UE1 (69), UE2 (128/29) with and without Likelihood; in both
// writer layouts; and a second run is already in effect.
func TestReplaceSound(t *testing.T) {
	old := testWAV(1, 8, 11025, 40)
	wav := testWAV(2, 16, 22050, 300)
	for _, c := range []struct {
		v        reader.Version
		fileType string
		objects  []string
	}{
		{reader.Version{File: 61}, "WAV", []string{"Bell"}},
		{reader.Version{File: 69}, "WAV", []string{"Bell"}},
		{reader.Version{File: 69}, "OGG", []string{"Bell"}},
		{reader.Version{File: 128, Licensee: 29}, "WAV", []string{"Bell", "Gong"}},
	} {
		for _, layout := range []writer.Layout{writer.Preserve, writer.Compact} {
			t.Run(c.v.String()+"/"+c.fileType+"/"+layout.String(), func(t *testing.T) {
				dir := t.TempDir()
				pkg := filepath.Join(dir, "Bells.uax")
				if err := os.WriteFile(pkg, soundPackage(t, c.v, c.fileType, old), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "new.wav"), wav, 0o644); err != nil {
					t.Fatal(err)
				}
				ops := ""
				for _, o := range c.objects {
					ops += "      - replace-sound: {object: " + o + ", file: new.wav}\n"
				}
				text := "unrmod: 1\ntargets:\n  - file: Bells.uax\n    output: out/Bells.uax\n    ops:\n" + ops
				f := parsePatch(t, filepath.Join(dir, "p.yaml"), text)
				f.Targets[0].Layout = layout
				res, err := patch.Apply(f, patch.Options{})
				if err != nil {
					t.Fatal(err)
				}
				in, out := readPkg(t, pkg), readPkg(t, res.Targets[0].Output)
				var paths []string
				for k, o := range c.objects {
					i := exportByPath(t, out, "Bells."+o)
					a := soundOf(t, out, i)
					if !bytes.Equal(a.Data, wav) || a.FileType != "WAV" {
						t.Errorf("%s holds %d bytes of FileType %s", o, len(a.Data), a.FileType)
					}
					withoutSeekPos(t, out, i)
					paths = append(paths, "Bells."+o)
					ch := res.Targets[0].Changes[k]
					if ch.Old != "WAV PCM 8-bit mono 11025 Hz, 0.00363 s, 84 bytes" && c.fileType == "WAV" ||
						ch.New != "WAV PCM 16-bit stereo 22050 Hz, 0.0136 s, 1244 bytes from new.wav" {
						t.Errorf("change %q", ch)
					}
					if (ch.Warning != "") != (c.fileType != "WAV") {
						t.Errorf("warning %q for FileType %s", ch.Warning, c.fileType)
					}
					// What lies before the array (properties, Likelihood)
					// is kept.
					ai := soundOf(t, in, exportByPath(t, in, "Bells."+o))
					if !bytes.Equal(before(in, ai), before(out, a)) || !bytes.Equal(between(in, ai), between(out, a)) {
						t.Errorf("%s: the bytes before the array changed", o)
					}
					if c.v.File >= reader.VerUE2 && o == "Gong" && len(between(out, a)) != 4 {
						t.Errorf("Gong: Likelihood lost: %x", between(out, a))
					}
				}
				sameExportContent(t, in, out, paths...)

				again := reapply(f, res)
				res2, err := patch.Apply(again, patch.Options{OutputDir: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				for _, ch := range changesOf(res2) {
					if !ch.Already {
						t.Errorf("second run: %s", ch)
					}
				}
			})
		}
	}
}

// TestReplaceSoundRefuses: what is not a sound, and WAV files the engine
// would not play, are refused with the reason, before anything changes.
func TestReplaceSoundRefuses(t *testing.T) {
	dir := t.TempDir()
	demo, err := filepath.Abs(filepath.Join(examplesDir, "..", "packages", "UnrmodDemo.u"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.wav", testWAV(1, 16, 22050, 10))
	wav24 := testWAV(1, 24, 22050, 10)
	truncated := testWAV(1, 16, 22050, 10)
	truncated = truncated[:len(truncated)-4]
	music := fixture.New("Tune", reader.Version{File: 69}, reader.GUID{})
	music.Export(music.Class("Engine", "Music"), 0, "Song", reader.RFPublic|reader.RFLoadContext, music.Sound(music.Props().Bytes(), "it", []byte("IMPM")))
	musicData, err := music.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, file, object, wav string
		words                   []string
	}{
		{"texture", demo, "Checker", good, []string{"Texture'UnrmodDemo.Skins.Checker' is a Texture, not a Sound"}},
		{"music", write("Tune.umx", musicData), "Song", good, []string{"is Music", "tracker module"}},
		{"missing object", demo, "Boop", good, []string{`no export "Boop"`}},
		{"missing file", demo, "Beep", filepath.Join(dir, "nope.wav"), []string{"file:", "nope.wav"}},
		{"24-bit", demo, "Beep", write("deep.wav", wav24), []string{"deep.wav cannot replace UnrmodDemo.Sounds.Beep", "24-bit PCM", "ffmpeg"}},
		{"truncated", demo, "Beep", write("cut.wav", truncated), []string{"cut.wav cannot replace", "WAV at 0x4", "truncated"}},
		{"not a WAV", demo, "Beep", write("song.ogg", []byte("OggS\x00\x02\x00\x00\x00\x00\x00\x00")), []string{`"OggS"`, `not "RIFF"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := oneTarget(c.file, "      - replace-sound: {object: "+c.object+", file: "+yamlQuote(c.wav)+"}\n")
			f := parsePatch(t, filepath.Join(dir, "p.yaml"), text)
			out := t.TempDir()
			_, err := patch.Apply(f, patch.Options{OutputDir: out})
			var pe *patch.Error
			if !errors.As(err, &pe) || pe.Pos.Line != 5 {
				t.Fatalf("error %v", err)
			}
			for _, w := range c.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if ents := dirEntries(t, out); len(ents) != 0 {
				t.Errorf("wrote %v", ents)
			}
		})
	}
}

// TestReplaceSoundCorpus fills a sound of the stripped stock Activates.uax
// with a WAV: the plan says what it held, the output verifies, and every
// other export keeps its content.
func TestReplaceSoundCorpus(t *testing.T) {
	src := corpus.Path(t, "legacy/ut99_stock/Activates.uax")
	dir := t.TempDir()
	wavPath := filepath.Join(dir, "click.wav")
	wav := testWAV(1, 16, 22050, 2205)
	if err := os.WriteFile(wavPath, wav, 0o644); err != nil {
		t.Fatal(err)
	}
	in := readPkg(t, src)
	for _, layout := range []writer.Layout{writer.Preserve, writer.Compact} {
		t.Run(layout.String(), func(t *testing.T) {
			text := oneTarget(src, "      - replace-sound: {object: Sound'Beeps.mactiv10', file: "+yamlQuote(wavPath)+"}\n")
			res, _ := applyText(t, text, layout)
			out := readPkg(t, res.Targets[0].Output)
			i := exportByPath(t, out, "Activates.Beeps.mactiv10")
			a, err := audio.Extract(out, i)
			if err != nil || !bytes.Equal(a.Data, wav) || a.Problem != nil {
				t.Fatalf("%+v %v", a, err)
			}
			ch := res.Targets[0].Changes[0]
			if !strings.HasPrefix(ch.Old, "no sound data") || !strings.HasPrefix(ch.New, "WAV PCM 16-bit mono 22050 Hz, 0.1 s, 4454 bytes") {
				t.Errorf("change %q", ch)
			}
			sameExportContent(t, in, out, "Activates.Beeps.mactiv10")
			if layout == writer.Preserve {
				// Everything else stays where it was.
				for k := range in.Exports {
					if k != i && in.Exports[k].SerialOffset != out.Exports[k].SerialOffset {
						t.Errorf("%s moved", in.ExportPath(k))
					}
				}
			}
		})
	}
}
