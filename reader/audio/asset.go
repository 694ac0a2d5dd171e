package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/reader"
)

// ErrNotAudio is wrapped by errors about exports that are not sounds or
// music; ErrNoData by errors about sounds and music whose data array is
// empty (server copies of packages are often stripped so).
var (
	ErrNotAudio = errors.New("not a Sound or Music export")
	ErrNoData   = errors.New("its data array is empty")
)

// Detect names the kind of file b is from its signature, as a file
// extension: "wav" (RIFF WAVE), "ogg", "mp3" (with an ID3 tag or an MPEG
// frame header), "it" (Impulse Tracker), "xm" (FastTracker 2), "s3m"
// (Scream Tracker 3), "stm" (Scream Tracker 2), "far" (Farandole), "mod"
// (ProTracker and its relatives) or "umx" (an Unreal package). It returns ""
// when no signature matches.
func Detect(b []byte) string {
	has := func(at int, sig string) bool { return len(b) >= at+len(sig) && string(b[at:at+len(sig)]) == sig }
	switch {
	case has(0, "RIFF") && has(8, "WAVE"):
		return "wav"
	case has(0, "OggS"):
		return "ogg"
	case has(0, "ID3"), len(b) >= 2 && b[0] == 0xFF && b[1]&0xE0 == 0xE0 && b[1]&0x06 != 0:
		return "mp3"
	case has(0, "IMPM"):
		return "it"
	case has(0, "Extended Module: "):
		return "xm"
	case has(44, "SCRM"):
		return "s3m"
	case has(0, "FAR\xFE"):
		return "far"
	case len(b) >= 48 && b[28] == 0x1A && b[29] == 2:
		return "stm"
	case len(b) >= 4 && binary.LittleEndian.Uint32(b) == reader.Tag:
		return "umx"
	case len(b) >= 1084 && modTag(b[1080:1084]):
		return "mod"
	}
	return ""
}

// modTag reports whether the four bytes at offset 1080 of a module are a
// ProTracker-family channel tag.
func modTag(t []byte) bool {
	switch string(t) {
	case "M.K.", "M!K!", "M&K!", "N.T.", "FLT4", "FLT8", "CD81", "OKTA", "OCTA", "TDZ1", "TDZ2", "TDZ3":
		return true
	}
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	switch {
	case digit(t[0]) && string(t[1:]) == "CHN":
		return true
	case digit(t[0]) && digit(t[1]) && (string(t[2:]) == "CH" || string(t[2:]) == "CN"):
		return true
	}
	return false
}

// moduleTypes are the tracker formats Unreal Engine 1 imports as Music, by
// the FileType names it gives them.
var moduleTypes = map[string]bool{"it": true, "xm": true, "s3m": true, "stm": true, "mod": true, "far": true, "669": true, "mtm": true, "ult": true, "umx": true}

// Asset is the sound or music file embedded in a Sound or Music export.
type Asset struct {
	Export int    // the export's index
	Path   string // the export's full path
	Class  string // the export's class
	Kind   reader.NativeKind
	// FileType is the export's FileType name ("WAV" for sounds, the
	// module format such as "it" or "s3m" for music); FileTypeAt is the
	// offset of its name index in the export data and FileTypeLen the
	// index's size.
	FileType    string
	FileTypeAt  int
	FileTypeLen int
	// Lazy is the lazy array that holds the file.
	Lazy reader.LazyArray
	// Data is the embedded file: a slice of the export's data, not a copy.
	Data []byte
	// Offset is the absolute offset of Data in the package file.
	Offset int64
	// Ext is the extension to save the file under ("wav", "it" ...), from
	// the file's signature, else from FileType. Set by Extract.
	Ext string
	// WAV is what ParseWAV read from WAVE data (nil for other data, or when
	// it does not parse).
	WAV *WAV
	// Problem describes what is odd about the file without stopping its
	// export: a WAVE file that does not parse or play, a FileType that
	// disagrees with the signature, a module without a signature.
	Problem error
}

// FileName returns the name to save the file under: the object's name and
// the extension.
func (a *Asset) FileName() string {
	name := a.Path
	if k := strings.LastIndexByte(name, '.'); k >= 0 {
		name = name[k+1:]
	}
	return name + "." + a.Ext
}

