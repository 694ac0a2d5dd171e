package audio_test

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/reader/audio"
)

// wavSpec describes a WAVE file for makeWAV.
type wavSpec struct {
	format       uint16
	channels     uint16
	rate         uint32
	bits         uint16
	blockAlign   uint16 // 0: computed for PCM
	byteRate     uint32 // 0: computed
	ext          []byte // fmt extension after cbSize; nil: a 16-byte fmt chunk
	data         []byte
	extraChunks  [][2]string // id, body: written between fmt and data
	dataFirst    bool
	riffSizeDiff int
}

// makeWAV writes a RIFF WAVE file as spec says.
func makeWAV(s wavSpec) []byte {
	le16 := binary.LittleEndian.AppendUint16
	le32 := binary.LittleEndian.AppendUint32
	if s.blockAlign == 0 {
		s.blockAlign = s.channels * (s.bits / 8)
	}
	if s.byteRate == 0 {
		s.byteRate = s.rate * uint32(s.blockAlign)
	}
	f := le16(nil, s.format)
	f = le16(f, s.channels)
	f = le32(f, s.rate)
	f = le32(f, s.byteRate)
	f = le16(f, s.blockAlign)
	f = le16(f, s.bits)
	if s.ext != nil {
		f = le16(f, uint16(len(s.ext)))
		f = append(f, s.ext...)
	}
	chunk := func(d []byte, id string, body []byte) []byte {
		d = append(d, id...)
		d = le32(d, uint32(len(body)))
		d = append(d, body...)
		if len(body)%2 == 1 {
			d = append(d, 0)
		}
		return d
	}
	body := []byte("WAVE")
	if s.dataFirst {
		body = chunk(body, "data", s.data)
		body = chunk(body, "fmt ", f)
	} else {
		body = chunk(body, "fmt ", f)
		for _, c := range s.extraChunks {
			body = chunk(body, c[0], []byte(c[1]))
		}
		body = chunk(body, "data", s.data)
	}
	out := append([]byte("RIFF"), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(out[4:], uint32(len(body)+s.riffSizeDiff))
	return append(out, body...)
}

func pcm(ch uint16, rate uint32, bits uint16, frames int) wavSpec {
	return wavSpec{format: audio.FormatPCM, channels: ch, rate: rate, bits: bits, data: make([]byte, frames*int(ch)*int(bits/8))}
}

func imaADPCM(ch uint16, blockAlign uint16, blocks int) wavSpec {
	spb := (int(blockAlign)-4*int(ch))*8/(4*int(ch)) + 1
	return wavSpec{format: audio.FormatIMAADPCM, channels: ch, rate: 22050, bits: 4, blockAlign: blockAlign, byteRate: 11100,
		ext: binary.LittleEndian.AppendUint16(nil, uint16(spb)), data: make([]byte, blocks*int(blockAlign))}
}

func TestParseWAVAccepts(t *testing.T) {
	for _, c := range []struct {
		name   string
		spec   wavSpec
		want   string
		frames int
	}{
		{"8-bit mono", pcm(1, 11025, 8, 11025), "PCM 8-bit mono 11025 Hz, 1 s", 11025},
		{"16-bit stereo", pcm(2, 44100, 16, 22050), "PCM 16-bit stereo 44100 Hz, 0.5 s", 22050},
		{"odd data, padded", pcm(1, 22050, 8, 3), "PCM 8-bit mono 22050 Hz, 0.000136 s", 3},
		{"IMA ADPCM", imaADPCM(1, 512, 4), "IMA ADPCM 4-bit mono 22050 Hz, 0.184 s", 4 * 1017},
		{"with a LIST chunk", func() wavSpec {
			s := pcm(1, 22050, 16, 100)
			s.extraChunks = [][2]string{{"LIST", "INFOISFT\x05\x00\x00\x00unrm\x00"}}
			return s
		}(), "PCM 16-bit mono 22050 Hz, 0.00454 s", 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := makeWAV(c.spec)
			w, err := audio.CheckWAV(b)
			if err != nil {
				t.Fatal(err)
			}
			if got := w.String(); got != c.want {
				t.Errorf("String() = %q, want %q", got, c.want)
			}
			if w.Frames() != c.frames {
				t.Errorf("%d frames, want %d", w.Frames(), c.frames)
			}
			if w.DataSize != len(c.spec.data) || string(b[w.DataOffset:w.DataOffset+w.DataSize]) != string(c.spec.data) {
				t.Errorf("data at %d, %d bytes; want %d bytes", w.DataOffset, w.DataSize, len(c.spec.data))
			}
		})
	}
}

