// Package audio reads the sound and music files that legacy Unreal packages
// embed: a Sound export holds a whole RIFF WAVE file in a lazy byte array,
// a Music export a whole tracker module (Impulse Tracker, Scream Tracker,
// FastTracker, ProTracker ...). Extract finds the file inside an export;
// ParseWAV and CheckWAV read and judge a WAVE file before it replaces a
// sound's data.
package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// WAVE format tags (the fmt chunk's wFormatTag) that this package names.
const (
	FormatPCM        uint16 = 0x0001
	FormatMSADPCM    uint16 = 0x0002
	FormatIEEEFloat  uint16 = 0x0003
	FormatALaw       uint16 = 0x0006
	FormatMuLaw      uint16 = 0x0007
	FormatIMAADPCM   uint16 = 0x0011
	FormatGSM610     uint16 = 0x0031
	FormatMPEG       uint16 = 0x0050
	FormatMP3        uint16 = 0x0055
	FormatExtensible uint16 = 0xFFFE
)

var formatNames = map[uint16]string{
	FormatPCM:        "PCM",
	FormatMSADPCM:    "MS ADPCM",
	FormatIEEEFloat:  "IEEE float",
	FormatALaw:       "A-law",
	FormatMuLaw:      "mu-law",
	FormatIMAADPCM:   "IMA ADPCM",
	FormatGSM610:     "GSM 6.10",
	FormatMPEG:       "MPEG",
	FormatMP3:        "MP3",
	FormatExtensible: "extensible",
}

// FormatName names a WAVE format tag: "PCM", "IMA ADPCM", or "format 0x1234"
// for tags this package does not know.
func FormatName(tag uint16) string {
	if s, ok := formatNames[tag]; ok {
		return s
	}
	return fmt.Sprintf("format 0x%04X", tag)
}

// ErrNotWAV is wrapped by errors about bytes that are not a RIFF WAVE file
// at all; ErrBadWAV by errors about a WAVE file whose structure is
// inconsistent; ErrUnplayable by errors about a well-formed WAVE file in a
// format Unreal Engine 1 and 2 do not play.
var (
	ErrNotWAV     = errors.New("not a RIFF WAVE file")
	ErrBadWAV     = errors.New("inconsistent WAVE file")
	ErrUnplayable = errors.New("WAVE format the engine does not play")
)

// WAVError describes a problem in a WAVE file: the offset in the file (-1
// when not tied to one) and what is wrong. It wraps ErrNotWAV, ErrBadWAV or
// ErrUnplayable.
type WAVError struct {
	Offset int64
	Msg    string
	Kind   error
}

func (e *WAVError) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("WAV at 0x%X: %s", e.Offset, e.Msg)
	}
	return "WAV: " + e.Msg
}

// Unwrap returns the kind of problem.
func (e *WAVError) Unwrap() error { return e.Kind }

func wavErr(kind error, off int64, format string, args ...any) *WAVError {
	return &WAVError{Offset: off, Msg: fmt.Sprintf(format, args...), Kind: kind}
}

// Chunk is one RIFF chunk of a WAVE file: its four-character id, the offset
// of its header in the file and the size of its body.
type Chunk struct {
	ID     string
	Offset int
	Size   int
}

// WAV is what ParseWAV reads from a RIFF WAVE file: the fmt chunk's fields
// and where the samples are.
type WAV struct {
	Format        uint16 // wFormatTag: FormatPCM, FormatIMAADPCM ...
	Channels      uint16
	SampleRate    uint32 // frames per second
	ByteRate      uint32 // average bytes per second
	BlockAlign    uint16 // bytes per frame (PCM) or per compressed block (ADPCM)
	BitsPerSample uint16
	// SamplesPerBlock is the ADPCM block length in frames, from the fmt
	// chunk's extension; 0 for PCM or when absent.
	SamplesPerBlock uint16
	// SubFormat is the format tag inside a WAVE_FORMAT_EXTENSIBLE header
	// (its GUID's first two bytes); 0 otherwise.
	SubFormat  uint16
	DataOffset int // offset of the samples in the file
	DataSize   int // size of the data chunk
	Chunks     []Chunk
}

// FormatName names the format: "PCM", "IMA ADPCM", "extensible (PCM)" ...
func (w *WAV) FormatName() string {
	if w.Format == FormatExtensible && w.SubFormat != 0 {
		return "extensible (" + FormatName(w.SubFormat) + ")"
	}
	return FormatName(w.Format)
}

