package audio_test

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/reader/audio"
)

// FuzzCheckWAV checks that ParseWAV and CheckWAV never panic, that every
// error is a *WAVError of one of the three kinds with an offset inside the
// input, and that what they accept is consistent.
//
//	go test ./reader/audio -run '^$' -fuzz FuzzCheckWAV -fuzztime 60s
func FuzzCheckWAV(f *testing.F) {
	for _, s := range []wavSpec{pcm(1, 22050, 16, 10), pcm(2, 44100, 8, 3), imaADPCM(2, 1024, 2), pcm(1, 96000, 24, 2)} {
		f.Add(makeWAV(s))
	}
	odd := pcm(1, 8000, 8, 5)
	odd.extraChunks = [][2]string{{"LIST", "abc"}}
	f.Add(makeWAV(odd))
	ext := pcm(2, 44100, 16, 4)
	ext.format = audio.FormatExtensible
	ext.ext = append([]byte{16, 0, 3, 0, 0, 0, 1, 0}, make([]byte, 14)...)
	f.Add(makeWAV(ext))
	f.Add([]byte("RIFF\x04\x00\x00\x00WAVE"))
	f.Add([]byte("RIFX\x04\x00\x00\x00WAVE"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		defer fuzzbound.Check(t, time.Now(), len(b))
		w, err := audio.ParseWAV(b)
		if err != nil {
			checkWAVError(t, err, len(b))
			if _, err2 := audio.CheckWAV(b); err2 == nil {
				t.Fatalf("CheckWAV accepts what ParseWAV refuses (%v)", err)
			}
			return
		}
		if w.DataOffset < 12 || w.DataSize < 0 || w.DataOffset+w.DataSize > len(b) || w.Channels == 0 || w.SampleRate == 0 || w.BlockAlign == 0 {
			t.Fatalf("accepted %+v for %d bytes", w, len(b))
		}
		if int64(binary.LittleEndian.Uint32(b[4:]))+8 != int64(len(b)) {
			t.Fatalf("accepted a RIFF size that disagrees with the file")
		}
		if w.String() == "" || w.Duration() < 0 || w.Frames() < 0 {
			t.Fatalf("describes %+v as %q", w, w.String())
		}
		w2, err := audio.CheckWAV(b)
		if perr := w.Playable(); (perr == nil) != (err == nil) {
			t.Fatalf("Playable %v, CheckWAV %v", perr, err)
		}
		if err != nil {
			checkWAVError(t, err, len(b))
			return
		}
		if w2.Format != audio.FormatPCM && w2.Format != audio.FormatIMAADPCM && w2.Format != audio.FormatMSADPCM || w2.Channels > 2 {
			t.Fatalf("plays %s", w2)
		}
	})
}

func checkWAVError(t *testing.T, err error, n int) {
	t.Helper()
	var we *audio.WAVError
	if !errors.As(err, &we) {
		t.Fatalf("error %T: %v", err, err)
	}
	if !errors.Is(err, audio.ErrNotWAV) && !errors.Is(err, audio.ErrBadWAV) && !errors.Is(err, audio.ErrUnplayable) {
		t.Fatalf("error of no kind: %v", err)
	}
	if we.Offset < -1 || we.Offset > int64(n) || we.Msg == "" {
		t.Fatalf("error at offset %d of %d bytes: %v", we.Offset, n, err)
	}
}