func TestParseWAVRefuses(t *testing.T) {
	good := makeWAV(pcm(1, 22050, 16, 10))
	mod := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	spec := func(f func(s *wavSpec)) []byte {
		s := pcm(1, 22050, 16, 10)
		f(&s)
		return makeWAV(s)
	}
	for _, c := range []struct {
		name  string
		data  []byte
		kind  error
		words []string
	}{
		{"empty", nil, audio.ErrNotWAV, []string{"0 bytes", "too short"}},
		{"ogg", []byte("OggS\x00\x02\x00\x00\x00\x00\x00\x00"), audio.ErrNotWAV, []string{`"OggS"`, `not "RIFF"`}},
		{"RIFX", mod(func(b []byte) []byte { copy(b, "RIFX"); return b }), audio.ErrNotWAV, []string{"big-endian"}},
		{"AVI", mod(func(b []byte) []byte { copy(b[8:], "AVI "); return b }), audio.ErrNotWAV, []string{"at 0x8", `"AVI "`}},
		{"truncated", good[:len(good)-3], audio.ErrBadWAV, []string{"at 0x4", "truncated"}},
		{"trailing bytes", append(append([]byte(nil), good...), 1, 2, 3), audio.ErrBadWAV, []string{"3 bytes follow the RIFF chunk"}},
		{"odd junk chunk, padded", spec(func(s *wavSpec) { s.riffSizeDiff = 0; s.extraChunks = [][2]string{{"junk", "x"}} }),
			nil, nil}, // a valid file: checked below as accepted
		{"no fmt", func() []byte {
			b := []byte("RIFF\x00\x00\x00\x00WAVEdata\x02\x00\x00\x00\x01\x02")
			binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-8))
			return b
		}(), audio.ErrBadWAV, []string{"no fmt chunk"}},
		{"no data", func() []byte {
			b := makeWAV(pcm(1, 8000, 8, 0))
			copy(b[36:], "dada")
			return b
		}(), audio.ErrBadWAV, []string{"no data chunk"}},
		{"fmt after data", spec(func(s *wavSpec) { s.dataFirst = true }), audio.ErrBadWAV, []string{"follows the data chunk"}},
		{"short fmt", mod(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[16:], 14)
			return b
		}), audio.ErrBadWAV, []string{"at 0xC", "14 bytes"}},
		{"chunk size too big", mod(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[40:], 1000)
			return b
		}), audio.ErrBadWAV, []string{"at 0x24", `chunk "data" says 1000 bytes`}},
		{"zero channels", spec(func(s *wavSpec) { s.channels = 0; s.blockAlign = 2; s.byteRate = 44100 }), audio.ErrBadWAV, []string{"0 channels"}},
		{"zero rate", spec(func(s *wavSpec) { s.rate = 0; s.byteRate = 1 }), audio.ErrBadWAV, []string{"sample rate of 0"}},
		{"block align", spec(func(s *wavSpec) { s.blockAlign = 4; s.byteRate = 88200 }), audio.ErrBadWAV, []string{"at 0x20", "block align is 4", "take 2"}},
		{"byte rate", spec(func(s *wavSpec) { s.byteRate = 1234 }), audio.ErrBadWAV, []string{"at 0x1C", "byte rate is 1234", "44100"}},
		{"partial frame", spec(func(s *wavSpec) { s.data = s.data[:19] }), audio.ErrBadWAV, []string{"19 bytes", "2-byte frames"}},
		{"IMA block", func() []byte {
			s := imaADPCM(1, 512, 2)
			s.ext = binary.LittleEndian.AppendUint16(nil, 1000)
			return makeWAV(s)
		}(), audio.ErrBadWAV, []string{"1000 samples per block", "hold 1017"}},
		{"24-bit", makeWAV(pcm(1, 44100, 24, 4)), audio.ErrUnplayable, []string{"24-bit PCM", "ffmpeg"}},
		{"float", func() []byte {
			s := pcm(1, 44100, 32, 4)
			s.format = audio.FormatIEEEFloat
			return makeWAV(s)
		}(), audio.ErrUnplayable, []string{"IEEE float samples"}},
		{"extensible", func() []byte {
			s := pcm(2, 44100, 16, 4)
			s.format = audio.FormatExtensible
			s.ext = append([]byte{16, 0, 3, 0, 0, 0, 1, 0}, make([]byte, 14)...)
			return makeWAV(s)
		}(), audio.ErrUnplayable, []string{"WAVE_FORMAT_EXTENSIBLE (PCM)"}},
		{"MP3 in WAV", func() []byte {
			s := pcm(1, 44100, 16, 4)
			s.format = audio.FormatMP3
			s.bits = 0
			s.blockAlign = 1
			return makeWAV(s)
		}(), audio.ErrUnplayable, []string{"MP3 samples"}},
		{"surround", makeWAV(pcm(6, 44100, 16, 4)), audio.ErrUnplayable, []string{"6 channels"}},
		{"96 kHz", makeWAV(pcm(1, 96000, 16, 4)), audio.ErrUnplayable, []string{"96000 Hz"}},
		{"no samples", makeWAV(pcm(1, 22050, 16, 0)), audio.ErrUnplayable, []string{"nothing to play"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := audio.CheckWAV(c.data)
			if c.kind == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			var we *audio.WAVError
			if !errors.As(err, &we) || !errors.Is(err, c.kind) {
				t.Errorf("error %T %v is not a *WAVError of kind %v", err, err, c.kind)
			}
			for _, w := range c.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestDetect(t *testing.T) {
	at := func(off int, sig string) []byte {
		b := make([]byte, off+len(sig)+64)
		copy(b[off:], sig)
		return b
	}
	stm := make([]byte, 64)
	copy(stm[20:], "!Scream!")
	stm[28], stm[29] = 0x1A, 2
	for _, c := range []struct {
		data []byte
		want string
	}{
		{makeWAV(pcm(1, 8000, 8, 1)), "wav"},
		{at(0, "IMPM"), "it"},
		{at(0, "Extended Module: "), "xm"},
		{at(44, "SCRM"), "s3m"},
		{at(1080, "M.K."), "mod"},
		{at(1080, "6CHN"), "mod"},
		{at(1080, "16CH"), "mod"},
		{at(1080, "ABCD"), ""},
		{at(0, "FAR\xFE"), "far"},
		{stm, "stm"},
		{at(0, "OggS"), "ogg"},
		{at(0, "ID3"), "mp3"},
		{at(0, "\xC1\x83\x2A\x9E"), "umx"},
		{[]byte("RIFF\x00\x00\x00\x00AVI "), ""},
		{nil, ""},
	} {
		if got := audio.Detect(c.data); got != c.want {
			t.Errorf("Detect(%q…) = %q, want %q", c.data[:min(len(c.data), 12)], got, c.want)
		}
	}
}
