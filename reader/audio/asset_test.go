package audio_test

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/audio"
)

// itModule returns the start of an Impulse Tracker module: the signature
// and a title, enough for Detect.
func itModule() []byte {
	b := make([]byte, 192)
	copy(b, "IMPM")
	copy(b[4:], "unrmod test tune")
	return b
}

// audioPackage builds a package at version v with one export per entry of
// files: class Sound or Music, its FileType and its bytes.
func audioPackage(t *testing.T, v reader.Version, files []testFile) *reader.Package {
	t.Helper()
	b := fixture.New("AudioTest", v, reader.GUID{1, 2, 3, 4})
	flags := reader.RFPublic | reader.RFLoadContext | reader.RFStandalone
	for _, f := range files {
		b.Export(b.Class("Engine", f.class), 0, f.name, flags, b.Sound(b.Props().Bytes(), f.fileType, f.data))
	}
	tex := b.Class("Engine", "Texture")
	b.Export(tex, 0, "NotASound", flags, b.Texture(b.Props().Bytes(), []fixture.Mip{{USize: 1, VSize: 1, Pixels: []byte{7}}}))
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	p, err := reader.Read("AudioTest.uax", data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type testFile struct {
	class, name, fileType string
	data                  []byte
}

func exportNamed(t *testing.T, p *reader.Package, name string) int {
	t.Helper()
	for i := range p.Exports {
		if p.NameOf(p.Exports[i].ObjectName) == name {
			return i
		}
	}
	t.Fatalf("no export %s", name)
	return -1
}

func TestExtract(t *testing.T) {
	wav := makeWAV(pcm(1, 22050, 16, 100))
	float := func() []byte {
		s := pcm(1, 44100, 32, 4)
		s.format = audio.FormatIEEEFloat
		return makeWAV(s)
	}()
	files := []testFile{
		{"Sound", "Beep", "WAV", wav},
		{"Sound", "Floaty", "WAV", float},
		{"Sound", "Mislabelled", "OGG", wav},
		{"Music", "Tune", "it", itModule()},
		{"Music", "Bare", "s3m", []byte("no signature here")},
		{"Sound", "Stripped", "WAV", nil},
		{"Sound", "NotRIFF", "WAV", []byte("garbage!garbage!")},
		{"Music", "Unknown", "xyz", []byte("garbage!garbage!")},
		{"Sound", "TuneAsSound", "WAV", itModule()},
	}
	for _, v := range []reader.Version{{File: 61}, {File: 69}, {File: 128, Licensee: 29}} {
		t.Run(v.String(), func(t *testing.T) {
			p := audioPackage(t, v, files)
			for _, c := range []struct {
				name, ext, fileName string
				problem             string
				wav                 string
				err                 error
				words               []string
			}{
				{name: "Beep", ext: "wav", fileName: "Beep.wav", wav: "PCM 16-bit mono 22050 Hz, 0.00454 s"},
				{name: "Floaty", ext: "wav", problem: "IEEE float", wav: "IEEE float 32-bit mono 44100 Hz, 9.07e-05 s"},
				{name: "Mislabelled", ext: "wav", problem: `FileType is "OGG", but the data is a wav file`},
				{name: "Tune", ext: "it", fileName: "Tune.it"},
				{name: "Bare", ext: "s3m", problem: "no s3m module signature"},
				{name: "Stripped", err: audio.ErrNoData, words: []string{"AudioTest.Stripped", "holds no sound data", "stripped"}},
				{name: "NotRIFF", err: reader.ErrCorrupt, words: []string{"AudioTest.uax", "AudioTest.NotRIFF data at 0x", "FileType is WAV", `"garbage!"`}},
				{name: "Unknown", err: reader.ErrCorrupt, words: []string{`FileType is "xyz"`, "music format"}},
				{name: "TuneAsSound", err: reader.ErrCorrupt, words: []string{"is a it file", "not a sound"}},
				{name: "NotASound", err: audio.ErrNotAudio, words: []string{"AudioTest.NotASound is a Texture"}},
			} {
				i := exportNamed(t, p, c.name)
				a, err := audio.Extract(p, i)
				if c.err != nil {
					if err == nil || !errors.Is(err, c.err) {
						t.Errorf("%s: error %v, want %v", c.name, err, c.err)
						continue
					}
					for _, w := range c.words {
						if !strings.Contains(err.Error(), w) {
							t.Errorf("%s: error %q lacks %q", c.name, err, w)
						}
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", c.name, err)
					continue
				}
				if a.Ext != c.ext || c.fileName != "" && a.FileName() != c.fileName {
					t.Errorf("%s: ext %q, file name %q", c.name, a.Ext, a.FileName())
				}
				if (a.Problem == nil) != (c.problem == "") || a.Problem != nil && !strings.Contains(a.Problem.Error(), c.problem) {
					t.Errorf("%s: problem %v, want %q", c.name, a.Problem, c.problem)
				}
				if c.wav != "" && (a.WAV == nil || a.WAV.String() != c.wav) {
					t.Errorf("%s: WAV %v, want %s", c.name, a.WAV, c.wav)
				}
				// The data is the file's bytes, where Offset says.
				e := &p.Exports[i]
				if at := a.Offset - int64(e.SerialOffset); at < 0 || string(e.Data[at:at+int64(len(a.Data))]) != string(a.Data) ||
					string(p.Source()[a.Offset:a.Offset+int64(len(a.Data))]) != string(a.Data) {
					t.Errorf("%s: data does not lie at 0x%X", c.name, a.Offset)
				}
			}
		})
	}
}

// A SeekPos that does not point past the array is corruption, reported with
// the offset of the SeekPos.
func TestExtractBadSeekPos(t *testing.T) {
	p := audioPackage(t, reader.Version{File: 69}, []testFile{{"Sound", "Beep", "WAV", makeWAV(pcm(1, 8000, 8, 10))}})
	i := exportNamed(t, p, "Beep")
	a, err := audio.Locate(p, i)
	if err != nil {
		t.Fatal(err)
	}
	e := &p.Exports[i]
	data := append([]byte(nil), e.Data...)
	binary.LittleEndian.PutUint32(data[a.Lazy.SeekPosAt:], uint32(a.Lazy.SeekPos+1))
	e.Data = data
	_, err = audio.Extract(p, i)
	var fe *reader.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, reader.ErrCorrupt) || fe.Offset != int64(e.SerialOffset)+int64(a.Lazy.SeekPosAt) ||
		!strings.Contains(err.Error(), "SeekPos") {
		t.Errorf("error %v", err)
	}
	if _, err := audio.Locate(p, len(p.Exports)); err == nil {
		t.Error("Locate accepts an export index out of range")
	}
}

// The stock UT99 sound and music packages of a server install are stripped:
// every Sound and Music export is found, and each says it holds no data.
func TestExtractCorpusStripped(t *testing.T) {
	for _, c := range []struct {
		file   string
		class  string
		count  int
		fileTy string
	}{
		{"legacy/ut99_stock/Activates.uax", "Sound", 50, "WAV"},
		{"legacy/ut99_stock/Foregone.umx", "Music", 1, "it"},
	} {
		path := corpus.Path(t, c.file)
		p, err := reader.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i := range p.Exports {
			if p.ClassName(i) != c.class {
				if _, err := audio.Extract(p, i); !errors.Is(err, audio.ErrNotAudio) {
					t.Errorf("%s %s: %v", filepath.Base(path), p.ExportPath(i), err)
				}
				continue
			}
			n++
			a, err := audio.Locate(p, i)
			if err != nil || a.FileType != c.fileTy || len(a.Data) != 0 {
				t.Errorf("%s: Locate: %+v, %v", p.ExportPath(i), a, err)
			}
			if _, err := audio.Extract(p, i); !errors.Is(err, audio.ErrNoData) || !strings.Contains(err.Error(), p.ExportPath(i)) {
				t.Errorf("%s: %v", p.ExportPath(i), err)
			}
		}
		if n != c.count {
			t.Errorf("%s: %d %s exports, want %d", c.file, n, c.class, c.count)
		}
	}
}