// Frames returns the number of sample frames in the data chunk.
func (w *WAV) Frames() int {
	switch {
	case w.BlockAlign == 0:
		return 0
	case (w.Format == FormatIMAADPCM || w.Format == FormatMSADPCM) && w.SamplesPerBlock > 0:
		return w.DataSize / int(w.BlockAlign) * int(w.SamplesPerBlock)
	case w.Format == FormatPCM || w.Format == FormatIEEEFloat || w.Format == FormatALaw || w.Format == FormatMuLaw:
		return w.DataSize / int(w.BlockAlign)
	}
	return 0
}

// Duration returns the playing time of the samples (0 when the format does
// not say).
func (w *WAV) Duration() time.Duration {
	if f := w.Frames(); f > 0 && w.SampleRate > 0 {
		return time.Duration(int64(f) * int64(time.Second) / int64(w.SampleRate))
	}
	if w.ByteRate > 0 {
		return time.Duration(int64(w.DataSize) * int64(time.Second) / int64(w.ByteRate))
	}
	return 0
}

// String describes the sound: "PCM 16-bit mono 22050 Hz, 1.25 s".
func (w *WAV) String() string {
	ch := fmt.Sprintf("%d channels", w.Channels)
	switch w.Channels {
	case 1:
		ch = "mono"
	case 2:
		ch = "stereo"
	}
	s := fmt.Sprintf("%s %d-bit %s %d Hz", w.FormatName(), w.BitsPerSample, ch, w.SampleRate)
	if d := w.Duration(); d > 0 {
		s += fmt.Sprintf(", %.3g s", d.Seconds())
	}
	return s
}

// ParseWAV reads a RIFF WAVE file and checks that its structure is
// consistent: the RIFF header, every chunk inside the RIFF size and the
// RIFF size equal to the file's, exactly one fmt chunk (before the data, at
// least 16 bytes) and one data chunk, and fmt fields that agree with each
// other (block align, byte rate, whole blocks of data for PCM). It does not
// judge whether the engine plays the format: see Playable. Errors are
// *WAVError values.
func ParseWAV(b []byte) (*WAV, error) {
	if len(b) < 12 {
		return nil, wavErr(ErrNotWAV, 0, "%d bytes is too short for a RIFF header (12 bytes)", len(b))
	}
	switch id := string(b[:4]); id {
	case "RIFF":
	case "RIFX":
		return nil, wavErr(ErrNotWAV, 0, "big-endian RIFX files are not supported; save the WAV as little-endian RIFF")
	default:
		return nil, wavErr(ErrNotWAV, 0, "starts with %q, not \"RIFF\"", printable(b[:4]))
	}
	if form := string(b[8:12]); form != "WAVE" {
		return nil, wavErr(ErrNotWAV, 8, "RIFF form type is %q, not \"WAVE\"", printable(b[8:12]))
	}
	riff := int64(binary.LittleEndian.Uint32(b[4:]))
	if riff+8 != int64(len(b)) {
		if riff+8 < int64(len(b)) {
			return nil, wavErr(ErrBadWAV, 4, "the RIFF size says the file has %d bytes, but it has %d (%d bytes follow the RIFF chunk)",
				riff+8, len(b), int64(len(b))-riff-8)
		}
		return nil, wavErr(ErrBadWAV, 4, "the RIFF size says the file has %d bytes, but it has only %d: the file is truncated", riff+8, len(b))
	}
	w := &WAV{DataOffset: -1}
	fmtAt := -1
	for off := 12; off < len(b); {
		if len(b)-off < 8 {
			return nil, wavErr(ErrBadWAV, int64(off), "%d stray bytes after the last chunk, too few for a chunk header", len(b)-off)
		}
		id := string(b[off : off+4])
		size := int64(binary.LittleEndian.Uint32(b[off+4:]))
		if size > int64(len(b)-off-8) {
			return nil, wavErr(ErrBadWAV, int64(off), "chunk %q says %d bytes, but only %d remain in the file", printable(b[off:off+4]), size, len(b)-off-8)
		}
		w.Chunks = append(w.Chunks, Chunk{ID: id, Offset: off, Size: int(size)})
		body := b[off+8 : off+8+int(size)]
		switch id {
		case "fmt ":
			if fmtAt >= 0 {
				return nil, wavErr(ErrBadWAV, int64(off), "a second fmt chunk (the first is at 0x%X)", fmtAt)
			}
			if w.DataOffset >= 0 {
				return nil, wavErr(ErrBadWAV, int64(off), "the fmt chunk follows the data chunk; readers expect it before")
			}
			fmtAt = off
			if err := w.readFmt(body, int64(off)); err != nil {
				return nil, err
			}
		case "data":
			if w.DataOffset >= 0 {
				return nil, wavErr(ErrBadWAV, int64(off), "a second data chunk (the first is at 0x%X)", w.DataOffset-8)
			}
			w.DataOffset, w.DataSize = off+8, int(size)
		}
		// Chunks are padded to an even size; a missing pad byte at the very
		// end is tolerated.
		off += 8 + int(size) + int(size&1)
	}
	if fmtAt < 0 {
		return nil, wavErr(ErrBadWAV, 12, "no fmt chunk: the file does not say how its samples are encoded")
	}
	if w.DataOffset < 0 {
		return nil, wavErr(ErrBadWAV, 12, "no data chunk: the file holds no samples")
	}
	if err := w.checkFields(int64(fmtAt)); err != nil {
		return nil, err
	}
	return w, nil
}