// Locate finds the lazy array of Sound or Music export i and its FileType,
// without judging the data: the array may be empty. Errors name the file,
// the export and the offset: the export is not a sound or music
// (ErrNotAudio), or its data does not parse, or its lazy array's SeekPos
// does not point just past the array (reader.ErrCorrupt).
func Locate(p *reader.Package, i int) (*Asset, error) {
	if i < 0 || i >= len(p.Exports) {
		return nil, fmt.Errorf("%s: no export %d (%d exports)", p.FileName, i, len(p.Exports))
	}
	e := &p.Exports[i]
	a := &Asset{Export: i, Path: p.ExportPath(i), Class: p.ClassName(i), Kind: p.NativeKind(i)}
	label := fmt.Sprintf("export %d %s", i, a.Path)
	if a.Kind != reader.NativeSound && a.Kind != reader.NativeMusic {
		return nil, fmt.Errorf("%s: %s is a %s: %w", p.FileName, label, a.Class, ErrNotAudio)
	}
	nl, err := p.Native(i)
	if err != nil {
		return nil, err
	}
	if nl.Props == nil || len(nl.Lazy) != 1 {
		return nil, &reader.FormatError{File: p.FileName, Struct: label, Offset: -1, Err: reader.ErrCorrupt,
			Msg: fmt.Sprintf("the %s data has no lazy array where its file should be", a.Class)}
	}
	a.FileTypeAt = nl.Props.End
	ft, n, err := binio.ReadIndex(e.Data[a.FileTypeAt:])
	if err != nil || ft < 0 || int(ft) >= len(p.Names) {
		return nil, &reader.FormatError{File: p.FileName, Struct: label + " FileType", Offset: int64(e.SerialOffset) + int64(a.FileTypeAt),
			Err: reader.ErrCorrupt, Msg: fmt.Sprintf("the FileType name index does not decode (%d, %v)", ft, err)}
	}
	a.FileType, a.FileTypeLen = p.NameOf(reader.NameRef(ft)), n
	a.Lazy = nl.Lazy[0]
	la := a.Lazy
	if la.SeekPosAt >= 0 && int64(la.SeekPos) != int64(e.SerialOffset)+int64(la.End) {
		return nil, &reader.FormatError{File: p.FileName, Struct: label + " data", Offset: int64(e.SerialOffset) + int64(la.SeekPosAt),
			Err: reader.ErrCorrupt, Msg: fmt.Sprintf("the lazy array's SeekPos is 0x%X, but the array ends at 0x%X", la.SeekPos, int64(e.SerialOffset)+int64(la.End))}
	}
	a.Data = e.Data[la.Start:la.End:la.End]
	a.Offset = int64(e.SerialOffset) + int64(la.Start)
	return a, nil
}

// Extract returns the file embedded in Sound or Music export i, with the
// extension to save it under. Besides Locate's errors it refuses an empty
// array (ErrNoData), a sound whose FileType is WAV but whose data is no
// RIFF WAVE file, and music that is no module it knows; errors name the
// file, the export and the offset. A WAVE file that parses but does not
// play, or a FileType that disagrees with the file's signature, is
// reported in Asset.Problem.
func Extract(p *reader.Package, i int) (*Asset, error) {
	a, err := Locate(p, i)
	if err != nil {
		return nil, err
	}
	what := "sound"
	if a.Kind == reader.NativeMusic {
		what = "music"
	}
	label := fmt.Sprintf("export %d %s", i, a.Path)
	if len(a.Data) == 0 {
		return nil, fmt.Errorf("%s: %s holds no %s data (servers often ship packages stripped so): %w",
			p.FileName, label, what, ErrNoData)
	}
	corrupt := func(format string, args ...any) error {
		return &reader.FormatError{File: p.FileName, Struct: label + " data", Offset: a.Offset, Err: reader.ErrCorrupt, Msg: fmt.Sprintf(format, args...)}
	}
	ft := strings.ToLower(a.FileType)
	sig := Detect(a.Data)
	switch {
	case sig == "wav":
		a.Ext = "wav"
		a.WAV, err = ParseWAV(a.Data)
		if err == nil {
			err = a.WAV.Playable()
		}
		a.Problem = err
		if a.Kind == reader.NativeMusic {
			a.Problem = fmt.Errorf("the Music holds a WAVE file, not a module")
		}
	case sig != "" && a.Kind == reader.NativeSound && sig != "ogg" && sig != "mp3":
		return nil, corrupt("the data is a %s file (%q), not a sound", sig, printable(head(a.Data)))
	case sig != "":
		a.Ext = sig
	case ft == "wav":
		return nil, corrupt("FileType is %s, but the data starts with %q, not a RIFF WAVE header", a.FileType, printable(head(a.Data)))
	case a.Kind == reader.NativeMusic && moduleTypes[ft]:
		a.Ext = ft
		a.Problem = fmt.Errorf("the data has no %s module signature; saved as .%s from the FileType", a.FileType, ft)
	default:
		return nil, corrupt("FileType is %q and the data (%q…) has no signature of a %s format unrmod knows", a.FileType, printable(head(a.Data)), what)
	}
	if a.Problem == nil && ft != a.Ext {
		a.Problem = fmt.Errorf("FileType is %q, but the data is a %s file; saved as .%s", a.FileType, a.Ext, a.Ext)
	}
	return a, nil
}

// head returns the first bytes of b, for messages.
func head(b []byte) []byte { return b[:min(len(b), 8)] }
