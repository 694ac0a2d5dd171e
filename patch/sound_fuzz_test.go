package patch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/audio"
	"github.com/unrmod/unrmod/writer"
)

// FuzzReplaceSound puts fuzzed WAV files into the demo package's sound:
// replace-sound must never panic, must accept exactly what audio.CheckWAV
// accepts, and what it accepts must encode, in both layouts, to a package
// that verifies and holds exactly those bytes.
//
//	go test ./patch -run '^$' -fuzz FuzzReplaceSound -fuzztime 60s
func FuzzReplaceSound(f *testing.F) {
	src, err := os.ReadFile("../examples/packages/UnrmodDemo.u")
	if err != nil {
		f.Fatal(err)
	}
	chirp, err := os.ReadFile("../examples/patches/data/Chirp.wav")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(chirp)
	f.Add(chirp[:100])
	f.Add(append(append([]byte(nil), chirp...), 0))
	small := []byte("RIFF\x28\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x40\x1f\x00\x00\x01\x00\x08\x00data\x04\x00\x00\x00\x80\xff\x80\x00")
	f.Add(small)
	ima := append([]byte(nil), small...)
	binary.LittleEndian.PutUint16(ima[20:], audio.FormatIMAADPCM)
	f.Add(ima)
	f.Add([]byte("RIFF\x04\x00\x00\x00WAVE"))
	f.Fuzz(func(t *testing.T, wav []byte) {
		defer fuzzbound.Check(t, time.Now(), len(wav))
		p, err := reader.Read("UnrmodDemo.u", src)
		if err != nil {
			t.Fatal(err)
		}
		c := &legacyContext{p: p, owned: map[int]bool{}, imports0: len(p.Imports)}
		op := &ReplaceSound{Pos: Pos{File: "fuzz.yaml", Line: 1, Col: 3}, Object: "Sounds.Beep", File: "fuzz.wav", filePos: Pos{File: "fuzz.yaml", Line: 2, Col: 5}}
		changes, err := replaceSound(c, op, wav)
		_, werr := audio.CheckWAV(wav)
		if (err == nil) != (werr == nil) {
			t.Fatalf("replace-sound: %v; CheckWAV: %v", err, werr)
		}
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Pos.Line == 0 || !errors.Is(err, werr) && !errors.Is(err, audio.ErrNotWAV) &&
				!errors.Is(err, audio.ErrBadWAV) && !errors.Is(err, audio.ErrUnplayable) {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		if len(changes) != 1 {
			t.Fatalf("changes %v", changes)
		}
		for _, layout := range []writer.Layout{writer.Preserve, writer.Compact} {
			out, _, err := writer.Encode(p, writer.Options{Layout: layout})
			if err != nil {
				t.Fatalf("%s: %v", layout, err)
			}
			q, err := writer.Check("UnrmodDemo.u", out)
			if err != nil {
				t.Fatalf("%s: %v", layout, err)
			}
			for _, r := range q.Lookup("Sounds.Beep") {
				i, _ := r.Export()
				a, err := audio.Extract(q, i)
				if err != nil || !bytes.Equal(a.Data, wav) || a.Problem != nil {
					t.Fatalf("%s: the sound holds %d bytes (%v, %v), want the %d given", layout, len(a.Data), err, a.Problem, len(wav))
				}
			}
		}
	})
}