// readFmt decodes the fmt chunk body found at off.
func (w *WAV) readFmt(body []byte, off int64) error {
	if len(body) < 16 {
		return wavErr(ErrBadWAV, off, "the fmt chunk has %d bytes, fewer than the 16 every WAVE format needs", len(body))
	}
	le16 := func(k int) uint16 { return binary.LittleEndian.Uint16(body[k:]) }
	w.Format = le16(0)
	w.Channels = le16(2)
	w.SampleRate = binary.LittleEndian.Uint32(body[4:])
	w.ByteRate = binary.LittleEndian.Uint32(body[8:])
	w.BlockAlign = le16(12)
	w.BitsPerSample = le16(14)
	if len(body) < 18 {
		return nil
	}
	ext := int(le16(16))
	if ext > len(body)-18 {
		return wavErr(ErrBadWAV, off+8+16, "the fmt extension says %d bytes, but the chunk has %d after it", ext, len(body)-18)
	}
	switch w.Format {
	case FormatIMAADPCM, FormatMSADPCM:
		if ext >= 2 {
			w.SamplesPerBlock = le16(18)
		}
	case FormatExtensible:
		if ext < 22 {
			return wavErr(ErrBadWAV, off+8+16, "an extensible fmt chunk needs a 22-byte extension, this one has %d", ext)
		}
		w.SubFormat = le16(24)
	}
	return nil
}

// checkFields checks that the fmt fields agree with each other and with the
// data chunk.
func (w *WAV) checkFields(fmtAt int64) error {
	at := func(field int) int64 { return fmtAt + 8 + int64(field) }
	switch {
	case w.Channels == 0:
		return wavErr(ErrBadWAV, at(2), "the fmt chunk says 0 channels")
	case w.SampleRate == 0:
		return wavErr(ErrBadWAV, at(4), "the fmt chunk says a sample rate of 0 Hz")
	case w.BlockAlign == 0:
		return wavErr(ErrBadWAV, at(12), "the fmt chunk says a block align of 0 bytes")
	}
	pcmLike := w.Format == FormatPCM || w.Format == FormatIEEEFloat || w.Format == FormatALaw || w.Format == FormatMuLaw ||
		w.Format == FormatExtensible && (w.SubFormat == FormatPCM || w.SubFormat == FormatIEEEFloat)
	if pcmLike {
		if w.BitsPerSample == 0 || w.BitsPerSample%8 != 0 {
			return wavErr(ErrBadWAV, at(14), "%d bits per sample is not a whole number of bytes", w.BitsPerSample)
		}
		frame := int(w.Channels) * int(w.BitsPerSample/8)
		if int(w.BlockAlign) != frame {
			return wavErr(ErrBadWAV, at(12), "block align is %d bytes, but %d channels of %d bits take %d",
				w.BlockAlign, w.Channels, w.BitsPerSample, frame)
		}
		if want := uint64(w.SampleRate) * uint64(w.BlockAlign); uint64(w.ByteRate) != want {
			return wavErr(ErrBadWAV, at(8), "byte rate is %d, but %d Hz × %d-byte frames make %d", w.ByteRate, w.SampleRate, w.BlockAlign, want)
		}
		if w.DataSize%int(w.BlockAlign) != 0 {
			return wavErr(ErrBadWAV, int64(w.DataOffset-8), "the data chunk has %d bytes, not a whole number of %d-byte frames", w.DataSize, w.BlockAlign)
		}
	}
	if w.Format == FormatIMAADPCM && w.SamplesPerBlock != 0 && w.Channels <= 2 {
		// Each block starts with a 4-byte header per channel; the rest
		// holds two 4-bit samples a byte.
		if w.BlockAlign <= 4*w.Channels {
			return wavErr(ErrBadWAV, at(12), "an IMA ADPCM block of %d bytes has no room for samples after its %d-byte headers", w.BlockAlign, 4*w.Channels)
		}
		if want := (int(w.BlockAlign)-4*int(w.Channels))*8/(4*int(w.Channels)) + 1; int(w.SamplesPerBlock) != want {
			return wavErr(ErrBadWAV, at(18), "%d samples per block, but %d-byte IMA ADPCM blocks of %d channels hold %d",
				w.SamplesPerBlock, w.BlockAlign, w.Channels, want)
		}
	}
	return nil
}

// Playable formats: what the audio drivers of Unreal Engine 1 and 2 decode.
const (
	MinSampleRate = 1000
	MaxSampleRate = 48000
)

// Playable reports whether the engine plays this format: PCM with 8 or 16
// bits per sample, or IMA or Microsoft ADPCM with 4, in one or two channels
// at MinSampleRate to MaxSampleRate, with at least one frame of samples. The
// error (a *WAVError wrapping ErrUnplayable) says why not and how to fix it.
func (w *WAV) Playable() error {
	fix := "; convert it to 16-bit PCM (for example: ffmpeg -i in.wav -c:a pcm_s16le -ar 22050 out.wav)"
	switch w.Format {
	case FormatPCM:
		if w.BitsPerSample != 8 && w.BitsPerSample != 16 {
			return wavErr(ErrUnplayable, -1, "%d-bit PCM: the engine plays 8- and 16-bit PCM only%s", w.BitsPerSample, fix)
		}
	case FormatIMAADPCM, FormatMSADPCM:
		if w.BitsPerSample != 4 {
			return wavErr(ErrUnplayable, -1, "%s with %d bits per sample: ADPCM has 4%s", w.FormatName(), w.BitsPerSample, fix)
		}
	case FormatExtensible:
		return wavErr(ErrUnplayable, -1, "the fmt chunk is WAVE_FORMAT_EXTENSIBLE (%s): the engine reads only the plain format tags%s",
			FormatName(w.SubFormat), fix)
	default:
		return wavErr(ErrUnplayable, -1, "%s samples: the engine plays PCM (8 or 16 bits) and ADPCM only%s", w.FormatName(), fix)
	}
	switch {
	case w.Channels > 2:
		return wavErr(ErrUnplayable, -1, "%d channels: the engine plays mono and stereo sounds only; mix it down", w.Channels)
	case w.SampleRate < MinSampleRate || w.SampleRate > MaxSampleRate:
		return wavErr(ErrUnplayable, -1, "%d Hz is outside the %d..%d Hz the engine's audio drivers take%s", w.SampleRate, MinSampleRate, MaxSampleRate, fix)
	case w.DataSize < int(w.BlockAlign):
		return wavErr(ErrUnplayable, int64(w.DataOffset-8), "the data chunk holds %d bytes, less than one %d-byte block: there is nothing to play", w.DataSize, w.BlockAlign)
	}
	return nil
}

// CheckWAV is ParseWAV followed by Playable: it accepts exactly the WAVE
// files that can replace a sound's data.
func CheckWAV(b []byte) (*WAV, error) {
	w, err := ParseWAV(b)
	if err != nil {
		return nil, err
	}
	if err := w.Playable(); err != nil {
		return w, err
	}
	return w, nil
}

// printable shows a four-character code, escaping bytes that are not
// printable ASCII.
func printable(b []byte) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c >= 0x20 && c < 0x7F {
			out = append(out, c)
		} else {
			out = append(out, '.')
		}
	}
	return string(out)
}
